// The estimates' intervals, and the observer that sums a sampled log's blocks by their weights.
#include "timeline/replay/sample_estimates.hpp"

#include <algorithm>
#include <cmath>

#include "timeline/replay/sample_estimator.hpp"

namespace memlog::timeline {

namespace {

// P(X <= k) for X Poisson with mean `mean`: k is small here (fewer than kNormalFromSamples).
double poissonAtMost(uint64_t k, double mean) {
    double term = std::exp(-mean), sum = term;
    for (uint64_t i = 1; i <= k; ++i) {
        term *= mean / static_cast<double>(i);
        sum += term;
    }
    return sum;
}

// The mean at which `tail(mean)` (monotone in it) crosses 0.025, by bisection.
template <typename Tail>
double solveTail(Tail tail, double from, double to, bool rising) {
    for (int i = 0; i < 200; ++i) {
        const double middle = (from + to) / 2;
        if ((tail(middle) < 0.025) == rising)
            from = middle;
        else
            to = middle;
    }
    return (from + to) / 2;
}

}  // namespace

void poissonInterval(uint64_t observed, double& low, double& high) {
    const double k = static_cast<double>(observed);
    const double top = 10 + 4 * k;
    // Low: P(X >= k) = 0.025 (rises with the mean); high: P(X <= k) = 0.025 (falls with it).
    low = observed == 0 ? 0 : solveTail([&](double m) { return 1 - poissonAtMost(observed - 1, m); }, 0, top, true);
    high = solveTail([&](double m) { return poissonAtMost(observed, m); }, 0, top, false);
}

Estimate estimateOf(const WeightedSum& sum, double unitWeight) {
    Estimate estimate;
    estimate.m_sum = sum;
    estimate.m_samples = sum.m_samples;
    estimate.m_value = std::max(sum.m_value, 0.0);
    const double variance = std::max(sum.m_variance, 0.0);
    if (sum.m_samples >= kNormalFromSamples || (variance == 0 && sum.m_samples > 0)) {
        const double half = normalHalfWidth95(variance);
        estimate.m_low = estimate.m_value - half;
        estimate.m_high = estimate.m_value + half;
    } else {
        estimate.m_exactPoisson = true;
        double low, high;
        poissonInterval(sum.m_samples, low, high);
        if (sum.m_samples == 0) {
            estimate.m_high = high * unitWeight;
        } else {
            const double n = static_cast<double>(sum.m_samples);
            // sqrt(1 - p), on average: the estimate's relative spread over a Poisson count's.
            const double uncertain = std::min(1.0, std::sqrt(variance) / (estimate.m_value / std::sqrt(n)));
            estimate.m_low = estimate.m_value * (1 - uncertain * (1 - low / n));
            estimate.m_high = estimate.m_value * (1 + uncertain * (high / n - 1));
        }
    }
    estimate.m_low = std::max(estimate.m_low, std::max(sum.m_observed, 0.0));
    estimate.m_high = std::max(estimate.m_high, estimate.m_low);
    return estimate;
}

double sampledProbability(uint64_t meanBytes, const BlockChange& change) {
    return change.m_mapping ? 1.0 : format::sampleProbability(meanBytes, format::Kind::Malloc, change.m_size);
}

SampleEstimator::Entry& SampleEstimator::touch(uint32_t stack) {
    if (stack >= m_entries.size()) m_entries.resize(stack + 1);
    Entry& entry = m_entries[stack];
    if (entry.m_changedAt < m_peakVersion) {
        entry.m_atPeak = entry.m_live;  // unchanged since the latest peak
        entry.m_changedAt = m_peakVersion;
    }
    return entry;
}

void SampleEstimator::begin(const BlockChange& change) {
    const double p = sampledProbability(m_meanBytes, change), size = static_cast<double>(change.m_size);
    if (p <= 0) return;  // a block of 0 bytes is never sampled (the recorder's countdown)
    Entry& entry = touch(change.m_stack);
    if (!change.m_piece) {
        entry.m_calls.add(1, p);
        entry.m_bytes.add(size, p);
        m_calls.add(1, p);
        m_bytes.add(size, p);
    }
    entry.m_live.add(size, p);
    entry.m_liveBlocks.add(1, p);
    m_live.add(size, p);
    if (m_live.m_value > m_peak.m_value) {
        m_peak = m_live;
        ++m_peakVersion;
    }
}

void SampleEstimator::end(const BlockChange& change) {
    const double p = sampledProbability(m_meanBytes, change), size = static_cast<double>(change.m_size);
    if (p <= 0) return;
    Entry& entry = touch(change.m_stack);
    entry.m_live.remove(size, p);
    entry.m_liveBlocks.remove(1, p);
    m_live.remove(size, p);
}

void SampleEstimator::finish(std::vector<StackMetrics>& metrics, std::vector<StackEstimates>& estimates,
                             SampleEstimates& totals) {
    const double mean = static_cast<double>(m_meanBytes);
    auto rounded = [](const Estimate& estimate) { return static_cast<uint64_t>(std::llround(estimate.m_value)); };
    metrics.assign(m_entries.size(), {});
    estimates.assign(m_entries.size(), {});
    for (size_t i = 0; i < m_entries.size(); ++i) {
        Entry& entry = m_entries[i];
        if (entry.m_changedAt < m_peakVersion) entry.m_atPeak = entry.m_live;
        StackEstimates& stack = estimates[i];
        stack = {estimateOf(entry.m_calls, mean), estimateOf(entry.m_bytes, mean), estimateOf(entry.m_atPeak, mean),
                 estimateOf(entry.m_live, mean), estimateOf(entry.m_liveBlocks, mean)};
        StackMetrics& rows = metrics[i];
        rows.m_calls = rounded(stack.m_calls);
        rows.m_bytes = rounded(stack.m_bytes);
        rows.m_peakBytes = rounded(stack.m_peak);
        rows.m_leakedBytes = rounded(stack.m_leaked);
        rows.m_leakedBlocks = rounded(stack.m_leakedBlocks);
    }
    totals.m_meanBytes = m_meanBytes;
    totals.m_samples = m_calls.m_samples;
    totals.m_calls = estimateOf(m_calls, mean);
    totals.m_bytes = estimateOf(m_bytes, mean);
    totals.m_peak = estimateOf(m_peak, mean);
    totals.m_leaked = estimateOf(m_live, mean);
}

}  // namespace memlog::timeline
