// The event path: what a hook asks of the recorder once the real call is made (a free: before
// it), and what the tick sampler and memlog.h's annotations record. Each record function is a
// no-op while nothing is recorded or while the thread is inside the recorder (m_busy).
#pragma once

#include <atomic>
#include <cstdint>

#include "memlog/format.hpp"
#include "record/sampled_capture.hpp"
#include "record/sequence_counter.hpp"
#include "record/thread_state.hpp"

namespace memlog::preload {

// What every event reads besides its thread's state. Set at start-up before the phase turns
// Ready (start/start_up.cpp), and in a fork child while it has one thread; read without a lock.
struct Recording {
    std::atomic<bool> m_on{false};  // a log is open (start/log_lifetime.cpp); relaxed: read on every event
    bool m_fastPdep = false;        // the encoder's pdep path is the fast one (format.hpp, hasFastPdep)
    SequenceCounter m_sequence;     // the global order of the events
};
extern Recording g_recording;

// Whether this process is being recorded (memlog_recording()).
inline bool isRecording() { return g_recording.m_on.load(std::memory_order_relaxed); }

// The next sequence number: one add, unlocked while one thread alone records.
[[gnu::always_inline]] inline uint64_t nextSequence() { return g_recording.m_sequence.take(&t_state); }

// One heap event's record, whatever the mode: out of line.
void recordHeapEvent(format::Kind kind, const void* address, uint64_t size, uint64_t alignment);

// An allocation, after the real call. Sampled capture (record/sampled_capture.hpp): the countdown
// inline, and only a sample goes on; mmap always does.
[[gnu::always_inline]] inline void recordAllocation(format::Kind kind, const void* address, uint64_t size,
                                                    uint64_t alignment) {
    if (isSampling() && kind != format::Kind::Mmap) [[unlikely]] {
        if (spendSampleBytes(t_state, size)) recordSampledAllocation(kind, address, size, alignment);
        return;
    }
    recordHeapEvent(kind, address, size, alignment);
}
// Same layout; the hook calls it before the real free. Sampled: one probe of the set; munmap
// always goes on.
[[gnu::always_inline]] inline void recordRelease(format::Kind kind, const void* address, uint64_t size,
                                                 uint64_t alignment) {
    if (isSampling() && kind != format::Kind::Munmap) [[unlikely]] {
        if (g_sampledCapture.m_live.contains(address)) recordSampledRelease(kind, address, size, alignment);
        return;
    }
    recordHeapEvent(kind, address, size, alignment);
}

// realloc and mremap: the old block ends at the sequence number taken before the call, the new
// one begins at the number taken after it (see format.hpp). A failed call leaves a gap.
struct ResizeTicket {
    uint64_t m_seqBefore = 0;
    uint32_t m_stack = 0;
    bool m_valid = false;  // false: recording off or the thread busy, nothing to finish
    uint64_t m_oldUsable = 0;  // realloc while a watch is on: the old block's usable bytes
    // Sampled capture: the old block was a sample (out of the set until the call is over), the
    // new one is.
    bool m_sampledOld = false;
    bool m_sampledNew = false;
};
// `old`: realloc's block (its usable size is taken while it is still live), else null; `size`:
// the new block's, which a sampled capture counts down.
ResizeTicket beginResize(format::Kind kind, const void* old = nullptr, uint64_t size = 0);
// A realloc that failed: its old block is as it was (a sample back in the set).
inline void cancelResize(const ResizeTicket& ticket, const void* old) {
    if (ticket.m_sampledOld) g_sampledCapture.m_live.insert(old);
}
void finishResize(const ResizeTicket& ticket, format::Kind kind, const void* address, uint64_t size,
                  const void* oldAddress, uint64_t oldSize);

// The thread's end (a ThreadExit record), from its pthread key's destructor.
void recordThreadExit(ThreadState& thread);

// Access samples, from the sampler's signal handler on a thread that is not m_busy: one Access
// record per access, each with `prototype`'s ip, source and flags and the stack of the
// accessing code's callers (`frames`, innermost first). Returns the first record's sequence
// number, 0 when the log had no room.
struct MemoryAccess;
uint64_t recordAccesses(ThreadState& thread, const format::AccessRecord& prototype, const MemoryAccess* accesses,
                        uint32_t count, const uint64_t* frames, uint32_t depth);

// The thread's ThreadStack record, once per log: the reader tells the stack's accesses from other
// memory by it. False when the log has no room.
bool writeThreadStack(ThreadState& thread);

// memlog.h's annotations (hooks/annotations.cpp): one Annotation record at its place in the
// sequence, in the calling thread's chunk; nothing while not recording or inside the recorder.
void recordAnnotation(format::AnnotationRecord& record);

}  // namespace memlog::preload
