// Hash tables keyed by numbers read from a log (addresses, sequence numbers, stack ids, thread
// ids). std::hash of an integer is the integer itself, and libstdc++'s tables take it modulo a
// prime bucket count: a crafted log whose keys are all multiples of that prime puts them in one
// bucket, and reading it takes time quadratic in their number. Here the key is xored with a
// seed chosen at start-up and mixed (the 64-bit finaliser of MurmurHash3), so no log can choose
// keys that collide.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

namespace memlog::timeline {

// Different in every run: the clock at start-up and where this variable was placed.
uint64_t runSeed();

struct SeededHash {
    size_t operator()(uint64_t key) const noexcept {
        uint64_t x = key ^ m_seed;
        x = (x ^ (x >> 33)) * 0xff51'afd7'ed55'8ccdull;
        x = (x ^ (x >> 33)) * 0xc4ce'b9fe'1a85'ec53ull;
        return static_cast<size_t>(x ^ (x >> 33));
    }
    uint64_t m_seed = runSeed();
};

template <typename Key, typename Value>
using NumberMap = std::unordered_map<Key, Value, SeededHash>;
template <typename Key>
using NumberSet = std::unordered_set<Key, SeededHash>;

}  // namespace memlog::timeline
