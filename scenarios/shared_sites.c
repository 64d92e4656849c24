/* Call sites shared by several stacks (the test finds the lines by the "site:" markers):
 *   alloc_node  12 x 64 bytes from one call of malloc, reached from build_left (4) and from
 *               build_right (8): two stacks, one site
 *   take        an always-inline helper, inlined into fill_a (3 x 512 bytes) and fill_b
 *               (5 x 512 bytes): one line, two sites ("take (inlined in fill_a)", "... fill_b")
 * Everything is live at once before the frees. */
#include <stdlib.h>

#include "scenario.h"

static void* blocks[32];
static int used = 0;

__attribute__((noinline)) void* alloc_node(void) {
    return scenario_keep(malloc(64)); /* site:alloc_node */
}

__attribute__((noinline)) void build_left(void) {
    for (int i = 0; i < 4; ++i) blocks[used++] = scenario_keep(alloc_node());
}

__attribute__((noinline)) void build_right(void) {
    for (int i = 0; i < 8; ++i) blocks[used++] = scenario_keep(alloc_node());
}

static inline __attribute__((always_inline)) void* take(size_t size) {
    return malloc(size); /* site:take */
}

__attribute__((noinline)) void fill_a(void) {
    for (int i = 0; i < 3; ++i) blocks[used++] = scenario_keep(take(512));
}

__attribute__((noinline)) void fill_b(void) {
    for (int i = 0; i < 5; ++i) blocks[used++] = scenario_keep(take(512));
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    build_left();
    build_right();
    fill_a();
    fill_b();
    for (int i = 0; i < used; ++i) free(blocks[i]);
    return 0;
}
