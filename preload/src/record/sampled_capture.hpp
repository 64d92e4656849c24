// Sampled capture (MEMLOG_SAMPLE): the countdown each allocation spends, the set of live sampled
// blocks each free probes, and the out-of-line steps of a sample. An unsampled allocation costs a
// subtraction and a branch, an unsampled free one probe of the set: no clock, stack or record.
#pragma once

#include <atomic>
#include <cstdint>

#include "memlog/format.hpp"
#include "record/live_sample_set.hpp"
#include "record/thread_state.hpp"

namespace memlog::preload {

// Set at start-up (startSampledCapture) before the phase turns Ready; read without a lock.
struct SampledCapture {
    uint64_t m_meanBytes = 0;  // 0: a full log, every event recorded
    uint64_t m_seed = 0;
    LiveSampleSet m_live;
    std::atomic<uint64_t> m_threadsStarted{0};  // each thread's stream is the seed's n-th
    // The hooks' shortcut (shortcutOn, below; hooks/malloc.cpp, step 0): set once start-up is
    // over when nothing but the samples looks at the allocator (no ticks, watchpoints or full
    // trace: they need each real call marked InAllocator).
    std::atomic<bool> m_shortcut{false};
};
extern SampledCapture g_sampledCapture;

[[gnu::always_inline]] inline bool isSampling() { return g_sampledCapture.m_meanBytes != 0; }

// Start-up's end: the shortcut on if sampling is all there is to do.
void enableSampledShortcut(bool allocatorWatched);

// The thread's first countdown, and a fresh gap after a sample: out of line, once a sample.
bool crossedGap(ThreadState& thread, uint64_t size);

// Spends `size` bytes of the thread's countdown: true when this allocation is a sample.
[[gnu::always_inline]] inline bool spendSampleBytes(ThreadState& thread, uint64_t size) {
    thread.m_sampling.m_bytesLeft -= static_cast<int64_t>(size);
    if (thread.m_sampling.m_bytesLeft > 0) [[likely]]
        return false;
    return crossedGap(thread, size);
}

// The hooks' shortcut, for an event that is provably no sample: the countdown and the filter,
// and the hook forwards with a tail call, without a frame, InAllocator or a second look at the
// thread (bench_alloc at a 512 KiB mean gap, callgrind: the hooks ran 107 instructions a
// malloc/free pair before the shortcut, 35 with it; docs/BENCHMARKS.md). Anything else (a
// sample, a thread's first allocation, a sample's free, a thread inside the recorder) takes the
// hook's full path, which finds the countdown as it was.
[[gnu::always_inline]] inline bool shortcutOn() { return g_sampledCapture.m_shortcut.load(std::memory_order_acquire); }
// An allocation of `size` that leaves the countdown above zero: spent, true. Spent before the
// real call: an allocation that fails has spent its bytes too, which changes no probability (the
// exponential has no memory) and happens only when the heap is out of memory (a size of 2^63 or
// more takes the full path). forwardsUnrecorded asks the thread's busy flag first.
[[gnu::always_inline]] inline bool spendUnsampled(ThreadState& thread, uint64_t size) {
    const int64_t left = thread.m_sampling.m_bytesLeft;
    if (static_cast<int64_t>(size) < 0 || left <= static_cast<int64_t>(size)) return false;
    thread.m_sampling.m_bytesLeft = left - static_cast<int64_t>(size);
    return true;
}
// An allocation of `size` the hook forwards unrecorded under the shortcut: the thread inside the
// recorder already, or the countdown left above zero (spent). The caller asks shortcutOn() first.
[[gnu::always_inline]] inline bool forwardsUnrecorded(uint64_t size) {
    ThreadState& thread = t_state;
    return thread.m_busy || spendUnsampled(thread, size);
}
// A block the set of live samples cannot hold: its filter count is zero.
[[gnu::always_inline]] inline bool surelyUnsampled(const void* address) {
    return !g_sampledCapture.m_live.mayContain(address);
}

// A sample's allocation: into the set (a full bucket drops it, counted in the header), then its
// record. A release whose address the set holds: out of the set, then its record.
void recordSampledAllocation(format::Kind kind, const void* address, uint64_t size, uint64_t alignment);
void recordSampledRelease(format::Kind kind, const void* address, uint64_t size, uint64_t alignment);

// Start-up: maps the set (`slots`, rounded down to a power of two). False when it cannot be
// mapped: then the log is a full one.
bool startSampledCapture(uint64_t meanBytes, uint64_t seed, uint64_t slots);
uint64_t sampleSetSlots();

// A fork child's thread draws from a stream of its own, unless the seed was given.
void restartSamplingInForkChild(ThreadState& thread, bool seeded);

}  // namespace memlog::preload
