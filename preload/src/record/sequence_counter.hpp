// The global sequence number every event takes: the total order of a log's events across threads.
// A locked xadd per event waits for the thread's pending stores to drain, and cost more than the
// rest of a record without a stack (18 % of a bench_alloc run with stacks off, 74 of 239 ms added
// CPU time). So while one thread alone has ever taken numbers, it takes them with an unlocked
// xadd; the first other thread ends that once for the whole process, through membarrier(2), and
// from then on every thread uses the locked add.
//
// Why the switch is exact: the thread that takes numbers alone marks its window (increments a
// counter only it writes), then checks again that it still takes them alone, takes the number
// and unmarks the window. The switching thread publishes "switching", has every running thread of
// the process pass a full barrier (membarrier's private expedited command), then waits until the
// window is unmarked. After the barrier point, the lone thread sees "switching"; before it, its
// window mark is visible, and the switching thread waits for the unlocked add to be stored.
// Unlocked instructions that read and write memory are single instructions: a signal handler on
// the same thread that takes a number in between nests, it cannot split them.
#pragma once

#include <atomic>
#include <cstdint>

namespace memlog::preload {

class SequenceCounter {
public:
    // Registers for membarrier; without it every number takes the locked add. Called at
    // start-up, and in a fork child (one thread there: it may take numbers alone again).
    void start();
    void setStep(uint64_t step) { m_step = step; }

    // A new number. `self` names the calling thread (its ThreadState): equal pointers, one thread.
    [[gnu::always_inline]] uint64_t take(const void* self) {
        if (m_alone.load(std::memory_order_relaxed) == self) [[likely]] {
            asm volatile("incq %0" : "+m"(m_window)::"memory");
            if (m_alone.load(std::memory_order_relaxed) == self) [[likely]] {
                uint64_t value = m_step;
                asm volatile("xaddq %0, %1" : "+r"(value), "+m"(m_next)::"memory");
                asm volatile("decq %0" : "+m"(m_window)::"memory");
                return value;
            }
            asm volatile("decq %0" : "+m"(m_window)::"memory");
        }
        return takeShared(self);
    }

    // Whether a lone thread still takes numbers without the lock (for tests).
    bool isAlone() const;

private:
    [[gnu::noinline]] uint64_t takeShared(const void* self);
    void endAlone();

    // Null: nobody took a number yet; a thread's pointer: that thread alone; then kSwitching and
    // kShared for good (until a fork child starts again).
    std::atomic<const void*> m_alone{nullptr};
    alignas(64) uint64_t m_next = 1;  // the next number; its own cache line
    uint64_t m_step = 1;
    alignas(64) uint64_t m_window = 0;  // written only by the lone thread
};

}  // namespace memlog::preload
