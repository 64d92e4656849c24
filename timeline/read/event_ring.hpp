// A ring of event batches between the thread that decodes a log and the thread that tallies it
// (LogReader::forEachBatch): one producer, one consumer. Each side blocks (a futex, through
// std::atomic::wait) only when the ring is full or empty, so on two free cores the decoding and
// the tally overlap and cost what the slower of them costs; on a busy core they take turns.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "timeline/read/log_reader.hpp"

namespace memlog::timeline {

class EventRing {
public:
    static constexpr size_t kBatch = 512;  // 32 KiB of events: a batch stays in the cache
    static constexpr size_t kSlots = 16;  // 520 KiB; a side that waits sleeps until half of it is ready

    // What one slot carries: events in sequence order, then perhaps one access sample after
    // them; the last slot of a walk says so (after the walk's end or its error).
    struct Slot {
        Event m_events[kBatch];
        size_t m_count = 0;
        bool m_hasAccess = false;
        AccessSample m_access;
        bool m_last = false;
    };

    EventRing() : m_slots(kSlots) {}

    // Producer: the slot to fill, waiting while the ring is full (until it is half empty). Null
    // once the consumer gave up.
    Slot* slotToFill() {
        const uint32_t produced = m_produced.load(std::memory_order_relaxed);
        auto roomy = [&] { return m_abandoned.load() || produced - m_consumed.load() <= kSlots / 2; };
        if (produced - m_consumed.load() == kSlots) waitUntil(m_consumed, m_producerWaiting, roomy);
        if (m_abandoned.load()) return nullptr;
        Slot& slot = m_slots[produced % kSlots];
        slot.m_count = 0;
        slot.m_hasAccess = false;
        slot.m_last = false;
        return &slot;
    }
    // `last`: the walk's last slot.
    void publish(bool last) {
        if (last) m_finished.store(true);
        const uint32_t produced = m_produced.fetch_add(1) + 1;
        if (m_consumerWaiting.load() && (last || produced - m_consumed.load() >= kSlots / 2))
            wake(m_produced, m_consumerWaiting);
    }

    // Consumer: the next filled slot, waiting while the ring is empty (until it is half full or
    // the walk ended); release it when done.
    const Slot& slotToRead() {
        const uint32_t consumed = m_consumed.load(std::memory_order_relaxed);
        auto full = [&] {
            return m_finished.load() ? m_produced.load() != consumed : m_produced.load() - consumed >= kSlots / 2;
        };
        if (m_produced.load() == consumed) waitUntil(m_produced, m_consumerWaiting, full);
        return m_slots[consumed % kSlots];
    }
    void release() {
        const uint32_t consumed = m_consumed.fetch_add(1) + 1;
        if (m_producerWaiting.load() && m_produced.load() - consumed <= kSlots / 2) wake(m_consumed, m_producerWaiting);
    }
    // The consumer stops early (its sink threw): the producer's next slotToFill returns null.
    void abandon() {
        m_abandoned.store(true);
        m_consumed.fetch_add(1);
        wake(m_consumed, m_producerWaiting);
    }

private:
    // Sleeps on `counter` until `ready()`. The flag says a side sleeps, so that the other side
    // wakes it (a system call) only when there is enough to do, not at every slot: the two
    // stores and loads are sequentially consistent, so either the sleeper sees the counter
    // move or the waker sees the flag.
    template <typename Ready>
    static void waitUntil(std::atomic<uint32_t>& counter, std::atomic<bool>& waiting, Ready ready) {
        for (;;) {
            if (ready()) return;
            waiting.store(true);
            const uint32_t seen = counter.load();
            if (ready()) {
                waiting.store(false);
                return;
            }
            counter.wait(seen);
        }
    }
    static void wake(std::atomic<uint32_t>& counter, std::atomic<bool>& waiting) {
        waiting.store(false);
        counter.notify_one();
    }

    std::vector<Slot> m_slots;
    alignas(64) std::atomic<uint32_t> m_produced{0};
    std::atomic<bool> m_consumerWaiting{false};
    std::atomic<bool> m_finished{false};
    alignas(64) std::atomic<uint32_t> m_consumed{0};
    std::atomic<bool> m_producerWaiting{false};
    std::atomic<bool> m_abandoned{false};
};

}  // namespace memlog::timeline
