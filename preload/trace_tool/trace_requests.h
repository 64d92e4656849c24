/* What the recorder tells memlog's Valgrind tool, through Valgrind's client requests (valgrind.h):
 * where the log is, when a thread's accesses are the recorder's or the allocator's, and which
 * event it has just recorded. C, so that the tool (C, no libc) and the recorder (C++) share it. */
#ifndef MEMLOG_TRACE_REQUESTS_H
#define MEMLOG_TRACE_REQUESTS_H

#include <stdint.h>

/* Valgrind's VG_USERREQ_TOOL_BASE('M','L'): the tool answers requests with these two letters. */
#define MEMLOG_TRACE_REQUEST_BASE ((unsigned)'M' << 24 | (unsigned)'L' << 16)

enum memlog_trace_request {
    /* arg 1: const struct memlog_trace_log*. This process records to a new log (at start-up, in
     * a fork child): the tool's chunks go into it from here on. */
    MEMLOG_TRACE_LOG = MEMLOG_TRACE_REQUEST_BASE,
    /* The calling thread enters the recorder: its accesses are left out until MEMLOG_TRACE_LOUD
     * (the recorder's brackets nest; it sends the outermost pair only). */
    MEMLOG_TRACE_QUIET,
    /* arg 1: the sequence number of the last event recorded inside the bracket (0: none), arg 2:
     * its TSC. The thread's accesses count again, numbered after that event. */
    MEMLOG_TRACE_LOUD,
    /* The log ends (exit, _exit, exec): every thread's accesses so far go into it now. */
    MEMLOG_TRACE_FLUSH,
};

struct memlog_trace_log {
    const char* path;
    /* The log's next free offset, a multiple of 4096; a chunk is reserved by adding its size
     * (bit 63 is the recorder's flag and stays as it is). Valgrind runs one thread at a time,
     * so the tool's add and the recorder's compare-and-swap never overlap. */
    uint64_t* tail;
    uint64_t seq;  /* a sequence number just taken: the accesses from here are numbered after it */
    uint64_t tsc;
    /* The recorder's own code [code_lo, code_hi) and its unwinder's [helper_lo, helper_hi)
     * (libunwind): their instructions and accesses are not the program's, and are neither
     * counted nor traced. */
    uint64_t code_lo;
    uint64_t code_hi;
    uint64_t helper_lo;
    uint64_t helper_hi;
};

#endif
