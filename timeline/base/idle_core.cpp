#include "timeline/base/idle_core.hpp"

#include <cstdio>
#include <fstream>
#include <thread>

namespace memlog::timeline {

bool aCoreIsIdle(const std::string& loadavgLine, unsigned cores) {
    double oneMinute = 0, fiveMinutes = 0, fifteenMinutes = 0;
    unsigned running = 0, threads = 0;
    if (std::sscanf(loadavgLine.c_str(), "%lf %lf %lf %u/%u", &oneMinute, &fiveMinutes, &fifteenMinutes, &running,
                    &threads) != 5)
        return false;
    return cores >= 2 && running >= 1 && running + 1 <= cores;
}

bool aCoreIsIdle() {
    std::ifstream file("/proc/loadavg");
    std::string line;
    return std::getline(file, line) && aCoreIsIdle(line, std::thread::hardware_concurrency());
}

}  // namespace memlog::timeline
