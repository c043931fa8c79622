/*
 * Radix-2 NTT over Fr; see ntt.h.
 *
 * The transform is decimation in frequency (Gentleman-Sande butterflies
 * (a, b) -> (a + b, (a - b) w^j)), natural order in, bit-reversed order
 * out, followed by a bit-reversal permutation (Cooley and Tukey 1965;
 * the iterative form as in Cormen et al., "Introduction to Algorithms",
 * section 30.3). For cache friendliness the stages are split in two, in
 * the spirit of Bailey's "FFTs in external or hierarchical memory" (1990):
 *   - the first stages, whose butterfly span exceeds a block of
 *     NTT_BLOCK elements, stream over the whole array, one parallel pass
 *     per pair of stages (radix-4 style: two stages per pass halve the
 *     memory traffic);
 *   - the remaining log2(NTT_BLOCK) stages only mix elements inside
 *     aligned blocks, so each block is finished while it sits in the L2
 *     cache, one block per task.
 * The in-block stages read their twiddles from a compact per-level table
 * (local[h + j] = w_2h^j), so the strided walk through the big table
 * happens only in the streaming stages.
 *
 * The inverse uses the forward transform: sum_j a_j w^(-jk) is the forward
 * result at index (n - k) mod n, so a reversal of indices 1..n-1 and the
 * scaling by 1/n (times g^-k for the coset inverse) follow it.
 */
#include "prover/ntt.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "arith/field/bls12_381.h"
#include "prover/mem.h"
#include "prover/parallel.h"

/* Elements of one in-cache block: 2^15 * 32 bytes = 1 MiB of data, plus
 * as much of local twiddles. Measured on the 2-core EPYC development VM
 * (2^12 .. 2^20 tried): larger blocks mean fewer streaming passes, and at
 * this size a block still stays in the L2/L3 caches while it is worked. */
#define NTT_BLOCK_LOG 15
#define NTT_BLOCK ((size_t)1 << NTT_BLOCK_LOG)
/* Elements (or butterflies) per task of the streaming and scaling passes:
 * small enough to give two threads several tasks at 2^16. */
#define NTT_CHUNK ((size_t)1 << 11)
/* Domains up to this size are one block (one thread). */
#define NTT_SMALL ((size_t)1 << 10)

/* a^e for a 64-bit exponent. */
static void ntt_pow_u64(fr_t *ret, const fr_t *a, uint64_t e)
{
    fr_pow(ret, a, &e, 1);
}

static size_t ceil_div(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

static size_t chunks(size_t count)
{
    return ceil_div(count, NTT_CHUNK);
}

/* ---- twiddle tables ---------------------------------------------------- */

struct twiddle_job {
    fr_t *out;
    const fr_t *w;
    size_t count;
};

/* out[i] = w^i for one chunk: a power for the start, then products. */
static void twiddle_chunk(void *ctx, size_t t)
{
    const struct twiddle_job *job = ctx;
    size_t lo = t * NTT_CHUNK, hi = lo + NTT_CHUNK;
    if (hi > job->count)
        hi = job->count;
    fr_t p;
    ntt_pow_u64(&p, job->w, lo);
    for (size_t i = lo; i < hi; i++) {
        job->out[i] = p;
        fr_mul(&p, &p, job->w);
    }
}

static void twiddles_compute(fr_t *out, const fr_t *w, size_t count, unsigned threads)
{
    struct twiddle_job job = {out, w, count};
    parallel_for((count + NTT_CHUNK - 1) / NTT_CHUNK, threads, twiddle_chunk, &job);
}

/* local[h + j] = w_2h^j for the levels h = 1, 2, ..., m/2 of a block of m
 * elements (w_2h = w^(n/2h), a primitive 2h-th root); local[0] unused. */
static void local_compute(fr_t *local, const fr_t *w, size_t n, size_t m)
{
    local[0] = FR_ONE;
    for (size_t h = 1; h < m; h *= 2) {
        fr_t wh, p = FR_ONE;
        ntt_pow_u64(&wh, w, n / (2 * h));
        for (size_t j = 0; j < h; j++) {
            local[h + j] = p;
            fr_mul(&p, &p, &wh);
        }
    }
}

/* The block of the in-cache stages for size n. Domains up to a few
 * blocks are still cut into eight, so that two threads have blocks to
 * share; tiny ones are one block. */
static size_t block_size(size_t n)
{
    if (n >= 8 * NTT_BLOCK)
        return NTT_BLOCK;
    if (n <= NTT_SMALL)
        return n;
    return n / 8 > NTT_SMALL ? n / 8 : NTT_SMALL;
}

int ntt_domain_init(ntt_domain_t *d, size_t n, unsigned flags, int proof, int partition)
{
    if (!d || n == 0 || (n & (n - 1)) || n > ((size_t)1 << NTT_MAX_LOG) ||
        (flags & ~(unsigned)NTT_DOMAIN_TWIDDLES))
        return -EINVAL;
    ntt_domain_t t;
    memset(&t, 0, sizeof t);
    t.n = n;
    t.log_n = (unsigned)__builtin_ctzll(n);
    t.proof = proof;
    t.partition = partition;
    fr_root_of_unity(&t.root, t.log_n);
    fr_inv(&t.root_inv, &t.root);
    fr_from_u64(&t.n_inv, n);
    fr_inv(&t.n_inv, &t.n_inv);
    fr_from_u64(&t.gen, BLS12_381_R_GENERATOR);
    fr_inv(&t.gen_inv, &t.gen);
    ntt_pow_u64(&t.z_coset_inv, &t.gen, n);
    fr_sub(&t.z_coset_inv, &t.z_coset_inv, &FR_ONE);
    fr_inv(&t.z_coset_inv, &t.z_coset_inv);

    size_t m = block_size(n);
    t.local = mem_alloc(MEM_KIND_NTT, proof, partition, m * sizeof(fr_t));
    if (!t.local)
        return -ENOMEM;
    local_compute(t.local, &t.root, n, m);
    /* The big table serves only the streaming stages, which exist when
     * the domain is larger than a block. */
    if ((flags & NTT_DOMAIN_TWIDDLES) && n > m) {
        t.twiddles = mem_alloc(MEM_KIND_NTT, proof, partition, n / 2 * sizeof(fr_t));
        if (!t.twiddles) {
            mem_free(t.local);
            return -ENOMEM;
        }
        twiddles_compute(t.twiddles, &t.root, n / 2, 0);
    }
    *d = t;
    return 0;
}

void ntt_domain_free(ntt_domain_t *d)
{
    if (!d)
        return;
    mem_free(d->twiddles);
    mem_free(d->local);
    d->twiddles = NULL;
    d->local = NULL;
}

/* ---- the transform ----------------------------------------------------- */

struct dif_job {
    fr_t *a;
    const fr_t *tw;    /* w^i, i < n/2 */
    const fr_t *local;
    size_t n, h;       /* h: half-span of the (first) stage of a pass */
    size_t m;          /* block size of the in-cache stages */
    unsigned log_n;
};

static inline void butterfly(fr_t *x, fr_t *y, const fr_t *w)
{
    fr_t t;
    fr_sub(&t, x, y);
    fr_add(x, x, y);
    fr_mul(y, &t, w);
}

/* The streaming passes walk offsets o in tiles of NTT_TILE: for a tile,
 * every group's elements at those offsets, so the tile's twiddles stay in
 * L1 and each group contributes runs of NTT_TILE consecutive elements
 * (whole cache lines) instead of a twiddle load per butterfly. A task is
 * a range of offsets over all groups, about NTT_CHUNK butterflies. */
#define NTT_TILE ((size_t)16)

/* Offsets per task for `span` offsets in each of `groups` groups. */
static size_t offsets_per_task(size_t span, size_t groups)
{
    size_t len = NTT_CHUNK / groups;
    if (len < NTT_TILE)
        len = NTT_TILE;
    return len < span ? len : span;
}

/* One streaming stage of half-span h: butterflies on elements
 * g 2h + o and g 2h + o + h, twiddle w^(o n/2h), for the task's offsets o
 * and every group g. */
static void dif_stage_chunk(void *ctx, size_t t)
{
    const struct dif_job *job = ctx;
    size_t h = job->h, groups = job->n / (2 * h), stride = groups;
    size_t len = offsets_per_task(h, groups);
    size_t o0 = t * len, o1 = o0 + len < h ? o0 + len : h;
    for (size_t ot = o0; ot < o1; ot += NTT_TILE) {
        size_t oe = ot + NTT_TILE < o1 ? ot + NTT_TILE : o1;
        for (size_t g = 0; g < groups; g++) {
            fr_t *x = job->a + g * 2 * h, *y = x + h;
            for (size_t o = ot; o < oe; o++)
                butterfly(&x[o], &y[o], &job->tw[o * stride]);
        }
    }
}

/* Two streaming stages at once (half-spans h and h/2) on quadruples
 * g 2h + o + {0, h/2, h, 3h/2}, o < h/2: each quadruple is loaded once for
 * both stages. */
static void dif_pair_chunk(void *ctx, size_t t)
{
    const struct dif_job *job = ctx;
    size_t h = job->h, q2 = h / 2, n = job->n;
    size_t groups = n / (2 * h), s1 = groups, s2 = 2 * groups;
    size_t len = offsets_per_task(q2, groups);
    size_t o0 = t * len, o1 = o0 + len < q2 ? o0 + len : q2;
    for (size_t ot = o0; ot < o1; ot += NTT_TILE) {
        size_t oe = ot + NTT_TILE < o1 ? ot + NTT_TILE : o1;
        for (size_t g = 0; g < groups; g++) {
            fr_t *a0 = job->a + g * 2 * h;
            fr_t *a1 = a0 + q2, *a2 = a0 + h, *a3 = a2 + q2;
            for (size_t o = ot; o < oe; o++) {
                /* stage h: (a0, a2) with w^(o s1), (a1, a3) with
                 * w^((o + h/2) s1) */
                butterfly(&a0[o], &a2[o], &job->tw[o * s1]);
                butterfly(&a1[o], &a3[o], &job->tw[(o + q2) * s1]);
                /* stage h/2: (a0, a1) and (a2, a3), both with w^(o s2) */
                const fr_t *w2 = &job->tw[o * s2];
                butterfly(&a0[o], &a1[o], w2);
                butterfly(&a2[o], &a3[o], w2);
            }
        }
    }
}

/* All stages of half-span < m inside block t. */
static void dif_block(void *ctx, size_t t)
{
    const struct dif_job *job = ctx;
    size_t m = job->m;
    fr_t *a = job->a + t * m;
    for (size_t h = m / 2; h >= 2; h /= 2) {
        const fr_t *w = job->local + h;
        for (size_t g = 0; g < m; g += 2 * h) {
            fr_t *x = a + g, *y = x + h;
            /* w^0 = 1: the first butterfly needs no product */
            fr_t s;
            fr_sub(&s, &x[0], &y[0]);
            fr_add(&x[0], &x[0], &y[0]);
            y[0] = s;
            for (size_t j = 1; j < h; j++)
                butterfly(&x[j], &y[j], &w[j]);
        }
    }
    if (m >= 2) {
        for (size_t g = 0; g < m; g += 2) {
            fr_t s;
            fr_sub(&s, &a[g], &a[g + 1]);
            fr_add(&a[g], &a[g], &a[g + 1]);
            a[g + 1] = s;
        }
    }
}

static inline size_t bit_reverse(size_t i, unsigned bits)
{
    uint64_t x = i;
    x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
    x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
    x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
    x = __builtin_bswap64(x);
    return bits ? (size_t)(x >> (64 - bits)) : 0;
}

/* Swaps of the bit-reversal permutation for indices of one chunk: each
 * pair is swapped by its smaller index, so chunks never touch the same
 * pair twice. */
static void bitrev_chunk(void *ctx, size_t t)
{
    const struct dif_job *job = ctx;
    size_t lo = t * NTT_CHUNK, hi = lo + NTT_CHUNK;
    if (hi > job->n)
        hi = job->n;
    for (size_t i = lo; i < hi; i++) {
        size_t r = bit_reverse(i, job->log_n);
        if (i < r) {
            fr_t s = job->a[i];
            job->a[i] = job->a[r];
            job->a[r] = s;
        }
    }
}



/* The forward transform in natural order, twiddles tw (w^i, i < n/2; NULL
 * allowed when n fits a block). */
static void ntt_run(const ntt_domain_t *d, fr_t *a, const fr_t *tw, unsigned threads)
{
    struct dif_job job = {
        .a = a, .tw = tw, .local = d->local, .n = d->n,
        .m = block_size(d->n), .log_n = d->log_n,
    };
    size_t h = d->n / 2;
    while (h >= job.m) {
        job.h = h;
        size_t groups = d->n / (2 * h);
        if (h / 2 >= job.m) {
            parallel_for(ceil_div(h / 2, offsets_per_task(h / 2, groups)), threads,
                         dif_pair_chunk, &job);
            h /= 4;
        } else {
            parallel_for(ceil_div(h, offsets_per_task(h, groups)), threads, dif_stage_chunk,
                         &job);
            h /= 2;
        }
    }
    parallel_for(d->n / job.m, threads, dif_block, &job);
    parallel_for(chunks(d->n), threads, bitrev_chunk, &job);
}

/* Runs the forward transform with the domain's twiddles, or a temporary
 * table when the domain keeps none. */
static int ntt_run_tw(const ntt_domain_t *d, fr_t *a, unsigned threads)
{
    if (d->n <= block_size(d->n) || d->twiddles) {
        ntt_run(d, a, d->twiddles, threads);
        return 0;
    }
    fr_t *tw = mem_alloc(MEM_KIND_NTT, d->proof, d->partition, d->n / 2 * sizeof(fr_t));
    if (!tw)
        return -ENOMEM;
    twiddles_compute(tw, &d->root, d->n / 2, threads);
    ntt_run(d, a, tw, threads);
    mem_free(tw);
    return 0;
}

/* ---- scaling and reversal ---------------------------------------------- */

struct scale_job {
    fr_t *a;
    size_t n;
    fr_t c, ratio;   /* a[i] *= c * ratio^i */
    bool plain;      /* ratio = 1 */
};

static void scale_chunk(void *ctx, size_t t)
{
    const struct scale_job *job = ctx;
    size_t lo = t * NTT_CHUNK, hi = lo + NTT_CHUNK;
    if (hi > job->n)
        hi = job->n;
    if (job->plain) {
        for (size_t i = lo; i < hi; i++)
            fr_mul(&job->a[i], &job->a[i], &job->c);
        return;
    }
    fr_t p;
    ntt_pow_u64(&p, &job->ratio, lo);
    fr_mul(&p, &p, &job->c);
    for (size_t i = lo; i < hi; i++) {
        fr_mul(&job->a[i], &job->a[i], &p);
        fr_mul(&p, &p, &job->ratio);
    }
}

static void scale_powers(fr_t *a, size_t n, const fr_t *c, const fr_t *ratio, unsigned threads)
{
    struct scale_job job = {.a = a, .n = n, .c = *c, .ratio = *ratio,
                            .plain = fr_is_one(ratio)};
    parallel_for(chunks(n), threads, scale_chunk, &job);
}

struct reverse_job {
    fr_t *a;
    size_t n;
};

/* a[k] <-> a[n - k] for k in 1 .. n/2 - 1, one chunk of k. */
static void reverse_chunk(void *ctx, size_t t)
{
    const struct reverse_job *job = ctx;
    size_t lo = t * NTT_CHUNK + 1, hi = lo + NTT_CHUNK;
    if (hi > job->n / 2)
        hi = job->n / 2;
    for (size_t k = lo; k < hi; k++) {
        fr_t s = job->a[k];
        job->a[k] = job->a[job->n - k];
        job->a[job->n - k] = s;
    }
}

static void reverse_tail(fr_t *a, size_t n, unsigned threads)
{
    if (n < 4)
        return; /* n = 1, 2: every k is its own mirror */
    struct reverse_job job = {a, n};
    parallel_for(chunks(n / 2 - 1), threads, reverse_chunk, &job);
}

/* ---- public transforms ------------------------------------------------- */

int ntt_forward(const ntt_domain_t *d, fr_t *data, unsigned threads)
{
    if (!d || !data || !d->local)
        return -EINVAL;
    return ntt_run_tw(d, data, threads);
}

int ntt_inverse(const ntt_domain_t *d, fr_t *data, unsigned threads)
{
    if (!d || !data || !d->local)
        return -EINVAL;
    int rc = ntt_run_tw(d, data, threads);
    if (rc < 0)
        return rc;
    reverse_tail(data, d->n, threads);
    scale_powers(data, d->n, &d->n_inv, &FR_ONE, threads);
    return 0;
}

int ntt_coset_forward(const ntt_domain_t *d, fr_t *data, unsigned threads)
{
    if (!d || !data || !d->local)
        return -EINVAL;
    /* sum_j a_j (g w^i)^j = NTT(a_j g^j)_i. The temporary table comes
     * first so a failure leaves data untouched. */
    fr_t *tw = d->twiddles;
    if (!tw && d->n > block_size(d->n)) {
        tw = mem_alloc(MEM_KIND_NTT, d->proof, d->partition, d->n / 2 * sizeof(fr_t));
        if (!tw)
            return -ENOMEM;
        twiddles_compute(tw, &d->root, d->n / 2, threads);
    }
    scale_powers(data, d->n, &FR_ONE, &d->gen, threads);
    ntt_run(d, data, tw, threads);
    if (tw != d->twiddles)
        mem_free(tw);
    return 0;
}

int ntt_coset_inverse(const ntt_domain_t *d, fr_t *data, unsigned threads)
{
    if (!d || !data || !d->local)
        return -EINVAL;
    int rc = ntt_run_tw(d, data, threads);
    if (rc < 0)
        return rc;
    reverse_tail(data, d->n, threads);
    /* coefficients of a(gx) are a_j g^j: undo with g^-j, fused with 1/n */
    scale_powers(data, d->n, &d->n_inv, &d->gen_inv, threads);
    return 0;
}

struct pointwise_job {
    fr_t *a;
    const fr_t *b, *c, *s;
    size_t n;
};

static void pointwise_chunk(void *ctx, size_t t)
{
    const struct pointwise_job *job = ctx;
    size_t lo = t * NTT_CHUNK, hi = lo + NTT_CHUNK;
    if (hi > job->n)
        hi = job->n;
    for (size_t i = lo; i < hi; i++) {
        if (job->b)
            fr_mul(&job->a[i], &job->a[i], &job->b[i]);
        if (job->c)
            fr_sub(&job->a[i], &job->a[i], &job->c[i]);
        if (job->s)
            fr_mul(&job->a[i], &job->a[i], job->s);
    }
}

int ntt_pointwise_mul_sub(fr_t *a, const fr_t *b, const fr_t *c, const fr_t *s, size_t n,
                          unsigned threads)
{
    if (!a && n > 0)
        return -EINVAL;
    struct pointwise_job job = {a, b, c, s, n};
    parallel_for(chunks(n), threads, pointwise_chunk, &job);
    return 0;
}
