// Sampled capture's randomness (MEMLOG_SAMPLE): each thread's generator and the exponential gaps
// it draws, in bytes. Header-only and free of libm (the recorder links none): -ln(u) from the
// double's exponent and an atanh series, good to about 1e-12, far below what a gap needs.
#pragma once

#include <cstdint>

namespace memlog::preload {

// splitmix64: one add and a mix a draw; any seed, 0 too, gives a full-period stream.
inline uint64_t nextRandom(uint64_t& state) {
    uint64_t z = (state += 0x9e37'79b9'7f4a'7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58'476d'1ce4'e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d0'49bb'1331'11ebull;
    return z ^ (z >> 31);
}

// The n-th thread's stream: the seed and n mixed, so that neighbouring seeds and threads draw
// unrelated gaps.
inline uint64_t streamStart(uint64_t seed, uint64_t ordinal) {
    uint64_t state = seed ^ (ordinal * 0xd1b5'4a32'd192'ed03ull);
    return nextRandom(state);
}

// -ln(u) for u in (0, 1]: u = 2^e * m with m in [1, 2), ln m = 2 atanh((m - 1) / (m + 1)).
constexpr double negativeLog(double u) {
    int exponent = 0;
    while (u < 1) u *= 2, --exponent;  // at most 53 halvings for the uniforms drawn below
    const double z = (u - 1) / (u + 1), z2 = z * z;
    double term = z, sum = 0;
    for (int k = 1; k <= 25; k += 2) {
        sum += term / k;
        term *= z2;
    }
    return -(exponent * 0.693'147'180'559'945'3 + 2 * sum);
}
static_assert(negativeLog(1.0) == 0);
static_assert(negativeLog(0.5) > 0.693'147'180'55 && negativeLog(0.5) < 0.693'147'180'56);

// A gap of the exponential distribution with mean `meanBytes`, rounded up to whole bytes: an
// allocation of s bytes crosses the continuous gap G exactly when s >= ceil(G), so the countdown
// in whole bytes samples it with probability 1 - exp(-s / mean), the readers' weight (format.hpp).
inline int64_t drawGap(uint64_t& state, uint64_t meanBytes) {
    const double uniform = (static_cast<double>(nextRandom(state) >> 11) + 1) * 0x1p-53;  // (0, 1]
    const double gap = negativeLog(uniform) * static_cast<double>(meanBytes);
    const int64_t whole = static_cast<int64_t>(gap);
    // At least a byte: an allocation of 0 bytes (p = 0) is never a sample.
    return whole + (static_cast<double>(whole) < gap || whole == 0);
}

}  // namespace memlog::preload
