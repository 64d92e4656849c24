// The reader's own parts, shared by its two files: log_reader.cpp (the file opened, its header
// checked, its chunks found) and log_walk.cpp (their records decoded and merged). Internal to
// timeline/: nothing outside the reader includes it.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
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
    uint64_t waitingSeq() const { return m_isAccess ? m_access.m_seq : m_record.m_seq; }
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
    format::FileHeader m_header{};
    std::vector<ThreadCursor> m_threads;
    StackRecords m_stacks;
    std::vector<Module> m_modules;
    std::vector<ThreadStackRange> m_threadStacks;
    std::vector<Annotation> m_annotations;  // m_timeNs holds the TSC until the walk ends
    uint64_t m_lostRecords = 0;
    uint64_t m_stacksRead = 0;
    uint64_t m_moduleMapSeq = 0;
    uint64_t m_bytesDone = 0;
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
