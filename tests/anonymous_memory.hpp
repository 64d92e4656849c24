// A process's anonymous resident memory (RssAnon in /proc/PID/status): what it holds of its own,
// its mapped files left out. The kernel keeps no peak of it: tests look at it now and then.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace memlog::test {

// In KiB, now; `pid` 0: this process. 0 once the process is gone.
inline uint64_t anonymousKb(pid_t pid = 0) {
    std::ifstream status(pid ? "/proc/" + std::to_string(pid) + "/status" : std::string("/proc/self/status"));
    for (std::string line; std::getline(status, line);)
        if (line.rfind("RssAnon:", 0) == 0) return std::stoull(line.substr(8));
    return 0;
}

}  // namespace memlog::test
