// Whether hardware watchpoints can sample memory accesses in this process, asked the way a
// sampler would use them: a breakpoint event on a word of ours that must count our own writes.
// Costs one perf_event_open and a few syscalls, once, at start-up when MEMLOG_WATCH=1.
#pragma once

#include <cstdint>

namespace memlog::preload {

// True when a watchpoint opened and fired. Otherwise false, with a one-line reason for the user
// (what refused, and what to change where something can be changed) in `reason`.
bool probeWatchpoints(char* reason, uint32_t capacity);

}  // namespace memlog::preload
