/* A caller that keeps data in the frame-pointer register, as code built with
 * -fomit-frame-pointer may: rbp holds -8, -16, a low page, 8 and a non-canonical address at
 * each of five mallocs (100 to 104 bytes, each freed at once). A frame-pointer walk that trusts
 * rbp reads those addresses and crashes its host; under every unwind mode the log must hold the
 * five blocks and the program's output stay the same. */
#include <stdint.h>
#include <stdlib.h>

#include "scenario.h"

void* malloc_with_rbp(size_t size, uintptr_t rbp);

/* The call frame information says where rbp was saved, as a compiler would: libunwind unwinds
 * through it exactly; a frame-pointer walk finds the garbage. */
__asm__(".text\n"
        ".globl malloc_with_rbp\n"
        ".type malloc_with_rbp, @function\n"
        "malloc_with_rbp:\n"
        ".cfi_startproc\n"
        "  push %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset rbp, -16\n"
        "  mov %rsi, %rbp\n"
        "  call malloc@PLT\n"
        "  pop %rbp\n"
        ".cfi_def_cfa_offset 8\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size malloc_with_rbp, .-malloc_with_rbp\n");

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const uintptr_t garbage[] = {(uintptr_t)-8, (uintptr_t)-16, 0x1000, 8, (uintptr_t)1 << 47};
    for (int i = 0; i < 5; ++i) free(scenario_keep(malloc_with_rbp(100 + (size_t)i, garbage[i])));
    scenario_say("5 blocks of 100 to 104 bytes\n");
    return 0;
}
