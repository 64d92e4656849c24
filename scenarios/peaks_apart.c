/* Two maximums at two moments: the heap peaks at 125 bytes in 2 blocks (100 + 25), both are
 * freed, then 3 one-byte blocks are live at once. Log: peak_bytes 125, blocks_at_peak 2,
 * peak_blocks 3, 5 mallocs and 5 frees, nothing leaked. */
#include <stdlib.h>

#include "scenario.h"

__attribute__((noinline)) static void* take(size_t size) { return scenario_keep(malloc(size)); }

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    void* big = take(100);
    void* small = take(25);
    free(big);
    free(small);
    void* bytes[3];
    for (int i = 0; i < 3; ++i) bytes[i] = take(1);
    for (int i = 0; i < 3; ++i) free(bytes[i]);
    scenario_say("peaks apart\n");
    return 0;
}
