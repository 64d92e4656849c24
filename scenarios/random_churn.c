/* Random churn: 20000 steps over 512 slots with a fixed seed; a step frees the slot's block if
 * it has one, else mallocs 16..4111 bytes into it. At the end every block is freed. The program
 * keeps its own accounts (its calls, the peak of live bytes with the blocks live at that moment,
 * the most blocks live at once) and prints them on stdout as
 * "malloc=M free=F peak_bytes=B peak_blocks=K blocks_at_peak=J": an oracle the recorded log must
 * match exactly. */
#include <stdint.h>
#include <stdlib.h>

#include "scenario.h"

#define SLOTS 512
static void* slots[SLOTS];
static size_t sizes[SLOTS];

static uint64_t state = 0x2545f4914f6cdd1dull;
static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

__attribute__((noinline)) static void* churn_allocate(size_t size) { return scenario_keep(malloc(size)); }

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    unsigned long mallocs = 0, frees = 0, liveBlocks = 0, peakBlocks = 0, blocksAtPeak = 0;
    size_t liveBytes = 0, peakBytes = 0;
    for (int step = 0; step < 20000; ++step) {
        const unsigned slot = (unsigned)(next_random() % SLOTS);
        if (slots[slot]) {
            free(slots[slot]);
            slots[slot] = NULL;
            liveBytes -= sizes[slot];
            --liveBlocks;
            ++frees;
        } else {
            sizes[slot] = 16 + next_random() % 4096;
            slots[slot] = churn_allocate(sizes[slot]);
            liveBytes += sizes[slot];
            ++liveBlocks;
            ++mallocs;
            if (liveBytes > peakBytes) {
                peakBytes = liveBytes;
                blocksAtPeak = liveBlocks;
            }
            if (liveBlocks > peakBlocks) peakBlocks = liveBlocks;
        }
    }
    for (int slot = 0; slot < SLOTS; ++slot)
        if (slots[slot]) {
            free(slots[slot]);
            ++frees;
        }
    char text[160];
    snprintf(text, sizeof text, "malloc=%lu free=%lu peak_bytes=%zu peak_blocks=%lu blocks_at_peak=%lu\n", mallocs,
             frees, peakBytes, peakBlocks, blocksAtPeak);
    scenario_say(text);
    return 0;
}
