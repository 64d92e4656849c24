/* A program with a malloc of its own (forwarding_malloc.h: it counts the call and forwards to
 * glibc's __libc_ names). Its malloc stands in front of the recorder's, which never runs; the
 * recorder records the __libc_ calls instead.
 * Log: malloc 100, 200 and 300; calloc 4 x 25; realloc 300 -> 3000; four frees; nothing live.
 * Prints "own calls: 9" (its own count, the same unrecorded). */
#include <stdio.h>
#include <stdlib.h>

#include "forwarding_malloc.h"
#include "scenario.h"

__attribute__((noinline)) static void* take(size_t size) { return scenario_keep(malloc(size)); }

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    forwarding_counting = 1;
    void* a = take(100);
    void* b = take(200);
    char* c = take(300);
    void* d = scenario_keep(calloc(4, 25));
    c = scenario_keep(realloc(c, 3000));
    free(a);
    free(b);
    free(c);
    free(d);
    forwarding_counting = 0;
    char text[32];
    snprintf(text, sizeof text, "own calls: %lu\n", forwarding_calls);
    scenario_say(text);
    return 0;
}
