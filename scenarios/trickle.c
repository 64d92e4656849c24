/* A slow, steady heap for a log followed while it is written: one 64-byte block every 10 ms,
 * each freed ten blocks later, for SECONDS seconds (default 3). */
#include <stdlib.h>
#include <time.h>

#include "scenario.h"

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int seconds = argc > 1 ? atoi(argv[1]) : 3;
    void* ring[10] = {0};
    const struct timespec pause = {0, 10 * 1000 * 1000};
    for (int i = 0; i < seconds * 100; ++i) {
        free(ring[i % 10]);
        ring[i % 10] = scenario_keep(malloc(64));
        nanosleep(&pause, NULL);
    }
    for (int i = 0; i < 10; ++i) free(ring[i]);
    return 0;
}
