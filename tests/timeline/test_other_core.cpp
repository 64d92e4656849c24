// A frame's second thread starts off its starter's core, whatever the scheduler would choose.
#include <catch2/catch.hpp>

#include <pthread.h>
#include <sched.h>

#include <atomic>

#include "timeline/base/other_core.hpp"

TEST_CASE("a second thread is kept off the core of the thread that starts it") {
    cpu_set_t allowed;
    REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    if (CPU_COUNT(&allowed) < 2) {
        WARN("one core only: the thread stays where it may run");
        return;
    }
    // The starter's core read before and after the start: the same, unless the scheduler moved
    // the starter in between (then again).
    for (int attempt = 0; attempt < 100; ++attempt) {
        std::atomic<int> ranOn{-1};
        std::atomic<bool> coresSet{false};
        cpu_set_t cores;
        const int before = sched_getcpu();
        int after = -1;
        {
            std::jthread second = memlog::timeline::startOnOtherCore([&] {
                while (!coresSet) {
                }  // it may begin on the starter's core, before they are set
                sched_yield();
                ranOn = sched_getcpu();
            });
            after = sched_getcpu();
            REQUIRE(pthread_getaffinity_np(second.native_handle(), sizeof cores, &cores) == 0);
            coresSet = true;
        }
        if (before != after) continue;
        CHECK_FALSE(CPU_ISSET(before, &cores));
        CHECK(CPU_COUNT(&cores) == CPU_COUNT(&allowed) - 1);
        CHECK(ranOn >= 0);
        CHECK(ranOn != before);
        return;
    }
    FAIL("the starter never stayed on one core while it started a thread");
}
