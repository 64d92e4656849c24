// A full trace (MEMLOG_FULL_TRACE=1, set by `memlog run --full-trace`, which runs the program
// under Valgrind's lackey tool): lackey prints every load and store; the recorder drops markers
// into the same stream through Valgrind's client requests. "memlog<" and "memlog>" bracket the
// recorder's own work and the allocator's, whose accesses are not the program's; each event's
// marker gives its sequence number and time, so that memlog puts the program's accesses in
// their place among the events. Sequence numbers then step by format::kTraceSeqStride, leaving
// room for the accesses between two events.
//
// Everything of a full trace is here: its start, the brackets, the event markers; the event
// path and the hooks reach it only through `if (g_traceMarkers)`, a load of a flag that is false
// outside a full trace.
#pragma once

#include <cstdint>

#include "record/events.hpp"
#include "record/thread_state.hpp"
#include "sample/tick_sampler.hpp"

namespace memlog::preload {

extern bool g_traceMarkers;  // set once at start-up, before any other thread runs

// Start-up, MEMLOG_FULL_TRACE=1 (`wanted`): the markers on, and sequence numbers spaced for the
// accesses memlog puts between two events. False for a process outside Valgrind (the launchers
// that start it, a child it execs): nothing of it would be in the trace, and it is not recorded
// at all. True without `wanted`.
bool startFullTrace(bool wanted);

// Brackets; nested brackets of a thread print only the outermost pair. The closing marker
// carries the thread's last event (seq, tsc) when it recorded one inside.
void enterQuiet();
void leaveQuiet();
void noteTracedEvent(uint64_t seq, uint64_t tsc);

// A heap event's marker, and at the thread's first event its stack's extent in the log: a full
// trace places every access, the stack's too (the sampler learns the extent at the thread's
// first tick, a full trace here). Inline in recordAllocation, whose frame tells the stack.
[[gnu::always_inline]] inline void noteTracedHeapEvent(ThreadState& thread, uint64_t seq, uint64_t tsc) {
    noteTracedEvent(seq, tsc);
    if (thread.m_writer.m_stackRangeWritten) return;
    if (!thread.m_sampler.m_ready) prepareThread(thread, reinterpret_cast<uint64_t>(__builtin_frame_address(0)));
    writeThreadStack(thread);
}

class TraceQuiet {
public:
    TraceQuiet() {
        if (g_traceMarkers) enterQuiet();
    }
    ~TraceQuiet() {
        if (g_traceMarkers) leaveQuiet();
    }
    TraceQuiet(const TraceQuiet&) = delete;
    TraceQuiet& operator=(const TraceQuiet&) = delete;
};

}  // namespace memlog::preload
