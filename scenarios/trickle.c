/* A slow, steady heap for a log followed while it is written: one 64-byte block every 10 ms,
 * each freed ten blocks later, for SECONDS seconds (default 3), on each of THREADS threads
 * (default 1) at once.
 * Usage: trickle [SECONDS] [THREADS]. Log: malloc and free SECONDS * 100 each, a thread. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "scenario.h"

static int seconds = 3;

static void* trickle(void* unused) {
    (void)unused;
    void* ring[10] = {0};
    const struct timespec pause = {0, 10 * 1000 * 1000};
    for (int i = 0; i < seconds * 100; ++i) {
        free(ring[i % 10]);
        ring[i % 10] = scenario_keep(malloc(64));
        nanosleep(&pause, NULL);
    }
    for (int i = 0; i < 10; ++i) free(ring[i]);
    return NULL;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    seconds = argc > 1 ? atoi(argv[1]) : 3;
    const int threads = argc > 2 ? atoi(argv[2]) : 1;
    if (seconds <= 0 || threads <= 0 || threads > 64) return 2;
    pthread_t others[64];
    for (int i = 1; i < threads; ++i) pthread_create(&others[i], NULL, trickle, NULL);
    trickle(NULL);
    for (int i = 1; i < threads; ++i) pthread_join(others[i], NULL);
    return 0;
}
