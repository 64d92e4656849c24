// Heap blocks and globals seen as arrays: the ones with access samples (for `memlog arrays`), or
// one chosen by address, by allocation sequence number, by site and ordinal, or by global name
// (for the array views). Each carries its samples as offsets, and the name a user knows it by:
// memlog_name() from memlog.h, else the variable the allocating source line assigns it to, else
// its allocation site (a global: its symbol).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "memlog/format.hpp"

namespace memlog::timeline {

class LogReader;
class StackNames;

struct ArraySample {
    uint64_t m_seq = 0;
    uint64_t m_timeNs = 0;
    uint64_t m_offset = 0;  // from the array's first byte
    uint64_t m_ip = 0;  // the accessing instruction
    uint32_t m_size = 0;
    uint32_t m_tid = 0;
    format::AccessKind m_kind = format::AccessKind::Read;
};

struct ArrayShape {
    uint64_t m_elementSize = 0;
    uint64_t m_rows = 0;
    uint64_t m_columns = 0;
    uint64_t m_depth = 1;  // 1: a 2-D array
    uint64_t cells() const { return m_rows * m_columns * m_depth; }
};

struct SampledArray {
    bool m_global = false;
    uint64_t m_blockSeq = 0;  // heap: the allocation's sequence number
    uint64_t m_addr = 0;
    uint64_t m_size = 0;
    uint64_t m_beginNs = 0;  // heap: from its allocation to its free (or the log's end)
    uint64_t m_endNs = 0;
    uint32_t m_stack = 0;  // heap: the allocating stack
    uint64_t m_ordinal = 0;  // heap: the K-th block its site allocated, from 1
    std::string m_site;  // heap: the allocating function
    std::string m_name;
    std::string m_nameFrom;  // "memlog_name", "source line FILE:LINE", "site", "symbol"
    uint64_t m_sourceElementSize = 0;  // sizeof(T) on the allocating line, when it shows one
    std::string m_sourceType;  // ... and T
    std::optional<ArrayShape> m_annotatedShape;  // memlog_array()
    std::vector<ArraySample> m_samples;  // in sequence order
};

// Every block and global with at least one sample, most sampled first.
std::vector<SampledArray> sampledArrays(LogReader& reader, StackNames& names);

// A user's words for one array: "0x5581c0a0" (an address), "seq=N" (the N-th allocation),
// "site=FUNCTION:K" (the K-th block FUNCTION allocated, K from 1) or "global=NAME".
struct ArraySpec {
    enum class By { Address, Seq, Site, Global } m_by = By::Address;
    uint64_t m_value = 0;  // the address, the sequence number, the ordinal
    std::string m_name;  // the site's function, the global
};
std::optional<ArraySpec> parseArraySpec(const std::string& spec);

// One array by a user's words: "0x5581c0a0" (the block that held that address longest, or the
// global there), "seq=N", "site=FUNCTION:K", "global=NAME". Empty with `error` set when nothing
// matches. The reader must have been walked once (the stacks and modules are known).
std::optional<SampledArray> findArray(LogReader& reader, StackNames& names, const std::string& spec,
                                      std::string* error);

}  // namespace memlog::timeline
