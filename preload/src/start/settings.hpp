// The recorder's settings, read once from the environment the process started with.
#pragma once

#include <cstdint>

#include "memlog/format.hpp"

namespace memlog::preload {

struct Settings {
    char m_outputTemplate[1024] = "%e.%p.memlog";  // MEMLOG_OUT; %p pid, %e program, %% percent
    bool m_quiet = false;                           // MEMLOG_QUIET=1
    format::UnwindMode m_unwind = format::UnwindMode::Libunwind;  // MEMLOG_UNWIND
    uint32_t m_stackDepth = 64;                     // MEMLOG_STACK_DEPTH, 1..256
    bool m_freeStacks = true;                       // MEMLOG_FREE_STACKS
    bool m_incremental = true;                      // MEMLOG_UNWIND_INCREMENTAL: reuse walked frames
    bool m_unwindCheck = false;                     // MEMLOG_UNWIND_CHECK=1: compare with a full walk
    bool m_access = false;                          // MEMLOG_ACCESS=1: sample memory accesses
    uint32_t m_accessRate = 1000;                   // MEMLOG_ACCESS_RATE: ticks per CPU-second, 1..100000
    bool m_fullTrace = false;                       // MEMLOG_FULL_TRACE=1: markers for memlog run --full-trace
    bool m_watch = false;                           // MEMLOG_WATCH=1: watchpoints on sampled words
    uint32_t m_watchRate = 500;                     // MEMLOG_WATCH_RATE: traps per second, 1..100000
    // Set by `memlog run`, not meant for people: the file each new log's path is appended to
    // (one line each, so the launcher can list and rename them), and the one pid to record
    // (`--no-children`: its execs are recorded, other processes run unrecorded).
    char m_runList[1024] = "";                      // MEMLOG_RUN_LIST
    uint32_t m_onlyPid = 0;                         // MEMLOG_ONLY_PID; 0: every process
};

// Reads /proc/self/environ rather than getenv: the first allocation can come before libc has set
// up environ. A bad value prints one line on stderr and keeps the default.
void readSettings(Settings& settings);

// The basename of argv[0] and the command line, from /proc/self/cmdline.
void readProgramName(char* name, uint32_t capacity, char* commandLine, uint32_t commandCapacity);

}  // namespace memlog::preload
