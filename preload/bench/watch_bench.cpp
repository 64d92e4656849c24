// memlog-watch-bench: what the watchpoints cost on this machine, with the recorder's own device
// (preload/src/watch/watch_device.cpp): one re-target of the four inherited events (arm, then disarm)
// with 0, 1, 4 and 16 other threads alive (the kernel walks every thread's copy), and one
// trapped access delivered as SIGTRAP to a handler that only counts. Where the debug registers
// do not fire it says so and exits 77.
//
// Usage: memlog-watch-bench [--arms N] [--traps N]
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "timeline/base/option_table.hpp"
#include "watch/watch_device.hpp"
#include "watch/watch_probe.hpp"

namespace {

std::atomic<long> s_traps{0};
std::atomic<bool> s_stop{false};
volatile uint64_t s_words[64];

void onTrap(int, siginfo_t*, void*) { s_traps.fetch_add(1, std::memory_order_relaxed); }

double nowUs() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

constexpr memlog::options::Row kOptions[] = {
    {.m_name = "--arms",
     .m_kind = memlog::options::Kind::Count,
     .m_low = 1,
     .m_default = "2000",
     .m_valueName = "N",
     .m_help = "re-targets timed per number of threads"},
    {.m_name = "--traps",
     .m_kind = memlog::options::Kind::Count,
     .m_low = 1,
     .m_default = "20000",
     .m_valueName = "N",
     .m_help = "trapped accesses timed"},
};

constexpr memlog::timeline::CommandSyntax kSyntax{.m_usage = "memlog-watch-bench [--arms N] [--traps N]",
                                                  .m_about = "What the watchpoints cost on this machine.\n",
                                                  .m_options = kOptions,
                                                  .m_minOperands = 0,
                                                  .m_maxOperands = 0};

}  // namespace

int main(int argc, char** argv) {
    const auto options = memlog::timeline::programOptions("memlog-watch-bench", kSyntax, argc, argv);
    const long arms = static_cast<long>(options.number("--arms")), traps = static_cast<long>(options.number("--traps"));
    char why[256];
    if (!memlog::preload::probeWatchpoints(why, sizeof why)) {
        std::printf("memlog-watch-bench: skipped: %s\n", why);
        return 77;
    }
    struct sigaction action {};
    action.sa_sigaction = onTrap;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGTRAP, &action, nullptr);
    memlog::preload::PerfWatchDevice device;
    if (!device.open(why, sizeof why)) {
        std::printf("memlog-watch-bench: %s\n", why);
        return 1;
    }
    std::printf("memlog-watch-bench: %ld arms and disarms, %ld trapped accesses\n", arms, traps);
    std::printf("%-16s %16s %16s\n", "other threads", "arm us", "disarm us");
    // Threads created after the events were opened inherit them, as the program's threads do.
    std::vector<std::thread> others;
    for (const int wanted : {0, 1, 4, 16}) {
        while (static_cast<int>(others.size()) < wanted)
            others.emplace_back([] {
                while (!s_stop.load()) usleep(1000);
            });
        double armUs = 0, disarmUs = 0;
        for (long i = 0; i < arms; ++i) {
            const auto word = reinterpret_cast<uint64_t>(&s_words[i % 64]);
            const double start = nowUs();
            device.arm(0, word, memlog::preload::watchCookie(0, static_cast<uint64_t>(i)));
            const double armed = nowUs();
            device.disarm(0);
            disarmUs += nowUs() - armed;
            armUs += armed - start;
        }
        std::printf("%-16d %16.2f %16.2f\n", wanted, armUs / static_cast<double>(arms),
                    disarmUs / static_cast<double>(arms));
    }
    s_stop = true;
    for (std::thread& thread : others) thread.join();
    // Every access of an armed word traps: the delivery of one SIGTRAP, against the same loop unwatched.
    auto loop = [&]() {
        const double start = nowUs();
        for (long i = 0; i < traps; ++i) s_words[0] = static_cast<uint64_t>(i);
        return nowUs() - start;
    };
    const double bare = loop();
    device.arm(0, reinterpret_cast<uint64_t>(&s_words[0]), memlog::preload::watchCookie(0, 1));
    const double watched = loop();
    device.disarm(0);
    std::printf("trapped access: %.2f us each (%ld traps delivered)\n", (watched - bare) / static_cast<double>(traps),
                s_traps.load());
    return 0;
}
