/*
 * Pippenger MSM for G1 and G2; see msm.h for the interface and
 * msm_template.h for the algorithm. This file holds what does not depend
 * on the group: argument checks, the plan (window size, task split,
 * scratch sizes), signed-digit extraction, and the two instantiations.
 *
 * Threads: the work is cut into tasks (window, range of points); with few
 * threads each task is a whole window, so no bucket reduction is repeated;
 * with many threads the points are split as well. Each worker owns one set
 * of buckets and takes tasks from a shared counter.
 */
#include "prover/msm.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prover/mem.h"
#include "prover/msm_ifma.h"
#include "prover/parallel.h"

/* Variables per preparation task (a multiple of 64: whole bitmap words). */
#define MSM_PREP_CHUNK ((size_t)1 << 12)
/* Scalar bits covered by the windows: r < 2^255, and one more bit keeps
 * the carry out of the top signed digit zero. */
#define MSM_SCALAR_BITS 256
/* Batch-affine accumulation: buckets per window from which it is used,
 * the largest batch, and the batch as a share of the buckets (a larger
 * share defers more points whose bucket is already in the batch). */
#define MSM_AFFINE_MIN_BUCKETS ((size_t)1 << 9)
#define MSM_MAX_BATCH ((size_t)1 << 10)
/* The same in IFMA lanes, whose additions are cheaper, so that deferrals
 * and fallbacks weigh more (a quarter of the buckets against a half: 6-9 %
 * faster at 2^16-2^18) and the inversion too (2048 against 1024: 5 %
 * faster G1 at 2^20); see results/msm-ifma.md. */
#define MSM_MAX_BATCH_IFMA ((size_t)1 << 11)
#define MSM_BATCH_SHARE_IFMA 4
#define MSM_BATCH_SHARE 2

/* Bucket states of the batch-affine accumulation. */
#define MSM_B_VALID 1u   /* the affine bucket holds a point */
#define MSM_B_PENDING 2u /* an addition to it waits in the batch */

void msm_opts_default(struct msm_opts *opts)
{
    if (!opts)
        return;
    opts->threads = 0;
    opts->window = 0;
    opts->proof = -1;
    opts->partition = -1;
    opts->scalar_only = false;
}

struct msm_plan {
    const fr_t *scalars;
    const uint64_t *density;
    size_t n_scalars;
    size_t n_points;        /* bases in use */
    unsigned window;        /* c */
    unsigned threads;
    size_t n_windows, parts, part_len, n_tasks, workers;
    size_t batch;           /* 0: XYZZ buckets only */
    bool ifma;              /* the batch runs in 8 lanes (msm_ifma.c) */
    size_t affine_min;      /* points a task needs for the batch-affine path */
    size_t n_chunks;        /* preparation tasks */
    size_t *chunk_base;     /* first base index of each preparation chunk */
    uint64_t *limbs;        /* canonical scalars, 4 limbs per base; 0 when skipped */
    int proof, partition;
};

static size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

/* Batch size for windows of c bits: 0 where the batch-affine path does
 * not pay (see msm_point_cost). */
static size_t msm_batch_size(unsigned c, bool ifma)
{
    size_t nb = (size_t)1 << (c - 1);
    if (nb < MSM_AFFINE_MIN_BUCKETS)
        return 0;
    size_t b = ifma ? nb / MSM_BATCH_SHARE_IFMA : nb / MSM_BATCH_SHARE;
    size_t max = ifma ? MSM_MAX_BATCH_IFMA : MSM_MAX_BATCH;
    return b > max ? max : b;
}

/* Cost model in scalar field multiplications (measured on x86-64 for G1;
 * G2's ratios are close): an XYZZ mixed addition ~11; a batched affine
 * addition ~8 (~3.6 in IFMA lanes, with the lanes' overheads) plus the
 * few points that fall back to XYZZ plus its share of one inversion
 * (~1170 multiplications by Fermat). */
static double msm_point_cost(size_t batch, bool ifma)
{
    double xyzz = 11.0;
    if (batch == 0)
        return xyzz;
    double affine = (ifma ? 3.6 : 8.2) + 1170.0 / (double)batch;
    return affine < xyzz ? affine : xyzz;
}

/* Window bits for n points: the minimum of the model over ceil(256/c)
 * windows of n accumulations and 2^(c-1) buckets of reduction (~25
 * multiplications a bucket), by the scalar path's costs on both paths.
 * The IFMA lanes' cheaper additions (and batched reduction, ~10 a bucket)
 * would move the minimum one or two bits up below 2^18 (2^14: 13 bits for
 * 12), doubling the buckets' memory for a small gain: a CPU batch at 2^14
 * (pw 2) peaked at 45.5 MiB against 36.3; at 2^20 both give 16. */
static unsigned msm_choose_window(size_t n)
{
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= 18; c++) {
        double nw = (double)ceil_div(MSM_SCALAR_BITS, c);
        double cost = nw * ((double)n * msm_point_cost(msm_batch_size(c, false), false) +
                            25.0 * (double)((size_t)1 << (c - 1)));
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

/* Set bits among the first n of a bitmap. */
static size_t popcount_prefix(const uint64_t *bits, size_t n)
{
    size_t count = 0, words = n / 64;
    for (size_t i = 0; i < words; i++)
        count += (size_t)__builtin_popcountll(bits[i]);
    if (n % 64)
        count += (size_t)__builtin_popcountll(bits[words] & ((1ull << (n % 64)) - 1));
    return count;
}

static int msm_plan_init(struct msm_plan *pl, size_t n_bases, const fr_t *scalars,
                         size_t n_scalars, const uint64_t *density,
                         const struct msm_opts *opts)
{
    struct msm_opts def;
    if (!opts) {
        msm_opts_default(&def);
        opts = &def;
    }
    memset(pl, 0, sizeof *pl);
    if (opts->window > MSM_MAX_WINDOW || (n_scalars > 0 && !scalars))
        return -EINVAL;
    if (density) {
        if (popcount_prefix(density, n_scalars) != n_bases)
            return -EINVAL;
        pl->n_points = n_bases;
    } else {
        if (n_bases < n_scalars)
            return -EINVAL;
        pl->n_points = n_scalars;
    }
    pl->scalars = scalars;
    pl->density = density;
    pl->n_scalars = n_scalars;
    pl->proof = opts->proof;
    pl->partition = opts->partition;
    pl->threads = opts->threads ? opts->threads : parallel_default_threads();
    bool ifma = !opts->scalar_only && !getenv("ZKB_MSM_SCALAR") && msm_ifma_supported();
    pl->window = opts->window ? opts->window : msm_choose_window(pl->n_points);
    pl->n_windows = ceil_div(MSM_SCALAR_BITS, pl->window);
    /* Whole windows per task while there are a few per thread; else split
     * the points too (each part repeats the bucket reduction). */
    pl->parts = ceil_div(4 * (size_t)pl->threads, pl->n_windows);
    if (pl->parts > pl->n_points)
        pl->parts = pl->n_points ? pl->n_points : 1;
    pl->part_len = ceil_div(pl->n_points, pl->parts);
    pl->n_tasks = pl->n_windows * pl->parts;
    pl->workers = pl->threads < pl->n_tasks ? pl->threads : pl->n_tasks;
    size_t batch = msm_batch_size(pl->window, ifma);
    if (msm_point_cost(batch, ifma) < msm_point_cost(0, ifma)) {
        pl->batch = batch;
        pl->affine_min = 4 * batch;
        pl->ifma = ifma;
    }
    pl->n_chunks = ceil_div(n_scalars, MSM_PREP_CHUNK);
    return 0;
}

/* The scalar copy and the chunk offsets (first base of each chunk). */
static int msm_plan_alloc(struct msm_plan *pl)
{
    if (pl->n_points > SIZE_MAX / (4 * sizeof(uint64_t)))
        return -ENOMEM;
    pl->limbs = mem_alloc(MEM_KIND_MSM, pl->proof, pl->partition, pl->n_points * 4 * sizeof(uint64_t));
    pl->chunk_base = mem_alloc(MEM_KIND_MSM, pl->proof, pl->partition, pl->n_chunks * sizeof(size_t));
    if (!pl->limbs || !pl->chunk_base)
        return -ENOMEM;
    size_t base = 0;
    for (size_t t = 0; t < pl->n_chunks; t++) {
        pl->chunk_base[t] = base;
        size_t lo = t * MSM_PREP_CHUNK, len = MSM_PREP_CHUNK;
        if (lo + len > pl->n_scalars)
            len = pl->n_scalars - lo;
        base += pl->density ? popcount_prefix(pl->density + lo / 64, len) : len;
    }
    return 0;
}

static void msm_plan_free(struct msm_plan *pl)
{
    mem_free(pl->limbs);
    mem_free(pl->chunk_base);
    pl->limbs = NULL;
    pl->chunk_base = NULL;
}

/* len <= 63 bits of the 256-bit scalar k from bit start (bits past the
 * end read as 0). */
static inline uint64_t msm_bits(const uint64_t *k, size_t start, unsigned len)
{
    size_t word = start / 64;
    unsigned sh = (unsigned)(start % 64);
    if (word >= 4)
        return 0;
    uint64_t x = k[word] >> sh;
    if (sh + len > 64 && word + 1 < 4)
        x |= k[word + 1] << (64 - sh);
    return x & ((1ull << len) - 1);
}

/* The signed digit of window w (c bits):
 * d = v + b_(wc-1) - 2^c b_(wc+c-1), in [-2^(c-1), 2^(c-1)]. Summed over
 * the windows the correction terms telescope to sum_w v_w 2^(wc), the
 * scalar, because the last one, bit c * n_windows - 1 >= 255, is 0 for
 * scalars below r < 2^255. */
static inline int msm_digit(const uint64_t *k, size_t w, unsigned c)
{
    size_t pos = w * c;
    uint64_t x = pos ? msm_bits(k, pos - 1, c + 1) : msm_bits(k, 0, c) << 1;
    uint64_t v = x >> 1, low = x & 1, top = v >> (c - 1);
    return (int)v + (int)low - (int)(top << c);
}

#define CURVE g1
#define FE_T fp_t
#define FE(op) fp_##op
#include "prover/msm_template.h"
#undef CURVE
#undef FE_T
#undef FE

#define CURVE g2
#define FE_T fp2_t
#define FE(op) fp2_##op
#define MSM_FE_NORM /* the batch inverts norms in Fp */
#include "prover/msm_template.h"
#undef CURVE
#undef FE_T
#undef FE
#undef MSM_FE_NORM
