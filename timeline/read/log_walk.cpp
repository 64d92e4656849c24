// The walk over a log's records: each thread's records decoded in turn (advance), the threads
// merged by sequence number, and the events and samples handed on one by one, in batches, or
// through a ring to the calling thread while a second thread decodes.
#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <thread>

#include "timeline/read/event_ring.hpp"
#include "timeline/base/idle_core.hpp"
#include "timeline/read/log_reader.hpp"
#include "timeline/read/reader_state.hpp"
#include "unwind/build_id.hpp"

namespace memlog::timeline {

using format::Kind;

namespace {

// The heap record after `tag` at `*p`, taken when it decodes whole and its stack id is plausible:
// only then do the chunk's deltas move on, so that a record turned down is read again from the
// same deltas. Both ways through a record (advance and advanceSlowly) take one this way.
template <typename Impl>
[[gnu::always_inline]] inline bool takeHeapRecord(Impl& impl, ThreadCursor& cursor, uint8_t tag, const uint8_t** p) {
    if (!format::readHeapPayload(p, cursor.m_end, tag, cursor.m_record, cursor.m_deltas) ||
        !impl.plausibleStackId(cursor.m_record.m_stack))
        return false;
    format::keepDeltas(cursor.m_deltas, cursor.m_record);
    return true;
}

// Decodes records of `cursor` until a heap record or an access sample is ready (true) or the
// thread has no more (false). Meta records are absorbed into `impl` on the way. The whole of
// it: advance() below takes the common case first.
template <typename Impl>
[[gnu::noinline]] bool advanceSlowly(Impl& impl, ThreadCursor& cursor, const std::string& path) {
    for (;;) {
        const uint8_t* start = cursor.m_at;
        const format::ChunkCursorState deltasBefore = cursor.m_deltas;  // for a record left to read again
        bool ok = true;
        if (cursor.m_trace && cursor.m_trace->inRun()) {  // a full trace's run: its next address
            const TraceDecoder::Step step = cursor.m_trace->next(&cursor.m_at, cursor.m_end, cursor.m_access);
            impl.m_bytesDone += static_cast<uint64_t>(cursor.m_at - start);
            if (step == TraceDecoder::Step::Access) {
                cursor.m_isAccess = true;
                impl.noteTime(cursor.m_access.m_tsc);
                return true;
            }
            if (step == TraceDecoder::Step::RunEnded) continue;
            ok = false;
        } else if (cursor.m_at == nullptr || cursor.m_at >= cursor.m_end || *cursor.m_at == 0) {
            if (cursor.m_at) {
                // Records up to the file's end in a chunk that claims more: the file was cut.
                const ChunkRef& chunk = cursor.m_chunks[cursor.m_nextChunk - 1];
                if (cursor.m_at >= cursor.m_end && chunk.m_cutShort)
                    impl.noteStop(chunk.m_end, "the file ends inside a chunk (cut short)");
                impl.m_bytesDone += static_cast<uint64_t>(cursor.m_end - cursor.m_at);
                impl.dropRead(chunk.m_offset, chunk.m_end);
                cursor.m_recordsEnd = static_cast<uint64_t>(std::min(cursor.m_at, cursor.m_end) - impl.m_data);
            }
            if (cursor.m_nextChunk == cursor.m_chunks.size()) {
                if (cursor.m_trace && !cursor.m_trace->ended())
                    impl.noteStop(cursor.m_recordsEnd, "the trace of thread " + std::to_string(cursor.m_tid) +
                                                           " stops without its end (the traced process was killed?)");
                return false;
            }
            const ChunkRef& chunk = cursor.m_chunks[cursor.m_nextChunk++];
            cursor.m_at = impl.m_data + chunk.m_offset + sizeof(format::ChunkHeader);
            cursor.m_end = impl.m_data + chunk.m_end;
            cursor.m_deltas = {};
            continue;
        }
        const uint8_t tag = ok ? *start : static_cast<uint8_t>(Kind::TraceRun);
        const auto kind = static_cast<Kind>(tag & format::kKindMask);
        const uint8_t* p = start + 1;
        bool heap = false;
        bool access = false;
        if (!ok) {
            // A run's addresses that do not decode: below, like a record that does not.
        } else if (format::isHeapKind(tag & format::kKindMask)) {
            ok = takeHeapRecord(impl, cursor, tag, &p);
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
            // Decoded whole to check it; kept as where its frames are (stack_records.hpp).
            uint64_t id, frames[format::kMaxStackDepth];
            uint32_t depth;
            const uint8_t* firstFrame = nullptr;
            ok = format::decodeStackPayload(&p, cursor.m_end, &id, frames, &depth, &firstFrame) && id != 0 &&
                 impl.plausibleStackId(id);
            if (ok) {
                ++impl.m_stacksRead;
                impl.m_stacks.set(id, firstFrame, p, depth);
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
        } else if (format::isTraceKind(tag & format::kKindMask) && impl.m_header.m_version >= 5) {
            if (!cursor.m_trace) cursor.m_trace = std::make_unique<TraceDecoder>();
            ok = cursor.m_trace->record(tag, &p, cursor.m_end);  // a run's accesses: at the loop's top
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
                if (impl.m_cutNow && cursor.m_nextChunk == cursor.m_chunks.size()) {
                    // The thread's newest chunk of a followed log (LogReader::followGrowth): the
                    // rest of the record may come. The cursor waits at it for readOn.
                    cursor.m_at = start;
                    cursor.m_deltas = deltasBefore;
                    return false;
                }
                impl.m_bytesDone += static_cast<uint64_t>(cursor.m_end - start);
                cursor.m_at = cursor.m_end;
                continue;
            }
            throw LogError(path, static_cast<uint64_t>(start - impl.m_data),
                           std::string("corrupt ") +
                               (format::isHeapKind(tag & format::kKindMask)    ? format::kindInfo(kind).m_name
                                : kind == Kind::Access                         ? "access"
                                : format::isTraceKind(tag & format::kKindMask) ? "trace"
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

// advanceSlowly's common case inline, in the walk's loop: a heap record that decodes whole,
// its stack id plausible. Anything else (the chunk's end, a meta record, a sample, a record
// torn or damaged) goes the long way, from the same record and the same deltas: they move on
// only once the record is taken. (A copy of them put back instead cost each record a 16-byte
// load of what the last one had just stored as two 8-byte fields, which the CPU does not
// forward from its store buffer: a tenth of the decoding thread's samples waited there.) Out of
// line, every record paid a call whose frame is sized for a stack record's frames.
template <typename Impl>
[[gnu::always_inline]] inline bool advance(Impl& impl, ThreadCursor& cursor, const std::string& path) {
    const uint8_t* start = cursor.m_at;
    if (start && start < cursor.m_end && !cursor.m_trace && format::isHeapKind(*start & format::kKindMask)) [[likely]] {
        const uint8_t* p = start + 1;
        if (takeHeapRecord(impl, cursor, *start, &p)) [[likely]] {
            impl.m_bytesDone += static_cast<uint64_t>(p - start);
            cursor.m_at = p;
            cursor.m_isAccess = false;
            impl.noteTime(cursor.m_record.m_tsc);
            return true;
        }
    }
    return advanceSlowly(impl, cursor, path);
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
    sample.m_instructions = record.m_instructions;
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
    event.m_oldAddr = record.m_oldAddr;
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

// forEachBatch's delivery: heap events gathered into a batch (16 KiB of events: in the cache
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

bool LogReader::forEachBatch(RecordSink& sink, const std::function<void(double)>& progress, Decoding decoding) {
    return inBatches(sink, progress, decoding, false).m_secondThread;
}

LogReader::Batches LogReader::inBatches(RecordSink& sink, const std::function<void(double)>& progress,
                                        Decoding decoding, bool on) {
    if (decoding == Decoding::CallingThread || (decoding == Decoding::SecondThreadIfIdle && !aCoreIsIdle())) {
        auto deliver = std::make_unique<DeliverBatches>(sink, sink.wantsAccesses());
        return {walk(*deliver, progress, on), false};
    }
    auto ring = std::make_unique<EventRing>();
    DeliverToRing deliver{*ring, sink.wantsAccesses()};
    std::exception_ptr failure;
    bool read = false;
    std::thread decoder([&] {
        try {
            read = walk(deliver, progress, on);
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
    return {read, true};
}

template <typename Deliver>
bool LogReader::walk(Deliver& deliver, const std::function<void(double)>& progress, bool on) {
    Impl& impl = *m_impl;
    if (!on) {
        for (ThreadCursor& cursor : impl.m_threads) {
            cursor.m_nextChunk = impl.leftOut(cursor) ? cursor.m_chunks.size() : 0;  // nothing to read
            cursor.m_at = cursor.m_end = nullptr;
            cursor.m_trace.reset();
            cursor.m_merging = false;
        }
        impl.m_stacks.clear();
        impl.m_modules.clear();
        impl.m_threadStacks.clear();
        impl.m_annotations.clear();
        impl.m_lostRecords = 0;
        impl.m_stacksRead = 0;
        impl.m_bytesDone = 0;
        impl.m_merge.clear();
        impl.m_lastDelivered = 0;
        impl.m_annotationsTimed = 0;
    }
    impl.m_stopReason.clear();
    impl.dropPendingReads();  // a walk stopped by an error left some
    // A walk in steps delivers the records before its cut (followGrowth); UINT64_MAX: all.
    const uint64_t cut = impl.m_cutNow ? impl.m_cutNow() : UINT64_MAX;
    const bool holdingBack = cut != UINT64_MAX;

    const TscClock clock(impl.m_header);
    using Clock = std::chrono::steady_clock;
    auto lastReport = Clock::now();
    uint64_t sinceCheck = 0;
    // The fraction of the file read, or of what it gained since the last walk.
    const uint64_t doneBefore = on ? impl.m_bytesDone : 0;
    const uint64_t toRead = on ? impl.m_size - std::min(impl.m_size, impl.m_readOnFrom) : impl.m_size;
    auto fraction = [&] {
        return std::min(1.0, static_cast<double>(impl.m_bytesDone - doneBefore) /
                                 static_cast<double>(std::max<uint64_t>(toRead, 1)));
    };
    auto maybeReport = [&] {
        if (!progress || ++sinceCheck < (1u << 20)) return;
        sinceCheck = 0;
        const auto now = Clock::now();
        if (now - lastReport < std::chrono::milliseconds(200)) return;
        lastReport = now;
        progress(fraction());
    };

    // Min-heap of threads by the sequence number of their waiting record. Reading on, the
    // threads still waiting from the last walk are in it; the others may have records since, each
    // after every record delivered, or the log is not as the last walk saw it.
    std::vector<std::pair<uint64_t, size_t>>& ready = impl.m_merge;
    const auto later = std::greater<>();
    for (size_t i = 0; i < impl.m_threads.size(); ++i) {
        ThreadCursor& cursor = impl.m_threads[i];
        // The long way for a thread's first record: the loop below keeps the one inlined copy of
        // the common case, which GCC stopped inlining whole with a second one here.
        if (cursor.m_merging || impl.leftOut(cursor) || !advanceSlowly(impl, cursor, m_path)) continue;
        if (on && cursor.waitingSeq() <= impl.m_lastDelivered) {
            impl.m_outOfStep = true;
            return false;
        }
        cursor.m_merging = true;
        ready.emplace_back(cursor.waitingSeq(), i);
        std::push_heap(ready.begin(), ready.end(), later);
    }

    while (!ready.empty()) {
        const size_t index = ready.front().second;
        ThreadCursor& cursor = impl.m_threads[index];
        if (cursor.waitingTsc() >= cut) break;  // held back, with every record after it
        std::pop_heap(ready.begin(), ready.end(), later);
        ready.pop_back();
        // Drain this thread while it stays ahead of every other thread: no heap traffic for
        // long single-thread stretches.
        const uint64_t bound = ready.empty() ? UINT64_MAX : ready.front().first;
        bool more;
        uint64_t delivered;
        do {
            delivered = cursor.waitingSeq();
            deliver(cursor, clock);
            maybeReport();
            more = advance(impl, cursor, m_path);
        } while (more && cursor.waitingSeq() < bound && (!holdingBack || cursor.waitingTsc() < cut));
        impl.m_lastDelivered = delivered;
        cursor.m_merging = more;
        if (more) {
            ready.emplace_back(cursor.waitingSeq(), index);
            std::push_heap(ready.begin(), ready.end(), later);
        }
    }
    impl.dropPendingReads();
    deliver.flush();
    for (size_t i = impl.m_annotationsTimed; i < impl.m_annotations.size(); ++i)
        impl.m_annotations[i].m_timeNs = clock.sinceStart(impl.m_annotations[i].m_timeNs);
    impl.m_annotationsTimed = impl.m_annotations.size();
    std::stable_sort(impl.m_annotations.begin(), impl.m_annotations.end(),
                     [](const Annotation& a, const Annotation& b) { return a.m_seq < b.m_seq; });
    impl.m_readOnFrom = impl.m_size;
    if (progress) progress(1.0);
    return true;
}

}  // namespace memlog::timeline
