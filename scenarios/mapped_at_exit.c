/* A program that keeps its own mappings to the end beside a real leak, as a garbage-collected
 * runtime keeps its heap: three blocks of 4000 bytes from leak_blocks never freed (one of 500
 * freed), then map_arenas maps 3 MiB and 1 MiB, cuts 64 KiB out of the middle of the second,
 * and nothing is unmapped.
 * Log: malloc 4, free 1, mmap 2, munmap 1; leaked 12,000 bytes in 3 blocks; mapped at exit
 * 3 MiB + 1 MiB - 64 KiB = 4,128,768 bytes in 3 regions (the first, and the two pieces of the
 * second); peak 12,000 + 4 MiB = 4,206,304 bytes; the heap alone peaks at 12,500 bytes, the
 * mappings at 4 MiB. */
#include <stdlib.h>
#include <sys/mman.h>

#include "scenario.h"

__attribute__((noinline)) static void leak_blocks(void) {
    for (int i = 0; i < 3; ++i) scenario_keep(malloc(4000));
    free(scenario_keep(malloc(500)));
}

__attribute__((noinline)) static char* map_arena(size_t bytes) {
    char* arena = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arena == MAP_FAILED) return NULL;
    arena[0] = 1;
    return arena;
}

__attribute__((noinline)) static int map_arenas(void) {
    const size_t mib = 1 << 20;
    char* first = map_arena(3 * mib);
    char* second = map_arena(mib);
    if (!first || !second) return 1;
    return munmap(second + 512 * 1024, 64 * 1024) == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    leak_blocks();
    return map_arenas();
}
