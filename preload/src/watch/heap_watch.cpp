// The process's watchpoints: one device (four perf breakpoint events) and one set of slots,
// shared by every thread; lock-free (watchpoints.hpp). What the sampler's handler and the event
// path call, and the watch's start, its stop and its restart in a fork child.
#include "watch/heap_watch.hpp"

#include <cstring>

#include "base/system.hpp"
#include "record/events.hpp"
#include "record/stack_ids.hpp"
#include "sample/instruction_access.hpp"
#include "sample/tick_sampler.hpp"
#include "watch/watch_device.hpp"
#include "watch/watch_probe.hpp"
#include "watch/watchpoints.hpp"

namespace memlog::preload {

std::atomic<bool> g_watching{false};

namespace {

PerfWatchDevice s_device;
Watchpoints s_watchpoints;

}  // namespace

format::WatchSampler startWatching(format::AccessSampler ticks, const char* ticksWhy, uint32_t trapsPerSecond,
                                   char* why, uint32_t capacity) {
    if (ticks == format::AccessSampler::Unavailable) {
        sys::copyCut(why, capacity, ticksWhy);
        return format::WatchSampler::Unavailable;
    }
    if (ticks == format::AccessSampler::Off) {
        sys::copyCut(why, capacity, "the tick sampler that finds the words to watch is not running");
        return format::WatchSampler::Unavailable;
    }
    if (!probeWatchpoints(why, capacity) || !s_device.open(why, capacity)) return format::WatchSampler::Unavailable;
    s_watchpoints.start(&s_device, trapsPerSecond, nullptr);
    g_watching.store(true, std::memory_order_release);
    return format::WatchSampler::ProcessWide;
}

void setWatchCounters(format::WatchCounters* counters) { s_watchpoints.setCounters(counters); }

void stopWatching() {
    if (g_watching.exchange(false, std::memory_order_acq_rel)) {
        s_watchpoints.stop();
        s_device.close();
    }
}

void restartWatchingInForkChild() {
    if (!g_watching.load(std::memory_order_relaxed)) return;
    s_device.close();
    s_watchpoints.forget();
    char why[128];
    if (!s_device.open(why, sizeof why)) g_watching.store(false, std::memory_order_relaxed);
}

bool anyWordWatched() { return s_watchpoints.active(); }
void watchFree(uint64_t start, uint64_t usable, bool unmapped) {
    s_watchpoints.onFree(start, usable, unmapped, sys::monotonicNs());
}
void watchAllocate(uint64_t start, uint64_t size) { s_watchpoints.onAllocate(start, size); }
void watchUnmap(uint64_t start, uint64_t length) { s_watchpoints.onUnmap(start, length); }

void followSampledWord(uint64_t addr, uint64_t seq, uint32_t tid, uint64_t afterIp) {
    s_watchpoints.follow(addr, seq, sys::monotonicNs(), tid, afterIp);
}

void expireWatches() { s_watchpoints.expire(sys::monotonicNs()); }

void onWatchTrap(ThreadState& thread, ucontext_t& context, uint64_t cookie) {
    const auto rip = static_cast<uint64_t>(context.uc_mcontext.gregs[REG_RIP]);
    Watchpoints::Caught caught;
    const bool inRecorder = thread.m_busy || isRecorderCode(rip);
    if (s_watchpoints.onTrap(cookie, thread.m_tid, rip, inRecorder, thread.m_inAllocator, &caught) !=
        Watchpoints::Verdict::Caught)
        return;
    if (!thread.m_sampler.m_ready) prepareThread(thread, static_cast<uint64_t>(context.uc_mcontext.gregs[REG_RSP]));
    thread.m_busy = true;
    uint64_t frames[format::kMaxStackDepth];
    const uint32_t depth = captureCallers(thread, context, frames);
    format::AccessRecord prototype;
    prototype.m_ip = rip;
    prototype.m_ipAfter = true;
    prototype.m_source = format::AccessSource::Watchpoint;
    prototype.m_armedBy = caught.m_armedBy;
    const MemoryAccess access{caught.m_word, 8, caught.m_kind};
    recordAccesses(thread, prototype, &access, 1, frames, depth);
    thread.m_busy = false;
}

}  // namespace memlog::preload
