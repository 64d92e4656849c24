// Numbers as users type them on command lines: sizes with a unit. (Their output is
// text_format.hpp's.)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace memlog::timeline {

// "32K", "8M", "4096": bytes with an optional K, M or G (powers of 1024).
std::optional<uint64_t> parseByteSize(const std::string& text);

}  // namespace memlog::timeline
