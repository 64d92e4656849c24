// What each call stack allocated: calls, bytes, bytes live at the program's peak, bytes leaked.
// The four metrics of `memlog sites`, `memlog flame` and the top sites of `memlog stat`.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "timeline/replay/sample_estimates.hpp"
#include "timeline/replay/summary.hpp"

namespace memlog::timeline {

class LogReader;

struct StackMetrics {
    uint64_t m_calls = 0;  // blocks begun
    uint64_t m_bytes = 0;  // bytes of those blocks
    uint64_t m_peakBytes = 0;  // bytes still live when the whole heap peaked
    uint64_t m_leakedBytes = 0;  // heap blocks live at the end
    uint64_t m_leakedBlocks = 0;
    uint64_t m_suppressedBytes = 0;  // live at the end but matched by a suppression (suppressions.hpp)
    uint64_t m_suppressedBlocks = 0;
    uint64_t m_mappedAtExitBytes = 0;  // mappings live at the end: not leaks, never suppressed
    uint64_t m_mappedAtExitRegions = 0;
};

enum class Metric { Calls, Bytes, Peak, Leaked };
bool parseMetric(const std::string& name, Metric& metric);  // "calls", "bytes", "peak", "leaked"
const char* metricName(Metric metric);
uint64_t metricValue(const StackMetrics& metrics, Metric metric);

struct MeasuredLog {
    Summary m_summary;
    std::vector<StackMetrics> m_stacks;  // index: stack id (0: events without a stack)
    // A sampled log: m_stacks holds the estimates, rounded, and this their intervals; else empty.
    std::vector<StackEstimates> m_stackEstimates;
    bool m_decodedAlongside = false;  // a second thread decoded the log (LogReader::forEachBatch)
};

// One pass over the log: the summary and every block attributed to its allocating stack.
MeasuredLog measureStacks(LogReader& reader, const std::function<void(double)>& progress = {});

}  // namespace memlog::timeline
