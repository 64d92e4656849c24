/* An array of N doubles written once, element by element, then read once: ground truth for a
 * full trace, which must count exactly N writes and then N reads of 8 bytes in the block.
 * Usage: known_accesses [N=1000] [SPIN=0]. Log: malloc 1 of N*8 bytes, free 1. The accesses go
 * through a volatile pointer, so that the compiler makes each one a single 8-byte load or store.
 * SPIN: that many turns of a loop in registers after each access (no memory touched), so that
 * the accesses spread over the run's time as a program's work would, not in a burst of 100 us. */
#include <stdlib.h>

#include "scenario.h"

static unsigned long s_spin;

/* Time passing without an access: a countdown the compiler keeps in a register. */
static inline void spin(void) {
    for (unsigned long k = s_spin; k; --k) __asm__ volatile("" : "+r"(k));
}

__attribute__((noinline)) static void write_each(volatile double* a, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        a[i] = (double)i;
        spin();
    }
}

__attribute__((noinline)) static double read_each(volatile const double* a, size_t n) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
        sum += a[i];
        spin();
    }
    return sum;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000;
    s_spin = argc > 2 ? (unsigned long)atol(argv[2]) : 0;
    double* a = scenario_keep(malloc(n * sizeof(double)));
    write_each(a, n);
    const double sum = read_each(a, n);
    free(a);
    scenario_say(sum >= 0 ? "written once, read once\n" : "negative\n");
    return 0;
}
