/* Wall time against the program's own time: block A, a sleep, block B, a busy loop that touches
 * no memory, block C. On the time axis the sleep is the long gap (A to B); on a full trace's
 * instruction axis the loop is (B to C), and the sleep costs only the few instructions of the
 * call. Usage: sleep_then_work [SLEEP_MS=1000] [TURNS=3000000]. Log: mallocs of 1111 (A), 2222
 * (B) and 3333 (C) bytes, in that order, each freed at the end. */
#include <stdlib.h>
#include <time.h>

#include "scenario.h"

/* TURNS of a countdown the compiler keeps in a register: at least two instructions a turn. */
__attribute__((noinline)) static void work(unsigned long turns) {
    for (unsigned long k = turns; k; --k) __asm__ volatile("" : "+r"(k));
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const long sleepMs = argc > 1 ? atol(argv[1]) : 1000;
    const unsigned long turns = argc > 2 ? (unsigned long)atol(argv[2]) : 3000000;
    void* a = scenario_keep(malloc(1111));
    const struct timespec pause = {sleepMs / 1000, (sleepMs % 1000) * 1000000L};
    nanosleep(&pause, NULL);
    void* b = scenario_keep(malloc(2222));
    work(turns);
    void* c = scenario_keep(malloc(3333));
    free(c);
    free(b);
    free(a);
    scenario_say("slept, then worked\n");
    return 0;
}
