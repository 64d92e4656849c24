/* The allocator at work on the memory the program freed, the program never touching it:
 *   20,000 blocks of 24 to 152 bytes from keep_blocks, every other one freed at once by
 *   drop_every_other (their neighbours stay live: the freed ones cannot merge, and fill glibc's
 *   tcache, fast bins and small bins);
 *   then ROUNDS calls of malloc_trim(0) (default 3,000), which memlog does not hook: glibc
 *   consolidates its fast bins (malloc_consolidate) and walks every bin, reading the links it
 *   keeps inside the freed blocks, from code the C library reached by itself;
 *   then ROUNDS / 10 mallocs and frees of 64 KiB, whose hooked calls do the same work.
 * Usage: allocator_at_work [ROUNDS]. Log: malloc 20,000 + ROUNDS / 10, free 10,000 + ROUNDS / 10;
 * 10,000 blocks leaked (the live half, kept to the end). With access samples: the freed blocks
 * are touched only by the allocator: no use after free. */
#include <malloc.h>
#include <stdlib.h>

#include "scenario.h"

enum { kBlocks = 20000 };

static void* blocks[kBlocks];

__attribute__((noinline)) static void keep_blocks(void) {
    for (int i = 0; i < kBlocks; ++i) {
        char* block = scenario_keep(malloc(24 + (size_t)(i % 9) * 16));
        block[0] = (char)i;
        blocks[i] = block;
    }
}

__attribute__((noinline)) static void drop_every_other(void) {
    for (int i = 0; i < kBlocks; i += 2) {
        free(blocks[i]);
        blocks[i] = NULL;
    }
}

__attribute__((noinline)) static void trim_again_and_again(int rounds) {
    for (int round = 0; round < rounds; ++round) malloc_trim(0);
}

__attribute__((noinline)) static void large_again_and_again(int rounds) {
    for (int round = 0; round < rounds; ++round) {
        char* large = scenario_keep(malloc(64 * 1024));
        large[0] = (char)round;
        free(large);
    }
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int rounds = argc > 1 ? atoi(argv[1]) : 3000;
    if (rounds <= 0) return 2;
    keep_blocks();
    drop_every_other();
    trim_again_and_again(rounds);
    large_again_and_again(rounds / 10);
    return 0;
}
