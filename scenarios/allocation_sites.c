/* Allocation sites with known names, counts and source lines (the test finds the lines by the
 * "site:" markers). Functions are not static, so that a stripped build (-s -rdynamic) still has
 * their names in the dynamic symbol table.
 *   make_small       10 x 100 bytes, freed
 *   grab             3 x 5000 bytes, an always-inline helper called by make_large, freed
 *   leak_some        4 x 300 bytes, never freed
 *   plugin_allocate  2 x 4242 bytes, in libscenario_plugin.so loaded with dlopen, freed
 * Everything is live at once before the frees: the peak holds every site's bytes. */
#include <stdlib.h>

#define SCENARIO_WITH_PLUGIN
#include "scenario.h"

static void* blocks[32];
static int used = 0;

static inline __attribute__((always_inline)) void* grab(size_t size) {
    return malloc(size); /* site:grab */
}

__attribute__((noinline)) void make_small(void) {
    for (int i = 0; i < 10; ++i) blocks[used++] = scenario_keep(malloc(100)); /* site:make_small */
}

__attribute__((noinline)) void make_large(void) {
    for (int i = 0; i < 3; ++i) blocks[used++] = scenario_keep(grab(5000));
}

__attribute__((noinline)) void leak_some(void) {
    for (int i = 0; i < 4; ++i) scenario_keep(malloc(300)); /* site:leak_some */
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    void* plugin = NULL;
    const plugin_allocate_fn plugin_allocate = scenario_load_plugin(&plugin);
    if (!plugin_allocate) return 2;

    make_small();
    make_large();
    leak_some();
    for (int i = 0; i < 2; ++i) blocks[used++] = plugin_allocate(4242);
    for (int i = 0; i < used; ++i) free(blocks[i]);
    dlclose(plugin);
    return 0;
}
