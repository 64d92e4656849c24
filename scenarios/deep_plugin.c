/* The library deepbind_plugin loads with RTLD_DEEPBIND (from bin/scenarios/plugins/, a directory
 * only the program's RUNPATH names). It allocates and frees through every C entry point, and has
 * a greeting() of its own that the program defines too: with RTLD_DEEPBIND, plugin_greeting()
 * must find the plugin's, as it does unrecorded. */
#include <malloc.h>
#include <stdlib.h>

#include "scenario.h"

#define EXPORTED __attribute__((visibility("default"), noinline))

EXPORTED const char* greeting(void) { return "the plugin's own"; }
EXPORTED const char* plugin_greeting(void) { return greeting(); }

EXPORTED void* plugin_allocate(size_t size) { return scenario_keep(malloc(size)); }
EXPORTED void plugin_release(void* block) { free(block); }

/* calloc 21 bytes, realloc to 333, reallocarray to 400, then one block from each aligned entry
 * point (1000, 1024, 1100, 1200, 1300 bytes); every block freed. */
EXPORTED void plugin_every_call(void) {
    char* block = scenario_keep(calloc(3, 7));
    block = scenario_keep(realloc(block, 333));
    block = scenario_keep(reallocarray(block, 4, 100));
    free(block);
    void* aligned = NULL;
    if (posix_memalign(&aligned, 64, 1000) == 0) free(scenario_keep(aligned));
    free(scenario_keep(aligned_alloc(64, 1024)));
    free(scenario_keep(memalign(32, 1100)));
    free(scenario_keep(valloc(1200)));
    free(scenario_keep(pvalloc(1300)));
}
