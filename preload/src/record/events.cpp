// The record functions: the hooks' events, the sampler's accesses, memlog.h's annotations, a
// thread's end. Hot path: recordAllocation/recordRelease, about 25 ns without stacks: one add
// for the sequence number (unlocked while one thread alone records), one rdtsc, a dozen bytes of
// varints. The stack capture (record/stack_ids.hpp) and the encoder are inline in it.
#include "record/events.hpp"

#include "base/system.hpp"
#include "record/record_writer.hpp"
#include "record/stack_ids.hpp"
#include "sample/instruction_access.hpp"
#include "start/start_up.hpp"
#include "trace/full_trace.hpp"
#include "watch/heap_watch.hpp"

namespace memlog::preload {

constinit __thread ThreadState t_state __attribute__((tls_model("initial-exec"))) = {};
constinit Recording g_recording;

namespace {

using format::Kind;

// The same bytes either way; pdep where it is fast (format.hpp, hasFastPdep): about half the
// encoding's cost on this benchmark's machine. Inline: the record's fields stay in registers (out
// of line, the encoder read two of them with one wide load just after they were stored one by
// one, a store-forwarding stall that waited for all the thread's pending stores).
[[gnu::always_inline]] inline void writeHeapRecord(ThreadState& thread, const format::HeapRecord& record) {
    if (uint8_t* out = beginRecord(thread, format::kMaxHeapRecordBytes)) {
        format::ChunkCursorState& deltas = thread.m_writer.m_deltas;
        const format::EncodedHeapRecord encoded = g_recording.m_fastPdep
                                                      ? format::encodeHeapPayload<true>(out, record, deltas)
                                                      : format::encodeHeapPayload<false>(out, record, deltas);
        commitRecord(thread, out, encoded.m_end, encoded.m_tag);
    }
}

// A sampled block that a realloc ended without a sampled successor: a free at the realloc's first
// number, with the realloc's stack where frees carry stacks.
void recordSampledEnd(ThreadState& thread, const ResizeTicket& ticket, const void* oldAddress) {
    TraceQuiet quiet;
    const bool wasBusy = thread.m_busy;
    thread.m_busy = true;
    format::HeapRecord record;
    record.m_kind = Kind::Free;
    record.m_seq = ticket.m_seqBefore;
    record.m_tsc = sys::readTsc();
    record.m_addr = reinterpret_cast<uintptr_t>(oldAddress);
    record.m_stack = wantsStack(Kind::Free) ? ticket.m_stack : 0;
    writeHeapRecord(thread, record);
    thread.m_busy = wasBusy;
}

}  // namespace

bool writeThreadStack(ThreadState& thread) {
    if (thread.m_writer.m_stackRangeWritten) return true;
    uint8_t* out = beginMetaRecord(thread, 1 + 2 * 10);
    if (!out) return false;
    commitRecord(thread, out, format::encodeRangePayload(out, thread.m_sampler.m_stackLo, thread.m_sampler.m_stackHi),
                 Kind::ThreadStack);
    thread.m_writer.m_stackRangeWritten = true;
    return true;
}

void recordHeapEvent(Kind kind, const void* address, uint64_t size, uint64_t alignment) {
    ThreadState& thread = t_state;
    if (!isRecording() || thread.m_busy) return;
    if (watchesActive()) [[unlikely]] watchHeapEvent(kind, address, size);  // watch/heap_watch.hpp
    TraceQuiet quiet;
    thread.m_busy = true;
    format::HeapRecord record;
    record.m_kind = kind;
    // The TSC first: rdtsc's latency (17 ns in this VM) then overlaps the stack walk, and the
    // time is the real call's return rather than the end of the recorder's walk (bench_alloc,
    // fp mode: a quarter of the added CPU time). Within a thread time and numbers still rise.
    record.m_tsc = sys::readTsc();
    record.m_stack = wantsStack(kind) ? currentStack(thread) : 0;
    record.m_seq = nextSequence();  // after the real call returned: see format.hpp
    if (g_traceMarkers) noteTracedHeapEvent(thread, record.m_seq, record.m_tsc);
    record.m_addr = reinterpret_cast<uintptr_t>(address);
    record.m_size = size;
    record.m_align = alignment;
    writeHeapRecord(thread, record);
    thread.m_busy = false;
}

ResizeTicket beginResize(Kind kind, const void* old, uint64_t size) {
    ThreadState& thread = t_state;
    ResizeTicket ticket;
    if (!isRecording() || thread.m_busy) return ticket;
    if (isSampling() && kind != Kind::Mremap) {
        // Before the call: the old block leaves the set while it is still the program's, so that
        // no other thread can be handed its address while the set holds it.
        ticket.m_sampledOld = old && g_sampledCapture.m_live.contains(old) && g_sampledCapture.m_live.remove(old);
        ticket.m_sampledNew = spendSampleBytes(thread, size);
        if (!ticket.m_sampledOld && !ticket.m_sampledNew) return ticket;
    }
    if (old && watchesActive()) [[unlikely]] ticket.m_oldUsable = usableSizeForWatch(old);
    TraceQuiet quiet;
    thread.m_busy = true;
    // The stack first: it may write records of its own, and a thread's records must keep
    // increasing sequence numbers.
    ticket.m_stack = wantsStack(kind) ? currentStack(thread) : 0;
    ticket.m_seqBefore = nextSequence();
    if (g_traceMarkers) noteTracedEvent(ticket.m_seqBefore, sys::readTsc());
    ticket.m_valid = true;
    thread.m_busy = false;
    return ticket;
}

void finishResize(const ResizeTicket& ticket, Kind kind, const void* address, uint64_t size, const void* oldAddress,
                  uint64_t oldSize) {
    ThreadState& thread = t_state;
    if (!ticket.m_valid || !isRecording()) return;
    if (ticket.m_sampledOld || ticket.m_sampledNew) {  // format.hpp, "Sampled capture"
        bool keepNew = ticket.m_sampledNew && address;
        if (keepNew && !g_sampledCapture.m_live.insert(address)) {
            countInHeader(&format::FileHeader::m_sampleSetOverflow);
            keepNew = false;
        }
        if (!keepNew) {
            if (ticket.m_sampledOld) recordSampledEnd(thread, ticket, oldAddress);
            return;
        }
        if (!ticket.m_sampledOld) oldAddress = nullptr, oldSize = 0;  // to the reader a fresh block
    }
    TraceQuiet quiet;
    const bool wasBusy = thread.m_busy;
    thread.m_busy = true;
    format::HeapRecord record;
    record.m_kind = kind;
    record.m_stack = ticket.m_stack;
    record.m_seq = ticket.m_seqBefore;
    record.m_seqAfter = nextSequence();
    record.m_tsc = sys::readTsc();
    if (g_traceMarkers) noteTracedEvent(record.m_seqAfter, record.m_tsc);
    record.m_addr = reinterpret_cast<uintptr_t>(address);
    record.m_size = size;
    record.m_oldAddr = reinterpret_cast<uintptr_t>(oldAddress);
    record.m_oldSize = oldSize;
    writeHeapRecord(thread, record);
    thread.m_busy = wasBusy;
    if (watchesActive() && address != oldAddress) [[unlikely]]
        watchMove(kind, record.m_oldAddr, oldSize, ticket.m_oldUsable, record.m_addr, size);
}

void recordThreadExit(ThreadState& thread) {
    if (!isRecording() || thread.m_busy) return;
    thread.m_busy = true;
    if (uint8_t* out = beginMetaRecord(thread, 1 + 20))
        commitRecord(thread, out,
                     format::encodeMarkPayload(out, nextSequence(), sys::readTsc(), thread.m_writer.m_deltas),
                     Kind::ThreadExit);
    thread.m_busy = false;
}

// memlog.h's annotations (hooks/annotations.cpp): one Annotation record, in the calling thread's chunk.
void recordAnnotation(format::AnnotationRecord& record) {
    ThreadState& thread = t_state;
    if (!isReady() || !isRecording() || thread.m_busy) return;
    thread.m_busy = true;
    record.m_seq = nextSequence();
    record.m_tsc = sys::readTsc();
    if (uint8_t* out = beginRecord(thread, format::kMaxAnnotationRecordBytes))
        commitRecord(thread, out, format::encodeAnnotationPayload(out, record, thread.m_writer.m_deltas),
                     Kind::Annotation);
    thread.m_busy = false;
}

uint64_t recordAccesses(ThreadState& thread, const format::AccessRecord& prototype, const MemoryAccess* accesses,
                        uint32_t count, const uint64_t* frames, uint32_t depth) {
    if (!isRecording()) return 0;
    if (!writeThreadStack(thread)) return 0;
    format::AccessRecord record = prototype;
    record.m_stack = stackIdOf(thread, frames, depth);
    uint64_t first = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint8_t* out = beginRecord(thread, format::kMaxAccessRecordBytes);
        if (!out) return 0;
        record.m_seq = nextSequence();
        if (i == 0) first = record.m_seq;
        record.m_tsc = sys::readTsc();
        record.m_addr = accesses[i].m_addr;
        record.m_size = accesses[i].m_bytes;
        record.m_kind = accesses[i].m_kind;
        commitRecord(thread, out, format::encodeAccessPayload(out, record, thread.m_writer.m_deltas), Kind::Access);
    }
    return first;
}

}  // namespace memlog::preload
