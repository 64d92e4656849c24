// The reader's own parts, shared by its two files: log_reader.cpp (the file opened, its header
// checked, its chunks found) and log_walk.cpp (their records decoded and merged). Internal to
// timeline/: nothing outside the reader includes it.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "timeline/base/sigbus_guard.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/read/trace_decoder.hpp"

namespace memlog::timeline {

struct ChunkRef {
    uint64_t m_offset;  // of the ChunkHeader
    uint64_t m_end;  // one past the last byte to read (clamped to the file end)
    bool m_cutShort;  // the file ends before the chunk does
    uint64_t m_claimedEnd;  // where its header says it ends: m_end once the file has grown past it
};

// One thread's records, chunk after chunk, decoded one record at a time.
struct ThreadCursor {
    uint32_t m_tid = 0;
    uint32_t m_stream = 0;  // ChunkHeader::m_reserved: the recorder's, or format::kTraceStream
    std::vector<ChunkRef> m_chunks;
    size_t m_nextChunk = 0;
    const uint8_t* m_at = nullptr;
    const uint8_t* m_end = nullptr;
    format::ChunkCursorState m_deltas;
    // The record waiting to be merged: a heap record, or an access sample when m_isAccess.
    format::HeapRecord m_record;
    format::AccessRecord m_access;
    bool m_isAccess = false;
    // A full trace's stream (format_trace.hpp): its state, made at its first trace record; and
    // where its records end so far, for the warning when it stops without its end.
    std::unique_ptr<TraceDecoder> m_trace;
    uint64_t m_recordsEnd = 0;
    // A walk in steps (LogReader::followGrowth): the cursor's record waits in the merge. Else the
    // cursor has read all the file holds of its thread so far, and stands where more may come.
    bool m_merging = false;
    uint64_t waitingSeq() const { return m_isAccess ? m_access.m_seq : m_record.m_seq; }
    uint64_t waitingTsc() const { return m_isAccess ? m_access.m_tsc : m_record.m_tsc; }
};

// format::tscToNs with the division taken out of the per-event path: the rate becomes a 32.32
// fixed-point multiplier once per log.
class TscClock {
public:
    explicit TscClock(const format::FileHeader& header) : m_startTsc(header.m_startTsc) {
        const uint64_t probeTicks = 1ull << 40;
        const uint64_t probeNs = format::tscToNs(header, header.m_startTsc + probeTicks) - header.m_startNs;
        m_nsPerTickQ32 = static_cast<uint64_t>((static_cast<__int128>(probeNs) << 32) / probeTicks);
    }
    uint64_t sinceStart(uint64_t tsc) const {
        const int64_t ticks = static_cast<int64_t>(tsc - m_startTsc);
        return static_cast<uint64_t>((static_cast<__int128>(ticks) * m_nsPerTickQ32) >> 32);
    }

private:
    uint64_t m_startTsc;
    uint64_t m_nsPerTickQ32;
};

// memcmp against zeros, a page at a time: a killed program's log can end in tens of MiB of
// reserved, unwritten space, which the chunk scan checks.
inline bool allZero(const uint8_t* from, const uint8_t* to) {
    static const uint8_t zeros[format::kPageBytes] = {};
    while (from < to) {
        const size_t bytes = std::min<size_t>(static_cast<size_t>(to - from), sizeof zeros);
        if (std::memcmp(from, zeros, bytes) != 0) return false;
        from += bytes;
    }
    return true;
}

struct LogReader::Impl {
    int m_fd = -1;
    MappedLog* m_watched = nullptr;  // for SIGBUS: exitWhenALogIsCutWhileRead
    const uint8_t* m_data = nullptr;
    uint64_t m_size = 0;
    uint64_t m_mappedBytes = 0;  // m_size, or more with room for a followed log to grow into
    format::FileHeader m_header{};
    std::vector<ThreadCursor> m_threads;
    std::map<std::pair<uint32_t, uint32_t>, size_t> m_threadIndex;  // m_threads' by thread and stream
    // The chunk scan (LogReader::Impl::scanChunks): where it stopped, and the empty pages it
    // passed, where a live log's chunks may begin later (reserved by a thread that has not yet
    // written its header).
    uint64_t m_scanEnd = 0;
    std::vector<std::pair<uint64_t, uint64_t>> m_emptyRuns;
    bool m_chunkOutOfOrder = false;  // a chunk found behind its thread's last (scanChunks)
    StackRecords m_stacks;
    std::vector<Module> m_modules;
    std::vector<ThreadStackRange> m_threadStacks;
    std::vector<Annotation> m_annotations;  // m_timeNs holds the TSC until the walk ends
    uint64_t m_lostRecords = 0;
    uint64_t m_stacksRead = 0;
    uint64_t m_moduleMapSeq = 0;
    uint64_t m_bytesDone = 0;
    bool m_leaveOutTraces = false;  // LogReader::leaveOutTraces: a walk passes the trace streams by
    static constexpr uint64_t kDropAtOnce = 8 << 20;
    uint64_t m_readFrom = 0, m_readTo = 0;  // chunks read whose pages dropRead has not dropped yet
    uint64_t m_firstTsc = UINT64_MAX;
    uint64_t m_lastTsc = 0;
    // The first place a walk stopped early (a torn tail), and why; m_stopReason empty: none.
    uint64_t m_stoppedAt = 0;
    std::string m_stopReason;

    // Pages of data skipped because they were not a readable chunk: the first such place, and
    // how many places and bytes in all. Found when the file is opened; kept across walks.
    uint64_t m_skippedAt = 0;
    uint64_t m_skippedTo = 0;
    std::string m_skipReason;
    uint64_t m_skippedPlaces = 0;
    uint64_t m_skippedBytes = 0;

    // A walk in steps (LogReader::followGrowth): the cut's source, the merge's waiting threads
    // (a min-heap of their waiting sequence numbers and their index), the last sequence number
    // delivered, and how many annotations have had their times converted.
    std::function<uint64_t()> m_cutNow;
    std::vector<std::pair<uint64_t, size_t>> m_merge;
    uint64_t m_lastDelivered = 0;
    size_t m_annotationsTimed = 0;
    uint64_t m_readOnFrom = 0;  // the file's size at the last walk's end
    bool m_outOfStep = false;  // a record turned up before one delivered: read the log anew

    // Finds the chunks in [from, to) of the file (to: the mapped file's size), adding them to
    // their threads; the empty pages it passes are noted in m_emptyRuns.
    void scanChunks(uint64_t from, uint64_t to);

    void noteSkip(uint64_t from, uint64_t to, const std::string& reason) {
        if (m_skippedPlaces++ == 0) {
            m_skippedAt = from;
            m_skippedTo = to;
            m_skipReason = reason;
        }
        m_skippedBytes += to - from;
    }

    // A chunk read to its end: its pages leave this process (the page cache keeps them), so that
    // a model built alongside the walk is the memory a big log costs. Neighbouring chunks leave
    // together, up to kDropAtOnce: each call stops the other core to flush its TLB (an
    // interrupt between processors, which a hypervisor makes dear), and one call per 64 KiB
    // chunk was 750 calls on a 49 MB log.
    void dropRead(uint64_t from, uint64_t to) {
        if (from == m_readTo && m_readTo != 0) {
            m_readTo = to;
        } else if (to == m_readFrom) {
            m_readFrom = from;
        } else {
            dropPendingReads();
            m_readFrom = from;
            m_readTo = to;
        }
        if (m_readTo - m_readFrom >= kDropAtOnce) dropPendingReads();
    }
    void dropPendingReads() {
        if (m_readTo > m_readFrom)
            madvise(const_cast<uint8_t*>(m_data) + m_readFrom, m_readTo - m_readFrom, MADV_DONTNEED);
        m_readFrom = m_readTo = 0;
    }

    bool leftOut(const ThreadCursor& cursor) const {
        return m_leaveOutTraces && cursor.m_stream == format::kTraceStream;
    }

    void noteStop(uint64_t offset, const std::string& reason) {
        if (!m_stopReason.empty() && m_stoppedAt <= offset) return;
        m_stoppedAt = offset;
        m_stopReason = reason;
    }

    // Stack ids are handed out densely in time order, and the merge follows time: an id far beyond
    // the stacks read so far is corruption, not a reason to allocate gigabytes (every per-stack
    // table of the readers is indexed by it). The slack covers ids whose Stack record another
    // thread has not reached yet.
    bool plausibleStackId(uint64_t id) const { return id <= 2 * m_stacksRead + m_threads.size() + 65536; }

    void noteTime(uint64_t tsc) {
        m_firstTsc = std::min(m_firstTsc, tsc);
        m_lastTsc = std::max(m_lastTsc, tsc);
    }
};

}  // namespace memlog::timeline
