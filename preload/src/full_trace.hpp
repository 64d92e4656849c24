// A full trace (MEMLOG_FULL_TRACE=1, set by `memlog run --full-trace`, which runs the program
// under memlog's Valgrind tool, preload/trace_tool/): the tool writes every access into this
// process's log; the recorder tells it, through Valgrind's client requests
// (trace_tool/trace_requests.h), where the log is, and brackets its own work and the
// allocator's, whose accesses are not the program's. Closing a bracket gives the last event
// recorded inside, so that the tool numbers the accesses after it. Sequence numbers then step by
// format::kTraceSeqStride, leaving room for the accesses between two events.
#pragma once

#include <cstdint>

namespace memlog::preload {

extern bool g_traceMarkers;  // set once at start-up, before any other thread runs

// True when this process runs under Valgrind (its requests would be heard).
bool runningOnValgrind();

// Brackets; nested brackets of a thread send only the outermost pair. The closing request
// carries the thread's last event (seq, tsc) when it recorded one inside.
void enterQuiet();
void leaveQuiet();
void noteTracedEvent(uint64_t seq, uint64_t tsc);

// The log just opened: the tool's chunks go into it, reserved at its `tail` word; `seq` is a
// number just taken (the accesses from here come after it); `log` gives the recorder's code and
// its unwinder's, which the tool leaves out (trace_requests.h).
struct TraceCode {
    uint64_t m_lo, m_hi;
};
void announceTraceLog(const char* path, uint64_t* tail, uint64_t seq, uint64_t tsc, TraceCode recorder,
                      TraceCode unwinder);
// The log ends (exit, _exit, exec): the tool writes what it holds now.
void flushTrace();

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
