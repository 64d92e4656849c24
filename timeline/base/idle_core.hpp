// Whether a second thread would have a core to itself. On a busy machine a second thread shares
// its session's turn and its handovers only cost CPU time (docs/BENCHMARKS.md, `memlog stat`):
// the reader's decoding thread and the naming's ask this.
#pragma once

#include <string>

namespace memlog::timeline {

// Judged now, not over the last minute: the threads ready to run at this moment (the fourth
// field of /proc/loadavg, the caller among them) leave a core free. The load average, a minute's
// mean, also counted the caller's own work of the seconds before (a script running memlog stat
// again and again) and kept the second thread off on a machine otherwise idle.
bool aCoreIsIdle();

// The rule on one line of /proc/loadavg ("0.52 0.58 0.59 1/467 12345") and a number of cores;
// false when the line cannot be read.
bool aCoreIsIdle(const std::string& loadavgLine, unsigned cores);

}  // namespace memlog::timeline
