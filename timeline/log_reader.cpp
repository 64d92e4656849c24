// Reading a .memlog file: map it, find the chunks, decode each thread's records and merge the
// threads by sequence number. Streaming: nothing is kept per event, so memory stays small on
// logs of hundreds of millions of events.
#include "timeline/log_reader.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <thread>

#include "timeline/cut_log.hpp"
#include "timeline/event_ring.hpp"
#include "timeline/idle_core.hpp"
#include "unwind/build_id.hpp"

namespace memlog::timeline {

using format::Kind;

LogError::LogError(const std::string& path, uint64_t offset, const std::string& reason)
    : std::runtime_error(path + ": offset " + std::to_string(offset) + ": " + reason), m_path(path), m_offset(offset) {}

namespace {

struct ChunkRef {
    uint64_t m_offset;  // of the ChunkHeader
    uint64_t m_end;  // one past the last byte to read (clamped to the file end)
    bool m_cutShort;  // the file ends before the chunk does
};

// One thread's records, chunk after chunk, decoded one record at a time.
struct ThreadCursor {
    uint32_t m_tid = 0;
    std::vector<ChunkRef> m_chunks;
    size_t m_nextChunk = 0;
    const uint8_t* m_at = nullptr;
    const uint8_t* m_end = nullptr;
    format::ChunkCursorState m_deltas;
    // The record waiting to be merged: a heap record, or an access sample when m_isAccess.
    format::HeapRecord m_record;
    format::AccessRecord m_access;
    bool m_isAccess = false;
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
bool allZero(const uint8_t* from, const uint8_t* to) {
    static const uint8_t zeros[format::kPageBytes] = {};
    while (from < to) {
        const size_t bytes = std::min<size_t>(static_cast<size_t>(to - from), sizeof zeros);
        if (std::memcmp(from, zeros, bytes) != 0) return false;
        from += bytes;
    }
    return true;
}

// The recorder's chunks are 4, 8, 16 or 64 KiB (preload/src/record_writer.cpp: chunkBytesFor),
// a full trace's 64 KiB; the tests build chunks up to 1 MiB. A size that is not a power of two in
// that range is a damaged header: its chunk is skipped and told, rather than trusted to find the
// next chunk (a high bit flipped in a 64 KiB size would otherwise hide every chunk after it).
constexpr uint32_t kMaxChunkBytes = 1u << 20;
bool plausibleChunkBytes(uint32_t bytes) {
    return bytes >= format::kPageBytes && bytes <= kMaxChunkBytes && (bytes & (bytes - 1)) == 0;
}

}  // namespace

struct LogReader::Impl {
    int m_fd = -1;
    MappedLog* m_watched = nullptr;  // for SIGBUS: exitWhenALogIsCutWhileRead
    const uint8_t* m_data = nullptr;
    uint64_t m_size = 0;
    format::FileHeader m_header{};
    std::vector<ThreadCursor> m_threads;
    std::vector<std::vector<uint64_t>> m_stacks{1};
    std::vector<Module> m_modules;
    std::vector<ThreadStackRange> m_threadStacks;
    std::vector<Annotation> m_annotations;  // m_timeNs holds the TSC until the walk ends
    uint64_t m_lostRecords = 0;
    uint64_t m_stacksRead = 0;
    uint64_t m_moduleMapSeq = 0;
    uint64_t m_bytesDone = 0;
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

    void noteStop(uint64_t offset, const char* reason) {
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

LogReader::LogReader(const std::string& path) : m_path(path), m_impl(new Impl) {
    Impl& impl = *m_impl;
    impl.m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (impl.m_fd < 0) {
        const std::string reason = std::strerror(errno);
        delete m_impl;
        throw LogError(path, 0, "cannot open: " + reason);
    }
    struct stat info {};
    if (fstat(impl.m_fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(impl.m_fd);
        delete m_impl;
        throw LogError(path, 0, "not a regular file");
    }
    impl.m_size = static_cast<uint64_t>(info.st_size);
    auto fail = [&](uint64_t offset, const std::string& reason) {
        unwatchMapping(impl.m_watched);
        if (impl.m_data) munmap(const_cast<uint8_t*>(impl.m_data), impl.m_size);
        ::close(impl.m_fd);
        delete m_impl;
        throw LogError(path, offset, reason);
    };
    if (impl.m_size < sizeof(format::kMagic)) fail(impl.m_size, "too short to be a memlog log");
    void* mapped = mmap(nullptr, impl.m_size, PROT_READ, MAP_PRIVATE, impl.m_fd, 0);
    if (mapped == MAP_FAILED) fail(0, std::string("cannot map: ") + std::strerror(errno));
    impl.m_data = static_cast<const uint8_t*>(mapped);
    impl.m_watched = watchMapping(impl.m_data, impl.m_size, m_path.c_str());
    madvise(mapped, impl.m_size, MADV_SEQUENTIAL);
    if (std::memcmp(impl.m_data, format::kMagic, sizeof(format::kMagic)) != 0) fail(0, "not a memlog log (bad magic)");
    if (impl.m_size < sizeof(format::FileHeader)) fail(impl.m_size, "file header cut short");
    std::memcpy(&impl.m_header, impl.m_data, sizeof(format::FileHeader));
    if (impl.m_header.m_version < format::kOldestReadableVersion || impl.m_header.m_version > format::kFormatVersion)
        fail(offsetof(format::FileHeader, m_version),
             "unsupported format version " + std::to_string(impl.m_header.m_version) + " (this memlog reads " +
                 std::to_string(format::kOldestReadableVersion) + " to " + std::to_string(format::kFormatVersion) +
                 ")");
    if (impl.m_header.m_headerBytes != format::kHeaderBytes)
        fail(offsetof(format::FileHeader, m_headerBytes), "bad header size");

    // Chunks start on page boundaries; a page that is not one is skipped: quietly when it is empty
    // (reserved but unwritten space), told when it is not (a damaged chunk header, or the records
    // behind one). A header with an impossible size is damaged too: trusting it to find the next
    // chunk would skip, or cut, the chunks it claims.
    std::map<std::pair<uint32_t, uint32_t>, size_t> threadIndex;  // by thread and stream
    uint64_t skippingFrom = 0;  // where the pages being skipped begin; 0: none
    std::string skippingWhat;
    auto endSkip = [&](uint64_t at) {
        if (skippingFrom) impl.noteSkip(skippingFrom, at, skippingWhat);
        skippingFrom = 0;
    };
    uint64_t offset = format::kHeaderBytes;
    for (; offset + sizeof(format::ChunkHeader) <= impl.m_size;) {
        format::ChunkHeader chunk;
        std::memcpy(&chunk, impl.m_data + offset, sizeof chunk);
        const uint64_t pageEnd = std::min(offset + format::kPageBytes, impl.m_size);
        if (chunk.m_magic != format::kChunkMagic || !plausibleChunkBytes(chunk.m_bytes)) {
            // A header being written has its fields before its magic and no record yet.
            const bool empty =
                chunk.m_magic == 0 && allZero(impl.m_data + offset + sizeof chunk, impl.m_data + pageEnd);
            if (!empty) {
                // A live log's writer may have finished that header since: its magic is stored
                // before any record, so records seen mean the magic is visible on a second look.
                std::memcpy(&chunk, impl.m_data + offset, sizeof chunk);
                if (chunk.m_magic == format::kChunkMagic && plausibleChunkBytes(chunk.m_bytes)) continue;
                if (!skippingFrom) {
                    skippingFrom = offset;
                    skippingWhat =
                        chunk.m_magic == format::kChunkMagic
                            ? "a chunk header with an impossible size (" + std::to_string(chunk.m_bytes) + ")"
                            : std::string("a page that is neither a chunk nor empty (a damaged chunk header?)");
                }
            } else {
                endSkip(offset);
            }
            offset += format::kPageBytes;
            continue;
        }
        endSkip(offset);
        auto [it, added] = threadIndex.try_emplace({chunk.m_tid, chunk.m_reserved}, impl.m_threads.size());
        if (added) impl.m_threads.emplace_back().m_tid = chunk.m_tid;
        impl.m_threads[it->second].m_chunks.push_back(
            {offset, std::min(offset + chunk.m_bytes, impl.m_size), offset + chunk.m_bytes > impl.m_size});
        offset += chunk.m_bytes;
    }
    endSkip(impl.m_size);
}

LogReader::~LogReader() {
    unwatchMapping(m_impl->m_watched);
    if (m_impl->m_data) munmap(const_cast<uint8_t*>(m_impl->m_data), m_impl->m_size);
    if (m_impl->m_fd >= 0) ::close(m_impl->m_fd);
    delete m_impl;
}

const format::FileHeader& LogReader::header() const { return m_impl->m_header; }
bool LogReader::complete() const { return m_impl->m_header.m_flags & format::kFlagCleanEnd; }
uint64_t LogReader::fileBytes() const { return m_impl->m_size; }
const std::vector<std::vector<uint64_t>>& LogReader::stacks() const { return m_impl->m_stacks; }
const std::vector<Module>& LogReader::modules() const { return m_impl->m_modules; }
const std::vector<ThreadStackRange>& LogReader::threadStacks() const { return m_impl->m_threadStacks; }
const std::vector<Annotation>& LogReader::annotations() const { return m_impl->m_annotations; }
uint64_t LogReader::lostEvents() const { return m_impl->m_header.m_lostEvents + m_impl->m_lostRecords; }
uint32_t LogReader::threadCount() const {
    std::set<uint32_t> threads;  // a thread may have two streams (format::kTraceStream)
    for (const ThreadCursor& cursor : m_impl->m_threads) threads.insert(cursor.m_tid);
    return static_cast<uint32_t>(threads.size());
}
uint64_t LogReader::firstTsc() const { return m_impl->m_firstTsc; }
uint64_t LogReader::lastTsc() const { return m_impl->m_lastTsc; }
std::optional<std::string> LogReader::whatWasSkipped() const {
    const Impl& impl = *m_impl;
    if (impl.m_skippedPlaces == 0) return std::nullopt;
    std::string text = m_path + ": offset " + std::to_string(impl.m_skippedAt) + ": " + impl.m_skipReason + "; " +
                       std::to_string(impl.m_skippedTo - impl.m_skippedAt) + " bytes skipped, " +
                       (impl.m_skippedTo == impl.m_size ? std::string("to the end of the file")
                                                        : "read on from offset " + std::to_string(impl.m_skippedTo));
    if (impl.m_skippedPlaces > 1)
        text += " (and " + std::to_string(impl.m_skippedPlaces - 1) +
                (impl.m_skippedPlaces == 2 ? " more such place: " : " more such places: ") +
                std::to_string(impl.m_skippedBytes) + " bytes skipped in all)";
    return text;
}

std::optional<std::string> LogReader::whereReadingStopped() const {
    if (m_impl->m_stopReason.empty()) return std::nullopt;
    return m_path + ": offset " + std::to_string(m_impl->m_stoppedAt) + ": " + m_impl->m_stopReason +
           "; read up to here";
}

namespace {

// Decodes records of `cursor` until a heap record or an access sample is ready (true) or the
// thread has no more (false). Meta records are absorbed into `impl` on the way.
template <typename Impl>
bool advance(Impl& impl, ThreadCursor& cursor, const std::string& path) {
    for (;;) {
        if (cursor.m_at == nullptr || cursor.m_at >= cursor.m_end || *cursor.m_at == 0) {
            if (cursor.m_at) {
                // Records up to the file's end in a chunk that claims more: the file was cut.
                const ChunkRef& chunk = cursor.m_chunks[cursor.m_nextChunk - 1];
                if (cursor.m_at >= cursor.m_end && chunk.m_cutShort)
                    impl.noteStop(chunk.m_end, "the file ends inside a chunk (cut short)");
                impl.m_bytesDone += static_cast<uint64_t>(cursor.m_end - cursor.m_at);
                // Read once: drop its pages from this process (the page cache keeps them), so
                // that a model built alongside the walk is the memory a big log costs.
                madvise(const_cast<uint8_t*>(impl.m_data) + chunk.m_offset, chunk.m_end - chunk.m_offset,
                        MADV_DONTNEED);
            }
            if (cursor.m_nextChunk == cursor.m_chunks.size()) return false;
            const ChunkRef& chunk = cursor.m_chunks[cursor.m_nextChunk++];
            cursor.m_at = impl.m_data + chunk.m_offset + sizeof(format::ChunkHeader);
            cursor.m_end = impl.m_data + chunk.m_end;
            cursor.m_deltas = {};
            continue;
        }
        const uint8_t* start = cursor.m_at;
        const uint8_t tag = *start;
        const auto kind = static_cast<Kind>(tag & format::kKindMask);
        const uint8_t* p = start + 1;
        bool ok = true;
        bool heap = false;
        bool access = false;
        if (format::isHeapKind(tag & format::kKindMask)) {
            ok = format::decodeHeapPayload(&p, cursor.m_end, kind, cursor.m_record, cursor.m_deltas) &&
                 impl.plausibleStackId(cursor.m_record.m_stack);
            heap = ok;
        } else if (kind == Kind::Access) {
            ok = impl.m_header.m_version == 2
                     ? format::decodeAccessPayloadVersion2(&p, cursor.m_end, cursor.m_access, cursor.m_deltas)
                     : format::decodeAccessPayload(&p, cursor.m_end, cursor.m_access, cursor.m_deltas);
            ok = ok && impl.plausibleStackId(cursor.m_access.m_stack);
            access = ok;
        } else if (kind == Kind::ThreadStack && impl.m_header.m_version >= 3) {
            uint64_t lo, hi;
            ok = format::decodeRangePayload(&p, cursor.m_end, &lo, &hi);
            if (ok) impl.m_threadStacks.push_back({cursor.m_tid, lo, hi});
        } else if (kind == Kind::Annotation && impl.m_header.m_version >= 3) {
            format::AnnotationRecord record;
            ok = format::decodeAnnotationPayload(&p, cursor.m_end, record, cursor.m_deltas);
            if (ok) {
                Annotation annotation;
                annotation.m_seq = record.m_seq;
                annotation.m_timeNs = record.m_tsc;
                annotation.m_tid = cursor.m_tid;
                annotation.m_what = record.m_what;
                annotation.m_addr = record.m_addr;
                if (record.m_text) annotation.m_text.assign(record.m_text, record.m_textBytes);
                annotation.m_elementSize = record.m_elementSize;
                annotation.m_rows = record.m_rows;
                annotation.m_columns = record.m_columns;
                annotation.m_depth = record.m_depth;
                impl.noteTime(record.m_tsc);
                impl.m_annotations.push_back(std::move(annotation));
            }
        } else if (kind == Kind::Stack) {
            uint64_t id, frames[format::kMaxStackDepth];
            uint32_t depth;
            ok = format::decodeStackPayload(&p, cursor.m_end, &id, frames, &depth) && id != 0 &&
                 impl.plausibleStackId(id);
            if (ok) {
                ++impl.m_stacksRead;
                if (impl.m_stacks.size() <= id) impl.m_stacks.resize(id + 1);
                impl.m_stacks[id].assign(frames, frames + depth);
            }
        } else if (kind == Kind::ModuleMap || kind == Kind::ThreadExit) {
            uint64_t seq, tsc;
            ok = format::decodeMarkPayload(&p, cursor.m_end, &seq, &tsc, cursor.m_deltas);
            if (ok) {
                impl.noteTime(tsc);
                if (kind == Kind::ModuleMap) impl.m_moduleMapSeq = seq;
            }
        } else if (kind == Kind::Module) {
            format::ModuleView view;
            ok = format::decodeModulePayload(&p, cursor.m_end, view);
            if (ok) {
                Module module;
                module.m_base = view.m_base;
                module.m_lo = view.m_lo;
                module.m_hi = view.m_hi;
                module.m_buildId = unwind::hexBytes(view.m_buildId, view.m_buildIdBytes);
                module.m_path.assign(view.m_path, view.m_pathBytes);
                module.m_validFromSeq = impl.m_moduleMapSeq;
                impl.m_modules.push_back(std::move(module));
            }
        } else if (kind == Kind::Lost) {
            uint64_t count;
            ok = format::getVarint(&p, cursor.m_end, &count);
            if (ok) impl.m_lostRecords += count;
        } else {
            throw LogError(path, static_cast<uint64_t>(start - impl.m_data),
                           "corrupt record (unknown tag " + std::to_string(tag) + ")");
        }
        if (!ok) {
            // A record cut by the end of the file is a torn tail; inside the file it is corruption.
            const bool lastChunk = cursor.m_end == impl.m_data + impl.m_size;
            if (lastChunk || allZero(start + 1, cursor.m_end)) {
                if (lastChunk)
                    impl.noteStop(static_cast<uint64_t>(start - impl.m_data),
                                  "a record cut by the end of the file or damaged (torn tail)");
                impl.m_bytesDone += static_cast<uint64_t>(cursor.m_end - start);
                cursor.m_at = cursor.m_end;
                continue;
            }
            throw LogError(path, static_cast<uint64_t>(start - impl.m_data),
                           std::string("corrupt ") +
                               (format::isHeapKind(tag & format::kKindMask) ? format::kindInfo(kind).m_name
                                : kind == Kind::Access                      ? "access"
                                                                            : "meta") +
                               " record");
        }
        impl.m_bytesDone += static_cast<uint64_t>(p - start);
        cursor.m_at = p;
        if (heap || access) {
            cursor.m_isAccess = access;
            impl.noteTime(access ? cursor.m_access.m_tsc : cursor.m_record.m_tsc);
            return true;
        }
    }
}

}  // namespace

namespace {

// Sample and event as the walk hands them on, times converted once per record.
void fillSample(AccessSample& sample, const ThreadCursor& cursor, const TscClock& clock) {
    const format::AccessRecord& record = cursor.m_access;
    sample.m_seq = record.m_seq;
    sample.m_timeNs = clock.sinceStart(record.m_tsc);
    sample.m_tid = cursor.m_tid;
    sample.m_addr = record.m_addr;
    sample.m_size = record.m_size;
    sample.m_kind = record.m_kind;
    sample.m_source = record.m_source;
    sample.m_ipAfter = record.m_ipAfter;
    sample.m_inAllocator = record.m_inAllocator;
    sample.m_armedBy = record.m_armedBy;
    sample.m_ip = record.m_ip;
    sample.m_blockSeq = record.m_blockSeq;
    sample.m_offset = record.m_offset;
    sample.m_stack = static_cast<uint32_t>(record.m_stack);
}

void fillEvent(Event& event, const ThreadCursor& cursor, const TscClock& clock) {
    const format::HeapRecord& record = cursor.m_record;
    event.m_kind = record.m_kind;
    event.m_seq = record.m_seq;
    event.m_seqAfter = format::kindInfo(record.m_kind).m_hasOld ? record.m_seqAfter : record.m_seq;
    event.m_timeNs = clock.sinceStart(record.m_tsc);
    event.m_tid = cursor.m_tid;
    event.m_addr = record.m_addr;
    event.m_size = record.m_size;
    event.m_align = record.m_align;
    event.m_oldAddr = record.m_oldAddr;
    event.m_oldSize = record.m_oldSize;
    event.m_stack = static_cast<uint32_t>(record.m_stack);
}

// forEachRecord's delivery: one callback per record, as it is decoded.
struct DeliverEach {
    const std::function<void(const Event&)>& m_onEvent;
    const std::function<void(const AccessSample&)>& m_onAccess;
    Event m_event;
    AccessSample m_sample;

    void operator()(const ThreadCursor& cursor, const TscClock& clock) {
        if (cursor.m_isAccess) {
            if (!m_onAccess) return;
            fillSample(m_sample, cursor, clock);
            m_onAccess(m_sample);
            return;
        }
        fillEvent(m_event, cursor, clock);
        if (m_onEvent) m_onEvent(m_event);
    }
    void flush() {}
};

// forEachBatch's delivery: heap events gathered into a batch (22 KiB of events: in the cache
// when the sink reads them), handed on when full and before each access sample.
struct DeliverBatches {
    static constexpr size_t kBatch = 256;
    // A constructor, not an aggregate: clang 14 (the fuzz build) has no make_unique of aggregates.
    DeliverBatches(RecordSink& sink, bool wantsAccesses) : m_sink(sink), m_wantsAccesses(wantsAccesses) {}
    RecordSink& m_sink;
    const bool m_wantsAccesses;
    size_t m_count = 0;
    Event m_events[kBatch];
    AccessSample m_sample;

    void operator()(const ThreadCursor& cursor, const TscClock& clock) {
        if (cursor.m_isAccess) {
            if (!m_wantsAccesses) return;
            flush();
            fillSample(m_sample, cursor, clock);
            m_sink.access(m_sample);
            return;
        }
        fillEvent(m_events[m_count], cursor, clock);
        if (++m_count == kBatch) flush();
    }
    void flush() {
        if (m_count) m_sink.events(m_events, m_count);
        m_count = 0;
    }
};

// forEachBatch's delivery on two threads: the events go into the ring's slots (event_ring.hpp)
// on the decoding thread, and the sink takes them on the calling thread.
struct DeliverToRing {
    struct Abandoned {};  // the consumer gave up: the walk stops
    EventRing& m_ring;
    const bool m_wantsAccesses;
    EventRing::Slot* m_slot = nullptr;

    EventRing::Slot& slot() {
        if (!m_slot && !(m_slot = m_ring.slotToFill())) throw Abandoned{};
        return *m_slot;
    }
    void publish(bool last = false) {
        m_ring.publish(last);
        m_slot = nullptr;
    }
    void operator()(const ThreadCursor& cursor, const TscClock& clock) {
        if (cursor.m_isAccess) {
            if (!m_wantsAccesses) return;
            EventRing::Slot& to = slot();
            fillSample(to.m_access, cursor, clock);
            to.m_hasAccess = true;
            publish();
            return;
        }
        EventRing::Slot& to = slot();
        fillEvent(to.m_events[to.m_count], cursor, clock);
        if (++to.m_count == EventRing::kBatch) publish();
    }
    void flush() {}
    // After the walk, or its error: what is left, marked last.
    void finish() {
        if (!m_slot && !(m_slot = m_ring.slotToFill())) return;
        m_slot->m_last = true;
        publish(true);
    }
};

}  // namespace

void LogReader::forEachEvent(const std::function<void(const Event&)>& onEvent,
                             const std::function<void(double)>& progress) {
    forEachRecord(onEvent, {}, progress);
}

void LogReader::forEachRecord(const std::function<void(const Event&)>& onEvent,
                              const std::function<void(const AccessSample&)>& onAccess,
                              const std::function<void(double)>& progress) {
    DeliverEach deliver{onEvent, onAccess, {}, {}};
    walk(deliver, progress);
}

void LogReader::forEachBatch(RecordSink& sink, const std::function<void(double)>& progress, Decoding decoding) {
    if (decoding == Decoding::CallingThread || (decoding == Decoding::SecondThreadIfIdle && !aCoreIsIdle())) {
        auto deliver = std::make_unique<DeliverBatches>(sink, sink.wantsAccesses());
        walk(*deliver, progress);
        return;
    }
    auto ring = std::make_unique<EventRing>();
    DeliverToRing deliver{*ring, sink.wantsAccesses()};
    std::exception_ptr failure;
    std::thread decoder([&] {
        try {
            walk(deliver, progress);
        } catch (const DeliverToRing::Abandoned&) {
            return;
        } catch (...) {
            failure = std::current_exception();  // rethrown here after the events before it
        }
        deliver.finish();
    });
    try {
        for (bool last = false; !last;) {
            const EventRing::Slot& slot = ring->slotToRead();
            if (slot.m_count) sink.events(slot.m_events, slot.m_count);
            if (slot.m_hasAccess) sink.access(slot.m_access);
            last = slot.m_last;
            ring->release();
        }
    } catch (...) {
        ring->abandon();
        decoder.join();
        throw;
    }
    decoder.join();
    if (failure) std::rethrow_exception(failure);
}

template <typename Deliver>
void LogReader::walk(Deliver& deliver, const std::function<void(double)>& progress) {
    Impl& impl = *m_impl;
    for (ThreadCursor& cursor : impl.m_threads) {
        cursor.m_nextChunk = 0;
        cursor.m_at = cursor.m_end = nullptr;
    }
    impl.m_stacks.assign(1, {});
    impl.m_modules.clear();
    impl.m_threadStacks.clear();
    impl.m_annotations.clear();
    impl.m_lostRecords = 0;
    impl.m_stacksRead = 0;
    impl.m_bytesDone = 0;
    impl.m_stopReason.clear();

    const TscClock clock(impl.m_header);
    using Clock = std::chrono::steady_clock;
    auto lastReport = Clock::now();
    uint64_t sinceCheck = 0;
    auto maybeReport = [&] {
        if (!progress || ++sinceCheck < (1u << 20)) return;
        sinceCheck = 0;
        const auto now = Clock::now();
        if (now - lastReport < std::chrono::milliseconds(200)) return;
        lastReport = now;
        progress(static_cast<double>(impl.m_bytesDone) / static_cast<double>(impl.m_size));
    };

    // Min-heap of threads by the sequence number of their waiting record.
    using Entry = std::pair<uint64_t, size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
    for (size_t i = 0; i < impl.m_threads.size(); ++i)
        if (advance(impl, impl.m_threads[i], m_path)) ready.push({impl.m_threads[i].waitingSeq(), i});

    while (!ready.empty()) {
        const size_t index = ready.top().second;
        ready.pop();
        ThreadCursor& cursor = impl.m_threads[index];
        // Drain this thread while it stays ahead of every other thread: no heap traffic for
        // long single-thread stretches.
        const uint64_t bound = ready.empty() ? UINT64_MAX : ready.top().first;
        bool more;
        do {
            deliver(cursor, clock);
            maybeReport();
            more = advance(impl, cursor, m_path);
        } while (more && cursor.waitingSeq() < bound);
        if (more) ready.push({cursor.waitingSeq(), index});
    }
    deliver.flush();
    for (Annotation& annotation : impl.m_annotations) annotation.m_timeNs = clock.sinceStart(annotation.m_timeNs);
    std::sort(impl.m_annotations.begin(), impl.m_annotations.end(),
              [](const Annotation& a, const Annotation& b) { return a.m_seq < b.m_seq; });
    if (progress) progress(1.0);
}

}  // namespace memlog::timeline
