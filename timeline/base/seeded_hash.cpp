#include "timeline/base/seeded_hash.hpp"

#include <chrono>

namespace memlog::timeline {

uint64_t runSeed() {
    static const uint64_t seed = [] {
        const auto now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
        // The address of this function moves with the executable's load address (ASLR).
        return (now * 0xff51'afd7'ed55'8ccdull) ^ reinterpret_cast<uintptr_t>(&runSeed);
    }();
    return seed;
}

}  // namespace memlog::timeline
