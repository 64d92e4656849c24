/* A shared library that dlopen_plugin loads at run time: its allocation site lives in code that
 * was not loaded when recording began. */
#include <stdlib.h>

#include "scenario.h"

__attribute__((noinline, visibility("default"))) void* plugin_allocate(size_t size) {
    return scenario_keep(malloc(size)); /* site:plugin_allocate */
}
