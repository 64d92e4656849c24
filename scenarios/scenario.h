/* Shared by the scenario programs: an allocation sink the compiler cannot optimise away, and
 * output without stdio (stdio allocates its buffers, which would blur exact counts). */
#ifndef MEMLOG_SCENARIO_H
#define MEMLOG_SCENARIO_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Every scenario takes "empty" as its first argument to skip its own work: a test records both
 * runs and compares, which cancels whatever the C runtime allocates by itself. */
static inline int scenario_empty(int argc, char** argv) { return argc > 1 && strcmp(argv[1], "empty") == 0; }

/* Keeps a pointer observable so that malloc/free pairs are not removed by the optimiser. */
static inline void* scenario_keep(void* pointer) {
    __asm__ volatile("" : : "r"(pointer) : "memory");
    return pointer;
}

static inline void scenario_say(const char* text) {
    ssize_t ignored = write(1, text, strlen(text));
    (void)ignored;
}

/* Loads libscenario_plugin.so from this program's directory and returns its plugin_allocate,
 * or NULL. Only the scenarios that link -ldl call it. */
#ifdef SCENARIO_WITH_PLUGIN
#include <dlfcn.h>
#include <limits.h>

typedef void* (*plugin_allocate_fn)(size_t);

static inline plugin_allocate_fn scenario_load_plugin(void** handle) {
    char path[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 64);
    if (length <= 0) return NULL;
    path[length] = '\0';
    strcpy(strrchr(path, '/') + 1, "libscenario_plugin.so");
    *handle = dlopen(path, RTLD_NOW);
    return *handle ? (plugin_allocate_fn)dlsym(*handle, "plugin_allocate") : NULL;
}
#endif

#endif
