/* Creates and joins 2000 short threads, one after the other; each mallocs and frees one
 * 48-byte block. Log (difference to `empty`, which creates the same threads doing nothing):
 * malloc 2000, free 2000, and 2000 more threads that wrote records. */
#include <pthread.h>
#include <stdlib.h>

#include "scenario.h"

static int work = 1;

__attribute__((noinline)) static void* short_life(void* unused) {
    (void)unused;
    if (work) free(scenario_keep(malloc(48)));
    return NULL;
}

int main(int argc, char** argv) {
    work = !scenario_empty(argc, argv);
    for (int i = 0; i < 2000; ++i) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, short_life, NULL) != 0) return 1;
        pthread_join(thread, NULL);
    }
    return 0;
}
