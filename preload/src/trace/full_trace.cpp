// The requests to memlog's Valgrind tool, through Valgrind's client requests (nothing when built
// without its header), and the full trace's start.
#include "trace/full_trace.hpp"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define MEMLOG_HAVE_VALGRIND 1
#endif

#include "record/events.hpp"
#include "record/stack_ids.hpp"
#include "start/log_lifetime.hpp"
#include "trace_requests.h"

namespace memlog::preload {

bool g_traceMarkers = false;

namespace {

// True when this process runs under Valgrind (its requests would be heard).
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
    g_origin.m_accessSampler = format::AccessSampler::FullTrace;  // the header says so from the start
    g_recording.m_sequence.setStep(format::kTraceSeqStride);
    return true;
}

void enterQuiet() {
    ThreadState& thread = t_state;
    if (thread.m_trace.m_quietDepth++ != 0) return;
    thread.m_trace.m_tracedSeq = 0;
#ifdef MEMLOG_HAVE_VALGRIND
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMLOG_TRACE_QUIET, 0, 0, 0, 0, 0);
#endif
}

void leaveQuiet() {
    ThreadState& thread = t_state;
    if (thread.m_trace.m_quietDepth == 0 || --thread.m_trace.m_quietDepth != 0) return;
#ifdef MEMLOG_HAVE_VALGRIND
    VALGRIND_DO_CLIENT_REQUEST_STMT(MEMLOG_TRACE_LOUD, thread.m_trace.m_tracedSeq, thread.m_trace.m_tracedTsc, 0, 0,
                                    0);
#endif
}

void noteTracedEvent(uint64_t seq, uint64_t tsc) {
    ThreadState& thread = t_state;
    if (seq > thread.m_trace.m_tracedSeq) {
        thread.m_trace.m_tracedSeq = seq;
        thread.m_trace.m_tracedTsc = tsc;
    }
}

void announceTraceLog(const char* path, uint64_t* tail, uint64_t seq, uint64_t tsc) {
    const memlog_trace_log log{path,
                               tail,
                               seq,
                               tsc,
                               g_stacks.m_ownCode.m_lo,
                               g_stacks.m_ownCode.m_hi,
                               g_stacks.m_unwinderCode.m_lo,
                               g_stacks.m_unwinderCode.m_hi};
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
