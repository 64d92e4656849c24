/* The tool's two halves and what they ask of each other: the Valgrind side in C (tool_main.c:
 * start-up, options, client requests, threads, forks; tool_instrument.c: the IR) and the trace
 * streams in C++ (trace_stream.cpp, which shares the log format header with the readers). No
 * Valgrind header here, so that the C++ file needs none. */
#ifndef MEMLOG_TRACE_TOOL_H
#define MEMLOG_TRACE_TOOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most memory operations one block may have: format::kMaxTraceOps. VEX's superblocks hold
 * at most 100 guest instructions, and an instruction makes one or two operations (an AVX masked
 * store or gather one per lane, at most 8), so no block comes near it. */
#define MEMLOG_MAX_BLOCK_OPS 4096

/* One memory operation of a block, in the order the block makes them. */
struct memlog_block_op {
    uint64_t ip;
    uint32_t size;
    uint8_t kind;     /* format::AccessKind: 1 read, 2 write, 3 read-modify-write */
    uint8_t guarded;  /* made only when a condition holds (AVX masked lanes, guarded loads) */
    uint16_t index;   /* the instruction's place among the block's counted instructions */
};

/* A block's operations, made once per translation and kept for good (a stream names it). */
struct memlog_block {
    uint32_t ops;
    uint64_t stream_serial;  /* the stream that last ran it, and its entry there: a cache */
    void* stream_entry;
    struct memlog_block_op op[];
};

/* The running thread's instructions: the instrumented code adds each block's count at its exits. */
extern uint64_t memlog_icount;

/* Called from the instrumented code: a block with operations begins; one operation's address
 * (guarded: `done` is 1 when its condition held); the counting build's per operation call. */
void memlog_run_open(struct memlog_block* block);
void memlog_op(uint64_t address);
void memlog_op_guarded(uint64_t address, uint64_t done);
void memlog_count_op(uint64_t kind);
void memlog_count_op_guarded(uint64_t kind, uint64_t done);

/* Called from tool_main.c (thread ids are Valgrind's, 1..MEMLOG_MAX_THREADS-1). */
#define MEMLOG_MAX_THREADS 512
void trace_setup(int count_only);
void trace_thread_runs(uint32_t tid);
void trace_thread_pauses(uint32_t tid);
void trace_thread_exits(uint32_t tid);
void trace_log_opened(uint32_t tid, const char* path, uint64_t* tail, uint64_t seq, uint64_t tsc);
void trace_quiet(uint32_t tid);
void trace_loud(uint32_t tid, uint64_t seq, uint64_t tsc);
void trace_flush(void);
void trace_fork_child(uint32_t tid);
/* The process ends: everything written; the counting build's counts in `counts` (left out,
 * reads, writes, read-modify-writes). */
void trace_fini(uint64_t counts[4]);

/* Asked of the Valgrind side by trace_stream.cpp. */
void* tool_alloc(size_t bytes);  /* zeroed */
void tool_free(void* memory);
int tool_open_log(const char* path);  /* -1 when it cannot be opened */
void tool_close(int fd);
int tool_write_at(int fd, uint64_t offset, const void* data, size_t bytes);  /* 0 when all written */
uint32_t tool_os_tid(void);
void tool_thread_stack(uint32_t tid, uint64_t* lo, uint64_t* hi);
void tool_warn(const char* text);

#ifdef __cplusplus
}
#endif

#endif
