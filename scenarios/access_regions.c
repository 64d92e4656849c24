/* The same sweep over a global array (grid, 512 KiB), a heap array (512 KiB) and an array on the
 * stack (64 KiB), each by a function of its own: the tick sampler's samples fall in the global,
 * heap and stack regions accordingly. Usage: access_regions [ROUNDS=400]. Log: malloc 1, free 1. */
#include <stdlib.h>

#include "scenario.h"

enum { kGrid = 65536, kLocal = 8192 };

double grid[kGrid];

__attribute__((noinline)) static double sweep_global(int rounds) {
    double sum = 0;
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < kGrid; ++i) sum += grid[i] += 1.0;
    return sum;
}

__attribute__((noinline)) static double sweep_heap(double* heap, int rounds) {
    double sum = 0;
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < kGrid; ++i) sum += heap[i] += 1.0;
    return sum;
}

__attribute__((noinline)) static double sweep_stack(int rounds) {
    double local[kLocal];
    for (size_t i = 0; i < kLocal; ++i) local[i] = (double)i;
    scenario_keep(local);
    double sum = 0;
    for (int r = 0; r < 8 * rounds; ++r)
        for (size_t i = 0; i < kLocal; ++i) sum += local[i] += 1.0;
    scenario_keep(local);
    return sum;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int rounds = argc > 1 ? atoi(argv[1]) : 400;
    double* heap = scenario_keep(calloc(kGrid, sizeof(double)));
    const double sum = sweep_global(rounds) + sweep_heap(heap, rounds) + sweep_stack(rounds);
    free(heap);
    scenario_say(sum > 0 ? "swept a global, the heap and the stack\n" : "nothing swept\n");
    return 0;
}
