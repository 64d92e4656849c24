// The tick sampler (MEMLOG_ACCESS=1): every so much CPU time a thread is stopped by a
// synchronous SIGTRAP, the instruction it was about to run is decoded (instruction_access.hpp),
// and what it reads or writes becomes Access records with its call stack. An instruction that
// touches no memory is stepped over with the trap flag, a few instructions at most.
#pragma once

#include <atomic>
#include <cstdint>

#include "memlog/format.hpp"
#include "unwind/capture.hpp"

namespace memlog::preload {

struct ThreadState;

struct SamplerSettings {
    uint32_t m_rate = 1000;  // ticks per CPU-second of each thread
    unwind::Method m_unwind = unwind::Method::None;  // how the interrupted code's stack is taken
    uint32_t m_stackDepth = 64;
    unwind::CodeRange m_unwinderCode;  // libunwind's own code: a tick there is not unwound
};

// Starts the ticks: perf's task clock (inherited by every thread the process creates), or a
// CPU-time timer per thread where perf_event_open is refused. Returns which, or Unavailable
// with the reason for the user in `why`.
format::AccessSampler startSampler(const SamplerSettings& settings, char* why, uint32_t capacity);

// Watchpoints on sampled words (MEMLOG_WATCH=1), once the ticks run: four breakpoint events
// inherited by every thread created later. Returns ProcessWide, or Unavailable with the reason.
format::WatchSampler startWatchpoints(uint32_t trapsPerSecond, char* why, uint32_t capacity);
void setWatchCounters(format::WatchCounters* counters);  // the log header's, once it exists

// The heap's changes, from the hooks, while a watch is on (watchesActive): see watch/watchpoints.hpp.
// Without MEMLOG_WATCH the hooks' one check is a load of g_watching, inline.
extern std::atomic<bool> g_watching;  // watchpoints run (startWatchpoints)
bool anyWordWatched();
inline bool watchesActive() { return g_watching.load(std::memory_order_relaxed) && anyWordWatched(); }
void watchFree(uint64_t start, uint64_t usable, bool unmapped);
void watchAllocate(uint64_t start, uint64_t size);
void watchUnmap(uint64_t start, uint64_t length);

// No more ticks or watches in this process (the log could not be opened).
void stopSampler();

// Once per thread: the FS and GS bases that thread-local operands add, and the stack's extent
// around `stackPointer` (ThreadState::Sampler::m_stackLo, m_stackHi); sets m_ready.
void prepareThread(ThreadState& thread, uint64_t stackPointer);

// In a fork child: its own ticks (the parent's perf event is not inherited by a fork, nor are
// its timers), its own stepping state.
void restartSamplerInForkChild(ThreadState& thread);

// Timer mode only: pthread_create starts each new thread through this, and thread exit stops it.
bool samplerNeedsThreadStarts();
void startThreadTicks(ThreadState& thread);
void stopThreadTicks(ThreadState& thread);

}  // namespace memlog::preload
