/* Synchronous and asynchronous release of tracked buffers; see dealloc.h. */
#include "prover/dealloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prover/mem.h"

struct dealloc_batch {
    struct dealloc_batch *next;
    void (*before_free)(void *buf);
    size_t n;
    void *bufs[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t drained = PTHREAD_COND_INITIALIZER;
static pthread_cond_t queued = PTHREAD_COND_INITIALIZER;
static struct dealloc_batch *queue_head, *queue_tail;
static bool serial_started;
static uint64_t pending; /* under lock */
static atomic_uint delay_ms;

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void free_batch(struct dealloc_batch *b)
{
    unsigned d = atomic_load(&delay_ms);
    if (d)
        sleep_ms(d);
    for (size_t i = 0; i < b->n; i++) {
        if (b->before_free)
            b->before_free(b->bufs[i]);
        mem_free(b->bufs[i]);
    }
    pthread_mutex_lock(&lock);
    pending -= b->n;
    if (pending == 0)
        pthread_cond_broadcast(&drained);
    pthread_mutex_unlock(&lock);
    free(b);
}

static void *async_main(void *arg)
{
    free_batch(arg);
    return NULL;
}

static void *serial_main(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!queue_head)
            pthread_cond_wait(&queued, &lock);
        struct dealloc_batch *b = queue_head;
        queue_head = b->next;
        if (!queue_head)
            queue_tail = NULL;
        pthread_mutex_unlock(&lock);
        free_batch(b);
    }
    return NULL;
}

void dealloc_release(void *const *bufs, size_t n, enum dealloc_mode mode)
{
    dealloc_release_with(bufs, n, mode, NULL);
}

void dealloc_release_with(void *const *bufs, size_t n, enum dealloc_mode mode, void (*before_free)(void *buf))
{
    size_t live = 0;
    for (size_t i = 0; i < n; i++)
        live += bufs[i] != NULL;
    if (live == 0)
        return;
    struct dealloc_batch *b = NULL;
    if (mode != DEALLOC_SYNC)
        b = malloc(sizeof *b + live * sizeof(void *));
    if (!b) {
        for (size_t i = 0; i < n; i++) {
            if (bufs[i] && before_free)
                before_free(bufs[i]);
            mem_free(bufs[i]);
        }
        return;
    }
    b->next = NULL;
    b->before_free = before_free;
    b->n = 0;
    for (size_t i = 0; i < n; i++)
        if (bufs[i])
            b->bufs[b->n++] = bufs[i];

    pthread_mutex_lock(&lock);
    pending += b->n;
    if (mode == DEALLOC_ASYNC_SERIAL) {
        bool ok = true;
        if (!serial_started) {
            pthread_t t;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            ok = pthread_create(&t, &attr, serial_main, NULL) == 0;
            pthread_attr_destroy(&attr);
            serial_started = ok;
        }
        if (ok) {
            if (queue_tail)
                queue_tail->next = b;
            else
                queue_head = b;
            queue_tail = b;
            pthread_cond_signal(&queued);
            pthread_mutex_unlock(&lock);
            return;
        }
    } else {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &attr, async_main, b);
        pthread_attr_destroy(&attr);
        if (rc == 0) {
            pthread_mutex_unlock(&lock);
            return;
        }
    }
    pthread_mutex_unlock(&lock);
    free_batch(b); /* no thread: release here */
}

uint64_t dealloc_pending(void)
{
    pthread_mutex_lock(&lock);
    uint64_t n = pending;
    pthread_mutex_unlock(&lock);
    return n;
}

void dealloc_drain(void)
{
    pthread_mutex_lock(&lock);
    while (pending)
        pthread_cond_wait(&drained, &lock);
    pthread_mutex_unlock(&lock);
}

void dealloc_set_delay_ms(unsigned ms)
{
    atomic_store(&delay_ms, ms);
}
