/* Allocates a 16 KiB block, works on it, frees it and allocates again, ROUNDS times, never
 * touching a block after its free: glibc hands the same address out again each round. With
 * MEMLOG_WATCH=1 a watch left in a freed block ends when the allocation hands its word out
 * again, and no use after free may be reported. Usage: reuse_without_uaf [ROUNDS=300]. Log:
 * malloc ROUNDS, free ROUNDS. */
#include <stdlib.h>

#include "scenario.h"

enum { kWords = 2048 };

__attribute__((noinline)) static long* take(void) { return scenario_keep(malloc(kWords * sizeof(long))); }

__attribute__((noinline)) static long work(long* block, int round) {
    long sum = 0;
    for (int pass = 0; pass < 20; ++pass)
        for (size_t i = 0; i < kWords; ++i) sum += block[i] = (long)i * round + pass;
    return sum;
}

__attribute__((noinline)) static void give_back(long* block) { free(block); }

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int rounds = argc > 1 ? atoi(argv[1]) : 300;
    long total = 0;
    for (int round = 0; round < rounds; ++round) {
        long* block = take();
        total += work(block, round);
        give_back(block);
    }
    scenario_say(total != 42 ? "reused, never after free\n" : "?\n");
    return 0;
}
