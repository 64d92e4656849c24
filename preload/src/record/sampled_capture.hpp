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
};
extern SampledCapture g_sampledCapture;

[[gnu::always_inline]] inline bool isSampling() { return g_sampledCapture.m_meanBytes != 0; }

// The thread's first countdown, and a fresh gap after a sample: out of line, once a sample.
bool crossedGap(ThreadState& thread, uint64_t size);

// Spends `size` bytes of the thread's countdown: true when this allocation is a sample.
[[gnu::always_inline]] inline bool spendSampleBytes(ThreadState& thread, uint64_t size) {
    thread.m_sampling.m_bytesLeft -= static_cast<int64_t>(size);
    if (thread.m_sampling.m_bytesLeft > 0) [[likely]]
        return false;
    return crossedGap(thread, size);
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
