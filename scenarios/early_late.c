/* Allocations outside main: a constructor mallocs 111 bytes before main runs; an atexit handler
 * frees it and mallocs 222 bytes (left allocated) after exit has begun.
 * Log: malloc 2, free 1, leaked 222 bytes in 1 block, complete. */
#include <stdlib.h>

#include "scenario.h"

static void* early;
static int work = 1;

__attribute__((noinline)) static void after_exit(void) {
    if (!work) return;
    free(early);
    scenario_keep(malloc(222));
}

__attribute__((constructor)) static void before_main(void) { early = scenario_keep(malloc(111)); }

int main(int argc, char** argv) {
    work = !scenario_empty(argc, argv);
    if (!work) free(early);
    atexit(after_exit);
    return 0;
}
