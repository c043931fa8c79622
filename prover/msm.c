/*
 * Pippenger MSM for G1 and G2; see msm.h for the interface and
 * msm_template.h for the algorithm. This file holds what does not depend
 * on the group: argument checks, the plan (scalar split, window size, task
 * split, scratch sizes), signed-digit extraction, and the two
 * instantiations.
 *
 * Scalar split (GLV: Gallant, Lambert, Vanstone, "Faster point
 * multiplication on elliptic curves with efficient endomorphisms", 2001;
 * for G2 the 4-way GLS form of Galbraith, Lin, Scott, 2009): on the scalar
 * path each scalar k < r is written k = k0 + k1 x^2 (G1), or k = a0 + a1 |x|
 * + a2 x^2 + a3 |x|^3 (G2), x the BLS parameter, and [x^2]P, [|x|]P come
 * from the endomorphisms at one or two field multiplications (g1.h, g2.h).
 * The MSM then runs over 2n (4n) points with 128-bit (64-bit) scalars: as
 * many bucket additions as before, but a half (a quarter) of the windows,
 * so of the bucket reductions, 25-30 % of the scalar path's time at 2^15
 * (results/msm-cpu-scalar.md). r = x^4 - x^2 + 1 makes the split a plain
 * division by x^2 (and by |x|), every part below 2^128 (2^64). The plan
 * takes the split of least model cost up to 2^19 virtual points; above,
 * the memory traffic of twice (four times) the points and larger buckets
 * costs more than the reductions save.
 *
 * Threads: the work is cut into tasks (window, range of points): whole
 * windows while every thread gets as many, the rest cut into point ranges
 * so that the threads end together (each range repeats the bucket
 * reduction); or, where that would repeat more reductions than it saves,
 * every window cut into ranges, a few tasks per thread. Each worker owns
 * one set of buckets and takes tasks from a shared counter.
 */
#include "prover/msm.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arith/field/bls12_381.h"
#include "prover/mem.h"
#include "prover/msm_ifma.h"
#include "prover/parallel.h"

/* Variables per preparation task (a multiple of 64: whole bitmap words). */
#define MSM_PREP_CHUNK ((size_t)1 << 12)
/* The scalar split's divisor x^2 = 0xac45a4010001a402_0000000100000000 and
 * its reciprocal floor(2^255 / x^2), as two 64-bit words, low first. */
#define MSM_X2_LO 0x0000000100000000ull
#define MSM_X2_HI 0xac45a4010001a402ull
#define MSM_X2_RECIP_LO 0xb1fb72917b67f717ull
#define MSM_X2_RECIP_HI 0xbe35f678f00fd56eull
/* The split's virtual points at most: from 2^20 the images' and the
 * buckets' memory traffic outweighs the reductions it saves, which the
 * model does not see (G1 2^19 points: 9 % slower split, G2 1-10 %;
 * results/msm-cpu-scalar.md). */
#define MSM_SPLIT_MAX_VIRTUAL ((size_t)1 << 19)
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
    opts->split = 0;
}

struct msm_plan {
    const fr_t *scalars;
    const uint64_t *density;
    size_t n_scalars;
    size_t n_points;        /* bases in use */
    unsigned split;         /* parts of each scalar: 1, 2, or 4 (G2) */
    unsigned words;         /* 64-bit words of a part: 4 / split */
    unsigned bits;          /* bits the windows cover: a part's, + 1 */
    size_t n_virtual;       /* split x n_points: the points the windows run over */
    unsigned window;        /* c */
    unsigned threads;
    size_t n_windows;
    size_t n_whole;         /* windows 0 .. n_whole - 1: one task each */
    size_t parts, part_len; /* each later window: parts tasks of part_len points */
    size_t n_tasks, workers;
    size_t batch;           /* 0: XYZZ buckets only */
    bool ifma;              /* the batch runs in 8 lanes (msm_ifma.c) */
    size_t affine_min;      /* points a task needs for the batch-affine path */
    size_t n_chunks;        /* preparation tasks */
    size_t *chunk_base;     /* first base index of each preparation chunk */
    uint64_t *limbs;        /* canonical parts of the scalars, words each, part j of
                               base k at virtual point j n_points + k; 0 when
                               skipped */
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

/* Window bits for n points of scalars of `bits` bits: the minimum of the
 * model over ceil(bits / c) windows of n accumulations and 2^(c-1) buckets of reduction (~25
 * multiplications a bucket), by the scalar path's costs on both paths.
 * The IFMA lanes' cheaper additions (and batched reduction, ~10 a bucket)
 * would move the minimum one or two bits up below 2^18 (2^14: 13 bits for
 * 12), doubling the buckets' memory for a small gain: a CPU batch at 2^14
 * (pw 2) peaked at 45.5 MiB against 36.3; at 2^20 both give 16. */
static unsigned msm_choose_window(size_t n, unsigned bits, double *cost_out)
{
    unsigned best = 1;
    double best_cost = 0;
    for (unsigned c = 1; c <= 18; c++) {
        double nw = (double)ceil_div(bits, c);
        double cost = nw * ((double)n * msm_point_cost(msm_batch_size(c, false), false) +
                            25.0 * (double)((size_t)1 << (c - 1)));
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    if (cost_out)
        *cost_out = best_cost;
    return best;
}

/* Bits the windows cover for scalars in `split` parts: r < 2^255, parts
 * below 2^128 (2^64), and one more for the signed digits' last carry. */
static unsigned msm_split_bits(unsigned split)
{
    return split == 1 ? 256 : 256 / split + 1;
}

/* The split of n points' scalars (1, 2, up to max_split) with the least
 * model cost (msm_choose_window), among those of at most
 * MSM_SPLIT_MAX_VIRTUAL virtual points. */
static unsigned msm_choose_split(size_t n, unsigned max_split)
{
    unsigned best = 1;
    double best_cost;
    msm_choose_window(n, msm_split_bits(1), &best_cost);
    for (unsigned s = 2; s <= max_split && n <= MSM_SPLIT_MAX_VIRTUAL / s; s *= 2) {
        double cost;
        msm_choose_window(s * n, msm_split_bits(s), &cost);
        if (cost < best_cost) {
            best = s;
            best_cost = cost;
        }
    }
    return best;
}

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The tasks, by the model's costs (msm_choose_window): a thread's time in
 * multiplications is its share of the accumulations plus 25 a bucket for
 * each reduction it runs. Balanced: whole windows, T of them per round,
 * and each of the rem = n_windows mod T others cut into T / gcd(rem, T)
 * ranges, so that every thread gets the same share. Spread: every window
 * cut into ceil(4T / n_windows) ranges, about 4 tasks a thread, which
 * repeats fewer reductions where windows are fewer than threads. */
static void msm_plan_tasks(struct msm_plan *pl)
{
    size_t t = pl->threads, nw = pl->n_windows, nv = pl->n_virtual ? pl->n_virtual : 1;
    double acc = (double)nv * msm_point_cost(pl->batch, pl->ifma);
    double red = 25.0 * (double)((size_t)1 << (pl->window - 1));

    size_t rem = nw % t, parts_b = rem ? t / gcd(rem, t) : 1;
    if (parts_b > nv)
        parts_b = nv;
    double balanced = (double)(nw / t) * (acc + red) +
                      (double)ceil_div(rem * parts_b, t) * (acc / (double)parts_b + red);

    size_t parts_s = ceil_div(4 * t, nw);
    if (parts_s > nv)
        parts_s = nv;
    double spread = (double)ceil_div(nw * parts_s, t) * (acc / (double)parts_s + red);

    if (balanced <= spread) {
        pl->n_whole = nw - rem;
        pl->parts = parts_b;
    } else {
        pl->n_whole = 0;
        pl->parts = parts_s;
    }
    pl->part_len = ceil_div(nv, pl->parts);
    pl->n_tasks = pl->n_whole + (nw - pl->n_whole) * pl->parts;
    pl->workers = pl->threads < pl->n_tasks ? pl->threads : pl->n_tasks;
}

/* Task t: its window and its range [lo, hi) of virtual points. */
static void msm_task_range(const struct msm_plan *pl, size_t t, size_t *w, size_t *lo, size_t *hi)
{
    if (t < pl->n_whole) {
        *w = t;
        *lo = 0;
        *hi = pl->n_virtual;
        return;
    }
    size_t i = t - pl->n_whole, part = i % pl->parts;
    *w = pl->n_whole + i / pl->parts;
    *lo = part * pl->part_len;
    *hi = *lo + pl->part_len;
    if (*lo > pl->n_virtual) /* rounding can leave the last parts empty */
        *lo = pl->n_virtual;
    if (*hi > pl->n_virtual)
        *hi = pl->n_virtual;
}

/* The first task of window w, and how many it has. */
static size_t msm_window_tasks(const struct msm_plan *pl, size_t w, size_t *count)
{
    if (w < pl->n_whole) {
        *count = 1;
        return w;
    }
    *count = pl->parts;
    return pl->n_whole + (w - pl->n_whole) * pl->parts;
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
                         size_t n_scalars, const uint64_t *density, unsigned max_split,
                         const struct msm_opts *opts)
{
    struct msm_opts def;
    if (!opts) {
        msm_opts_default(&def);
        opts = &def;
    }
    memset(pl, 0, sizeof *pl);
    unsigned split = opts->split;
    if (opts->window > MSM_MAX_WINDOW || (n_scalars > 0 && !scalars) ||
        (split != 0 && split != 1 && split != 2 && split != max_split))
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
    bool ifma = !opts->scalar_only && split <= 1 && !getenv("ZKB_MSM_SCALAR") &&
                msm_ifma_supported();
    /* The IFMA lanes keep whole scalars: their batched reduction is cheap,
     * and the split is measured on the scalar path only. */
    if (split == 0)
        split = ifma ? 1 : msm_choose_split(pl->n_points, max_split);
    pl->split = split;
    pl->words = 4 / split;
    pl->bits = msm_split_bits(split);
    pl->n_virtual = split * pl->n_points;
    pl->window = opts->window ? opts->window : msm_choose_window(pl->n_virtual, pl->bits, NULL);
    pl->n_windows = ceil_div(pl->bits, pl->window);
    size_t batch = msm_batch_size(pl->window, ifma);
    if (msm_point_cost(batch, ifma) < msm_point_cost(0, ifma)) {
        pl->batch = batch;
        pl->affine_min = 4 * batch;
        pl->ifma = ifma;
    }
    msm_plan_tasks(pl);
    pl->n_chunks = ceil_div(n_scalars, MSM_PREP_CHUNK);
    return 0;
}

/* The scalar copy and the chunk offsets (first base of each chunk). */
static int msm_plan_alloc(struct msm_plan *pl)
{
    if (pl->n_points > SIZE_MAX / (4 * sizeof(uint64_t)))
        return -ENOMEM;
    /* split x words = 4: the parts take the room of the whole scalars */
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

/* len <= 63 bits of the scalar k (words 64-bit words) from bit start
 * (bits past the end read as 0). */
static inline uint64_t msm_bits(const uint64_t *k, unsigned words, size_t start, unsigned len)
{
    size_t word = start / 64;
    unsigned sh = (unsigned)(start % 64);
    if (word >= words)
        return 0;
    uint64_t x = k[word] >> sh;
    if (sh + len > 64 && word + 1 < words)
        x |= k[word + 1] << (64 - sh);
    return x & ((1ull << len) - 1);
}

/* The signed digit of window w (c bits):
 * d = v + b_(wc-1) - 2^c b_(wc+c-1), in [-2^(c-1), 2^(c-1)]. Summed over
 * the windows the correction terms telescope to sum_w v_w 2^(wc), the
 * scalar, because the last one, bit c * n_windows - 1 >= plan bits - 1,
 * is 0 (scalars below 2^255, parts below 2^128 or 2^64). */
static inline int msm_digit(const uint64_t *k, unsigned words, size_t w, unsigned c)
{
    size_t pos = w * c;
    uint64_t x = pos ? msm_bits(k, words, pos - 1, c + 1) : msm_bits(k, words, 0, c) << 1;
    uint64_t v = x >> 1, low = x & 1, top = v >> (c - 1);
    return (int)v + (int)low - (int)(top << c);
}

__extension__ typedef unsigned __int128 msm_u128;

/* The high 128 bits of a b. */
static msm_u128 mul_hi_128(msm_u128 a, msm_u128 b)
{
    uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64);
    uint64_t b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
    msm_u128 p00 = (msm_u128)a0 * b0, p01 = (msm_u128)a0 * b1;
    msm_u128 p10 = (msm_u128)a1 * b0, p11 = (msm_u128)a1 * b1;
    msm_u128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
    return p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
}

/* k < 2^255 (4 words) as k0 + k1 x^2, k0 < x^2 and k1 <= k / x^2 < 2^128
 * for k < r: k1 by Barrett's method, q = floor(floor(k / 2^127) m / 2^128)
 * with m = floor(2^255 / x^2), which is at most 3 below the quotient, then
 * corrected. out: k0 in words 0-1, k1 in words 2-3. */
static void msm_split_x2(uint64_t out[4], const uint64_t k[4])
{
    const msm_u128 x2 = ((msm_u128)MSM_X2_HI << 64) | MSM_X2_LO;
    const msm_u128 m = ((msm_u128)MSM_X2_RECIP_HI << 64) | MSM_X2_RECIP_LO;
    msm_u128 top = ((msm_u128)k[3] << 65) | ((msm_u128)k[2] << 1) | (k[1] >> 63);
    msm_u128 q = mul_hi_128(top, m);
    /* k - q x^2 < 4 x^2 < 2^130: its low 192 bits are all of it */
    msm_u128 klo = ((msm_u128)k[1] << 64) | k[0], qlo = q * x2;
    uint64_t rhi = k[2] - (uint64_t)mul_hi_128(q, x2) - (klo < qlo);
    msm_u128 rlo = klo - qlo;
    while (rhi || rlo >= x2) {
        rhi -= rlo < x2;
        rlo -= x2;
        q++;
    }
    out[0] = (uint64_t)rlo;
    out[1] = (uint64_t)(rlo >> 64);
    out[2] = (uint64_t)q;
    out[3] = (uint64_t)(q >> 64);
}

/* The parts of k (4 canonical words) for a split of 1, 2 or 4, part j in
 * words j (4 / split) on: k = k0 + k1 x^2, and for 4 each of those by |x|
 * (both below |x| 2^64: k0 < x^2, k1 <= (r - 1) / x^2 < 0xac45... 2^64). */
static void msm_split(uint64_t out[4], const uint64_t k[4], unsigned split)
{
    if (split == 1) {
        memcpy(out, k, 4 * sizeof *k);
        return;
    }
    msm_split_x2(out, k);
    if (split == 2)
        return;
    msm_u128 k0 = ((msm_u128)out[1] << 64) | out[0];
    msm_u128 k1 = ((msm_u128)out[3] << 64) | out[2];
    out[0] = (uint64_t)(k0 % BLS12_381_X_ABS);
    out[1] = (uint64_t)(k0 / BLS12_381_X_ABS);
    out[2] = (uint64_t)(k1 % BLS12_381_X_ABS);
    out[3] = (uint64_t)(k1 / BLS12_381_X_ABS);
}

/* The endomorphism images of a base p for the parts 1 .. split - 1 of its
 * scalar, image j - 1 at img[(j - 1) n]: [x^2]P for G1; for G2 with a
 * split of 4 [|x|]P, [x^2]P and [|x|^3]P = [x^2]([|x|]P), of 2 [x^2]P. */
static void msm_g1_images(g1_affine_t *img, size_t n, const g1_affine_t *p, unsigned split)
{
    (void)n;
    (void)split;
    g1_affine_mul_x2(&img[0], p);
}

static void msm_g2_images(g2_affine_t *img, size_t n, const g2_affine_t *p, unsigned split)
{
    if (split == 2) {
        g2_affine_mul_x2(&img[0], p);
        return;
    }
    g2_affine_mul_x_abs(&img[0], p);
    g2_affine_mul_x2(&img[n], p);
    g2_affine_mul_x2(&img[2 * n], &img[0]);
}

#define CURVE g1
#define FE_T fp_t
#define FE(op) fp_##op
#define MSM_MAX_SPLIT 2
#include "prover/msm_template.h"
#undef MSM_MAX_SPLIT
#undef CURVE
#undef FE_T
#undef FE

#define CURVE g2
#define FE_T fp2_t
#define FE(op) fp2_##op
#define MSM_FE_NORM /* the batch inverts norms in Fp */
#define MSM_MAX_SPLIT 4
#include "prover/msm_template.h"
#undef MSM_MAX_SPLIT
#undef CURVE
#undef FE_T
#undef FE
#undef MSM_FE_NORM
