/* Loads libscenario_deep_plugin.so with RTLD_DEEPBIND, which binds its malloc and free to the C
 * library past LD_PRELOAD, and allocates and frees through it:
 *   plugin malloc(4242), plugin free; plugin malloc(4343), program free; program malloc(4444),
 *   plugin free; then plugin_every_call() (deep_plugin.c: calloc, realloc, reallocarray,
 *   posix_memalign, aligned_alloc, memalign, valloc, pvalloc, each freed).
 * Log: every one of those calls, no block of them left live, no anomaly.
 * The first argument says how it loads the plugin:
 *   path-now (default), path-lazy: its path, RTLD_DEEPBIND with RTLD_NOW or RTLD_LAZY;
 *   name-deep, name-plain: the bare name, found only through the RUNPATH ($ORIGIN/plugins), with
 *   and without RTLD_DEEPBIND;
 *   base-ns: dlmopen(LM_ID_BASE, path, RTLD_NOW | RTLD_DEEPBIND);
 *   new-ns: dlmopen(LM_ID_NEWLM, path, RTLD_NOW): a namespace with a C library and a heap of its
 *   own, so no block crosses between the program and the plugin.
 * A second argument `keep` leaves the plugin open to the end (plugins often live until exit).
 * Prints whose greeting() the plugin's own call reached: with RTLD_DEEPBIND its own. */
#define _GNU_SOURCE /* dlmopen */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

#define PLUGIN "libscenario_deep_plugin.so"

/* The program's greeting(), exported: a plugin bound the usual way would call this one. */
__attribute__((visibility("default"), noinline)) const char* greeting(void) { return "the program's"; }

static void* open_plugin(const char* how) {
    const int lazy = strcmp(how, "path-lazy") == 0;
    const int flags = (lazy ? RTLD_LAZY : RTLD_NOW) | (strcmp(how, "name-plain") == 0 ? 0 : RTLD_DEEPBIND);
    if (strncmp(how, "name-", 5) == 0) return dlopen(PLUGIN, flags);
    const int namespaced = strcmp(how, "base-ns") == 0 || strcmp(how, "new-ns") == 0;
    char path[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 64);
    if (length <= 0) return NULL;
    path[length] = '\0';
    strcpy(strrchr(path, '/') + 1, "plugins/" PLUGIN);
    if (!namespaced) return dlopen(path, flags);
    return strcmp(how, "new-ns") == 0 ? dlmopen(LM_ID_NEWLM, path, RTLD_NOW) : dlmopen(LM_ID_BASE, path, flags);
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const char* how = argc > 1 ? argv[1] : "path-now";
    void* plugin = open_plugin(how);
    if (!plugin) {
        scenario_say(dlerror());
        scenario_say("\n");
        return 2;
    }
    const char* (*plugin_greeting)(void) = (const char* (*)(void))dlsym(plugin, "plugin_greeting");
    void* (*plugin_allocate)(size_t) = (void* (*)(size_t))dlsym(plugin, "plugin_allocate");
    void (*plugin_release)(void*) = (void (*)(void*))dlsym(plugin, "plugin_release");
    void (*plugin_every_call)(void) = (void (*)(void))dlsym(plugin, "plugin_every_call");
    if (!plugin_greeting || !plugin_allocate || !plugin_release || !plugin_every_call) return 3;
    plugin_release(plugin_allocate(4242));
    if (strcmp(how, "new-ns") != 0) {
        free(plugin_allocate(4343));
        plugin_release(scenario_keep(malloc(4444)));
    }
    plugin_every_call();
    scenario_say("greeting: ");
    scenario_say(plugin_greeting());
    scenario_say("\n");
    if (argc <= 2 || strcmp(argv[2], "keep") != 0) dlclose(plugin);
    return 0;
}
