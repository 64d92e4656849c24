// Numbers as users type them on command lines.
#include "timeline/base/number_parsing.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

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

std::optional<uint64_t> parseDuration(const std::string& text) {
    if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.') ||
        text.find_first_of("xX") != std::string::npos)  // strtod reads hex too
        return std::nullopt;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    const std::string unit = end;
    const double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : unit == "s" ? 1e9 : 0;
    const double ns = std::round(value * scale);
    // strtod takes "inf" and "nan" too: the first character ruled them out.
    if (scale == 0 || !std::isfinite(ns) || ns < 0 || ns >= 1.8e19) return std::nullopt;
    return static_cast<uint64_t>(ns);
}

}  // namespace memlog::timeline
