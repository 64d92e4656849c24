/* Loads libscenario_plugin.so (from the directory of this program) with dlopen, calls its
 * plugin_allocate(4242) and frees the block, then dlcloses it.
 * Log: one malloc of 4242 whose innermost frame lies in the plugin, and a module map that names
 * the plugin. */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include "scenario.h"

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    char path[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 64);
    if (length <= 0) return 1;
    path[length] = '\0';
    strcpy(strrchr(path, '/') + 1, "libscenario_plugin.so");
    void* plugin = dlopen(path, RTLD_NOW);
    if (!plugin) return 2;
    void* (*allocate)(size_t) = (void* (*)(size_t))dlsym(plugin, "plugin_allocate");
    if (!allocate) return 3;
    free(allocate(4242));
    dlclose(plugin);
    return 0;
}
