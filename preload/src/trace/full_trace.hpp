// A full trace (MEMLOG_FULL_TRACE=1, set by `memlog run --full-trace`, which runs the program
// under memlog's Valgrind tool, preload/trace_tool/): the tool writes every access into this
// process's log; the recorder tells it, through Valgrind's client requests
// (trace_tool/trace_requests.h), where the log is, and brackets its own work and the
// allocator's, whose accesses are not the program's. Closing a bracket gives the last event
// recorded inside, so that the tool numbers the accesses after it. Sequence numbers then step by
// format::kTraceSeqStride, leaving room for the accesses between two events.
//
// Everything of a full trace is here: its start, the brackets, the requests; the event path and
// the hooks reach it only through `if (g_traceMarkers)`, a load of a flag that is false outside a
// full trace.
#pragma once

#include <cstdint>

#include "record/events.hpp"
#include "record/thread_state.hpp"
#include "sample/tick_sampler.hpp"

namespace memlog::preload {

extern bool g_traceMarkers;  // set once at start-up, before any other thread runs

// Start-up, MEMLOG_FULL_TRACE=1 (`wanted`): the requests on, and sequence numbers spaced for the
// accesses the tool numbers between two events. False for a process outside Valgrind (the
// launcher that starts it): nothing of it would be in the trace, and it is not recorded at all.
// True without `wanted`.
bool startFullTrace(bool wanted);

// Brackets; nested brackets of a thread send only the outermost pair. The closing request
// carries the thread's last event (seq, tsc) when it recorded one inside.
void enterQuiet();
void leaveQuiet();
void noteTracedEvent(uint64_t seq, uint64_t tsc);

// The log just opened (start-up, a fork child): the tool's chunks go into it, reserved at its
// `tail` word; `seq` is a number just taken (the accesses from here come after it). The tool
// leaves out the recorder's code and its unwinder's (trace_requests.h).
void announceTraceLog(const char* path, uint64_t* tail, uint64_t seq, uint64_t tsc);
// The log ends (exit, _exit, exec): the tool writes what it holds now.
void flushTrace();

// A heap event's bracket, and at the thread's first event its stack's extent in the log: a full
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
