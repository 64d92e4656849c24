// pthread_create, for the tick sampler's timer mode only: a CPU-time timer signals one thread,
// so each new thread starts its own before it runs the program's code. With perf's task clock
// (inherited by new threads) or without sampling, the call goes straight through.
#include <pthread.h>

#include <atomic>

#include "hooks/hook.hpp"
#include "sample/tick_sampler.hpp"
#include "start/process_events.hpp"

using namespace memlog::preload;

namespace {

// The start routine and argument handed from the creating thread to the new one, without
// allocating: a slot is claimed here and freed by the new thread as its first act. More threads
// starting at once than slots: the extra ones run without ticks.
struct StartSlot {
    std::atomic<bool> m_used{false};
    void* (*m_start)(void*) = nullptr;
    void* m_argument = nullptr;
};
constexpr unsigned kSlots = 1024;
StartSlot s_slots[kSlots];
std::atomic<unsigned> s_nextSlot{0};

StartSlot* claimSlot() {
    for (unsigned tries = 0; tries < kSlots; ++tries) {
        StartSlot& slot = s_slots[s_nextSlot.fetch_add(1, std::memory_order_relaxed) % kSlots];
        bool expected = false;
        if (slot.m_used.compare_exchange_strong(expected, true, std::memory_order_acquire)) return &slot;
    }
    return nullptr;
}

void* startWithTicks(void* untypedSlot) {
    auto* slot = static_cast<StartSlot*>(untypedSlot);
    void* (*start)(void*) = slot->m_start;
    void* argument = slot->m_argument;
    slot->m_used.store(false, std::memory_order_release);
    startThreadTicks(t_state);
    noteThreadStarted();  // the thread-exit hook deletes the timer
    return start(argument);
}

}  // namespace

MEMLOG_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*start)(void*),
                                 void* argument) {
    if (!isReady()) ensureReady();
    if (samplerNeedsThreadStarts()) {
        if (StartSlot* slot = claimSlot()) {
            slot->m_start = start;
            slot->m_argument = argument;
            const int result = g_real.pthread_create(thread, attributes, startWithTicks, slot);
            if (result != 0) slot->m_used.store(false, std::memory_order_release);
            return result;
        }
    }
    return g_real.pthread_create(thread, attributes, start, argument);
}
