// The tick sampler (MEMLOG_ACCESS=1): every so much CPU time a thread is stopped by a
// synchronous SIGTRAP, the instruction it was about to run is decoded (instruction_access.hpp),
// and what it reads or writes becomes Access records with its call stack. An instruction that
// touches no memory is stepped over with the trap flag, a few instructions at most.
#pragma once

#include <ucontext.h>

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
// with the reason for the user in `why` (a debugger present is one: it owns SIGTRAP).
format::AccessSampler startSampler(const SamplerSettings& settings, char* why, uint32_t capacity);

// No more ticks in this process (the log could not be opened).
void stopSampler();

// The callers of the interrupted code, innermost first: the frame-pointer chain (read only
// within the thread's stack as the maps told it) or libunwind from the signal context. For the
// watch traps too (watch/heap_watch.cpp).
uint32_t captureCallers(ThreadState& thread, ucontext_t& context, uint64_t* frames);

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
