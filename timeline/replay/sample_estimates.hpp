// Estimates from a sampled log (format.hpp, "Sampled capture"): each sampled allocation of s
// bytes stands for 1/p of its kind, p = 1 - exp(-s / mean); a sum of such values is unbiased,
// with variance the sum of (1 - p) / p^2 times the squared value, and comes with a 95 % interval.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "memlog/format.hpp"

namespace memlog::timeline {

// A running sum of weighted samples: what a total would be without sampling, and how sure.
struct WeightedSum {
    double m_value = 0;     // sum of v / p
    double m_variance = 0;  // sum of (1 - p) v^2 / p^2
    double m_observed = 0;  // sum of v: what the samples themselves hold (the truth is no less)
    uint64_t m_samples = 0;

    void add(double value, double p) {
        m_value += value / p;
        m_variance += (1 - p) * value * value / (p * p);
        m_observed += value;
        ++m_samples;
    }
    void remove(double value, double p) {
        m_value -= value / p;
        m_variance -= (1 - p) * value * value / (p * p);
        m_observed -= value;
        --m_samples;
    }
    // Two sums as one (the stacks of a site; the sites of a function): their values, variances
    // and samples add up.
    void merge(const WeightedSum& part) {
        m_value += part.m_value;
        m_variance += part.m_variance;
        m_observed += part.m_observed;
        m_samples += part.m_samples;
    }
    // What is left of a sum without a part of it (a suppressed stack's leaks).
    void subtract(const WeightedSum& part) {
        m_value -= part.m_value;
        m_variance -= part.m_variance;
        m_observed -= part.m_observed;
        m_samples -= part.m_samples;
    }
};

struct Estimate {
    double m_value = 0;
    double m_low = 0;  // the 95 % interval
    double m_high = 0;
    uint64_t m_samples = 0;
    bool m_exactPoisson = false;  // few samples: the interval is Poisson's exact one, not the normal
    WeightedSum m_sum;  // what it was made from
};

// Half the width of the normal 95 % interval of an estimate with this variance (1.96 sd; a
// variance a rounding error below 0 counts as 0).
inline double normalHalfWidth95(double variance) { return 1.96 * std::sqrt(std::max(variance, 0.0)); }

// Samples at and above which the normal approximation gives the interval.
inline constexpr uint64_t kNormalFromSamples = 30;

// The 95 % interval of `sum`. Many samples: value +- 1.96 sd. Few: the exact (Garwood) Poisson
// interval of the sample count, scaled to the estimate and shrunk by sqrt(1 - p) (the share of a
// sample's weight that is uncertain: large allocations, p near 1, are exact). `unitWeight`: what
// one sample stands for when there are none (the mean gap for bytes). The low end is never
// below what the samples hold.
Estimate estimateOf(const WeightedSum& sum, double unitWeight);

// The exact Poisson interval for a count of `observed` events: [low, high] of its mean at 95 %.
void poissonInterval(uint64_t observed, double& low, double& high);

// What `memlog stat` adds for a sampled log.
struct SampleEstimates {
    uint64_t m_meanBytes = 0;  // 0: the log is not sampled, and nothing here is set
    uint64_t m_samples = 0;  // sampled blocks (allocations recorded)
    uint64_t m_setOverflow = 0;  // samples dropped by the recorder (its set of live blocks full)
    Estimate m_calls;  // blocks allocated
    Estimate m_bytes;  // bytes allocated
    Estimate m_peak;  // the estimated live bytes at their largest, and the interval at that moment
    Estimate m_leaked;  // live at the end
};

// Per stack, the same four metrics and the leaked blocks (index: stack id).
struct StackEstimates {
    Estimate m_calls, m_bytes, m_peak, m_leaked, m_leakedBlocks;
};

}  // namespace memlog::timeline
