/* The workload of scripts/bench-dlopen: what the dlopen hook costs.
 *   bench_dlopen DEEP [LOADS=200]
 * Loads and unloads plugins/libscenario_deep_plugin.so LOADS times, with RTLD_DEEPBIND when DEEP
 * is 1 (each load is rebound by the recorder) or without it (0); then, with the plugin loaded,
 * opens it with RTLD_NOLOAD and closes it 100000 times: the hook's path for any other dlopen.
 * Prints "load_us X" (per load and unload) and "noload_ns Y" (per open and close). */
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scenario.h"

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv) || argc < 2) return 0;
    const int flags = RTLD_NOW | (atoi(argv[1]) ? RTLD_DEEPBIND : 0);
    const int loads = argc > 2 ? atoi(argv[2]) : 200, opens = 100000;
    char path[PATH_MAX];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 64);
    if (length <= 0) return 2;
    path[length] = '\0';
    strcpy(strrchr(path, '/') + 1, "plugins/libscenario_deep_plugin.so");
    const double start = now_ns();
    for (int i = 0; i < loads; ++i) {
        void* plugin = dlopen(path, flags);
        if (!plugin) return 3;
        dlclose(plugin);
    }
    const double loaded = now_ns();
    void* plugin = dlopen(path, flags);
    const double again = now_ns();
    for (int i = 0; i < opens; ++i) dlclose(dlopen(path, RTLD_NOW | RTLD_NOLOAD));
    const double end = now_ns();
    dlclose(plugin);
    char text[96];
    snprintf(text, sizeof text, "load_us %.2f\nnoload_ns %.1f\n", (loaded - start) / loads / 1e3,
             (end - again) / opens);
    scenario_say(text);
    return 0;
}
