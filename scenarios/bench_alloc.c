/* The recording benchmark's workload: N malloc/free pairs of 8..4096 bytes, each malloc reached
 * through one of three recursive call paths (10, 20 or 30 frames deep), freed 1024 iterations
 * later from a ring. Usage: bench_alloc [N=2000000] [THREADS=1]; the work is split between the
 * threads. Prints loop_ms: the wall time of the loops, start to the last thread's end. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "scenario.h"

#define RING 1024

struct work {
    long pairs;
    uint64_t seed;
};

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

__attribute__((noinline)) static void* descend(int depth, size_t size) {
    if (depth == 0) return malloc(size);
    void* block = descend(depth - 1, size);
    __asm__ volatile("" ::: "memory"); /* no tail call: each level keeps its frame */
    return block;
}

static void* worker(void* argument) {
    struct work* work = argument;
    void* ring[RING] = {0};
    uint64_t state = work->seed;
    for (long i = 0; i < work->pairs; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        const size_t size = 8 + state % 4089;
        const int depth = 10 + (int)(i % 3) * 10;
        const int slot = (int)(i & (RING - 1));
        free(ring[slot]);
        ring[slot] = scenario_keep(descend(depth, size));
    }
    for (int slot = 0; slot < RING; ++slot) free(ring[slot]);
    return NULL;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const long pairs = argc > 1 ? atol(argv[1]) : 2000000;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    if (pairs <= 0 || threads < 1 || threads > 64) return 2;
    struct work work[64];
    pthread_t ids[64];
    const uint64_t start = now_ns();
    if (threads == 1) { /* one thread means the main thread: no other thread ever exists */
        work[0].pairs = pairs;
        work[0].seed = 0x9e3779b97f4a7c15ull;
        worker(&work[0]);
        threads = 0;
    }
    for (int t = 0; t < threads; ++t) {
        work[t].pairs = pairs / threads;
        work[t].seed = 0x9e3779b97f4a7c15ull + (uint64_t)t;
        pthread_create(&ids[t], NULL, worker, &work[t]);
    }
    for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
    char text[64];
    snprintf(text, sizeof text, "loop_ms %.1f\n", (double)(now_ns() - start) / 1e6);
    scenario_say(text);
    return 0;
}
