// traceEvents(): one replay feeds the counters (the process's and each allocating thread's) and
// the anomalies' instants; the phases come from the reader's annotations after it. Every event is
// then written as one line of JSON, sorted by time, so that timestamps never decrease.
#include "timeline/export/trace_events.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "timeline/base/seeded_hash.hpp"
#include "timeline/base/text_format.hpp"
#include "timeline/export/thinned_series.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/replay/block_observer.hpp"

namespace memlog::timeline {

namespace {

// Instants of one kind kept as ThinnedSeries keeps values: intervals that double past the bound,
// each holding its first instant and how many fell in it.
class ThinnedInstants {
public:
    struct Instant {
        uint64_t m_timeNs = 0;
        uint32_t m_tid = 0;
        uint64_t m_addr = 0;
        std::string m_text;
        uint64_t m_count = 1;
        uint64_t m_index = 0;
    };
    explicit ThinnedInstants(size_t bound) : m_bound(std::max<size_t>(bound, 2)) {}
    void add(Instant instant) {
        instant.m_timeNs = m_latestNs = std::max(m_latestNs, instant.m_timeNs);  // in order, as they are kept
        instant.m_index = instant.m_timeNs / m_widthNs;
        if (!m_kept.empty() && m_kept.back().m_index == instant.m_index) {
            ++m_kept.back().m_count;
            return;
        }
        m_kept.push_back(std::move(instant));
        while (m_kept.size() > m_bound) {
            m_widthNs *= 2;
            size_t kept = 0;
            for (Instant& each : m_kept) {
                each.m_index /= 2;
                if (kept > 0 && m_kept[kept - 1].m_index == each.m_index)
                    m_kept[kept - 1].m_count += each.m_count;
                else
                    m_kept[kept++] = std::move(each);
            }
            m_kept.resize(kept);
        }
    }
    const std::vector<Instant>& kept() const { return m_kept; }

private:
    size_t m_bound;
    uint64_t m_widthNs = 1000;
    uint64_t m_latestNs = 0;
    std::vector<Instant> m_kept;
};

// Live bytes and blocks over time, of the process or of one thread.
struct LiveSeries {
    explicit LiveSeries(size_t intervals) : m_bytesSeries(intervals), m_blocksSeries(intervals) {}
    void change(uint64_t timeNs, int64_t bytes, int64_t blocks) {
        m_bytes += static_cast<uint64_t>(bytes);
        m_blocks += static_cast<uint64_t>(blocks);
        m_bytesSeries.set(timeNs, m_bytes);
        m_blocksSeries.set(timeNs, m_blocks);
    }
    uint64_t m_bytes = 0;
    uint64_t m_blocks = 0;
    ThinnedSeries m_bytesSeries;
    ThinnedSeries m_blocksSeries;
};

class LiveCounters final : public BlockObserver {
public:
    explicit LiveCounters(const TraceEventBounds& bounds) : m_bounds(bounds), m_process(bounds.m_processIntervals) {}

    void begin(const BlockChange& change) override {
        const uint64_t timeNs = clamp(change.m_timeNs);
        // What munmap left of a mapping stays its allocating thread's.
        const uint32_t owner = change.m_piece && m_cutAt == change.m_seq ? m_cutOwner : change.m_tid;
        m_owners[key(change)] = owner;
        m_process.change(timeNs, static_cast<int64_t>(change.m_size), 1);
        thread(owner).change(timeNs, static_cast<int64_t>(change.m_size), 1);
    }

    void end(const BlockChange& change) override {
        const uint64_t timeNs = clamp(change.m_timeNs);
        uint32_t owner = change.m_tid;
        if (const auto known = m_owners.find(key(change)); known != m_owners.end()) {
            owner = known->second;
            m_owners.erase(known);
        }
        if (change.m_mapping) {
            m_cutAt = change.m_seq;
            m_cutOwner = owner;
        }
        m_process.change(timeNs, -static_cast<int64_t>(change.m_size), -1);
        thread(owner).change(timeNs, -static_cast<int64_t>(change.m_size), -1);
    }

    void anomaly(const AnomalyAt& anomaly) override {
        auto [at, added] = m_anomalies.try_emplace(anomaly.m_kind, nullptr);
        if (added) at->second = std::make_unique<ThinnedInstants>(m_bounds.m_instantIntervals);
        at->second->add({clamp(anomaly.m_timeNs), anomaly.m_tid, anomaly.m_addr, {}, 1, 0});
    }

    const LiveSeries& process() const { return m_process; }
    const std::unordered_map<uint32_t, std::unique_ptr<LiveSeries>>& threads() const { return m_threads; }
    const std::map<AnomalyKind, std::unique_ptr<ThinnedInstants>>& anomalies() const { return m_anomalies; }

private:
    // A heap block and a mapping never share an address, but the two tables of the replay keep
    // them apart all the same: so does this one.
    static uint64_t key(const BlockChange& change) {
        return change.m_mapping ? change.m_addr | (uint64_t{1} << 63) : change.m_addr;
    }
    // Records merged by sequence number may step back in time by a few ns between threads (each
    // core's clock): a trace's timestamps must not.
    uint64_t clamp(uint64_t timeNs) {
        m_latestNs = std::max(m_latestNs, timeNs);
        return m_latestNs;
    }
    LiveSeries& thread(uint32_t tid) {
        auto [at, added] = m_threads.try_emplace(tid, nullptr);
        if (added) at->second = std::make_unique<LiveSeries>(m_bounds.m_threadIntervals);
        return *at->second;
    }

    TraceEventBounds m_bounds;
    LiveSeries m_process;
    std::unordered_map<uint32_t, std::unique_ptr<LiveSeries>> m_threads;
    NumberMap<uint64_t, uint32_t> m_owners;  // per live block: its allocating thread
    std::map<AnomalyKind, std::unique_ptr<ThinnedInstants>> m_anomalies;
    uint64_t m_latestNs = 0;
    uint64_t m_cutAt = UINT64_MAX;  // the moment of the last mapping ended, and its owner
    uint32_t m_cutOwner = 0;
};

// "12.345": microseconds with the nanoseconds kept.
std::string microseconds(uint64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
    return text;
}

// The events, each one line of JSON, sorted by time when written (metadata first).
class EventLines {
public:
    void metadata(const std::string& line) { m_metadata.push_back(line); }
    void add(uint64_t timeNs, const std::string& line) { m_timed.push_back({timeNs, line}); }
    std::string json(const std::string& otherData) {
        std::stable_sort(m_timed.begin(), m_timed.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::string out = "{\"traceEvents\":[\n";
        bool first = true;
        const auto line = [&](const std::string& event) {
            out += first ? "" : ",\n";
            out += event;
            first = false;
        };
        for (const std::string& event : m_metadata) line(event);
        for (const auto& [timeNs, event] : m_timed) line(event);
        out += "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":" + otherData + "}\n";
        return out;
    }

private:
    std::vector<std::string> m_metadata;
    std::vector<std::pair<uint64_t, std::string>> m_timed;
};

// A counter's points: `name` one track, its value under `key`.
size_t addCounter(EventLines& lines, uint32_t pid, const std::string& name, const char* key,
                  const ThinnedSeries& series) {
    const std::vector<SeriesPoint> points = series.points();
    const std::string head = "{\"name\":" + jsonString(name) + ",\"ph\":\"C\",\"pid\":" + std::to_string(pid) + ",\"ts\":";
    for (const SeriesPoint& point : points)
        lines.add(point.m_timeNs, head + microseconds(point.m_timeNs) + ",\"args\":{\"" + key +
                                      "\":" + std::to_string(point.m_value) + "}}");
    return points.size();
}

// An instant: "s" "t" marks one thread's track, "p" the whole process.
std::string instant(const std::string& name, const char* category, const char* scope, uint32_t pid, uint32_t tid,
                    uint64_t timeNs, const std::string& args) {
    return "{\"name\":" + jsonString(name) + ",\"cat\":\"" + category + "\",\"ph\":\"i\",\"s\":\"" + scope +
           "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":" +
           microseconds(timeNs) + ",\"args\":{" + args + "}}";
}

}  // namespace

TraceEvents traceEvents(LogReader& reader, const TraceEventBounds& bounds, const std::function<void(double)>& progress) {
    LiveCounters counters(bounds);
    const Summary summary = summarize(reader, progress, &counters);
    const format::FileHeader& header = reader.header();
    const uint32_t pid = summary.m_pid;
    TraceEvents result;
    EventLines lines;
    lines.metadata("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
                   ",\"args\":{\"name\":" + jsonString(summary.m_exe + " (pid " + std::to_string(pid) + ")") + "}}");

    result.m_counterPoints += addCounter(lines, pid, "live bytes", "bytes", counters.process().m_bytesSeries);
    result.m_counterPoints += addCounter(lines, pid, "live blocks", "blocks", counters.process().m_blocksSeries);
    result.m_peakBytes = counters.process().m_bytesSeries.highest();

    // The threads with the highest peaks of their own (ties: the lower id), each its two tracks.
    std::vector<std::pair<uint64_t, uint32_t>> byPeak;  // (peak, tid)
    for (const auto& [tid, series] : counters.threads()) byPeak.push_back({series->m_bytesSeries.highest(), tid});
    std::sort(byPeak.begin(), byPeak.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    result.m_threadsShown = std::min(byPeak.size(), bounds.m_threads);
    result.m_threadsLeftOut = byPeak.size() - result.m_threadsShown;
    std::vector<uint32_t> shown;
    for (size_t i = 0; i < result.m_threadsShown; ++i) shown.push_back(byPeak[i].second);
    std::sort(shown.begin(), shown.end());
    for (const uint32_t tid : shown) {
        const LiveSeries& series = *counters.threads().at(tid);
        const std::string thread = ", thread " + std::to_string(tid);
        result.m_counterPoints += addCounter(lines, pid, "live bytes" + thread, "bytes", series.m_bytesSeries);
        result.m_counterPoints += addCounter(lines, pid, "live blocks" + thread, "blocks", series.m_blocksSeries);
    }

    const auto addInstants = [&](const ThinnedInstants& instants, const std::function<std::string(const ThinnedInstants::Instant&)>& line) {
        for (const ThinnedInstants::Instant& each : instants.kept()) {
            lines.add(each.m_timeNs, line(each));
            ++result.m_instants;
        }
    };
    for (const auto& [kind, instants] : counters.anomalies())
        addInstants(*instants, [&, kind = kind](const ThinnedInstants::Instant& each) {
            return instant(anomalyName(kind), "anomaly", "t", pid, each.m_tid, each.m_timeNs,
                           "\"address\":\"" + hexText(each.m_addr) + "\",\"count\":" + std::to_string(each.m_count));
        });
    ThinnedInstants phases(bounds.m_instantIntervals);
    for (const Annotation& annotation : reader.annotations())
        if (annotation.m_what == format::AnnotationKind::Phase)
            phases.add({annotation.m_timeNs, annotation.m_tid, 0, annotation.m_text, 1, 0});
    addInstants(phases, [&](const ThinnedInstants::Instant& each) {
        return instant(each.m_text, "phase", "p", pid, each.m_tid, each.m_timeNs,
                       "\"count\":" + std::to_string(each.m_count));
    });

    // What the header knows of the process's life: forked from its parent before it recorded,
    // and an exec that ended its log (the new program writes a log of its own).
    if (header.m_flags & format::kFlagForkChild) {
        lines.add(0, instant("fork", "process", "p", pid, pid, 0, "\"parent_pid\":" + std::to_string(header.m_parentPid)));
        ++result.m_instants;
    }
    if ((header.m_flags & format::kFlagCleanEnd) && header.m_endReason == format::EndReason::Exec) {
        const uint64_t lastNs = format::tscToNs(header, reader.lastTsc());
        const uint64_t endNs = std::max(header.m_endNs, lastNs);
        const uint64_t atNs = endNs > header.m_startNs ? endNs - header.m_startNs : 0;
        lines.add(atNs, instant("exec", "process", "p", pid, pid, atNs, ""));
        ++result.m_instants;
    }

    for (const uint32_t tid : shown)
        lines.metadata("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" +
                       std::to_string(tid) + ",\"args\":{\"name\":\"thread " + std::to_string(tid) + "\"}}");
    const std::string otherData =
        "{\"memlog_log\":" + jsonString(reader.path()) + ",\"exe\":" + jsonString(summary.m_exe) +
        ",\"pid\":" + std::to_string(pid) + ",\"peak_bytes\":" + std::to_string(summary.m_peakBytes) +
        ",\"peak_blocks\":" + std::to_string(summary.m_peakBlocks) +
        ",\"threads_shown\":" + std::to_string(result.m_threadsShown) +
        ",\"threads_left_out\":" + std::to_string(result.m_threadsLeftOut) +
        ",\"interval_ns\":" + std::to_string(counters.process().m_bytesSeries.intervalNs()) + "}";
    result.m_json = lines.json(otherData);
    return result;
}

}  // namespace memlog::timeline
