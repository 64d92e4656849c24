/* Two threads: the producer mallocs 1000 blocks of 64 bytes and hands them over a queue; the
 * consumer frees them. Every block is freed by the other thread.
 * Log (difference to the `empty` run, which starts and joins the same threads): malloc 1000,
 * free 1000, no leak. */
#include <pthread.h>
#include <stdlib.h>

#include "scenario.h"

#define COUNT 1000
static void* queue[COUNT];
static int produced = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static int work = 1;

__attribute__((noinline)) static void* produce(void* unused) {
    (void)unused;
    for (int i = 0; i < COUNT && work; ++i) {
        void* block = scenario_keep(malloc(64));
        pthread_mutex_lock(&lock);
        queue[produced++] = block;
        pthread_cond_signal(&ready);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

__attribute__((noinline)) static void* consume(void* unused) {
    (void)unused;
    for (int taken = 0; taken < COUNT && work; ++taken) {
        pthread_mutex_lock(&lock);
        while (produced <= taken) pthread_cond_wait(&ready, &lock);
        void* block = queue[taken];
        pthread_mutex_unlock(&lock);
        free(block);
    }
    return NULL;
}

int main(int argc, char** argv) {
    work = !scenario_empty(argc, argv);
    pthread_t producer, consumer;
    pthread_create(&producer, NULL, produce, NULL);
    pthread_create(&consumer, NULL, consume, NULL);
    pthread_join(producer, NULL);
    pthread_join(consumer, NULL);
    return 0;
}
