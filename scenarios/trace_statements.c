/* Every kind of memory statement a full trace must count, each in a region of its own of one
 * 4000-byte heap block, ROUNDS times (usage: trace_statements [ROUNDS=100]):
 *
 *   offset   what, per round                                            accesses per round
 *   0        a load and a store of 1 byte                               1 read, 1 write (1 B)
 *   64       ... of 2 bytes                                             1 read, 1 write (2 B)
 *   128      ... of 4 bytes                                             1 read, 1 write (4 B)
 *   192      ... of 8 bytes                                             1 read, 1 write (8 B)
 *   256      ... of 16 bytes (SSE)                                      1 read, 1 write (16 B)
 *   320      ... of 32 bytes (AVX)                                      1 read, 1 write (32 B)
 *   512      lock cmpxchg of 8 bytes                                    1 read-modify-write (8 B)
 *   1024     the source of rep movsb of 100 bytes                       100 reads (1 B)
 *   2048     its destination                                            100 writes (1 B)
 *   3072     vmaskmovps of 8 lanes, lanes 0, 2, 5 set                   3 writes (4 B)
 *
 * Each is one instruction in inline assembly, so the compiler adds no access of its own to the
 * block. Without AVX (the CPU as Valgrind presents it) it says so and exits with 77 (skipped). */
#include <cpuid.h>
#include <stdlib.h>

#include "scenario.h"

static int hasAvx(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const int osSaves = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osSaves || !avx) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 6) == 6;  /* the OS saves the SSE and AVX state */
}

__attribute__((noinline)) static void round_of_statements(unsigned char* b) {
    unsigned long value;
    __asm__ volatile("movb (%1), %%al\n\tmovb %%al, (%1)" : "=&a"(value) : "r"(b) : "memory");
    __asm__ volatile("movw (%1), %%ax\n\tmovw %%ax, (%1)" : "=&a"(value) : "r"(b + 64) : "memory");
    __asm__ volatile("movl (%1), %%eax\n\tmovl %%eax, (%1)" : "=&a"(value) : "r"(b + 128) : "memory");
    __asm__ volatile("movq (%1), %%rax\n\tmovq %%rax, (%1)" : "=&a"(value) : "r"(b + 192) : "memory");
    __asm__ volatile("movdqu (%0), %%xmm0\n\tmovdqu %%xmm0, (%0)" : : "r"(b + 256) : "xmm0", "memory");
    __asm__ volatile("vmovdqu (%0), %%ymm0\n\tvmovdqu %%ymm0, (%0)\n\tvzeroupper" : : "r"(b + 320) : "xmm0", "memory");
    unsigned long expected = 0;
    __asm__ volatile("lock cmpxchgq %2, (%1)" : "+a"(expected) : "r"(b + 512), "r"(1ul) : "memory", "cc");
    void* to = b + 2048;
    const void* from = b + 1024;
    unsigned long count = 100;
    __asm__ volatile("rep movsb" : "+D"(to), "+S"(from), "+c"(count) : : "memory");
    static const int mask[8] = {-1, 0, -1, 0, 0, -1, 0, 0};
    __asm__ volatile("vmovdqu (%1), %%ymm1\n\tvxorps %%ymm0, %%ymm0, %%ymm0\n\tvmaskmovps %%ymm0, %%ymm1, (%0)\n\t"
                     "vzeroupper"
                     :
                     : "r"(b + 3072), "r"(mask)
                     : "xmm0", "xmm1", "memory");
    (void)value;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    if (!hasAvx()) {
        scenario_say("this CPU has no AVX: no 32-byte accesses or masked stores to count\n");
        return 77;
    }
    const int rounds = argc > 1 ? atoi(argv[1]) : 100;
    unsigned char* block = scenario_keep(calloc(4000, 1));
    for (int r = 0; r < rounds; ++r) round_of_statements(block);
    free(block);
    scenario_say("statements made\n");
    return 0;
}
