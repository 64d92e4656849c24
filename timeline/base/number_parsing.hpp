// Numbers as users type them on command lines: sizes and durations with a unit. (Their output is
// text_format.hpp's.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace memlog::timeline {

// "32K", "8M", "4096": bytes with an optional K, M or G (powers of 1024).
std::optional<uint64_t> parseByteSize(const std::string& text);
// "1.5s", "250ms", "40us", "1200ns": nanoseconds; the unit is required (a bare number could be
// any of them). Nothing for a negative, malformed or too large value.
std::optional<uint64_t> parseDuration(const std::string& text);

}  // namespace memlog::timeline
