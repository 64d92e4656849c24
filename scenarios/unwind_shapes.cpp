/* Stack shapes an incremental unwinder must get exactly right, for MEMLOG_UNWIND_CHECK=1 runs:
 * the same frame of f under two callers with equal frames (g1 -> f -> malloc, g2 -> f -> malloc,
 * called from one site), recursion 300 deep allocating on the way down and up, longjmp out of
 * frames that allocated, a C++ exception thrown through frames (its object is allocated), signal
 * handlers that allocate (on the thread's stack and on an alternate one), four threads, a library
 * loaded and unloaded three times that allocates, and a coroutine on a stack of its own
 * (makecontext/swapcontext). For the frame-pointer mode's reuse: callers that differ only in the
 * frame just above the allocating one, at stack depths of either parity, and an rbp chain that
 * ends at a zero return address or goes on, changing while every frame below it stays the same.
 * Every block is freed; the program says how many it made. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <ucontext.h>

#include <stdexcept>

#define SCENARIO_WITH_PLUGIN
#include "scenario.h"

static unsigned long s_blocks;  // only the main thread counts; the threads' blocks are fixed

extern "C" {

__attribute__((noinline)) void make_block(size_t size) {
    free(scenario_keep(malloc(size)));
}

__attribute__((noinline)) void f(size_t size) {
    make_block(size);
    scenario_keep(&size);
}

/* Same code, same frame size: f's frame is the same (stack pointer, return address, rbp) under
 * both; only the return address in g1's or g2's frame tells them apart. */
__attribute__((noinline)) void g1(size_t size) {
    f(size);
    scenario_keep(&size);
}
__attribute__((noinline)) void g2(size_t size) {
    f(size);
    scenario_keep(&size);
}

__attribute__((noinline)) unsigned callers_alternating(unsigned rounds) {
    void (*volatile pick[2])(size_t) = {g1, g2};
    for (unsigned i = 0; i < rounds; ++i) pick[i & 1](24 + (i & 1));
    return rounds;
}

/* make_block's frame is the same under h1 and h2; only its return address differs. h3 calls
 * through h1: one frame more, the other parity of depth. */
__attribute__((noinline)) void h1(size_t size) {
    make_block(size);
    scenario_keep(&size);
}
__attribute__((noinline)) void h2(size_t size) {
    make_block(size);
    scenario_keep(&size);
}
__attribute__((noinline)) void h3(size_t size) {
    h1(size);
    scenario_keep(&size);
}

__attribute__((noinline)) unsigned callers_one_frame_up(unsigned rounds) {
    void (*volatile pick[3])(size_t) = {h1, h2, h3};
    for (unsigned i = 0; i < rounds; ++i) pick[i % 3](32 + (i % 3));
    return rounds;
}

void make_block_under(size_t size, const uintptr_t* frame);

/* Calls make_block with rbp = `frame`, a frame made by hand: a frame-pointer walk goes from
 * make_block's frame to it. Its call frame information says where the real rbp is (libunwind
 * unwinds through it exactly). */
__asm__(".text\n"
        ".globl make_block_under\n"
        ".type make_block_under, @function\n"
        "make_block_under:\n"
        ".cfi_startproc\n"
        "  push %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset rbp, -16\n"
        "  mov %rsi, %rbp\n"
        "  call make_block\n"
        "  pop %rbp\n"
        ".cfi_def_cfa_offset 8\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size make_block_under, .-make_block_under\n");

/* Two made frames, {saved rbp, return address} each, in turn: the first with a zero return
 * address (an rbp walk ends there); with a code address (any, it is only recorded) and a zero
 * rbp (the stack has one frame more); with a code address and the second frame's address (two
 * frames more: only the first frame's saved rbp differs from the turn before). Everything below
 * the made frames stays the same. */
__attribute__((noinline)) unsigned chain_ending_in_zero(unsigned rounds) {
    uintptr_t frames[4] = {0, 0, 0, (uintptr_t)&chain_ending_in_zero + 2};
    for (unsigned i = 0; i < rounds; ++i) {
        frames[0] = i % 3 == 2 ? (uintptr_t)&frames[2] : 0;
        frames[1] = i % 3 == 0 ? 0 : (uintptr_t)&chain_ending_in_zero + 1;
        make_block_under(40, frames);
    }
    scenario_keep(frames);
    return rounds;
}

__attribute__((noinline)) unsigned recurse(unsigned depth) {
    make_block(32);
    unsigned made = 2;
    if (depth > 1) made += recurse(depth - 1);
    make_block(48);
    return made;
}

static jmp_buf s_jump;

__attribute__((noinline)) void dive_and_jump(unsigned depth) {
    make_block(64);
    if (depth == 0) longjmp(s_jump, 1);
    if (depth > 1000) return; /* never: a way out that is not longjmp, for the compiler */
    dive_and_jump(depth - 1);
    scenario_keep(&depth);
}

__attribute__((noinline)) unsigned long_jumps(unsigned rounds) {
    volatile unsigned made = 0;
    for (volatile unsigned i = 0; i < rounds; i = i + 1) {
        if (setjmp(s_jump) == 0) dive_and_jump(i % 7);
        made += i % 7 + 1;
        make_block(72); /* the frames longjmp left behind are overwritten by these */
        ++made;
    }
    return made;
}

static void on_signal(int) { make_block(80); }

__attribute__((noinline)) unsigned signals(unsigned rounds) {
    for (unsigned i = 0; i < rounds; ++i) {
        make_block(88);
        raise(SIGUSR1);
        make_block(88);
    }
    return 3 * rounds;
}

__attribute__((noinline)) unsigned signals_on_alternate_stack(unsigned rounds) {
    static char stack[64 * 1024];
    stack_t alternate = {};
    alternate.ss_sp = stack;
    alternate.ss_size = sizeof stack;
    sigaltstack(&alternate, nullptr);
    struct sigaction action = {};
    action.sa_handler = on_signal;
    action.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR2, &action, nullptr);
    for (unsigned i = 0; i < rounds; ++i) raise(SIGUSR2);
    alternate.ss_flags = SS_DISABLE;
    sigaltstack(&alternate, nullptr);
    return rounds;
}

static ucontext_t s_main_context, s_coroutine_context;

static void coroutine() {
    for (;;) {
        make_block(96);
        f(104);
        swapcontext(&s_coroutine_context, &s_main_context);
    }
}

__attribute__((noinline)) unsigned coroutines(unsigned rounds) {
    static char stack[256 * 1024];
    getcontext(&s_coroutine_context);
    s_coroutine_context.uc_stack.ss_sp = stack;
    s_coroutine_context.uc_stack.ss_size = sizeof stack;
    s_coroutine_context.uc_link = &s_main_context;
    makecontext(&s_coroutine_context, coroutine, 0);
    for (unsigned i = 0; i < rounds; ++i) {
        swapcontext(&s_main_context, &s_coroutine_context);
        make_block(112);
    }
    return 3 * rounds;
}

__attribute__((noinline)) unsigned plugin_rounds(unsigned loads) {
    unsigned made = 0;
    for (unsigned load = 0; load < loads; ++load) {
        void* handle = nullptr;
        plugin_allocate_fn allocate = scenario_load_plugin(&handle);
        if (!allocate) return 0;
        for (int i = 0; i < 50; ++i) free(allocate(120));
        made += 50;
        dlclose(handle);
        made += callers_alternating(4);
    }
    return made;
}

}  // extern "C"

__attribute__((noinline)) void throw_from(unsigned depth) {
    make_block(128);
    if (depth == 0) throw std::runtime_error("deep");
    throw_from(depth - 1);
}

__attribute__((noinline)) unsigned exceptions(unsigned rounds) {
    unsigned made = 0;
    for (unsigned i = 0; i < rounds; ++i) {
        try {
            throw_from(i % 5);
        } catch (const std::exception&) {
            make_block(136);
        }
        made += i % 5 + 2;
    }
    return made;
}

static void* thread_body(void*) {
    for (int i = 0; i < 20; ++i) {
        callers_alternating(50);
        recurse(40);
    }
    return nullptr;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    struct sigaction action = {};
    action.sa_handler = on_signal;
    sigaction(SIGUSR1, &action, nullptr);

    s_blocks += callers_alternating(1000);
    s_blocks += callers_one_frame_up(300);
    s_blocks += chain_ending_in_zero(300);
    for (int i = 0; i < 5; ++i) s_blocks += recurse(300);
    s_blocks += long_jumps(200);
    s_blocks += exceptions(100);
    s_blocks += signals(100);
    s_blocks += signals_on_alternate_stack(50);
    s_blocks += coroutines(100);
    s_blocks += plugin_rounds(3);
    pthread_t threads[4];
    for (pthread_t& thread : threads) pthread_create(&thread, nullptr, thread_body, nullptr);
    for (pthread_t& thread : threads) pthread_join(thread, nullptr);
    char line[64];
    snprintf(line, sizeof line, "%lu blocks in the main thread\n", s_blocks);
    scenario_say(line);
    return 0;
}
