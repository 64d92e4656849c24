// Numbers as people type them: thin wrappers over memlog/option_row.hpp's reader.
#include "timeline/base/number_parsing.hpp"

#include <algorithm>

#include "memlog/option_row.hpp"

namespace memlog::timeline {
namespace {

template <size_t N>
std::optional<uint64_t> quantity(const std::string& text, const options::Unit (&units)[N], bool fraction) {
    uint64_t value = 0;
    if (!options::readNumber(text.c_str(), units, N, fraction, value)) return std::nullopt;
    return value;
}

}  // namespace

std::optional<uint64_t> parseCount(const std::string& text) { return quantity(text, options::kCountUnits, false); }

std::optional<uint64_t> parseByteSize(const std::string& text) { return quantity(text, options::kByteUnits, false); }

std::optional<uint64_t> parseDuration(const std::string& text) { return quantity(text, options::kTimeUnits, true); }

std::optional<double> parseReal(const std::string& text) {
    double value = 0;
    if (!options::readReal(text.c_str(), value)) return std::nullopt;
    return value;
}

std::optional<uint64_t> parseHex(const std::string& text) {
    uint64_t value = 0;
    if (!options::readHex(text.c_str(), value)) return std::nullopt;
    return value;
}

std::optional<std::vector<uint64_t>> parseCountList(const std::string& text, char separator) {
    std::vector<uint64_t> counts;
    for (size_t at = 0;;) {
        const size_t end = std::min(text.find(separator, at), text.size());
        const auto count = parseCount(text.substr(at, end - at));
        if (!count) return std::nullopt;
        counts.push_back(*count);
        if (end == text.size()) return counts;
        at = end + 1;
    }
}

}  // namespace memlog::timeline
