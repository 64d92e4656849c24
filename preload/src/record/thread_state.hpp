// The recorder's per-thread state: one plain object in initial-exec TLS, so that a hook finds
// all of it at a fixed offset from %fs, in one TLS block. Its parts are grouped by the code that
// owns them. Plain data all through: no constructor, no destructor (a thread_local with a
// destructor registers itself through __cxa_thread_atexit, which callocs).
#pragma once

#include <cstdint>

#include "memlog/format.hpp"

namespace memlog::unwind {
struct UnwindCache;
}

namespace memlog::preload {

struct ThreadState {
    // The thread's own, asked by every hook.
    bool m_busy;          // inside the recorder or a real call it made: do not record
    bool m_initializing;  // this thread is resolving the real functions (start/start_up.cpp)
    bool m_inAllocator;   // inside a real allocator call from a hook (InAllocator, hooks/hook.hpp)
    uint32_t m_tid;       // known from the thread's first chunk on

    // The record writer's (record/record_writer.hpp): this thread's place in the log.
    struct Writer {
        uint8_t* m_cursor;  // next free byte of this thread's chunk
        uint8_t* m_limit;   // end of the chunk
        format::ChunkCursorState m_deltas;
        uint32_t m_chunks;         // chunks this thread has opened, to size the next one
        bool m_stackRangeWritten;  // this log has the thread's ThreadStack record
    } m_writer;

    // The stack ids' (record/stack_ids.hpp).
    struct Stacks {
        uint64_t m_lastHash;  // the last stack looked up, and its id: loops allocate from one place
        uint32_t m_lastId;
        unwind::UnwindCache* m_unwindCache;  // the incremental unwinder's tree and layouts
    } m_stacks;

    // Sampled capture's (record/sampled_capture.hpp): the bytes this thread may still allocate
    // before its next sample, and its generator. Zero at the start: the first allocation finds
    // the countdown spent and starts the thread's stream (m_started) before it is counted.
    struct Sampling {
        int64_t m_bytesLeft;
        uint64_t m_random;
        bool m_started;
    } m_sampling;

    // The tick sampler's (sample/tick_sampler.cpp), set up at the thread's first tick.
    struct Sampler {
        bool m_ready;     // m_fsBase, m_gsBase and the stack range are known
        bool m_stepping;  // the sampler set the trap flag: the next TRAP_TRACE is ours
        uint8_t m_stepsLeft;
        int m_timer;  // thread CPU-time timer id + 1 (ticks without perf events); 0: none
        uint64_t m_fsBase;
        uint64_t m_gsBase;
        uint64_t m_stackLo;  // the thread's stack, [m_stackLo, m_stackHi)
        uint64_t m_stackHi;
    } m_sampler;

    // A full trace's (trace/full_trace.hpp): the depth of the recorder's brackets, and the last
    // event recorded inside the outermost one.
    struct FullTrace {
        uint32_t m_quietDepth;
        uint64_t m_tracedSeq;
        uint64_t m_tracedTsc;
    } m_trace;
};
extern __thread ThreadState t_state __attribute__((tls_model("initial-exec")));

}  // namespace memlog::preload
