/* Mallocs 100 blocks of 90 bytes, then writes through a null pointer: the program dies by
 * SIGSEGV, and its log holds the 100 mallocs with no clean end. */
#include <stdlib.h>

#include "scenario.h"

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    for (int i = 0; i < 100; ++i) scenario_keep(malloc(90));
    *(volatile int*)scenario_keep(NULL) = 1;
    return 0;
}
