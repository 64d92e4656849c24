/* Calls every C allocation entry point once, with sizes that name the call, then frees all:
 * posix_memalign(64, 1000), aligned_alloc(128, 1024), memalign(256, 1001), valloc(1002),
 * pvalloc(1003), calloc(10, 100), reallocarray(NULL, 10, 50), malloc(1004).
 * Log: one call of each kind, free 8, peak 1000+1024+1001+1002+1003+1000+500+1004 = 7534. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>

#include "scenario.h"

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    void* blocks[8];
    if (posix_memalign(&blocks[0], 64, 1000) != 0) return 1;
    blocks[1] = aligned_alloc(128, 1024);
    blocks[2] = memalign(256, 1001);
    blocks[3] = valloc(1002);
    blocks[4] = pvalloc(1003);
    blocks[5] = calloc(10, 100);
    blocks[6] = reallocarray(NULL, 10, 50);
    blocks[7] = malloc(1004);
    if (malloc_usable_size(blocks[7]) < 1004) return 2; /* still works under the recorder */
    for (int i = 0; i < 8; ++i) free(scenario_keep(blocks[i]));
    return 0;
}
