#include "full_trace.hpp"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define MEMLOG_HAVE_VALGRIND 1
#endif

#include "recorder.hpp"
#include "trace_requests.h"

namespace memlog::preload {

bool g_traceMarkers = false;

bool runningOnValgrind() {
#ifdef MEMLOG_HAVE_VALGRIND
    return RUNNING_ON_VALGRIND != 0;
#else
    return false;
#endif
}

void enterQuiet() {
    ThreadState& thread = t_state;
    if (thread.m_quietDepth++ != 0) return;
    thread.m_tracedSeq = 0;
#ifdef MEMLOG_HAVE_VALGRIND
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMLOG_TRACE_QUIET, 0, 0, 0, 0, 0);
#endif
}

void leaveQuiet() {
    ThreadState& thread = t_state;
    if (thread.m_quietDepth == 0 || --thread.m_quietDepth != 0) return;
#ifdef MEMLOG_HAVE_VALGRIND
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMLOG_TRACE_LOUD, thread.m_tracedSeq, thread.m_tracedTsc, 0, 0, 0);
#endif
}

void noteTracedEvent(uint64_t seq, uint64_t tsc) {
    ThreadState& thread = t_state;
    if (seq > thread.m_tracedSeq) {
        thread.m_tracedSeq = seq;
        thread.m_tracedTsc = tsc;
    }
}

void announceTraceLog(const char* path, uint64_t* tail, uint64_t seq, uint64_t tsc, TraceCode recorder,
                      TraceCode unwinder) {
    const memlog_trace_log log{path, tail, seq, tsc, recorder.m_lo, recorder.m_hi, unwinder.m_lo, unwinder.m_hi};
#ifdef MEMLOG_HAVE_VALGRIND
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMLOG_TRACE_LOG, &log, 0, 0, 0, 0);
#else
    (void)log;
#endif
}

void flushTrace() {
#ifdef MEMLOG_HAVE_VALGRIND
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMLOG_TRACE_FLUSH, 0, 0, 0, 0, 0);
#endif
}

}  // namespace memlog::preload
