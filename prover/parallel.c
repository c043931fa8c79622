/* Spawn-and-join parallel loops; see parallel.h. Threads are created per
 * call: the loops here run for milliseconds to seconds, so the ~20 us of
 * thread creation is noise, and no pool keeps threads (or their stacks)
 * alive between proofs. */
#define _GNU_SOURCE
#include "prover/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define PARALLEL_MAX_THREADS 256

unsigned parallel_default_threads(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (unsigned)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

struct parallel_job {
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    size_t n;
    atomic_size_t next;
};

static void *parallel_worker(void *arg)
{
    struct parallel_job *job = arg;
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (i >= job->n)
            break;
        job->fn(job->ctx, i);
    }
    return NULL;
}

void parallel_for(size_t n, unsigned threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
    if (n == 0)
        return;
    if (threads == 0)
        threads = parallel_default_threads();
    if (threads > PARALLEL_MAX_THREADS)
        threads = PARALLEL_MAX_THREADS;
    if ((size_t)threads > n)
        threads = (unsigned)n;

    struct parallel_job job = {.fn = fn, .ctx = ctx, .n = n};
    atomic_init(&job.next, 0);
    pthread_t tid[PARALLEL_MAX_THREADS];
    unsigned started = 0;
    for (unsigned t = 1; t < threads; t++) {
        if (pthread_create(&tid[started], NULL, parallel_worker, &job) != 0)
            break; /* the threads we have (and this one) finish the range */
        started++;
    }
    parallel_worker(&job);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}
