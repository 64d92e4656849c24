/* fork plus exec: the parent mallocs 5 blocks, forks; the child mallocs 7 and execs this
 * program again as `fork_exec child`, which mallocs 11 and exits; the parent waits, mallocs 3,
 * and exits. Each process image writes its own log: parent malloc 8 (5 + 3), fork child
 * malloc 7 (its log ends at the exec), exec'd image malloc 11. Blocks are leaked on purpose,
 * except one: the child frees a block it inherited from the parent, which its own log never
 * saw allocated (an unknown free). */
#include <stdlib.h>
#include <sys/wait.h>

#include "scenario.h"

static void* last;

__attribute__((noinline)) static void allocate(int count) {
    for (int i = 0; i < count; ++i) last = scenario_keep(malloc(32));
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        allocate(11);
        return 0;
    }
    allocate(5);
    const pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        free(last); /* inherited from the parent */
        allocate(7);
        execl("/proc/self/exe", argv[0], "child", (char*)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    allocate(3);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
