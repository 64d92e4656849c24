// A log as Chrome's trace-event JSON (chrome://tracing, Perfetto, speedscope's importers): live
// bytes and live blocks as counters ("ph": "C", microseconds) for the process and for each of its
// busiest threads, each series thinned to a bounded number of intervals that keep their highest
// and lowest values (thinned_series.hpp); instant events for the anomalies, the memlog_phase()
// marks, and the fork and exec the log's header knows of. The file's size is bounded by the
// bounds below, not by the log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace memlog::timeline {

class LogReader;

struct TraceEventBounds {
    size_t m_processIntervals = 2000;  // per process series (live bytes, live blocks)
    size_t m_threadIntervals = 250;  // per thread series
    size_t m_threads = 16;  // threads with series of their own: the highest peaks of their own
    size_t m_instantIntervals = 500;  // per kind of instant (each anomaly's, the phases')
};

struct TraceEvents {
    std::string m_json;
    size_t m_counterPoints = 0;
    size_t m_instants = 0;  // events; one may stand for several of its interval (its "count")
    size_t m_threadsShown = 0;
    size_t m_threadsLeftOut = 0;  // threads that allocated but have no series of their own
    uint64_t m_peakBytes = 0;  // the highest live bytes in the file: `memlog stat`'s peak
};

// One replay of the whole log; throws LogError. A block's bytes count for the thread that
// allocated it until it ends, whichever thread frees it.
TraceEvents traceEvents(LogReader& reader, const TraceEventBounds& bounds = {},
                        const std::function<void(double)>& progress = {});

}  // namespace memlog::timeline
