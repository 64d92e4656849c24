/* Allocates 15 blocks of 100 bytes and frees only 5 of them.
 * Log: malloc 15, free 5, leaked 1000 bytes in 10 blocks, peak 1500 bytes in 15 blocks. */
#include <stdlib.h>

#include "scenario.h"

__attribute__((noinline)) static void* leak_one(void) { return scenario_keep(malloc(100)); }

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    void* kept[5];
    for (int i = 0; i < 10; ++i) leak_one();
    for (int i = 0; i < 5; ++i) kept[i] = scenario_keep(malloc(100));
    for (int i = 0; i < 5; ++i) free(kept[i]);
    return 0;
}
