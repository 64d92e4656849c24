/* A program with SIGTRAP handlers of its own, installed with sigaction and then with signal,
 * that raises SIGTRAP 12 times and executes int3 5 times between busy sweeps of a heap array.
 * Under the tick sampler (which also uses SIGTRAP) every one of its traps must reach its
 * handler, none of the sampler's may, and sigaction and signal must report its own handlers.
 * Usage: own_sigtrap [ROUNDS=40]. Prints what its handlers counted. Log: malloc 1, free 1. */
#define _GNU_SOURCE  /* sighandler_t */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"

enum { kElements = 1 << 18 };

static volatile sig_atomic_t s_caught;

static void on_trap(int signal, siginfo_t* info, void* context) {
    (void)signal;
    (void)info;
    (void)context;
    s_caught += 1;
}

static void on_trap_plain(int signal) {
    (void)signal;
    s_caught += 100;
}

__attribute__((noinline)) static double sweep(double* a, int rounds) {
    double sum = 0;
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < kElements; ++i) sum += a[i] += 1.0;
    return sum;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    const int rounds = argc > 1 ? atoi(argv[1]) : 40;
    double* a = scenario_keep(calloc(kElements, sizeof(double)));
    struct sigaction action = {0}, old = {0};
    action.sa_sigaction = on_trap;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    const int installed = sigaction(SIGTRAP, &action, &old) == 0 && old.sa_handler == SIG_DFL;
    double sum = sweep(a, rounds);
    for (int i = 0; i < 10; ++i) raise(SIGTRAP);
    for (int i = 0; i < 5; ++i) __asm__ volatile("int3");
    sum += sweep(a, rounds);
    const sighandler_t previous = signal(SIGTRAP, on_trap_plain);
    const int reported = previous == (sighandler_t)(void (*)(void))on_trap;  /* via void (*)(void): no warning */
    raise(SIGTRAP);
    raise(SIGTRAP);
    struct sigaction now = {0};
    sigaction(SIGTRAP, NULL, &now);
    const int kept = now.sa_handler == on_trap_plain;
    free(a);
    char line[128];
    snprintf(line, sizeof line, "caught %d traps; installed %d, reported %d, kept %d; %s\n", (int)s_caught, installed,
             reported, kept, sum > 0 ? "swept" : "not swept");
    scenario_say(line);
    return 0;
}
