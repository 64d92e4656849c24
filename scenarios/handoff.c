/* A producer thread writes the words of a 64 KiB heap buffer, round after round, and a consumer
 * thread reads them back, the two taking turns at a barrier: with MEMLOG_WATCH=1 a word a tick
 * samples in one thread is next touched by the other (cross-thread reuse). Usage: handoff
 * [ROUNDS=2000]. Log: malloc 1 (the buffer), free 1. */
#include <pthread.h>
#include <stdlib.h>

#include "scenario.h"

enum { kWords = 8192 };

static long* s_buffer;
static pthread_barrier_t s_turn;
static int s_rounds;

__attribute__((noinline)) static void produce(int round) {
    for (size_t i = 0; i < kWords; ++i) s_buffer[i] = (long)i * round;
}

__attribute__((noinline)) static long consume(void) {
    long sum = 0;
    for (size_t i = 0; i < kWords; ++i) sum += s_buffer[i];
    return sum;
}

static void* producer(void* unused) {
    (void)unused;
    for (int round = 1; round <= s_rounds; ++round) {
        produce(round);
        pthread_barrier_wait(&s_turn);  /* the buffer is the consumer's */
        pthread_barrier_wait(&s_turn);  /* ... and back */
    }
    return NULL;
}

static void* consumer(void* total) {
    for (int round = 1; round <= s_rounds; ++round) {
        pthread_barrier_wait(&s_turn);
        *(long*)total += consume();
        pthread_barrier_wait(&s_turn);
    }
    return NULL;
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    s_rounds = argc > 1 ? atoi(argv[1]) : 2000;
    s_buffer = scenario_keep(calloc(kWords, sizeof(long)));
    pthread_barrier_init(&s_turn, NULL, 2);
    long total = 0;
    pthread_t threads[2];
    pthread_create(&threads[0], NULL, producer, NULL);
    pthread_create(&threads[1], NULL, consumer, &total);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    free(s_buffer);
    scenario_say(total != 0 ? "handed over\n" : "nothing handed over\n");
    return 0;
}
