// The summary's numbers that come from the log's header before the replay and from the reader
// after it, and the samplers' states as text.
#include "timeline/replay/summary.hpp"

#include <cstring>

#include "timeline/read/log_reader.hpp"
#include "timeline/replay/heap_replay.hpp"

namespace memlog::timeline {

namespace tally {

Summary startSummary(const LogReader& reader) {
    Summary summary;
    const format::FileHeader& header = reader.header();
    summary.m_formatVersion = header.m_version;
    summary.m_complete = reader.complete();
    summary.m_pid = header.m_pid;
    summary.m_parentPid = header.m_parentPid;
    summary.m_exe = std::string(header.m_exe, strnlen(header.m_exe, sizeof(header.m_exe)));
    summary.m_accessSampler = header.m_accessSampler;
    summary.m_accessRate = header.m_accessRate;
    summary.m_accessStatus =
        std::string(header.m_accessStatus, strnlen(header.m_accessStatus, sizeof(header.m_accessStatus)));
    summary.m_accessCounters = header.m_accessCounters;
    summary.m_unwindChecked = header.m_unwindChecked;
    summary.m_unwindMismatches = header.m_unwindMismatches;
    summary.m_unwindFullWalks = header.m_unwindFullWalks;
    summary.m_watchSampler = header.m_watchSampler;
    summary.m_watchRate = header.m_watchRate;
    summary.m_watchStatus =
        std::string(header.m_watchStatus, strnlen(header.m_watchStatus, sizeof(header.m_watchStatus)));
    summary.m_watchCounters = header.m_watchCounters;
    if (header.m_sampleMeanBytes) {  // estimates: measureStacks fills them in
        summary.m_sampling.m_meanBytes = header.m_sampleMeanBytes;
        summary.m_sampling.m_setOverflow = header.m_sampleSetOverflow;
    }
    return summary;
}

void finishSummary(Summary& summary, const LogReader& reader) {
    const format::FileHeader& header = reader.header();
    summary.m_threads = reader.threadCount();
    summary.m_lostEvents = reader.lostEvents();
    summary.m_lostMetaRecords = header.m_lostMetaRecords;
    summary.m_stacks = reader.stacks().nonEmpty();
    if (reader.lastTsc() >= reader.firstTsc())
        summary.m_durationNs = format::tscToNs(header, reader.lastTsc()) - format::tscToNs(header, reader.firstTsc());
}

}  // namespace tally

std::string accessSamplerText(const Summary& summary) {
    switch (summary.m_accessSampler) {
        case format::AccessSampler::Off:
            return "off";
        case format::AccessSampler::Unavailable:
            return "unavailable: " +
                   (summary.m_accessStatus.empty() ? std::string("no reason given") : summary.m_accessStatus);
        case format::AccessSampler::ProcessWide:
            return "process-wide watchpoints";
        case format::AccessSampler::PerThread:
            return "per-thread watchpoints";
        case format::AccessSampler::TickPerfClock:
            return "ticks (perf task clock)";
        case format::AccessSampler::TickThreadTimers:
            return "ticks (thread CPU timers)";
        case format::AccessSampler::FullTrace:
            return "every access (a full trace: exact counts, not samples)";
    }
    return "unknown (" + std::to_string(static_cast<uint32_t>(summary.m_accessSampler)) + ")";
}

std::string watchSamplerText(const Summary& summary) {
    switch (summary.m_watchSampler) {
        case format::WatchSampler::Off:
            return "off";
        case format::WatchSampler::Unavailable:
            return "unavailable: " +
                   (summary.m_watchStatus.empty() ? std::string("no reason given") : summary.m_watchStatus);
        case format::WatchSampler::ProcessWide:
            return "process-wide (four debug registers)";
    }
    return "unknown (" + std::to_string(static_cast<uint32_t>(summary.m_watchSampler)) + ")";
}

}  // namespace memlog::timeline
