// Whether a second thread would have a core to itself: the load average leaves one idle. On a
// busy machine a second thread shares its session's turn and its handovers only cost CPU time
// (docs/BENCHMARKS.md, `memlog stat`): the reader's decoding thread and the naming's ask this.
#pragma once

#include <cstdlib>
#include <thread>

namespace memlog::timeline {

inline bool aCoreIsIdle() {
    double load = 0;
    return std::thread::hardware_concurrency() >= 2 && getloadavg(&load, 1) == 1 &&
           load + 1 <= std::thread::hardware_concurrency();
}

}  // namespace memlog::timeline
