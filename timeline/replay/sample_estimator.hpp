// The observer that turns a sampled log's blocks into estimates: the totals of `memlog stat`
// and, per stack, the four metrics of sites, flame and the top sites, each with its interval.
// Used in place of the per-stack metrics' own observer for a sampled log only.
#pragma once

#include <vector>

#include "timeline/replay/block_observer.hpp"
#include "timeline/replay/sample_estimates.hpp"
#include "timeline/replay/stack_metrics.hpp"

namespace memlog::timeline {

// The chance that a sampled log's recorder kept this block (format.hpp's sampleProbability: a
// mapping always; 0 bytes never): each kept one stands for 1/p of its kind. Every reader of a
// sampled log weights its blocks by this one function.
double sampledProbability(uint64_t meanBytes, const BlockChange& change);

class SampleEstimator final : public BlockObserver {
public:
    explicit SampleEstimator(uint64_t meanBytes) : m_meanBytes(meanBytes) {}
    void begin(const BlockChange& change) override;
    void end(const BlockChange& change) override;

    // After the pass: per stack, the estimates rounded (StackMetrics: what sites and flame sort
    // and print) and their intervals; the totals into `totals`.
    void finish(std::vector<StackMetrics>& metrics, std::vector<StackEstimates>& estimates,
                SampleEstimates& totals);

private:
    struct Entry {
        WeightedSum m_calls, m_bytes, m_live, m_atPeak, m_liveBlocks;
        uint64_t m_changedAt = 0;  // the peak version at this stack's last change (as PerStack)
    };
    Entry& touch(uint32_t stack);

    uint64_t m_meanBytes;
    std::vector<Entry> m_entries;
    WeightedSum m_calls, m_bytes, m_live, m_peak;
    uint64_t m_peakVersion = 0;
};

}  // namespace memlog::timeline
