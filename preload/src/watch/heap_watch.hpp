// The recorder's watchpoints (MEMLOG_WATCH=1), everything the rest of the recorder asks of them:
// started after the ticks, they follow words the ticks sampled; the event path tells them of the
// heap's changes while a word is watched; their traps reach them through the sampler's SIGTRAP
// handler and become Access records. The slots' logic is watchpoints.hpp, the debug registers
// watch_device.hpp, the probe watch_probe.hpp.
#pragma once

#include <ucontext.h>

#include <atomic>
#include <cstdint>

#include "memlog/format.hpp"
#include "record/thread_state.hpp"
#include "start/real_functions.hpp"

namespace memlog::preload {

// MEMLOG_WATCH=1 at start-up, once the ticks run (`ticks`; where they do not, `ticksWhy` says
// why): the probe first (on some machines the debug registers open but never fire), then four
// breakpoint events inherited by every thread created later. Returns ProcessWide, or
// Unavailable with the reason for the user in `why`.
format::WatchSampler startWatching(format::AccessSampler ticks, const char* ticksWhy, uint32_t trapsPerSecond,
                                   char* why, uint32_t capacity);
void setWatchCounters(format::WatchCounters* counters);  // the log header's, once it exists
void stopWatching();                                     // the log could not be opened
// In a fork child: the parent's breakpoints are not inherited by a fork; the child opens its own.
void restartWatchingInForkChild();

// --- the event path's side: while no word is watched, one inline load of g_watching --------------

extern std::atomic<bool> g_watching;  // watchpoints run (startWatching)
bool anyWordWatched();
inline bool watchesActive() { return g_watching.load(std::memory_order_relaxed) && anyWordWatched(); }
void watchFree(uint64_t start, uint64_t usable, bool unmapped);
void watchAllocate(uint64_t start, uint64_t size);
void watchUnmap(uint64_t start, uint64_t length);

// A block freed keeps its watch (a use after free would trap) unless its memory may go back to
// the kernel; memory handed out again ends the watch.
inline constexpr uint64_t kMayBeUnmapped = 128 * 1024;  // glibc's mmap threshold starts here

// A heap event while watchesActive(), before its record: an allocation, a free (before the
// real free: its usable size is still known) or an munmap.
inline void watchHeapEvent(format::Kind kind, const void* address, uint64_t size) {
    const auto start = reinterpret_cast<uint64_t>(address);
    if (format::kindInfo(kind).m_family != format::Family::Release) {
        watchAllocate(start, size);
    } else if (kind == format::Kind::Munmap) {
        watchUnmap(start, size);
    } else {
        const uint64_t usable = g_real.malloc_usable_size(const_cast<void*>(address));
        watchFree(start, usable, usable >= kMayBeUnmapped);
    }
}

// realloc's old block while watchesActive(), before the call: its usable size, for watchMove.
inline uint64_t usableSizeForWatch(const void* block) {
    return g_real.malloc_usable_size(const_cast<void*>(block));
}

// A realloc or mremap that moved, while watchesActive(): the old block (or mapping) ended inside
// the call, the new one began. `oldUsable`: the old block's usable size, taken before the call
// (ResizeTicket); 0 for mremap.
inline void watchMove(format::Kind kind, uint64_t oldAddress, uint64_t oldSize, uint64_t oldUsable,
                      uint64_t address, uint64_t size) {
    if (kind == format::Kind::Mremap)
        watchUnmap(oldAddress, oldSize);
    else if (oldUsable)
        watchFree(oldAddress, oldUsable, oldUsable >= kMayBeUnmapped);
    if (address) watchAllocate(address, size);
}

// --- the sampler's side ---------------------------------------------------------------------------

// After a tick sample of `addr` (sequence number `seq`) by an instruction whose trap would be
// reported at `afterIp`: follow its word with a free slot, budget allowing.
void followSampledWord(uint64_t addr, uint64_t seq, uint32_t tid, uint64_t afterIp);
// Retires watches past their time limit; each tick calls it.
void expireWatches();
// A SIGTRAP whose si_perf_data carries a watch's cookie: an access to a watched word, recorded
// with the instruction after it and the callers of the code that made it.
void onWatchTrap(ThreadState& thread, ucontext_t& context, uint64_t cookie);

}  // namespace memlog::preload
