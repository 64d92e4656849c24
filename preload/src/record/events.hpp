// The recorder's state and the four things a hook asks of it: is it ready, is this thread
// already inside the recorder, record an event, finish the log.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "memlog/format.hpp"
#include "record/thread_state.hpp"
#include "trace/full_trace.hpp"

#define MEMLOG_EXPORT extern "C" __attribute__((visibility("default")))

namespace memlog::preload {

enum class Phase : int { Cold = 0, Resolving = 1, Ready = 2 };
extern std::atomic<int> g_phase;

// Brings the recorder up on the first call from any thread; returns once real functions are
// known. Only the thread that is resolving them gets false (it must use the bootstrap pool).
bool ensureReady();
inline bool isReady() { return g_phase.load(std::memory_order_acquire) == static_cast<int>(Phase::Ready); }

// Recording. Each is a no-op when recording is off or the thread is busy.
void recordAllocation(format::Kind kind, const void* address, uint64_t size, uint64_t alignment);
// Same layout; the hook calls it before the real free.
inline void recordRelease(format::Kind kind, const void* address, uint64_t size, uint64_t alignment) {
    recordAllocation(kind, address, size, alignment);
}

// realloc and mremap: the old block ends at the sequence number taken before the call, the new
// one begins at the number taken after it (see format.hpp). A failed call leaves a gap.
struct ResizeTicket {
    uint64_t m_seqBefore = 0;
    uint32_t m_stack = 0;
    bool m_valid = false;  // false: recording off or the thread busy, nothing to finish
    uint64_t m_oldUsable = 0;  // realloc while a watch is on: the old block's usable bytes
};
// `old`: realloc's block (its usable size is taken while it is still live), else null.
ResizeTicket beginResize(format::Kind kind, const void* old = nullptr);
void finishResize(const ResizeTicket& ticket, format::Kind kind, const void* address, uint64_t size,
                  const void* oldAddress, uint64_t oldSize);

// True for code of the libraries the recorder uses (libunwind): their own mappings are not the
// program's.
bool isRecorderHelperCode(const void* returnAddress);
// True for the recorder's own code (libmemlog.so).
bool isRecorderCode(uint64_t address);

// Access samples, from the sampler's signal handler on a thread that is not m_busy: one Access
// record per access, each with `prototype`'s ip, source and flags and the stack of the
// accessing code's callers (`frames`, innermost first). Returns the first record's sequence
// number, 0 when the log had no room.
struct MemoryAccess;
uint64_t recordAccesses(ThreadState& thread, const format::AccessRecord& prototype, const MemoryAccess* accesses,
                        uint32_t count, const uint64_t* frames, uint32_t depth);
// The sampler's counters in the log's header; nullptr while nothing is recorded.
format::AccessCounters* accessCounters();

// memlog.h's annotations (hooks/annotations.cpp): one Annotation record at its place in the sequence,
// in the calling thread's chunk; nothing while not recording or inside the recorder.
void recordAnnotation(format::AnnotationRecord& record);
// Whether this process is being recorded (memlog_recording()).
bool isRecording();

// Marks the thread as inside the allocator while a hook's real call runs: a watchpoint that trips
// there, or a tick, is the allocator's own bookkeeping (free writes its links into the block).
// In a full trace the allocator's accesses are left out too (TraceQuiet).
class InAllocator {
public:
    InAllocator() : m_was(t_state.m_inAllocator) { t_state.m_inAllocator = true; }
    ~InAllocator() { t_state.m_inAllocator = m_was; }
    InAllocator(const InAllocator&) = delete;
    InAllocator& operator=(const InAllocator&) = delete;

private:
    bool m_was;
    TraceQuiet m_quiet;
};

// The log ends cleanly (exit, _exit, exec). undoEnd reopens it when exec failed.
void endLog(format::EndReason reason);
void undoEnd();

}  // namespace memlog::preload
