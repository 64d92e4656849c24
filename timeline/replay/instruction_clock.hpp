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
        uint64_t& last = m_lastOfThread[tid];
        // A thread's count never goes back; one that does is a new thread that took a finished
        // one's id, and began at 0.
        m_total += instructions >= last ? instructions - last : instructions;
        last = instructions;
    }
    uint64_t now() const { return m_total; }

private:
    NumberMap<uint32_t, uint64_t> m_lastOfThread;
    uint64_t m_total = 0;
};

}  // namespace memlog::timeline
