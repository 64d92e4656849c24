/* Mallocs 100 blocks of 80 bytes, then aborts: the program dies by SIGABRT as it would
 * unrecorded, and its log holds the 100 mallocs with no clean end. */
#include <stdlib.h>

#include "scenario.h"

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    for (int i = 0; i < 100; ++i) scenario_keep(malloc(80));
    abort();
}
