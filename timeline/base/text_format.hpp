// Numbers as pictures and legends print them: bytes with binary units, durations with the unit that
// reads best, counts with thousands separators, addresses in hex.
#pragma once

#include <cstdint>
#include <string>

namespace memlog::timeline {

std::string bytesText(double bytes);  // "512 B", "1.5 KiB", "12.3 MiB"
std::string durationText(double ns);  // "0", "750 ns", "12.5 us", "3 ms", "1.25 s"
std::string countText(uint64_t count);  // "1,234,567"
std::string shortCountText(double count);  // "950", "12k", "1.5M"
std::string hexText(uint64_t addr);  // "0x55d0c8a2b000"
std::string countedText(uint64_t count, const char* noun);  // "1 block", "1,024 blocks"
// The two maximums of a log, which as a rule happen at different moments: "peak 125 B in 2 blocks
// · at most 3 blocks live" (the bytes' peak with the blocks live then, and the most blocks ever).
std::string peakText(uint64_t peakBytes, uint64_t blocksAtPeak, uint64_t peakBlocks);
// Text from a log or a binary (a program's path, a symbol, an annotation) as valid UTF-8: each
// byte that does not belong to a well-formed character becomes U+FFFD. Cairo refuses to draw
// invalid text at all, and JSON must not carry it.
std::string validUtf8(const std::string& text);
// A JSON string literal of `text` (as valid UTF-8): quoted, with quotes, backslashes and control
// characters escaped. The programs' --json outputs and the exports' JSON files share it.
std::string jsonString(const std::string& text);

}  // namespace memlog::timeline
