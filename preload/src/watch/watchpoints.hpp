// Watchpoints on sampled words (MEMLOG_WATCH=1). After a tick sample, one of the CPU's four debug
// registers follows the word it touched: the next access to that word by any thread traps and
// becomes an Access record linked to the sample that armed it (reuse time, which thread). A
// watched block that is freed keeps its watch until an allocation hands the word out again: a
// trap in between is a use after free. The recorder keeps no block map: frees and allocations
// are checked against the (at most four) watched words only while a watch is on.
//
// Lock-free: each slot's state and generation are one atomic word, changed by compare-and-swap;
// a trap's cookie carries the generation, so a late trap of a retired watch is told apart.
#pragma once

#include <atomic>
#include <cstdint>

#include "memlog/format.hpp"

namespace memlog::preload {

// The debug registers as the watchpoints use them: perf breakpoint events in the recorder
// (watch_device.cpp); in the tests, one that notes what it was asked.
class WatchDevice {
public:
    virtual ~WatchDevice() = default;
    virtual bool arm(uint32_t slot, uint64_t word, uint64_t cookie) = 0;  // read-write, 8 bytes; false: refused
    virtual void disarm(uint32_t slot) = 0;
    virtual uint64_t read(uint64_t word) = 0;  // the word's value, without tripping its watch
};

class Watchpoints {
public:
    static constexpr uint32_t kSlots = 4;
    static constexpr uint64_t kArmedLimitNs = 50'000'000;     // an armed word no access reached: retired
    static constexpr uint64_t kFreedLimitNs = 2'000'000'000;  // a freed block's watch, never reused: retired

    // `counters` (the log header's) may be null. `trapsPerSecond` bounds the arms, so the traps.
    void start(WatchDevice* device, uint32_t trapsPerSecond, format::WatchCounters* counters);
    void stop();
    // In a fork child: every slot free again, nothing asked of the device (the parent's events
    // are not the child's).
    void forget();
    void setCounters(format::WatchCounters* counters) { m_counters = counters; }

    // Whether any word is watched: the hooks' one check while no watch is on.
    bool active() const { return m_active.load(std::memory_order_relaxed) != 0; }

    // After a tick sample at `addr` (with sequence number `sampleSeq`): follow its word with a
    // free slot, if the budget allows and the word is not watched already. The sampled
    // instruction has not run yet: its own access, a trap in thread `tid` reported at `afterIp`
    // (the instruction after it), is let through; the watch waits for the next one.
    void follow(uint64_t addr, uint64_t sampleSeq, uint64_t nowNs, uint32_t tid, uint64_t afterIp);

    // A SIGTRAP whose si_perf_data is `cookie`. Caught: an access by the program (the trap
    // reports it after the accessing instruction); the watch is retired and `caught` says what.
    enum class Verdict { NotOurs, Stale, Ignored, Caught };
    struct Caught {
        uint64_t m_word = 0;
        format::AccessKind m_kind = format::AccessKind::Read;  // the word changed: a write
        uint64_t m_armedBy = 0;  // the sequence number of the sample that armed it
    };
    Verdict onTrap(uint64_t cookie, uint32_t tid, uint64_t ip, bool inRecorder, bool inAllocator, Caught* caught);

    // The heap's changes, from the hooks while active(): a block [start, start + usable) about
    // to be freed (its memory about to be unmapped: `unmapped`), memory just allocated, memory
    // about to be unmapped.
    void onFree(uint64_t start, uint64_t usable, bool unmapped, uint64_t nowNs);
    void onAllocate(uint64_t start, uint64_t size);
    void onUnmap(uint64_t start, uint64_t length);

    // Retires watches past their time limit; each tick calls it.
    void expire(uint64_t nowNs);

    // For the tests: a slot's state.
    enum class State : uint32_t { Free = 0, Busy = 1, Armed = 2, Freed = 3 };
    State stateOf(uint32_t slot) const;
    uint64_t wordOf(uint32_t slot) const { return m_slots[slot].m_word; }

private:
    struct Slot {
        std::atomic<uint64_t> m_state{0};  // generation << 8 | State
        uint64_t m_word = 0;               // written while Busy, read after the state
        uint64_t m_value = 0;              // the word when armed
        uint64_t m_armedBy = 0;
        uint64_t m_sinceNs = 0;            // armed, or freed
        uint32_t m_samplerTid = 0;         // the sampled access still to come: its thread
        std::atomic<uint64_t> m_samplerAfterIp{0};  // ... and where its trap is reported; 0: done
    };
    bool claim(uint32_t slot, uint64_t expected, uint64_t* claimed);
    void retire(uint32_t slot, uint64_t claimed, uint64_t format::WatchCounters::*counter);
    void retireWithin(uint64_t start, uint64_t length, uint64_t format::WatchCounters::*counter);
    void count(uint64_t format::WatchCounters::*counter);
    bool takeBudget(uint64_t nowNs);

    WatchDevice* m_device = nullptr;
    format::WatchCounters* m_counters = nullptr;
    Slot m_slots[kSlots];
    std::atomic<uint32_t> m_active{0};  // slots Armed or Freed
    // The budget: an arm per m_nsPerToken on average (takeBudget).
    uint64_t m_nsPerToken = 0;
    std::atomic<uint64_t> m_budgetNs{0};
};

// The cookie of a watch trap in si_perf_data: a tag, the slot's generation and the slot.
inline constexpr uint64_t kWatchCookieTag = 0x6d77'6174ull;  // "mwat"
inline constexpr uint64_t watchCookie(uint32_t slot, uint64_t generation) {
    return kWatchCookieTag << 32 | (generation & 0xff'ffff) << 8 | slot;
}
// The cookie of a disarmed event. A trap's siginfo carries the cookie the event has when the
// signal goes out, so an access made just before another thread disarmed the word arrives with
// this one: ours, and stale (no slot has this generation long enough to matter).
inline constexpr uint64_t kRetiredWatchCookie = kWatchCookieTag << 32 | 0xff'ffffull << 8 | 0xff;

}  // namespace memlog::preload
