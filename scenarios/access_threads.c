/* Four threads, each sweeping a 1 MiB block of its own (allocated by that thread): every sample
 * in a block comes from the thread that owns it. Usage: access_threads [ROUNDS=300]. Log:
 * malloc 4 (one per thread) of 1 MiB, free 4. */
#include <pthread.h>
#include <stdlib.h>

#include "scenario.h"

enum { kThreads = 4, kElements = 1 << 17 };

static int s_rounds;

__attribute__((noinline)) static double sweep_own(double* block) {
    double sum = 0;
    for (int r = 0; r < s_rounds; ++r)
        for (size_t i = 0; i < kElements; ++i) sum += block[i] += 1.0;
    return sum;
}

static void* worker(void* result) {
    double* block = scenario_keep(calloc(kElements, sizeof(double)));
    *(double*)result = sweep_own(block);
    free(block);
    return NULL;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    s_rounds = argc > 1 ? atoi(argv[1]) : 300;
    pthread_t threads[kThreads];
    double sums[kThreads];
    for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, worker, &sums[i]);
    for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
    scenario_say(sums[0] > 0 && sums[3] > 0 ? "four threads swept their blocks\n" : "a thread swept nothing\n");
    return 0;
}
