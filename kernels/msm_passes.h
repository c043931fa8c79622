/*
 * How a GPU MSM walks its scalars in passes (kernels/msm_impl.cuh): pass p
 * takes scalars [p chunk, (p + 1) chunk) and, with a density bitmap, the
 * bases those scalars select, which are consecutive in the base array.
 * Plain C, so the pass ranges are checked on machines without a GPU
 * (tests/gpu/test_msm_passes.c). Private to kernels/ and its tests.
 */
#ifndef ZKB_KERNELS_MSM_PASSES_H
#define ZKB_KERNELS_MSM_PASSES_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Passes of n scalars, chunk (> 0) at a time. */
static inline size_t msm_passes_count(size_t n, size_t chunk)
{
    return (n + chunk - 1) / chunk;
}

/* Scalars [*i0, *i0 + *len) of pass p. */
static inline void msm_pass_scalars(size_t p, size_t n, size_t chunk, size_t *i0, size_t *len)
{
    *i0 = p * chunk;
    *len = n - *i0 < chunk ? n - *i0 : chunk;
}

/*
 * The per-word prefix counts of a density bitmap over n variables
 * (malloc'ed into *prefix, *words entries: prefix[w] = set bits before
 * word w), checked against n_bases: -EINVAL when the bitmap sets another
 * number of bits, -ENOMEM.
 */
static inline int msm_density_prefix(const uint64_t *density, size_t n, size_t n_bases, uint32_t **prefix,
                                     size_t *words)
{
    size_t nw = (n + 63) / 64, count = 0;
    uint32_t *p = (uint32_t *)malloc((nw ? nw : 1) * sizeof *p);
    if (!p)
        return -ENOMEM;
    for (size_t i = 0; i < nw; i++) {
        uint64_t w = density[i];
        if (i == nw - 1 && (n & 63))
            w &= (1ull << (n & 63)) - 1;
        p[i] = (uint32_t)count;
        count += (size_t)__builtin_popcountll(w);
    }
    if (count != n_bases) {
        free(p);
        return -EINVAL;
    }
    *prefix = p;
    *words = nw;
    return 0;
}

/*
 * The bases [*b0, *b1) of the pass of scalars [i0, i0 + len) out of n:
 * the same range without a density (prefix NULL); with one, the bases its
 * set bits select, from the prefix counts (passes start on density words:
 * i0 a multiple of 64), n_bases for the last.
 */
static inline void msm_pass_bases_range(const uint32_t *prefix, size_t n, size_t n_bases, size_t i0, size_t len,
                                        size_t *b0, size_t *b1)
{
    if (!prefix) {
        *b0 = i0;
        *b1 = i0 + len;
        return;
    }
    *b0 = prefix[i0 / 64];
    *b1 = i0 + len >= n ? n_bases : prefix[(i0 + len) / 64];
}

/* The most bases any pass reads (its device buffers' size). */
static inline size_t msm_pass_bases_max(const uint32_t *prefix, size_t n, size_t n_bases, size_t chunk)
{
    size_t most = 0;
    for (size_t p = 0, passes = msm_passes_count(n, chunk); p < passes; p++) {
        size_t i0, len, b0, b1;
        msm_pass_scalars(p, n, chunk, &i0, &len);
        msm_pass_bases_range(prefix, n, n_bases, i0, len, &b0, &b1);
        most = b1 - b0 > most ? b1 - b0 : most;
    }
    return most;
}

#endif
