// The debug registers through perf: four breakpoint events, opened once in the thread that
// starts the recorder (before the program's threads) with inherit set, so every thread created
// later has them too; arming re-targets all of them with one ioctl (its cost grows with the
// threads: docs/BENCHMARKS.md).
#pragma once

#include <cstdint>

#include "watch/watchpoints.hpp"

namespace memlog::preload {

class PerfWatchDevice final : public WatchDevice {
public:
    // Opens the four events, disabled. False, with the reason in `why`, when one is refused.
    bool open(char* why, uint32_t capacity);
    // Closes what is open: in a fork child, the parent's events, not inherited by a fork.
    void close();
    bool arm(uint32_t slot, uint64_t word, uint64_t cookie) override;
    void disarm(uint32_t slot) override;
    uint64_t read(uint64_t word) override;

private:
    int m_fds[Watchpoints::kSlots] = {-1, -1, -1, -1};
};

}  // namespace memlog::preload
