// Numbers as people type them on command lines: counts, sizes with a unit, times with a unit,
// factors and addresses, each read by the one reader of memlog/option_row.hpp that the
// recorder's settings use too. (Their output is text_format.hpp's.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace memlog::timeline {

std::optional<uint64_t> parseCount(const std::string& text);  // "4096": digits only
std::optional<uint64_t> parseByteSize(const std::string& text);  // "32K", "8M", "4096": K, M, G are powers of 1024
std::optional<uint64_t> parseDuration(const std::string& text);  // "1.5s", "200ms", "40ns", "12" (ns): in ns
std::optional<double> parseReal(const std::string& text);  // "0.3", "2"
std::optional<uint64_t> parseHex(const std::string& text);  // "0x55d0c8a2b000" or "55d0c8a2b000"
// "1600x1000" with 'x': the counts between the separators, each parseCount's; nothing if one is not.
std::optional<std::vector<uint64_t>> parseCountList(const std::string& text, char separator);

}  // namespace memlog::timeline
