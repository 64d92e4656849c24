// FNV-1a over bytes, 64 bits: a checksum that tells a damaged file from a whole one, and a name
// that stays the same from run to run and build to build (std::hash promises neither). Not a
// defence against a file made to collide.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memlog::timeline {

inline uint64_t fnv1a64(const void* data, size_t bytes) {
    uint64_t hash = 0xcbf2'9ce4'8422'2325ull;
    const auto* byte = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) hash = (hash ^ byte[i]) * 0x100'0000'01b3ull;
    return hash;
}

}  // namespace memlog::timeline
