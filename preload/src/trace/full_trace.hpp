// A full trace (MEMLOG_FULL_TRACE=1, set by `memlog run --full-trace`, which runs the program
// under Valgrind's lackey tool): lackey prints every load and store; the recorder drops markers
// into the same stream through Valgrind's client requests. "memlog<" and "memlog>" bracket the
// recorder's own work and the allocator's, whose accesses are not the program's; each event's
// marker gives its sequence number and time, so that memlog puts the program's accesses in
// their place among the events. Sequence numbers then step by format::kTraceSeqStride, leaving
// room for the accesses between two events.
#pragma once

#include <cstdint>

namespace memlog::preload {

extern bool g_traceMarkers;  // set once at start-up, before any other thread runs

// True when this process runs under Valgrind (its markers would be seen).
bool runningOnValgrind();

// Brackets; nested brackets of a thread print only the outermost pair. The closing marker
// carries the thread's last event (seq, tsc) when it recorded one inside.
void enterQuiet();
void leaveQuiet();
void noteTracedEvent(uint64_t seq, uint64_t tsc);

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
