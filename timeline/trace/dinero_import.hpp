// Reads a Dinero trace (.din: one "LABEL ADDRESS [SIZE]" line per reference, LABEL 0 a read,
// 1 a write, 2 an instruction fetch, 3 and 4 other; ADDRESS in hex; SIZE in bytes, 4 when left
// out) into a .memlog log of accesses alone, each in the order of the trace, one nanosecond apart.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace memlog::timeline {

struct DineroImport {
    uint64_t m_reads = 0;
    uint64_t m_writes = 0;
    uint64_t m_skipped = 0;  // instruction fetches and the other labels: not data accesses
};

// A line that is not a Dinero reference: what() names the file and the line.
class DineroError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws DineroError on bad input, std::runtime_error when `output` cannot be written (nothing
// is left at `output` then).
DineroImport importDinero(const std::string& input, const std::string& output);

}  // namespace memlog::timeline
