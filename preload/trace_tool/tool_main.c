/* memlog's Valgrind tool (--tool=memlog): its start, options and end, the recorder's client
 * requests (trace_requests.h), and the scheduler's, threads' and forks' events handed to the
 * trace streams (trace_stream.cpp). Valgrind's calls the streams need are wrapped here, so that
 * the streams' file includes no Valgrind header. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clreq.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"
#include "pub_tool_vki.h"

#include "tool.h"
#include "tool_valgrind.h"
#include "trace_requests.h"

static Bool s_countOnly = False;
static const HChar* s_countFile = NULL;

Bool tool_count_only(void) { return s_countOnly; }

/* --- what the streams ask of Valgrind ------------------------------------------------------ */

void* tool_alloc(size_t bytes) { return VG_(calloc)("memlog.stream", 1, bytes); }

void tool_free(void* memory) { VG_(free)(memory); }

int tool_open_log(const char* path) {
    const SysRes opened = VG_(open)(path, VKI_O_WRONLY, 0);
    return sr_isError(opened) ? -1 : (int)sr_Res(opened);
}

void tool_close(int fd) { VG_(close)(fd); }

int tool_write_at(int fd, uint64_t offset, const void* data, size_t bytes) {
    if (VG_(lseek)(fd, (Off64T)offset, VKI_SEEK_SET) != (Off64T)offset) return -1;
    const char* from = data;
    while (bytes) {
        const Int wrote = VG_(write)(fd, from, (Int)bytes);
        if (wrote <= 0) return -1;
        from += wrote;
        bytes -= (size_t)wrote;
    }
    return 0;
}

uint32_t tool_os_tid(void) { return (uint32_t)VG_(gettid)(); }

/* The thread's stack as Valgrind knows it, widened to the whole mapping it lies in: a thread's
 * stack mapping also holds, above the stack pointer it starts with, its thread control block
 * and its thread-local storage (glibc), which the recorder counts as its stack too. */
void tool_thread_stack(uint32_t tid, uint64_t* lo, uint64_t* hi) {
    const Addr highest = VG_(thread_get_stack_max)(tid);
    const SizeT size = VG_(thread_get_stack_size)(tid);
    *hi = highest ? highest + 1 : 0;
    *lo = size < *hi ? *hi - size : 0;
    const NSegment* mapping = highest ? VG_(am_find_nsegment)(highest) : NULL;
    if (mapping && mapping->kind != SkFree) {
        if (mapping->end + 1 > *hi) *hi = mapping->end + 1;
        if (mapping->start < *lo) *lo = mapping->start;
    }
}

void tool_warn(const char* text) { VG_(umsg)("%s\n", text); }

/* --- the recorder's requests --------------------------------------------------------------- */

static Bool handleRequest(ThreadId tid, UWord* arguments, UWord* result) {
    if (!VG_IS_TOOL_USERREQ('M', 'L', arguments[0])) return False;
    switch (arguments[0]) {
        case MEMLOG_TRACE_LOG: {
            const struct memlog_trace_log* log = (const struct memlog_trace_log*)arguments[1];
            trace_log_opened(tid, log->path, log->tail, log->seq, log->tsc);
            /* Blocks made before are made again, now without the recorder's code. */
            tool_exclude_code(0, log->code_lo, log->code_hi);
            tool_exclude_code(1, log->helper_lo, log->helper_hi);
            if (log->code_hi > log->code_lo)
                VG_(discard_translations_safely)(log->code_lo, log->code_hi - log->code_lo, "memlog");
            if (log->helper_hi > log->helper_lo)
                VG_(discard_translations_safely)(log->helper_lo, log->helper_hi - log->helper_lo, "memlog");
            break;
        }
        case MEMLOG_TRACE_QUIET:
            trace_quiet(tid);
            break;
        case MEMLOG_TRACE_LOUD:
            trace_loud(tid, arguments[1], arguments[2]);
            break;
        case MEMLOG_TRACE_FLUSH:
            trace_flush();
            break;
        default:
            return False;
    }
    *result = 1;
    return True;
}

/* --- threads, forks, the end --------------------------------------------------------------- */

static void threadRuns(ThreadId tid, ULong blocks) {
    (void)blocks;
    trace_thread_runs(tid);
}

static void threadPauses(ThreadId tid, ULong blocks) {
    (void)blocks;
    trace_thread_pauses(tid);
}

static void threadExits(ThreadId tid) { trace_thread_exits(tid); }

static void forkChild(ThreadId tid) { trace_fork_child(tid); }

static void writeCounts(const uint64_t counts[4]) {
    HChar line[256];
    VG_(sprintf)(line, "reads %llu writes %llu modifies %llu left_out %llu\n", (ULong)counts[1], (ULong)counts[2],
                 (ULong)counts[3], (ULong)counts[0]);
    if (!s_countFile) {
        VG_(umsg)("memlog: %s", line);
        return;
    }
    HChar* path = VG_(expand_file_name)("--count-file", s_countFile);
    const SysRes opened = VG_(open)(path, VKI_O_WRONLY | VKI_O_CREAT | VKI_O_TRUNC, 0644);
    if (!sr_isError(opened)) {
        VG_(write)((Int)sr_Res(opened), line, (Int)VG_(strlen)(line));
        VG_(close)((Int)sr_Res(opened));
    }
    VG_(free)(path);
}

static void fini(Int exitCode) {
    (void)exitCode;
    uint64_t counts[4];
    trace_fini(counts);
    if (s_countOnly) writeCounts(counts);
}

/* --- start-up ------------------------------------------------------------------------------ */

static Bool processOption(const HChar* argument) {
    if VG_BOOL_CLO (argument, "--count-only", s_countOnly) {
    } else if VG_STR_CLO (argument, "--count-file", s_countFile) {
    } else
        return False;
    return True;
}

static void printUsage(void) {
    VG_(printf)(
        "    --count-only=no|yes       count the accesses a trace would hold, by kind, and write\n"
        "                              nothing: the floor of the tool's cost [no]\n"
        "    --count-file=<file>       where --count-only writes its counts (%%p: the pid) [stderr]\n");
}

static void printDebugUsage(void) { VG_(printf)("    (none)\n"); }

static void postCommandLine(void) { trace_setup(s_countOnly); }

static void preCommandLine(void) {
    VG_(details_name)("memlog");
    VG_(details_version)(NULL);
    VG_(details_description)("every memory access, into memlog's log");
    VG_(details_copyright_author)("memlog's authors");
    VG_(details_bug_reports_to)("memlog's issue tracker");
    VG_(details_avg_translation_sizeB)(400);
    VG_(basic_tool_funcs)(postCommandLine, tool_instrument, fini);
    VG_(needs_command_line_options)(processOption, printUsage, printDebugUsage);
    VG_(needs_client_requests)(handleRequest);
    VG_(track_start_client_code)(threadRuns);
    VG_(track_stop_client_code)(threadPauses);
    VG_(track_pre_thread_ll_exit)(threadExits);
    VG_(atfork)(NULL, NULL, forkChild);
}

VG_DETERMINE_INTERFACE_VERSION(preCommandLine)
