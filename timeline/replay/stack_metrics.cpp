// Per-stack metrics. The peak is a moment, known only after a first pass; the second pass takes
// the per-stack live bytes at that moment.
#include "timeline/replay/stack_metrics.hpp"

#include <algorithm>
#include <string>

#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"
#include "timeline/replay/heap_replay.hpp"
#include "timeline/replay/sample_estimator.hpp"

namespace memlog::timeline {
namespace {

// One pass. The bytes each stack had live at the heap's peak are kept lazily: a stack's value
// at the latest peak is its live value at its first change after that peak (or at the end), so
// a new peak costs nothing and the pass stays O(events).
class PerStack final : public BlockObserver {
public:
    void begin(const BlockChange& change) override {
        Entry& entry = touch(change.m_stack);
        if (!change.m_piece) {  // a piece left by munmap is the same allocation
            ++entry.m_metrics.m_calls;
            entry.m_metrics.m_bytes += change.m_size;
        }
        entry.m_live += change.m_size;
        ++entry.m_liveBlocks;
        if (change.m_mapping) [[unlikely]] {
            entry.m_liveMapped += change.m_size;
            ++entry.m_liveMappedRegions;
        }
        m_total += change.m_size;
        if (m_total > m_peak) {
            m_peak = m_total;
            ++m_peakVersion;  // this stack's new value is its value at the new peak: caught later
        }
    }

    void end(const BlockChange& change) override {
        Entry& entry = touch(change.m_stack);
        entry.m_live -= change.m_size;
        --entry.m_liveBlocks;
        if (change.m_mapping) [[unlikely]] {
            entry.m_liveMapped -= change.m_size;
            --entry.m_liveMappedRegions;
        }
        m_total -= change.m_size;
    }

    std::vector<StackMetrics> take() {
        std::vector<StackMetrics> metrics;
        metrics.reserve(m_entries.size());
        for (Entry& entry : m_entries) {
            if (entry.m_changedAt < m_peakVersion) entry.m_metrics.m_peakBytes = entry.m_live;
            entry.m_metrics.m_leakedBytes = entry.m_live - entry.m_liveMapped;
            entry.m_metrics.m_leakedBlocks = entry.m_liveBlocks - entry.m_liveMappedRegions;
            entry.m_metrics.m_mappedAtExitBytes = entry.m_liveMapped;
            entry.m_metrics.m_mappedAtExitRegions = entry.m_liveMappedRegions;
            metrics.push_back(entry.m_metrics);
        }
        return metrics;
    }

private:
    struct Entry {
        StackMetrics m_metrics;
        uint64_t m_live = 0;  // heap blocks and mappings
        uint64_t m_liveBlocks = 0;
        uint64_t m_liveMapped = 0;  // of those, the mappings
        uint64_t m_liveMappedRegions = 0;
        uint64_t m_changedAt = 0;  // the peak version at this stack's last change
    };

    Entry& touch(uint32_t stack) {
        if (stack >= m_entries.size()) m_entries.resize(stack + 1);
        Entry& entry = m_entries[stack];
        if (entry.m_changedAt < m_peakVersion) {
            entry.m_metrics.m_peakBytes = entry.m_live;  // unchanged since the latest peak
            entry.m_changedAt = m_peakVersion;
        }
        return entry;
    }

    std::vector<Entry> m_entries;
    uint64_t m_total = 0;
    uint64_t m_peak = 0;
    uint64_t m_peakVersion = 0;
};

}  // namespace

bool parseMetric(const std::string& name, Metric& metric) {
    if (name == "calls")
        metric = Metric::Calls;
    else if (name == "bytes")
        metric = Metric::Bytes;
    else if (name == "peak")
        metric = Metric::Peak;
    else if (name == "leaked")
        metric = Metric::Leaked;
    else
        return false;
    return true;
}

const char* metricName(Metric metric) {
    switch (metric) {
        case Metric::Calls:
            return "calls";
        case Metric::Bytes:
            return "bytes";
        case Metric::Peak:
            return "peak";
        case Metric::Leaked:
            return "leaked";
    }
    return "?";
}

uint64_t metricValue(const StackMetrics& metrics, Metric metric) {
    switch (metric) {
        case Metric::Calls:
            return metrics.m_calls;
        case Metric::Bytes:
            return metrics.m_bytes;
        case Metric::Peak:
            return metrics.m_peakBytes;
        case Metric::Leaked:
            return metrics.m_leakedBytes;
    }
    return 0;
}

namespace {

// The pass of a log without samples to place: the events handed on in batches (decoded on a
// second thread when a core is idle: LogReader::forEachBatch), the per-stack metrics called
// directly (PerStack is final), where summarize() pays a std::function call per event and a
// virtual call per change (docs/BENCHMARKS.md, `memlog stat`). The same numbers: tests/timeline/test_stack_metrics.cpp.
class DirectPass final : public RecordSink {
public:
    DirectPass(Summary& summary, PerStack& perStack)
        : m_summary(summary), m_tally(summary, &perStack, nullptr, nullptr) {
        m_tally.m_keepTicks = summary.m_watchSampler == format::WatchSampler::ProcessWide;
    }
    void events(const Event* events, size_t count) override {
        m_summary.m_events += count;
        // The table's slots asked for a few events ahead: their misses overlap (a CPython log
        // of 336,720 live blocks spent half the pass waiting on them one at a time). Asking
        // for the events themselves as well measured no better.
        constexpr size_t kAhead = 8;
        for (size_t i = 0; i < std::min(count, kAhead); ++i) m_tally.prefetch(events[i]);
        for (size_t i = 0; i < count; ++i) {
            if (i + kAhead < count) m_tally.prefetch(events[i + kAhead]);
            m_tally.event(events[i]);
        }
    }
    void access(const AccessSample& sample) override { m_tally.access(sample); }
    bool wantsAccesses() const override { return true; }
    void finish() { m_tally.finish(); }

private:
    Summary& m_summary;
    tally::Tally<PerStack> m_tally;
};

}  // namespace

MeasuredLog measureStacks(LogReader& reader, const std::function<void(double)>& progress) {
    MeasuredLog measured;
    if (const uint64_t mean = reader.header().m_sampleMeanBytes) {
        // A sampled capture: every block weighted (sample_estimator.hpp), through summarize's
        // virtual calls; such a log is small.
        SampleEstimator estimator(mean);
        measured.m_summary = summarize(reader, progress, &estimator);
        estimator.finish(measured.m_stacks, measured.m_stackEstimates, measured.m_summary.m_sampling);
        if (measured.m_stacks.size() < reader.stacks().size()) {
            measured.m_stacks.resize(reader.stacks().size());
            measured.m_stackEstimates.resize(reader.stacks().size());
        }
        return measured;
    }
    PerStack perStack;
    if (tally::sampled(reader)) {
        measured.m_summary = summarize(reader, progress, &perStack);
    } else {
        measured.m_summary = tally::startSummary(reader);
        DirectPass pass(measured.m_summary, perStack);
        measured.m_decodedAlongside = reader.forEachBatch(pass, progress);
        pass.finish();
        tally::finishSummary(measured.m_summary, reader);
    }
    measured.m_stacks = perStack.take();
    if (measured.m_stacks.size() < reader.stacks().size()) measured.m_stacks.resize(reader.stacks().size());
    return measured;
}

}  // namespace memlog::timeline
