// Numbers as users type them on command lines.
#include "timeline/base/number_parsing.hpp"

#include <cctype>

namespace memlog::timeline {

std::optional<uint64_t> parseByteSize(const std::string& text) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
    size_t used = 0;
    uint64_t value = 0;
    try {
        value = std::stoull(text, &used, 10);
    } catch (...) {
        return std::nullopt;
    }
    const std::string unit = text.substr(used);
    const int shift = unit.empty()                 ? 0
                      : unit == "K" || unit == "k" ? 10
                      : unit == "M" || unit == "m" ? 20
                      : unit == "G" || unit == "g" ? 30
                                                   : -1;
    if (shift < 0 || value > (UINT64_MAX >> shift)) return std::nullopt;
    return value << shift;
}

}  // namespace memlog::timeline
