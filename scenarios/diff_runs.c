/* Two runs for `memlog diff`: `diff_runs base` and `diff_runs new` allocate at five sites with
 * known counts; everything is live at once (the heap's peak holds every site's bytes), then freed
 * but what leaks. Built twice: `diff_runs`, and `rebuilt/diff_runs` with -DDIFF_RUNS_REBUILT,
 * whose extra function moves every site's code (and changes the build id) but no line.
 *   steady    20 x 64 bytes in both runs
 *   changed   10 x 1000 bytes in base, 30 x 1000 in new
 *   added      5 x 256 bytes, new only
 *   removed    3 x 128 bytes, base only
 *   leaky      4 x 500 bytes in both; base frees them all, new leaks 2 */
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static void* blocks[64];
static int used = 0;

#ifdef DIFF_RUNS_REBUILT
/* Code ahead of the sites, in the rebuilt program only: their addresses move, their lines do not. */
__attribute__((noinline)) int rebuilt_padding(int seed) {
    volatile int sum = seed;
    for (int i = 0; i < 64; ++i) sum = sum * 31 + i;
    return sum;
}
#endif

__attribute__((noinline)) void steady(void) {
    for (int i = 0; i < 20; ++i) blocks[used++] = scenario_keep(malloc(64)); /* site:steady */
}

__attribute__((noinline)) void changed(int count) {
    for (int i = 0; i < count; ++i) blocks[used++] = scenario_keep(malloc(1000)); /* site:changed */
}

__attribute__((noinline)) void added(void) {
    for (int i = 0; i < 5; ++i) blocks[used++] = scenario_keep(malloc(256)); /* site:added */
}

__attribute__((noinline)) void removed(void) {
    for (int i = 0; i < 3; ++i) blocks[used++] = scenario_keep(malloc(128)); /* site:removed */
}

static void* leaked[4];

__attribute__((noinline)) void leaky(void) {
    for (int i = 0; i < 4; ++i) leaked[i] = scenario_keep(malloc(500)); /* site:leaky */
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int new_run = argc > 1 && strcmp(argv[1], "new") == 0;
#ifdef DIFF_RUNS_REBUILT
    if (rebuilt_padding(argc) == 42) scenario_say("");
#endif
    steady();
    changed(new_run ? 30 : 10);
    if (new_run)
        added();
    else
        removed();
    leaky();
    for (int i = 0; i < used; ++i) free(blocks[i]);
    for (int i = new_run ? 2 : 0; i < 4; ++i) free(leaked[i]);
    return 0;
}
