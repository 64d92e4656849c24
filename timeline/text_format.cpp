// Number formatting for labels, legends and the header.
#include "timeline/text_format.hpp"

#include <cmath>
#include <cstdio>

namespace memlog::timeline {

namespace {

// Up to three significant digits, trailing zeros dropped: 1.5, 12, 250, 1.25.
std::string compact(double value) {
    char text[32];
    const double magnitude = std::fabs(value);
    const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    std::string out = text;
    if (out.find('.') != std::string::npos) {
        while (out.back() == '0') out.pop_back();
        if (out.back() == '.') out.pop_back();
    }
    return out;
}

}  // namespace

std::string bytesText(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (std::fabs(bytes) >= 1024 && unit < 4) bytes /= 1024, ++unit;
    return compact(bytes) + " " + units[unit];
}

std::string durationText(double ns) {
    if (ns == 0) return "0";
    const double magnitude = std::fabs(ns);
    if (magnitude >= 1e9) return compact(ns / 1e9) + " s";
    if (magnitude >= 1e6) return compact(ns / 1e6) + " ms";
    if (magnitude >= 1e3) return compact(ns / 1e3) + " \u00b5s";
    return compact(ns) + " ns";
}

std::string countText(uint64_t count) {
    const std::string digits = std::to_string(count);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string shortCountText(double count) {
    const double magnitude = std::fabs(count);
    if (magnitude >= 1e9) return compact(count / 1e9) + "G";
    if (magnitude >= 1e6) return compact(count / 1e6) + "M";
    if (magnitude >= 1e3) return compact(count / 1e3) + "k";
    return compact(count);
}

std::string hexText(uint64_t addr) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(addr));
    return text;
}

std::string countedText(uint64_t count, const char* noun) {
    return countText(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string peakText(uint64_t peakBytes, uint64_t blocksAtPeak, uint64_t peakBlocks) {
    return "peak " + bytesText(static_cast<double>(peakBytes)) + " in " + countedText(blocksAtPeak, "block") +
           " \u00b7 at most " + countedText(peakBlocks, "block") + " live";
}

}  // namespace memlog::timeline
