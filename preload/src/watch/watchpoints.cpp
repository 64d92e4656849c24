// A slot's life: Free -> Busy (claimed by one thread) -> Armed -> (Freed) -> Busy -> Free. Every
// change is a compare-and-swap on (generation, state), and every return to Free takes a new
// generation, so a trap whose cookie carries an older one is stale whatever happened between.
#include "watch/watchpoints.hpp"

namespace memlog::preload {
namespace {

constexpr uint64_t kStateMask = 0xff;

uint64_t packed(uint64_t generation, Watchpoints::State state) {
    return generation << 8 | static_cast<uint64_t>(state);
}
Watchpoints::State stateIn(uint64_t word) { return static_cast<Watchpoints::State>(word & kStateMask); }
uint64_t generationIn(uint64_t word) { return word >> 8; }
bool watching(uint64_t word) {
    return stateIn(word) == Watchpoints::State::Armed || stateIn(word) == Watchpoints::State::Freed;
}

}  // namespace

void Watchpoints::start(WatchDevice* device, uint32_t trapsPerSecond, format::WatchCounters* counters) {
    m_device = device;
    m_counters = counters;
    m_nsPerToken = 1'000'000'000ull / (trapsPerSecond ? trapsPerSecond : 1);
}

void Watchpoints::stop() {
    for (uint32_t slot = 0; slot < kSlots; ++slot) {
        uint64_t claimed;
        const uint64_t current = m_slots[slot].m_state.load(std::memory_order_acquire);
        if (watching(current) && claim(slot, current, &claimed)) retire(slot, claimed, nullptr);
    }
}

void Watchpoints::forget() {
    for (Slot& slot : m_slots)
        slot.m_state.store(packed(generationIn(slot.m_state.load(std::memory_order_relaxed)) + 1, State::Free),
                           std::memory_order_relaxed);
    m_active.store(0, std::memory_order_relaxed);
}

Watchpoints::State Watchpoints::stateOf(uint32_t slot) const {
    return stateIn(m_slots[slot].m_state.load(std::memory_order_acquire));
}

void Watchpoints::count(uint64_t format::WatchCounters::*counter) {
    if (m_counters && counter) __atomic_fetch_add(&(m_counters->*counter), 1, __ATOMIC_RELAXED);
}

bool Watchpoints::claim(uint32_t slot, uint64_t expected, uint64_t* claimed) {
    *claimed = packed(generationIn(expected), State::Busy);
    return m_slots[slot].m_state.compare_exchange_strong(expected, *claimed, std::memory_order_acq_rel);
}

// Busy -> Free with the next generation, the debug register let go first.
void Watchpoints::retire(uint32_t slot, uint64_t claimed, uint64_t format::WatchCounters::*counter) {
    m_device->disarm(slot);
    m_slots[slot].m_state.store(packed(generationIn(claimed) + 1, State::Free), std::memory_order_release);
    m_active.fetch_sub(1, std::memory_order_relaxed);
    count(counter);
}

// The generic cell rate: m_budgetNs is the time at which the next arm would be on schedule.
// An arm is allowed while that time is less than a tenth of a second ahead of now (what a quiet
// spell saved up), and moves it on by one token.
bool Watchpoints::takeBudget(uint64_t nowNs) {
    const uint64_t tolerance = m_nsPerToken < 100'000'000 ? 100'000'000 - m_nsPerToken : 0;
    uint64_t due = m_budgetNs.load(std::memory_order_relaxed);
    for (;;) {
        if (due > nowNs + tolerance) return false;
        const uint64_t next = (due > nowNs ? due : nowNs) + m_nsPerToken;
        if (m_budgetNs.compare_exchange_weak(due, next, std::memory_order_relaxed)) return true;
    }
}

void Watchpoints::follow(uint64_t addr, uint64_t sampleSeq, uint64_t nowNs, uint32_t tid, uint64_t afterIp) {
    if (!m_device) return;
    const uint64_t word = addr & ~uint64_t{7};
    uint32_t freeSlot = kSlots;
    uint64_t freeState = 0;
    for (uint32_t slot = 0; slot < kSlots; ++slot) {
        const uint64_t current = m_slots[slot].m_state.load(std::memory_order_acquire);
        if (watching(current) && m_slots[slot].m_word == word) return;  // followed already
        if (stateIn(current) == State::Free && freeSlot == kSlots) {
            freeSlot = slot;
            freeState = current;
        }
    }
    if (freeSlot == kSlots) return;
    if (!takeBudget(nowNs)) {
        count(&format::WatchCounters::m_skippedForBudget);
        return;
    }
    uint64_t claimed;
    if (!claim(freeSlot, freeState, &claimed)) return;  // another thread took it
    Slot& slot = m_slots[freeSlot];
    slot.m_word = word;
    slot.m_value = m_device->read(word);
    slot.m_armedBy = sampleSeq;
    slot.m_sinceNs = nowNs;
    slot.m_samplerTid = tid;
    slot.m_samplerAfterIp.store(afterIp, std::memory_order_relaxed);
    // Armed before the register is: a trap that comes at once must find the slot armed.
    const uint64_t generation = generationIn(claimed);
    slot.m_state.store(packed(generation, State::Armed), std::memory_order_release);
    m_active.fetch_add(1, std::memory_order_relaxed);
    if (m_device->arm(freeSlot, word, watchCookie(freeSlot, generation))) {
        count(&format::WatchCounters::m_armed);
        return;
    }
    uint64_t armed = packed(generation, State::Armed);
    if (claim(freeSlot, armed, &claimed)) retire(freeSlot, claimed, &format::WatchCounters::m_armFailures);
}

Watchpoints::Verdict Watchpoints::onTrap(uint64_t cookie, uint32_t tid, uint64_t ip, bool inRecorder, bool inAllocator,
                                         Caught* caught) {
    if (cookie >> 32 != kWatchCookieTag) return Verdict::NotOurs;
    const uint32_t slot = cookie & 0xff;
    const uint64_t generation = (cookie >> 8) & 0xff'ffff;
    const uint64_t current = slot < kSlots ? m_slots[slot].m_state.load(std::memory_order_acquire) : 0;
    if (slot >= kSlots || !watching(current) || (generationIn(current) & 0xff'ffff) != generation) {
        count(&format::WatchCounters::m_stale);
        return Verdict::Stale;
    }
    // The sampled instruction itself, which ran after the watch was armed: not the next access.
    Slot& watched = m_slots[slot];
    if (tid == watched.m_samplerTid && ip == watched.m_samplerAfterIp.load(std::memory_order_relaxed)) {
        watched.m_samplerAfterIp.store(0, std::memory_order_relaxed);
        return Verdict::Ignored;
    }
    // The recorder's own work and the allocator's bookkeeping (free writes its links into the
    // freed block) are not the program's accesses: the watch stays for the next one.
    if (inRecorder || inAllocator) {
        count(inRecorder ? &format::WatchCounters::m_ignoredInRecorder : &format::WatchCounters::m_ignoredInAllocator);
        return Verdict::Ignored;
    }
    uint64_t claimed;
    if (!claim(slot, current, &claimed)) {
        count(&format::WatchCounters::m_stale);  // another thread's trap or a free took it first
        return Verdict::Stale;
    }
    caught->m_word = watched.m_word;
    caught->m_kind = m_device->read(watched.m_word) != watched.m_value ? format::AccessKind::Write : format::AccessKind::Read;
    caught->m_armedBy = watched.m_armedBy;
    retire(slot, claimed, &format::WatchCounters::m_traps);
    return Verdict::Caught;
}

void Watchpoints::onFree(uint64_t start, uint64_t usable, bool unmapped, uint64_t nowNs) {
    for (uint32_t slot = 0; slot < kSlots; ++slot) {
        const uint64_t current = m_slots[slot].m_state.load(std::memory_order_acquire);
        if (stateIn(current) != State::Armed || m_slots[slot].m_word - start >= usable) continue;
        uint64_t claimed;
        if (!claim(slot, current, &claimed)) continue;
        if (unmapped) {
            // The memory goes back to the kernel: a later mapping there is not this block.
            retire(slot, claimed, &format::WatchCounters::m_disarmedByUnmap);
            continue;
        }
        m_slots[slot].m_sinceNs = nowNs;
        m_slots[slot].m_state.store(packed(generationIn(claimed), State::Freed), std::memory_order_release);
        count(&format::WatchCounters::m_freedWhileWatched);
    }
}

void Watchpoints::onAllocate(uint64_t start, uint64_t size) {
    retireWithin(start, size, &format::WatchCounters::m_disarmedByAllocation);
}

void Watchpoints::onUnmap(uint64_t start, uint64_t length) {
    retireWithin(start, length, &format::WatchCounters::m_disarmedByUnmap);
}

void Watchpoints::retireWithin(uint64_t start, uint64_t length, uint64_t format::WatchCounters::*counter) {
    for (uint32_t slot = 0; slot < kSlots; ++slot) {
        const uint64_t current = m_slots[slot].m_state.load(std::memory_order_acquire);
        uint64_t claimed;
        if (watching(current) && m_slots[slot].m_word - start < length && claim(slot, current, &claimed))
            retire(slot, claimed, counter);
    }
}

void Watchpoints::expire(uint64_t nowNs) {
    for (uint32_t slot = 0; slot < kSlots; ++slot) {
        const uint64_t current = m_slots[slot].m_state.load(std::memory_order_acquire);
        if (!watching(current)) continue;
        const uint64_t limit = stateIn(current) == State::Armed ? kArmedLimitNs : kFreedLimitNs;
        uint64_t claimed;
        if (nowNs - m_slots[slot].m_sinceNs > limit && claim(slot, current, &claimed))
            retire(slot, claimed, &format::WatchCounters::m_retiredByTime);
    }
}

}  // namespace memlog::preload
