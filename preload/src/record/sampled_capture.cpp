// Sampled capture's slow steps: a thread's first countdown and each fresh gap, a sample's
// allocation and release, the set mapped at start-up. Each runs once a sample (about one
// allocation in mean / average size), so its cost is spread thin.
#include "record/sampled_capture.hpp"

#include <sys/mman.h>

#include "base/system.hpp"
#include "record/events.hpp"
#include "record/record_writer.hpp"
#include "record/sample_gaps.hpp"
#include "start/process_events.hpp"

namespace memlog::preload {

constinit SampledCapture g_sampledCapture;

namespace {

constinit uint64_t s_slotCount = 0;

}  // namespace

bool crossedGap(ThreadState& thread, uint64_t size) {
    ThreadState::Sampling& sampling = thread.m_sampling;
    if (!sampling.m_started) [[unlikely]] {
        sampling.m_started = true;
        // The thread's end is recorded as in a full log (its ThreadExit record), samples or not.
        if (isRecording()) noteThreadStarted();
        sampling.m_random =
            streamStart(g_sampledCapture.m_seed, g_sampledCapture.m_threadsStarted.fetch_add(1, std::memory_order_relaxed));
        sampling.m_bytesLeft = drawGap(sampling.m_random, g_sampledCapture.m_meanBytes) - static_cast<int64_t>(size);
        if (sampling.m_bytesLeft > 0) return false;
    }
    // The overshoot is dropped: the exponential has no memory, so the next gap starts afresh.
    sampling.m_bytesLeft = drawGap(sampling.m_random, g_sampledCapture.m_meanBytes);
    return true;
}

void recordSampledAllocation(format::Kind kind, const void* address, uint64_t size, uint64_t alignment) {
    if (!isRecording()) return;
    if (!g_sampledCapture.m_live.insert(address)) {
        countInHeader(&format::FileHeader::m_sampleSetOverflow);
        return;
    }
    recordHeapEvent(kind, address, size, alignment);
}

void recordSampledRelease(format::Kind kind, const void* address, uint64_t size, uint64_t alignment) {
    // Another thread may have taken it out first only if the program freed the block twice.
    if (!g_sampledCapture.m_live.remove(address)) return;
    recordHeapEvent(kind, address, size, alignment);
}

bool startSampledCapture(uint64_t meanBytes, uint64_t seed, uint64_t slots) {
    uint64_t count = LiveSampleSet::kBucketSlots;
    while (count * 2 <= slots) count *= 2;
    // MAP_NORESERVE: a page costs memory only once an address hashes into it.
    void* memory = sys::mapAnonymous(LiveSampleSet::kFilterBytes + count * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                                     MAP_NORESERVE);
    if (!memory) {
        (sys::Line() << "memlog: no memory for the set of sampled blocks; recording every event\n").emit();
        return false;
    }
    g_sampledCapture.m_live.attach(memory, count);
    g_sampledCapture.m_seed = seed;
    g_sampledCapture.m_meanBytes = meanBytes;
    s_slotCount = count;
    return true;
}

uint64_t sampleSetSlots() { return s_slotCount; }

void enableSampledShortcut(bool allocatorWatched) {
    if (isSampling() && !allocatorWatched) g_sampledCapture.m_shortcut.store(true, std::memory_order_release);
}

void restartSamplingInForkChild(ThreadState& thread, bool seeded) {
    if (!isSampling() || seeded) return;
    thread.m_sampling.m_random ^= streamStart(sys::readTsc(), sys::processId());
}

}  // namespace memlog::preload
