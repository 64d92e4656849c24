/* Sweeps a heap array, forks a child that sweeps one of its own and then execs this program
 * again as "image", which sweeps once more: three logs (parent, fork child, exec'd image), each
 * with samples of its own process. Usage: access_fork_exec [ROUNDS=150]. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenario.h"

enum { kElements = 1 << 17 };

/* A function of its own, so that the sum stays in a register (live across free, it would be
 * kept on the stack and most samples would be that stack slot). */
__attribute__((noinline)) static double sweep_block(double* a, int rounds) {
    double sum = 0;
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < kElements; ++i) sum += a[i] += 1.0;
    return sum;
}

__attribute__((noinline)) static double sweep(int rounds) {
    double* a = scenario_keep(calloc(kElements, sizeof(double)));
    const double sum = sweep_block(a, rounds);
    free(a);
    return sum;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    if (argc > 2 && strcmp(argv[1], "image") == 0) return sweep(atoi(argv[2])) > 0 ? 0 : 1;
    const int rounds = argc > 1 ? atoi(argv[1]) : 150;
    char roundsText[16];
    strncpy(roundsText, argc > 1 ? argv[1] : "150", sizeof roundsText - 1);
    roundsText[sizeof roundsText - 1] = '\0';
    sweep(rounds);
    const pid_t child = fork();
    if (child == 0) {
        sweep(rounds);
        /* The path /proc/self/exe names, not that name itself: under Valgrind (memlog run
         * --full-trace) the name is Valgrind's tool, while reading the link gives the program. */
        char self[4096];
        const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
        if (length <= 0) _exit(127);
        self[length] = '\0';
        execl(self, "access_fork_exec", "image", roundsText, (char*)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    scenario_say(WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "parent, child and image swept\n" : "child failed\n");
    return 0;
}
