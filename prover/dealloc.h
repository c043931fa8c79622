/*
 * Releasing big buffers off the critical path, as production provers do
 * after a proof: synchronously, on a thread of its own per release, or
 * through one queue served by one thread (which can fall behind: exactly the
 * memory "held too long" that zkbench exists to expose). The number of
 * buffers waiting is a counter the sampler reads.
 */
#ifndef ZKB_DEALLOC_H
#define ZKB_DEALLOC_H

#include <stddef.h>
#include <stdint.h>

enum dealloc_mode {
    DEALLOC_SYNC,         /* freed by the releasing thread */
    DEALLOC_ASYNC,        /* a detached thread per release */
    DEALLOC_ASYNC_SERIAL, /* one queue, one thread, for the whole process */
};

/* Frees n mem_alloc buffers (NULL entries skipped) as mode says. The
 * pointer array is copied; the buffers belong to this module from now on.
 * If a thread or queue entry cannot be had, the buffers are freed at once:
 * releasing never fails. */
void dealloc_release(void *const *bufs, size_t n, enum dealloc_mode mode);
/* The same, calling before_free(buf) on the releasing thread just before
 * each buffer is freed (e.g. to unregister page-locked memory). */
void dealloc_release_with(void *const *bufs, size_t n, enum dealloc_mode mode, void (*before_free)(void *buf));
/* Buffers handed over and not yet freed. */
uint64_t dealloc_pending(void);
/* Waits until every buffer handed over has been freed. */
void dealloc_drain(void);
/* Delay before each asynchronous release (fault injection: a slow
 * deallocator); 0 by default. */
void dealloc_set_delay_ms(unsigned ms);

#endif
