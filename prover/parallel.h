/*
 * Data parallelism for the prover's loops (NTT butterflies, MSM windows,
 * setup batches): run a function over an index range on a few threads.
 */
#ifndef ZKB_PARALLEL_H
#define ZKB_PARALLEL_H

#include <stddef.h>

/* Threads used when a caller passes 0: the cores this process may run on. */
unsigned parallel_default_threads(void);

/*
 * Calls fn(ctx, i) once for every i in [0, n), on up to `threads` threads
 * (0: parallel_default_threads()), the calling thread among them; returns
 * when all calls have returned. Indices are handed out dynamically, so
 * uneven tasks balance. If threads cannot be created the remaining work
 * runs on the calling thread: the function always completes the range.
 */
void parallel_for(size_t n, unsigned threads, void (*fn)(void *ctx, size_t i), void *ctx);

#endif
