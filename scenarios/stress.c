/* The recorder under stress: the program must run on, its output unchanged, and the log end
 * readable. Usage: stress MODE [N]. Modes (N scales them):
 *   threads   64 threads, N rounds: each allocates 1000 blocks, then frees those of the next
 *             thread (log: malloc and free 64,000 x N)
 *   signals   SIGALRM at 10 kHz for N x 100 ms (and until 1000 handler runs, at most 10 s), its
 *             handler allocating and freeing a block,
 *             while a second thread (SIGALRM blocked) allocates and frees 200,000 blocks
 *             (log: as many malloc/free pairs as handler runs, printed, plus 200,000)
 *   forks     16 threads fork at once, N times each; each child allocates one block and _exits
 *             (log: one per child, each with malloc 1)
 *   fds       closes every descriptor above 2 (close_range), then dup2s /dev/null over 0, 1, 2
 *             and 3..9, allocating between each step (log: malloc and free 1000 each)
 * Prints one line saying what it did. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenario.h"

enum { kThreads = 64, kBlocks = 1000 };

static void* s_blocks[kThreads][kBlocks];
static pthread_barrier_t s_barrier;
static int s_rounds = 1;

static void* allocate_then_free_next(void* argument) {
    const long me = (long)argument, next = (me + 1) % kThreads;
    for (int round = 0; round < s_rounds; ++round) {
        for (int k = 0; k < kBlocks; ++k) s_blocks[me][k] = scenario_keep(malloc(16 + (size_t)(k % 64) * 8));
        pthread_barrier_wait(&s_barrier);
        for (int k = 0; k < kBlocks; ++k) free(s_blocks[next][k]);
        pthread_barrier_wait(&s_barrier);
    }
    return NULL;
}

static int threads_mode(void) {
    pthread_t threads[kThreads];
    pthread_barrier_init(&s_barrier, NULL, kThreads);
    for (long i = 0; i < kThreads; ++i)
        if (pthread_create(&threads[i], NULL, allocate_then_free_next, (void*)i) != 0) return 1;
    for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
    char line[64];
    snprintf(line, sizeof line, "threads: %d blocks handed over\n", kThreads * kBlocks * s_rounds);
    scenario_say(line);
    return 0;
}

static volatile sig_atomic_t s_handled = 0;

static void on_alarm(int signal_number) {
    (void)signal_number;
    free(scenario_keep(malloc(40)));
    ++s_handled;
}

static void* allocate_steadily(void* unused) {
    (void)unused;
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alarm, NULL);
    for (int i = 0; i < 200000; ++i) free(scenario_keep(malloc(24)));
    return NULL;
}

static int signals_mode(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    action.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &action, NULL);
    pthread_t worker;
    if (pthread_create(&worker, NULL, allocate_steadily, NULL) != 0) return 1;
    const struct itimerval every100us = {{0, 100}, {0, 100}};
    setitimer(ITIMER_REAL, &every100us, NULL);
    /* The main thread never allocates while the timer runs: glibc's malloc is not reentrant. */
    volatile double spin = 0;
    /* A busy machine delivers fewer signals in that time: go on until 1000 handler runs (for at
     * most 10 s), so that the run always has as many. */
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long elapsed_ms;
    do {
        for (int i = 0; i < 10000; ++i) spin += i * 0.5;
        clock_gettime(CLOCK_MONOTONIC, &now);
        elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    } while (elapsed_ms < 100L * s_rounds || (s_handled < 1000 && elapsed_ms < 10000));
    const struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    pthread_join(worker, NULL);
    char line[64];
    snprintf(line, sizeof line, "signals: %d handled\n", (int)s_handled);
    scenario_say(line);
    return 0;
}

static void* fork_some(void* unused) {
    (void)unused;
    for (int i = 0; i < s_rounds; ++i) {
        const pid_t child = fork();
        if (child == 0) {
            scenario_keep(malloc(32));
            _exit(0);
        }
        if (child > 0) waitpid(child, NULL, 0);
    }
    return NULL;
}

static int forks_mode(void) {
    enum { kForkers = 16 };
    pthread_t threads[kForkers];
    for (int i = 0; i < kForkers; ++i)
        if (pthread_create(&threads[i], NULL, fork_some, NULL) != 0) return 1;
    for (int i = 0; i < kForkers; ++i) pthread_join(threads[i], NULL);
    char line[64];
    snprintf(line, sizeof line, "forks: %d children\n", kForkers * s_rounds);
    scenario_say(line);
    return 0;
}

static int fds_mode(void) {
    for (int i = 0; i < 500; ++i) free(scenario_keep(malloc(64)));
    syscall(SYS_close_range, 3u, ~0u, 0);  /* the recorder's log and perf descriptors too */
    for (int i = 0; i < 250; ++i) free(scenario_keep(malloc(64)));
    const int null = open("/dev/null", O_RDWR);
    for (int fd = 3; fd < 10; ++fd) dup2(null, fd);
    for (int i = 0; i < 250; ++i) free(scenario_keep(malloc(64)));
    const int out = dup(1);
    dup2(null, 1);
    dup2(out, 1);
    scenario_say("fds: closed and replaced\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2 || scenario_empty(argc, argv)) return 0;
    s_rounds = argc > 2 ? atoi(argv[2]) : 1;
    if (strcmp(argv[1], "threads") == 0) return threads_mode();
    if (strcmp(argv[1], "signals") == 0) return signals_mode();
    if (strcmp(argv[1], "forks") == 0) return forks_mode();
    if (strcmp(argv[1], "fds") == 0) return fds_mode();
    return 2;
}
