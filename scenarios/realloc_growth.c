/* Grows one buffer by doubling with realloc from 16 bytes to 1 MiB (realloc(NULL, 16) first:
 * 17 reallocs), then frees it. Log: realloc 17, free 1, peak 1 MiB in 1 block, no leak. */
#include <stdlib.h>

#include "scenario.h"

__attribute__((noinline)) static char* grow(void) {
    char* buffer = NULL;
    for (size_t size = 16; size <= 1u << 20; size *= 2) {
        buffer = scenario_keep(realloc(buffer, size));
        buffer[size - 1] = 1;
    }
    return buffer;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    free(grow());
    return 0;
}
