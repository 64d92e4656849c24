// A second thread, started off the core of the thread that starts it (a frame's second half, a
// pass over the blocks split in two).
//
// Why: Linux puts a thread it starts or wakes on the core of the thread that woke it when it
// expects that one to sleep soon (wake-affine), and moves it to an idle core only when that
// core next balances its load. After the window had been idle, the other core was asleep and
// both halves of a frame shared one core until its next tick: 4 ms here, and a frame that
// should have taken 30 ms took 35 to 40 (seen with `perf sched timehist`: the two threads
// took turns on CPU 0 while CPU 1 idled). Excluding the starter's core from the new thread's
// cores sends it to the idle one at once. If that core is busy with another program, the
// starter takes the tiles the second thread does not get to: never slower than one thread.
#pragma once

#include <pthread.h>
#include <sched.h>

#include <functional>
#include <thread>
#include <utility>

#include "timeline/base/huge_pages.hpp"

namespace memlog::timeline {

// `function(arguments...)` on a new thread, which makes its arrays where its starter does
// (huge_pages.hpp: in an index file being built, or in memory).
template <typename Function, typename... Arguments>
std::jthread startOnOtherCore(Function&& function, Arguments&&... arguments) {
    std::jthread thread([files = ArraysInFiles::current(), function = std::forward<Function>(function),
                         ... arguments = std::forward<Arguments>(arguments)]() mutable {
        const ArraysInFiles::Joined joined(files);
        std::invoke(function, arguments...);
    });
    cpu_set_t cores;
    const int here = sched_getcpu();
    if (here >= 0 && sched_getaffinity(0, sizeof cores, &cores) == 0 && CPU_ISSET(here, &cores) &&
        CPU_COUNT(&cores) > 1) {
        CPU_CLR(here, &cores);
        pthread_setaffinity_np(thread.native_handle(), sizeof cores, &cores);  // a hint: on failure it runs where it is
    }
    return thread;
}

}  // namespace memlog::timeline
