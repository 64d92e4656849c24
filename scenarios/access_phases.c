/* An 8 MiB heap array written, then read, by two named functions: ground truth for the tick
 * sampler. Usage: access_phases [ROUNDS=60]. Log: malloc 1 of 8 MiB, free 1; the samples in the
 * array come first from write_phase (all writes), then from read_phase (all reads). */
#include <stdlib.h>

#include "scenario.h"

enum { kElements = 1 << 20 };

__attribute__((noinline)) static double* new_array(void) { return scenario_keep(malloc(kElements * sizeof(double))); }

__attribute__((noinline)) static void write_phase(double* a, int rounds) {
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < kElements; ++i) a[i] = (double)(i + (size_t)r);
    scenario_keep(a);
}

__attribute__((noinline)) static double read_phase(const double* a, int rounds) {
    double sum = 0;
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < kElements; ++i) sum += a[i];
    return sum;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int rounds = argc > 1 ? atoi(argv[1]) : 60;
    double* a = new_array();
    write_phase(a, rounds);
    const double sum = read_phase(a, rounds);
    free(a);
    scenario_say(sum > 0 ? "written, then read\n" : "nothing read\n");
    return 0;
}
