// The markers, printed with Valgrind's client requests (nothing when built without its header),
// and the full trace's start.
#include "trace/full_trace.hpp"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define MEMLOG_HAVE_VALGRIND 1
#endif

#include "record/events.hpp"

namespace memlog::preload {

bool g_traceMarkers = false;

namespace {

// True when this process runs under Valgrind (its markers would be seen).
bool runningOnValgrind() {
#ifdef MEMLOG_HAVE_VALGRIND
    return RUNNING_ON_VALGRIND != 0;
#else
    return false;
#endif
}

}  // namespace

bool startFullTrace(bool wanted) {
    if (!wanted) return true;
    if (!runningOnValgrind()) return false;
    g_traceMarkers = true;
    g_recording.m_sequence.setStep(format::kTraceSeqStride);
    return true;
}

void enterQuiet() {
    ThreadState& thread = t_state;
    if (thread.m_trace.m_quietDepth++ != 0) return;
    thread.m_trace.m_tracedSeq = 0;
#ifdef MEMLOG_HAVE_VALGRIND
    VALGRIND_PRINTF("memlog<\n");
#endif
}

void leaveQuiet() {
    ThreadState& thread = t_state;
    if (thread.m_trace.m_quietDepth == 0 || --thread.m_trace.m_quietDepth != 0) return;
#ifdef MEMLOG_HAVE_VALGRIND
    if (thread.m_trace.m_tracedSeq)
        VALGRIND_PRINTF("memlog> %llu %llu\n", static_cast<unsigned long long>(thread.m_trace.m_tracedSeq),
                        static_cast<unsigned long long>(thread.m_trace.m_tracedTsc));
    else
        VALGRIND_PRINTF("memlog>\n");
#endif
}

void noteTracedEvent(uint64_t seq, uint64_t tsc) {
    ThreadState& thread = t_state;
    if (seq > thread.m_trace.m_tracedSeq) {
        thread.m_trace.m_tracedSeq = seq;
        thread.m_trace.m_tracedTsc = tsc;
    }
}

}  // namespace memlog::preload
