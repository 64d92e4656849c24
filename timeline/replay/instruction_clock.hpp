// The program's own time in a full trace: the guest instructions its threads had run, summed
// over them. Valgrind runs one thread at a time, so the sum moves only while the program works;
// the wall clock under it runs 30-100x slow and moves while the program sleeps.
#pragma once

#include <cstdint>

#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

// Fed a walk's accesses in sequence order (each carries its thread's instruction count up to the
// accessing instruction), it answers the sum over threads of each one's count at its last access
// so far: an access's x is now() after it is fed, a heap event's is now() when it comes (the
// accesses before it in the sequence fed). Keeps one count a thread, never the accesses.
class InstructionClock {
public:
    void access(uint32_t tid, uint64_t instructions) {
        // Valgrind runs a thread for thousands of accesses before the next: the running thread's
        // count is kept aside, and the table looked up only when another runs (a lookup an
        // access was 6 % of indexing a full trace).
        if (!m_running || tid != m_runningTid) {
            if (m_running) m_lastOfThread[m_runningTid] = m_runningLast;
            const auto known = m_lastOfThread.find(tid);
            m_runningLast = known != m_lastOfThread.end() ? known->second : 0;
            m_runningTid = tid;
            m_running = true;
        }
        // A thread's count never goes back; one that does is a new thread that took a finished
        // one's id, and began at 0.
        m_total += instructions >= m_runningLast ? instructions - m_runningLast : instructions;
        m_runningLast = instructions;
    }
    uint64_t now() const { return m_total; }

private:
    NumberMap<uint32_t, uint64_t> m_lastOfThread;  // but the running thread's
    bool m_running = false;
    uint32_t m_runningTid = 0;
    uint64_t m_runningLast = 0;
    uint64_t m_total = 0;
};

}  // namespace memlog::timeline
