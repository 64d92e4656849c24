// Numbers as pictures and legends print them: bytes with binary units, durations with the unit that
// reads best, counts with thousands separators, addresses in hex.
#pragma once

#include <cstdint>
#include <string>

namespace memlog::timeline {

std::string bytesText(double bytes);          // "512 B", "1.5 KiB", "12.3 MiB"
std::string durationText(double ns);          // "0", "750 ns", "12.5 us", "3 ms", "1.25 s"
std::string countText(uint64_t count);        // "1,234,567"
std::string shortCountText(double count);     // "950", "12k", "1.5M"
std::string hexText(uint64_t addr);           // "0x55d0c8a2b000"

}  // namespace memlog::timeline
