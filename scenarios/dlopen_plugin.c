/* Loads libscenario_plugin.so (from the directory of this program) with dlopen, calls its
 * plugin_allocate(4242) and frees the block, then dlcloses it.
 * Log: one malloc of 4242 whose innermost frame lies in the plugin, and a module map that names
 * the plugin. */
#include <stdlib.h>

#define SCENARIO_WITH_PLUGIN
#include "scenario.h"

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    void* plugin = NULL;
    const plugin_allocate_fn allocate = scenario_load_plugin(&plugin);
    if (!allocate) return 2;
    free(allocate(4242));
    dlclose(plugin);
    return 0;
}
