/* Sites with known counts and bytes, for sampled capture (MEMLOG_SAMPLE). One mode a run:
 *   sites    small_site   20000 x 64 bytes, freed        medium_site  2000 x 4096 bytes, freed
 *            large_site   20 x 1 MiB, freed              leak_site    1000 x 512 bytes, never freed
 *            (all of small, medium and large live at once before their frees)
 *   sites 2  the same but medium_site twice: 4000 x 4096 bytes (a change `memlog diff` must see)
 *   realloc  (for a mean of 1 KiB: a 64 KiB block is sampled but for e^-64)
 *            a = 64 KiB, b = 64 KiB; a shrunk in place to 65520; a grown to 100000 (b is in the
 *            way: it moves); c = 64 KiB shrunk to 8 (the old block sampled, the new one likely not);
 *            d = 8 bytes grown to 64 KiB (the new block sampled, the old likely not);
 *            then b, a, c, d freed; leak_site once: 65536 bytes never freed
 *   live N   N x 64 bytes kept live, then all freed: the set of live samples filled */
#include <stdlib.h>

#include "scenario.h"

static void* blocks[26100];

__attribute__((noinline)) void* small_site(void) { return scenario_keep(malloc(64)); }
__attribute__((noinline)) void* medium_site(void) { return scenario_keep(malloc(4096)); }
__attribute__((noinline)) void* large_site(void) { return scenario_keep(malloc(1 << 20)); }
__attribute__((noinline)) void* leak_site(size_t size) { return scenario_keep(malloc(size)); }

static int sites(int medium_times) {
    int used = 0;
    for (int i = 0; i < 20000; ++i) blocks[used++] = small_site();
    for (int i = 0; i < 2000 * medium_times; ++i) blocks[used++] = medium_site();
    for (int i = 0; i < 20; ++i) blocks[used++] = large_site();
    for (int i = 0; i < 1000; ++i) leak_site(512);
    for (int i = 0; i < used; ++i) free(blocks[i]);
    return 0;
}

static int reallocs(void) {
    char* a = scenario_keep(malloc(65536));
    char* b = scenario_keep(malloc(65536));
    char* shrunk = scenario_keep(realloc(a, 65520));
    if (shrunk != a) return 3; /* glibc shrinks in place */
    char* grown = scenario_keep(realloc(shrunk, 100000));
    if (grown == shrunk) return 4; /* b follows a: it cannot grow in place */
    char* c = scenario_keep(realloc(scenario_keep(malloc(65536)), 8));
    char* d = scenario_keep(realloc(scenario_keep(malloc(8)), 65536));
    leak_site(65536);
    free(b);
    free(grown);
    free(c);
    free(d);
    return 0;
}

static int live(int count) {
    if (count > 24000) return 2;
    for (int i = 0; i < count; ++i) blocks[i] = small_site();
    for (int i = 0; i < count; ++i) free(blocks[i]);
    return 0;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    if (argc >= 2 && argv[1][0] == 's') return sites(argc >= 3 && atoi(argv[2]) == 2 ? 2 : 1);
    if (argc >= 2 && argv[1][0] == 'r') return reallocs();
    if (argc >= 3 && argv[1][0] == 'l') return live(atoi(argv[2]));
    return 2;
}
