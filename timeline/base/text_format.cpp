// Number formatting for labels, legends and the header.
#include "timeline/base/text_format.hpp"

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

std::string validUtf8(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    const size_t size = text.size();
    for (size_t i = 0; i < size;) {
        const unsigned char lead = bytes[i];
        // Length, and the range of the second byte that rules out overlong forms, surrogates and
        // code points past U+10FFFF (RFC 3629, table 3-7 of the Unicode standard).
        size_t length = 0;
        unsigned char low = 0x80, high = 0xbf;
        if (lead < 0x80)
            length = 1;
        else if (lead >= 0xc2 && lead <= 0xdf)
            length = 2;
        else if (lead >= 0xe0 && lead <= 0xef)
            length = 3, low = lead == 0xe0 ? 0xa0 : 0x80, high = lead == 0xed ? 0x9f : 0xbf;
        else if (lead >= 0xf0 && lead <= 0xf4)
            length = 4, low = lead == 0xf0 ? 0x90 : 0x80, high = lead == 0xf4 ? 0x8f : 0xbf;
        bool whole = length > 0 && i + length <= size;
        for (size_t k = 1; whole && k < length; ++k) {
            const unsigned char next = bytes[i + k];
            whole = k == 1 ? next >= low && next <= high : (next & 0xc0) == 0x80;
        }
        if (whole) {
            out.append(text, i, length);
            i += length;
        } else {
            out += "\xef\xbf\xbd";  // U+FFFD
            ++i;
        }
    }
    return out;
}

std::string jsonString(const std::string& text) {
    std::string out = "\"";
    for (const unsigned char c : validUtf8(text)) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

}  // namespace memlog::timeline
