/* Four threads, each with an array of its own: thread t (0..3) allocates 1000 + 100 t doubles,
 * writes every element PASSES times, reads every element once, and frees it; then it keeps a
 * tally in a local array on its own stack (64 words, written once each and read once each), and
 * prints "tally T ADDRESS" (the array's address, in hex). Usage: thread_arrays [PASSES=3]. A full
 * trace counts, per array, exactly PASSES x (1000 + 100 t) writes and 1000 + 100 t reads of 8
 * bytes, all by the thread that owns it, and 64 writes and 64 reads of each tally, on its
 * thread's stack. The accesses go through volatile pointers: each is one 8-byte load or store. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"

enum { kThreads = 4, kStackWords = 64 };

static int s_passes = 3;

__attribute__((noinline)) static double work(size_t index, size_t elements) {
    volatile double* array = scenario_keep(malloc(elements * sizeof(double)));
    for (int pass = 0; pass < s_passes; ++pass)
        for (size_t i = 0; i < elements; ++i) array[i] = (double)(i + (size_t)pass);
    double sum = 0;
    for (size_t i = 0; i < elements; ++i) sum += array[i];
    free((void*)array);
    volatile long tally[kStackWords];
    for (int i = 0; i < kStackWords; ++i) tally[i] = i;
    long total = 0;
    for (int i = 0; i < kStackWords; ++i) total += tally[i];
    char line[64];  /* snprintf allocates nothing: the log keeps the program's allocations only */
    snprintf(line, sizeof line, "tally %zu %p\n", index, (void*)tally);
    scenario_say(line);
    return sum + (double)total;
}

static void* thread_main(void* argument) {
    const size_t index = (size_t)argument;
    const double sum = work(index, 1000 + 100 * index);
    return sum > 0 ? argument : NULL;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    if (argc > 1) s_passes = atoi(argv[1]);
    pthread_t threads[kThreads];
    for (size_t t = 0; t < kThreads; ++t) pthread_create(&threads[t], NULL, thread_main, (void*)t);
    int good = 1;
    for (size_t t = 0; t < kThreads; ++t) {
        void* result = NULL;
        pthread_join(threads[t], &result);
        good &= result == (void*)t;
    }
    scenario_say(good ? "four arrays written and read\n" : "a thread failed\n");
    return 0;
}
