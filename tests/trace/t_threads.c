/* Allocator stress from 8 threads: each makes 20000 small allocations of
 * 64 bytes (freed) in thread_small and 50 of 1 MiB + 64 in thread_big, of
 * which it frees every other one. Prints the totals it made. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "t_common.h"

#define THREADS 8
#define SMALL 20000
#define BIG 50

void *volatile t_sink;

__attribute__((noinline)) static void thread_small(void)
{
    for (int i = 0; i < SMALL; i++) {
        void *p = malloc(64);
        T_KEEP(p);
        free(p);
    }
}

__attribute__((noinline)) static void thread_big(void)
{
    for (int i = 0; i < BIG; i++) {
        void *p = malloc(MIB + 64);
        T_KEEP(p);
        if (i % 2 == 0)
            free(p);
    }
}

static void *worker(void *arg)
{
    (void)arg;
    thread_small();
    thread_big();
    return NULL;
}

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("small %d big %d kept %d kept_bytes %zu\n", THREADS * SMALL, THREADS * BIG, THREADS * BIG / 2,
           (size_t)THREADS * BIG / 2 * (MIB + 64));
    return 0;
}
