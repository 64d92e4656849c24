// The slow side of the sequence counter: the first number, the end of the lone thread's numbers
// and every number after it (sequence_counter.hpp says why the switch is exact).
#include "record/sequence_counter.hpp"

#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace memlog::preload {
namespace {

const void* const kSwitching = reinterpret_cast<const void*>(uintptr_t(1));
const void* const kShared = reinterpret_cast<const void*>(uintptr_t(2));

bool membarrier(int command) { return syscall(SYS_membarrier, command, 0, 0) == 0; }

}  // namespace

void SequenceCounter::start() {
    m_window = 0;  // a fork child: a parent thread inside its window does not exist here
    // Registration is per process and cheap; a kernel or a Valgrind without it: the locked add.
    const bool alone = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED);
    m_alone.store(alone ? nullptr : kShared, std::memory_order_release);
}

bool SequenceCounter::isAlone() const {
    const void* alone = m_alone.load(std::memory_order_acquire);
    return alone != kShared && alone != kSwitching;
}

// The lone thread's numbers end: every running thread passes a full barrier, then its window is
// waited out. Once per process, a few microseconds.
void SequenceCounter::endAlone() {
    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);  // registered in start(): it cannot fail
    while (__atomic_load_n(&m_window, __ATOMIC_ACQUIRE) != 0) sched_yield();
    m_alone.store(kShared, std::memory_order_release);
}

uint64_t SequenceCounter::takeShared(const void* self) {
    const void* seen = m_alone.load(std::memory_order_acquire);
    while (seen != kShared) {
        if (seen == self) return take(self);  // claimed below, then the fast path
        if (seen == nullptr) {
            // The first number of the process: this thread takes numbers alone from now on.
            if (m_alone.compare_exchange_strong(seen, self, std::memory_order_acq_rel)) return take(self);
            continue;  // `seen` holds the winner
        }
        if (seen == kSwitching) {
            sched_yield();  // another thread is ending the lone thread's numbers
            seen = m_alone.load(std::memory_order_acquire);
            continue;
        }
        if (m_alone.compare_exchange_strong(seen, kSwitching, std::memory_order_acq_rel)) {
            endAlone();
            break;
        }
    }
    return __atomic_fetch_add(&m_next, m_step, __ATOMIC_RELAXED);
}

}  // namespace memlog::preload
