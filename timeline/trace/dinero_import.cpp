#include "timeline/trace/dinero_import.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "timeline/trace/trace_log_writer.hpp"

namespace memlog::timeline {

namespace {

constexpr uint64_t kDefaultSize = 4;

bool parseHex(const std::string& text, uint64_t& value) {
    std::string digits = text;
    if (digits.rfind("0x", 0) == 0 || digits.rfind("0X", 0) == 0) digits = digits.substr(2);
    if (digits.empty() || digits.size() > 16) return false;
    char* end = nullptr;
    errno = 0;
    value = std::strtoull(digits.c_str(), &end, 16);
    return errno == 0 && end && *end == 0;
}

}  // namespace

DineroImport importDinero(const std::string& input, const std::string& output) {
    std::ifstream in(input);
    if (!in) throw DineroError(input + ": cannot open: " + std::strerror(errno));
    DineroImport result;
    const std::string base = input.substr(input.rfind('/') == std::string::npos ? 0 : input.rfind('/') + 1);
    TraceLogWriter writer(output, base, "imported from the Dinero trace " + input);  // throws: nothing made
    try {
        std::string line;
        uint64_t lineNumber = 0, order = 0;
        while (std::getline(in, line)) {
            ++lineNumber;
            if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r") == std::string::npos) continue;
            std::istringstream fields(line);
            std::string label, address, size;
            fields >> label >> address >> size;
            uint64_t addr = 0, bytes = kDefaultSize;
            const bool known = label.size() == 1 && label[0] >= '0' && label[0] <= '4';
            if (!known || !parseHex(address, addr) ||
                (!size.empty() && (size.find_first_not_of("0123456789") != std::string::npos ||
                                   (bytes = std::stoull(size)) == 0 || bytes > 4096)))
                throw DineroError(
                    input + ":" + std::to_string(lineNumber) +
                    ": not a Dinero reference (LABEL 0-4, a hex ADDRESS, an optional SIZE of 1 to 4096): '" +
                    line.substr(0, 80) + "'");
            if (label[0] != '0' && label[0] != '1') {
                ++result.m_skipped;
                continue;
            }
            format::AccessRecord record;
            record.m_seq = ++order;
            record.m_tsc = order;
            record.m_addr = addr;
            record.m_size = bytes;
            record.m_kind = label[0] == '1' ? format::AccessKind::Write : format::AccessKind::Read;
            record.m_source = format::AccessSource::Trace;
            writer.add(1, record);
            ++(label[0] == '1' ? result.m_writes : result.m_reads);
        }
        if (in.bad()) throw DineroError(input + ": cannot read: " + std::strerror(errno));
        writer.finish();
    } catch (...) {
        unlink(output.c_str());
        throw;
    }
    return result;
}

}  // namespace memlog::timeline
