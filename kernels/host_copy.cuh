/*
 * memcpy on several host threads, for filling page-locked staging buffers:
 * one thread moves about 5-10 GB/s, which was most of the MSM's digits phase
 * with pageable scalars (104 ms of scalars at 2^24 on the H200) and would
 * be most of H's upload of a, b and c. Private to kernels/.
 */
#ifndef ZKB_KERNELS_HOST_COPY_CUH
#define ZKB_KERNELS_HOST_COPY_CUH

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define HOST_COPY_THREADS 8
#define HOST_COPY_MIN ((size_t)4 << 20) /* below this, one thread */

struct host_copy_part {
    void *dst;
    const void *src;
    size_t bytes;
};

static void *host_copy_part_main(void *arg)
{
    struct host_copy_part *c = (struct host_copy_part *)arg;
    memcpy(c->dst, c->src, c->bytes);
    return NULL;
}

static inline void host_copy(void *dst, const void *src, size_t bytes)
{
    struct host_copy_part part[HOST_COPY_THREADS];
    pthread_t tid[HOST_COPY_THREADS];
    bool started[HOST_COPY_THREADS] = {};
    size_t k = bytes < HOST_COPY_MIN ? 1 : HOST_COPY_THREADS;
    size_t step = (bytes / k + 63) & ~(size_t)63;
    for (size_t i = 0; i < k; i++) {
        size_t lo = i * step < bytes ? i * step : bytes, hi = lo + step < bytes ? lo + step : bytes;
        part[i].dst = (char *)dst + lo;
        part[i].src = (const char *)src + lo;
        part[i].bytes = hi - lo;
        /* part 0 runs here; a thread that cannot start runs here too */
        started[i] = i > 0 && pthread_create(&tid[i], NULL, host_copy_part_main, &part[i]) == 0;
    }
    for (size_t i = 0; i < k; i++)
        if (!started[i])
            memcpy(part[i].dst, part[i].src, part[i].bytes);
    for (size_t i = 1; i < k; i++)
        if (started[i])
            pthread_join(tid[i], NULL);
}

#endif
