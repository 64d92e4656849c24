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

#endif
