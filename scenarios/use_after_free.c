/* Reads freed memory: each of ROUNDS rounds allocates a 120 KiB block (make_block), fills it,
 * reads it once more, word by word with some arithmetic between (last_pass: a tick that lands
 * there leaves a watch on a word the pass will not touch again), frees it (release_block) and
 * then reads every word of the freed block a hundred times (read_after_free). Usage:
 * use_after_free [ROUNDS=20]. Log: malloc ROUNDS, free ROUNDS; with MEMLOG_WATCH=1, uses after
 * free caught in read_after_free, by watches armed before the free and after it. */
#include <stdlib.h>

#include "scenario.h"

enum { kWords = 15 * 1024 };  /* 120 KiB: below glibc's mmap threshold, so free keeps the memory */

__attribute__((noinline)) static long* make_block(void) { return scenario_keep(malloc(kWords * sizeof(long))); }

__attribute__((noinline)) static void release_block(long* block) { free(block); }

__attribute__((noinline)) static long last_pass(const long* block) {
    long sum = 0;
    for (size_t i = 0; i < kWords; ++i) {
        long work = block[i];
        for (int spin = 0; spin < 6; ++spin) work = work * 6364136223846793005L + 1442695040888963407L;
        sum += work;
    }
    return sum;
}

__attribute__((noinline)) static long read_after_free(const volatile long* block) {
    long sum = 0;
    for (int round = 0; round < 100; ++round)
        for (size_t i = 0; i < kWords; ++i) sum += block[i];
    return sum;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int rounds = argc > 1 ? atoi(argv[1]) : 20;
    long total = 0;
    for (int r = 0; r < rounds; ++r) {
        long* block = make_block();
        for (size_t i = 0; i < kWords; ++i) block[i] = (long)i;
        total += last_pass(block);
        release_block(block);
        total += read_after_free(block);
    }
    scenario_say(total != 42 ? "read freed memory\n" : "?\n");
    return 0;
}
