/* Mallocs and frees 16-byte blocks until killed. Every 100000 pairs it writes the number of
 * completed pairs to the file named by argv[1] (rewritten in place), so a test that kills it
 * with SIGKILL knows how many pairs must already be in the log. */
#include <fcntl.h>
#include <stdlib.h>

#include "scenario.h"

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv) || argc < 2) return 0;
    const int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return 1;
    for (unsigned long pairs = 1;; ++pairs) {
        free(scenario_keep(malloc(16)));
        if (pairs % 100000 == 0) {
            char text[32];
            const int length = snprintf(text, sizeof text, "%lu\n", pairs);
            if (pwrite(fd, text, (size_t)length, 0) != length) return 1;
        }
    }
}
