// FNV-1a over bytes, 64 bits: a checksum that tells a damaged file from a whole one, and a name
// that stays the same from run to run and build to build (std::hash promises neither). Not a
// defence against a file made to collide.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace memlog::timeline {

inline uint64_t fnv1a64(const void* data, size_t bytes) {
    uint64_t hash = 0xcbf2'9ce4'8422'2325ull;
    const auto* byte = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) hash = (hash ^ byte[i]) * 0x100'0000'01b3ull;
    return hash;
}

// The same step over 8-byte words, in four lanes (word i to lane i % 4) folded together at the
// end, then the bytes after the last four whole words: for arrays of gigabytes (a full trace's
// access samples in an index), where one lane's chain of multiplies, not the memory, set the pace.
inline uint64_t fnv1a64Words(const void* data, size_t bytes) {
    constexpr uint64_t kPrime = 0x100'0000'01b3ull;
    uint64_t lanes[4] = {0xcbf2'9ce4'8422'2325ull, 1, 2, 3};
    const auto* byte = static_cast<const unsigned char*>(data);
    const size_t rounds = bytes / 32;
    for (size_t r = 0; r < rounds; ++r)
        for (size_t lane = 0; lane < 4; ++lane) {
            uint64_t word;
            std::memcpy(&word, byte + 32 * r + 8 * lane, sizeof word);
            lanes[lane] = (lanes[lane] ^ word) * kPrime;
        }
    uint64_t hash = lanes[0];
    for (size_t lane = 1; lane < 4; ++lane) hash = (hash ^ lanes[lane]) * kPrime;
    for (size_t i = rounds * 32; i < bytes; ++i) hash = (hash ^ byte[i]) * kPrime;
    return hash;
}

}  // namespace memlog::timeline
