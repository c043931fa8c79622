/*
 * Groth16 key generation from seeded toxic waste, as bellperson's
 * generator lays the keys out (see groth16.h and params.h).
 *
 * The QAP is evaluated at tau through the Lagrange basis of the domain H
 * (size n, generator w): L_i(tau) = (tau^n - 1) / n * w^i / (tau - w^i),
 * with a batch inversion per span of the domain, then accumulated over the
 * columns of A, B, C (each thread owning a range of columns).
 * Every query point is a fixed-base multiple of a generator: a table of
 * d * 2^(k*c) * G for each c-bit window k turns one scalar multiplication
 * into ~255/c mixed additions (Brickell, Gordon, McCurley, Wilson, "Fast
 * exponentiation with precomputation", EUROCRYPT 1992, the simple windowed
 * form), on all threads, with batch conversion to affine per chunk. With
 * groth16_setup_on and a device, a GPU runs the multiplications and the
 * conversion to affine with the same table (kernels_fixed_base). Every
 * phase runs on all threads; groth16_setup_times_t says where time went.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "arith/field/bls12_381.h"
#include "prover/groth16.h"
#include "prover/mem.h"
#include "prover/ntt.h"
#include "prover/parallel.h"

#define SETUP_CHUNK 1024

/* ---- toxic waste -------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform non-zero Fr element by rejection sampling. */
static void rand_fr_nonzero(fr_t *ret, uint64_t *state)
{
    for (;;) {
        uint64_t v[4];
        for (int i = 0; i < 4; i++)
            v[i] = splitmix64(state);
        v[3] &= 0x7fffffffffffffffull; /* below 2^255 < 2r: one rejection in two at worst */
        if (fr_from_limbs(ret, v) == 0 && !fr_is_zero(ret))
            return;
    }
}

/* ---- fixed-base multiplication, for G1 and G2 ---------------------------- */

/* The curve operations the fixed-base code needs, so one implementation
 * serves both groups. Points are handled as opaque bytes of the sizes
 * given. */
struct fb_group {
    size_t affine_bytes, jac_bytes;
    const void *generator;
    void (*jac_from_affine)(void *ret, const void *p);
    void (*jac_add_mixed)(void *ret, const void *a, const void *b);
    void (*jac_dbl)(void *ret, const void *p);
    int (*batch_to_affine)(void *out, const void *in, size_t n);
    void (*jac_infinity)(void *ret);
};

#define FB_WRAP(G)                                                                   \
    static void G##_fb_from_affine(void *r, const void *p) { G##_jac_from_affine(r, p); } \
    static void G##_fb_add_mixed(void *r, const void *a, const void *b) { G##_jac_add_mixed(r, a, b); } \
    static void G##_fb_dbl(void *r, const void *p) { G##_jac_dbl(r, p); }             \
    static int G##_fb_to_affine(void *o, const void *in, size_t n) { return G##_batch_to_affine(o, in, n); } \
    static void G##_fb_infinity(void *r) { memset(r, 0, sizeof(G##_jac_t)); }
FB_WRAP(g1)
FB_WRAP(g2)

static const struct fb_group FB_G1 = {
    sizeof(g1_affine_t), sizeof(g1_jac_t), &G1_GENERATOR, g1_fb_from_affine,
    g1_fb_add_mixed, g1_fb_dbl, g1_fb_to_affine, g1_fb_infinity,
};
static const struct fb_group FB_G2 = {
    sizeof(g2_affine_t), sizeof(g2_jac_t), &G2_GENERATOR, g2_fb_from_affine,
    g2_fb_add_mixed, g2_fb_dbl, g2_fb_to_affine, g2_fb_infinity,
};

typedef struct {
    const struct fb_group *g;
    unsigned c;       /* window bits */
    unsigned windows; /* ceil(255 / c) */
    size_t row;       /* 2^c - 1 entries per window: d = 1 .. 2^c - 1 */
    uint8_t *table;   /* windows * row affine points */
} fb_table_t;

static unsigned fb_window_bits(size_t scalars)
{
    if (scalars < (1u << 16))
        return 8;
    if (scalars < (1u << 22))
        return 12;
    return 16;
}

struct fb_build_job {
    fb_table_t *t;
    uint8_t *jac; /* windows * row Jacobian points */
};

/* Window k: d * B_k for B_k = 2^(k c) G, by repeated addition. */
static void fb_build_window(void *ctx, size_t k)
{
    struct fb_build_job *job = ctx;
    fb_table_t *t = job->t;
    const struct fb_group *g = t->g;
    uint8_t base_jac[sizeof(g2_jac_t)], base_aff[sizeof(g2_affine_t)];
    g->jac_from_affine(base_jac, g->generator);
    for (size_t i = 0; i < k * t->c; i++)
        g->jac_dbl(base_jac, base_jac);
    g->batch_to_affine(base_aff, base_jac, 1);
    uint8_t *row = job->jac + k * t->row * g->jac_bytes;
    g->jac_from_affine(row, base_aff);
    for (size_t d = 1; d < t->row; d++)
        g->jac_add_mixed(row + d * g->jac_bytes, row + (d - 1) * g->jac_bytes, base_aff);
}

struct fb_affine_job {
    const struct fb_group *g;
    const uint8_t *jac;
    uint8_t *out;
    size_t n;
};

static void fb_affine_chunk(void *ctx, size_t chunk)
{
    struct fb_affine_job *job = ctx;
    size_t begin = chunk * SETUP_CHUNK;
    size_t end = begin + SETUP_CHUNK < job->n ? begin + SETUP_CHUNK : job->n;
    job->g->batch_to_affine(job->out + begin * job->g->affine_bytes, job->jac + begin * job->g->jac_bytes,
                            end - begin);
}

static int fb_table_init(fb_table_t *t, const struct fb_group *g, size_t scalars, unsigned threads)
{
    t->g = g;
    t->c = fb_window_bits(scalars);
    t->windows = (255 + t->c - 1) / t->c;
    t->row = ((size_t)1 << t->c) - 1;
    size_t entries = (size_t)t->windows * t->row;
    t->table = mem_alloc(MEM_KIND_OTHER, -1, -1, entries * g->affine_bytes);
    uint8_t *jac = mem_alloc(MEM_KIND_OTHER, -1, -1, entries * g->jac_bytes);
    if (!t->table || !jac) {
        mem_free(t->table);
        mem_free(jac);
        t->table = NULL;
        return -ENOMEM;
    }
    struct fb_build_job job = {t, jac};
    parallel_for(t->windows, threads, fb_build_window, &job);
    struct fb_affine_job aff = {g, jac, t->table, entries};
    parallel_for((entries + SETUP_CHUNK - 1) / SETUP_CHUNK, threads, fb_affine_chunk, &aff);
    mem_free(jac);
    return 0;
}

static void fb_table_free(fb_table_t *t)
{
    mem_free(t->table);
    t->table = NULL;
}

/* ret (Jacobian) = k * G for a canonical scalar k. */
static void fb_mul(void *ret, const fb_table_t *t, const uint64_t k[4])
{
    const struct fb_group *g = t->g;
    g->jac_infinity(ret);
    for (unsigned w = 0; w < t->windows; w++) {
        unsigned bit = w * t->c;
        unsigned limb = bit / 64, shift = bit % 64;
        uint64_t d = k[limb] >> shift;
        if (shift + t->c > 64 && limb + 1 < 4)
            d |= k[limb + 1] << (64 - shift);
        d &= ((uint64_t)1 << t->c) - 1;
        if (d)
            g->jac_add_mixed(ret, ret, t->table + ((size_t)w * t->row + (d - 1)) * g->affine_bytes);
    }
}

struct fb_batch_job {
    const fb_table_t *t;
    const fr_t *scalars;
    uint8_t *out; /* affine points */
    size_t n;
    atomic_int failed;
};

static void fb_batch_chunk(void *ctx, size_t chunk)
{
    struct fb_batch_job *job = ctx;
    const struct fb_group *g = job->t->g;
    size_t begin = chunk * SETUP_CHUNK;
    size_t end = begin + SETUP_CHUNK < job->n ? begin + SETUP_CHUNK : job->n;
    uint8_t *jac = malloc((end - begin) * g->jac_bytes);
    if (!jac) {
        atomic_store(&job->failed, 1);
        return;
    }
    for (size_t i = begin; i < end; i++) {
        uint64_t k[4];
        fr_to_limbs(k, &job->scalars[i]);
        fb_mul(jac + (i - begin) * g->jac_bytes, job->t, k);
    }
    if (g->batch_to_affine(job->out + begin * g->affine_bytes, jac, end - begin) < 0)
        atomic_store(&job->failed, 1);
    free(jac);
}

/* out[i] = scalars[i] * G for i < n. */
static int fb_batch(void *out, const fb_table_t *t, const fr_t *scalars, size_t n, unsigned threads)
{
    struct fb_batch_job job = {.t = t, .scalars = scalars, .out = out, .n = n};
    atomic_init(&job.failed, 0);
    parallel_for((n + SETUP_CHUNK - 1) / SETUP_CHUNK, threads, fb_batch_chunk, &job);
    return atomic_load(&job.failed) ? -ENOMEM : 0;
}

/* fb_batch with the multiplications and the conversion to affine on CUDA
 * device `device` (kernels_fixed_base, the same table). */
static int fb_batch_device(void *out, const fb_table_t *t, const fr_t *scalars, size_t n, int device)
{
    if (n == 0)
        return 0;
    int rc = kernels_set_device(device);
    return rc < 0 ? rc
                  : kernels_fixed_base(out, t->g == &FB_G2 ? KERNELS_CURVE_G2 : KERNELS_CURVE_G1, t->table,
                                       t->windows, t->c, scalars, n);
}

/* ---- the QAP at tau -------------------------------------------------------- */

/* Elements a task of the QAP and scalar loops takes: each span starts from
 * its own power (fr_pow), so spans run on any thread. */
#define SETUP_SPAN ((size_t)1 << 14)

static size_t spans(size_t n)
{
    return (n + SETUP_SPAN - 1) / SETUP_SPAN;
}

struct lagrange_job {
    fr_t *L;
    size_t n;
    fr_t tau, omega, zn; /* zn = (tau^n - 1) / n */
    atomic_int failed;
};

/* L_i(tau) = zn w^i / (tau - w^i) for the span's i, one batch inversion. */
static void lagrange_span(void *ctx, size_t k)
{
    struct lagrange_job *job = ctx;
    size_t begin = k * SETUP_SPAN, len = job->n - begin < SETUP_SPAN ? job->n - begin : SETUP_SPAN;
    fr_t *den = malloc(2 * len * sizeof(fr_t));
    if (!den) {
        atomic_store(&job->failed, 1);
        return;
    }
    fr_t *inv = den + len, wi;
    uint64_t e[1] = {begin};
    fr_pow(&wi, &job->omega, e, 1);
    for (size_t i = 0; i < len; i++) {
        fr_sub(&den[i], &job->tau, &wi);
        job->L[begin + i] = wi;
        fr_mul(&wi, &wi, &job->omega);
    }
    fr_batch_inv(inv, den, len);
    for (size_t i = 0; i < len; i++) {
        fr_mul(&job->L[begin + i], &job->L[begin + i], &inv[i]);
        fr_mul(&job->L[begin + i], &job->L[begin + i], &job->zn);
    }
    free(den);
}

/* Lagrange basis of the domain at tau, on all threads. */
static int lagrange_at(fr_t *L, size_t n, const fr_t *tau, const fr_t *omega, unsigned threads)
{
    struct lagrange_job job = {.L = L, .n = n, .tau = *tau, .omega = *omega};
    atomic_init(&job.failed, 0);
    fr_t nf;
    uint64_t e[1] = {n};
    fr_pow(&job.zn, tau, e, 1);
    fr_sub(&job.zn, &job.zn, &FR_ONE);
    fr_from_u64(&nf, n);
    fr_inv(&nf, &nf);
    fr_mul(&job.zn, &job.zn, &nf);
    parallel_for(spans(n), threads, lagrange_span, &job);
    memset(&job.tau, 0, sizeof job.tau);
    return atomic_load(&job.failed) ? -ENOMEM : 0;
}

/* Rows a block of the accumulation covers, and the most column shards a
 * matrix is cut into (one bit each in a block's mask). */
#define ACC_BLOCK_ROWS 1024
#define ACC_MAX_SHARDS 64

struct accumulate_job {
    fr_t *col[3]; /* at, bt, ct */
    const r1cs_t *cs;
    const fr_t *L;
    uint64_t nv, blocks;
    size_t shards;      /* per matrix */
    uint64_t *mask[3];  /* per matrix and row block: the shards its columns fall in */
};

static size_t acc_shard_of(const struct accumulate_job *job, uint32_t col)
{
    return (size_t)((uint64_t)col * job->shards / job->nv);
}

/* The masks of one row block of every matrix. */
static void accumulate_mask(void *ctx, size_t b)
{
    struct accumulate_job *job = ctx;
    uint64_t r0 = b * ACC_BLOCK_ROWS, r1 = r0 + ACC_BLOCK_ROWS < job->cs->num_constraints
                                              ? r0 + ACC_BLOCK_ROWS
                                              : job->cs->num_constraints;
    for (int w = 0; w < 3; w++) {
        const r1cs_matrix_t *m = &job->cs->m[w];
        uint64_t mask = 0;
        for (uint64_t k = m->row_ptr[r0]; k < m->row_ptr[r1]; k++)
            mask |= (uint64_t)1 << acc_shard_of(job, m->col[k]);
        job->mask[w][b] = mask;
    }
}

/* One shard of one matrix: every nonzero whose column falls in the
 * shard's range, at[j] += M[i][j] * L[i]. Shards own disjoint columns, so
 * they need no lock; a shard reads only the row blocks that touch it
 * (circuits keep a variable's constraints together), and a coefficient of
 * one (coeffs[0], most of them) costs an addition only. */
static void accumulate_shard(void *ctx, size_t task)
{
    struct accumulate_job *job = ctx;
    size_t which = task / job->shards, shard = task % job->shards;
    const r1cs_matrix_t *m = &job->cs->m[which];
    const uint64_t *mask = job->mask[which];
    uint64_t lo = (job->nv * shard + job->shards - 1) / job->shards;
    uint64_t hi = (job->nv * (shard + 1) + job->shards - 1) / job->shards; /* acc_shard_of's ranges */
    fr_t *at = job->col[which];
    for (uint64_t b = 0; b < job->blocks; b++) {
        if (!((mask[b] >> shard) & 1))
            continue;
        uint64_t r1 = (b + 1) * ACC_BLOCK_ROWS < job->cs->num_constraints ? (b + 1) * ACC_BLOCK_ROWS
                                                                        : job->cs->num_constraints;
        for (uint64_t i = b * ACC_BLOCK_ROWS; i < r1; i++) {
            for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
                uint32_t j = m->col[k];
                if (j < lo || j >= hi)
                    continue;
                if (m->coeff[k] == 0) {
                    fr_add(&at[j], &at[j], &job->L[i]);
                } else {
                    fr_t t;
                    fr_mul(&t, &job->cs->coeffs[m->coeff[k]], &job->L[i]);
                    fr_add(&at[j], &at[j], &t);
                }
            }
        }
    }
}

/* at, bt, ct[j] = sum over rows i of A, B, C[i][j] * L[i], on all threads. */
static int accumulate(fr_t *at, fr_t *bt, fr_t *ct, const r1cs_t *cs, const fr_t *L, unsigned threads)
{
    unsigned t = threads ? threads : parallel_default_threads();
    struct accumulate_job job = {{at, bt, ct}, cs, L, r1cs_num_vars(cs), 0, t < ACC_MAX_SHARDS ? t : ACC_MAX_SHARDS,
                                 {NULL, NULL, NULL}};
    job.blocks = (cs->num_constraints + ACC_BLOCK_ROWS - 1) / ACC_BLOCK_ROWS;
    uint64_t *masks = malloc(3 * (job.blocks ? job.blocks : 1) * sizeof *masks);
    if (!masks)
        return -ENOMEM;
    for (int w = 0; w < 3; w++)
        job.mask[w] = masks + w * job.blocks;
    parallel_for(job.blocks, threads, accumulate_mask, &job);
    parallel_for(3 * job.shards, threads, accumulate_shard, &job);
    free(masks);
    return 0;
}

/* ---- the scalars of the query points ---------------------------------------- */

struct scalars_job {
    fr_t *sc;
    const fr_t *at, *bt, *ct;
    size_t n;
    uint32_t num_inputs;
    fr_t alpha, beta, gamma_inv, delta_inv; /* ic and l */
    fr_t h0, tau;                           /* h: h0 tau^i */
};

/* ic and l: (beta A_j + alpha B_j + C_j) / gamma for inputs, / delta else. */
static void ic_l_span(void *ctx, size_t k)
{
    struct scalars_job *job = ctx;
    size_t end = (k + 1) * SETUP_SPAN < job->n ? (k + 1) * SETUP_SPAN : job->n;
    for (size_t j = k * SETUP_SPAN; j < end; j++) {
        fr_t x, y;
        fr_mul(&x, &job->beta, &job->at[j]);
        fr_mul(&y, &job->alpha, &job->bt[j]);
        fr_add(&x, &x, &y);
        fr_add(&x, &x, &job->ct[j]);
        fr_mul(&job->sc[j], &x, j < job->num_inputs ? &job->gamma_inv : &job->delta_inv);
    }
}

/* h: h0 tau^i, the span starting from its own power of tau. */
static void h_span(void *ctx, size_t k)
{
    struct scalars_job *job = ctx;
    size_t begin = k * SETUP_SPAN, end = begin + SETUP_SPAN < job->n ? begin + SETUP_SPAN : job->n;
    fr_t s;
    uint64_t e[1] = {begin};
    fr_pow(&s, &job->tau, e, 1);
    fr_mul(&s, &s, &job->h0);
    for (size_t i = begin; i < end; i++) {
        job->sc[i] = s;
        fr_mul(&s, &s, &job->tau);
    }
    memset(&s, 0, sizeof s);
}

static bool bit_set(const uint64_t *bits, uint64_t j)
{
    return (bits[j / 64] >> (j % 64)) & 1;
}

int groth16_setup(groth16_params_t **ret, const groth16_shape_t *shape, uint64_t seed, unsigned threads)
{
    return groth16_setup_on(ret, shape, seed, threads, -1, NULL);
}

/* Seconds since *t0 into *slot (added), and *t0 moved to now. */
static void lap(double *t0, double *slot)
{
    double t1 = groth16_now_s();
    *slot += t1 - *t0;
    *t0 = t1;
}

/* The fixed-base multiplications of a setup, on the CPU (device < 0) or
 * on that CUDA device (the points are the same), their time added to
 * tm->multiply. */
static int fb_run(void *out, const fb_table_t *t, const fr_t *scalars, size_t n, unsigned threads, int device,
                  groth16_setup_times_t *tm)
{
    double t0 = groth16_now_s();
    int rc = device < 0 ? fb_batch(out, t, scalars, n, threads) : fb_batch_device(out, t, scalars, n, device);
    tm->multiply += groth16_now_s() - t0;
    return rc;
}

void groth16_key_counts(size_t counts[6], const groth16_shape_t *shape)
{
    const r1cs_t *cs = shape->cs;
    counts[0] = cs->num_inputs;
    counts[1] = shape->n - 1;
    counts[2] = cs->num_aux;
    counts[3] = shape->n_a;
    counts[4] = shape->n_b;
    counts[5] = shape->n_b;
}

int groth16_setup_on(groth16_params_t **ret, const groth16_shape_t *shape, uint64_t seed, unsigned threads,
                     int device, groth16_setup_times_t *times)
{
    size_t k[6];
    groth16_params_t *p;
    groth16_key_counts(k, shape);
    int rc = params_alloc(&p, k[0], k[1], k[2], k[3], k[4], k[5]);
    if (rc < 0)
        return rc;
    if ((rc = groth16_setup_into(p, shape, seed, threads, device, times)) < 0) {
        params_free(p);
        return rc;
    }
    *ret = p;
    return 0;
}

int groth16_setup_into(groth16_params_t *p, const groth16_shape_t *shape, uint64_t seed, unsigned threads,
                       int device, groth16_setup_times_t *times)
{
    const r1cs_t *cs = shape->cs;
    size_t n = shape->n;
    const uint64_t *da = shape->density_a, *db = shape->density_b;
    uint64_t n_a = shape->n_a, n_b = shape->n_b;
    uint64_t nv = r1cs_num_vars(cs);
    int rc = -ENOMEM;
    groth16_setup_times_t tm = {0};
    double t0 = groth16_now_s();

    uint64_t state = seed;
    fr_t tau, alpha, beta, gamma, delta;
    rand_fr_nonzero(&tau, &state);
    rand_fr_nonzero(&alpha, &state);
    rand_fr_nonzero(&beta, &state);
    rand_fr_nonzero(&gamma, &state);
    rand_fr_nonzero(&delta, &state);

    fr_t *L = NULL, *at = NULL, *bt = NULL, *ct = NULL, *sc = NULL;
    fb_table_t t1 = {0}, t2 = {0};
    struct scalars_job sj = {0};

    /* tau must lie outside H for the Lagrange form (probability ~n/r). */
    {
        fr_t tn;
        uint64_t e[1] = {n};
        fr_pow(&tn, &tau, e, 1);
        while (fr_is_one(&tn)) {
            rand_fr_nonzero(&tau, &state);
            fr_pow(&tn, &tau, e, 1);
        }
    }

    L = mem_alloc(MEM_KIND_OTHER, -1, -1, n * sizeof(fr_t));
    at = mem_calloc(MEM_KIND_OTHER, -1, -1, nv * sizeof(fr_t));
    bt = mem_calloc(MEM_KIND_OTHER, -1, -1, nv * sizeof(fr_t));
    ct = mem_calloc(MEM_KIND_OTHER, -1, -1, nv * sizeof(fr_t));
    sc = mem_alloc(MEM_KIND_OTHER, -1, -1, (n > nv ? n : nv) * sizeof(fr_t));
    if (!L || !at || !bt || !ct || !sc)
        goto done;
    if ((rc = lagrange_at(L, n, &tau, &shape->domain.root, threads)) < 0)
        goto done;
    if ((rc = accumulate(at, bt, ct, cs, L, threads)) < 0)
        goto done;
    /* input constraints: row m + j has A = input j */
    for (uint32_t j = 0; j < cs->num_inputs; j++)
        fr_add(&at[j], &at[j], &L[cs->num_constraints + j]);
    lap(&t0, &tm.qap);
    if (p->vk.n_ic != cs->num_inputs || p->n_h != n - 1 || p->n_l != cs->num_aux || p->n_a != n_a ||
        p->n_b_g1 != n_b || p->n_b_g2 != n_b) {
        rc = -EINVAL;
        goto done;
    }
    size_t g1_scalars = (n - 1) + nv + n_a + n_b;
    if ((rc = fb_table_init(&t1, &FB_G1, g1_scalars, threads)) < 0 ||
        (rc = fb_table_init(&t2, &FB_G2, n_b + 3, threads)) < 0)
        goto done;
    lap(&t0, &tm.tables);

    fr_t gamma_inv, delta_inv;
    fr_inv(&gamma_inv, &gamma);
    fr_inv(&delta_inv, &delta);

    /* verifying key */
    fr_t vk_sc[3] = {alpha, beta, delta};
    g1_affine_t vk_g1[3];
    if ((rc = fb_run(vk_g1, &t1, vk_sc, 3, 1, device, &tm)) < 0)
        goto done;
    p->vk.alpha_g1 = vk_g1[0];
    p->vk.beta_g1 = vk_g1[1];
    p->vk.delta_g1 = vk_g1[2];
    fr_t vk_sc2[3] = {beta, gamma, delta};
    g2_affine_t vk_g2[3];
    if ((rc = fb_run(vk_g2, &t2, vk_sc2, 3, 1, device, &tm)) < 0)
        goto done;
    p->vk.beta_g2 = vk_g2[0];
    p->vk.gamma_g2 = vk_g2[1];
    p->vk.delta_g2 = vk_g2[2];
    memset(vk_sc, 0, sizeof vk_sc);
    memset(vk_sc2, 0, sizeof vk_sc2);

    /* ic (inputs) and l (aux): (beta A + alpha B + C) / gamma or / delta */
    t0 = groth16_now_s();
    sj = (struct scalars_job){.sc = sc, .at = at, .bt = bt, .ct = ct, .n = nv, .num_inputs = cs->num_inputs,
                              .alpha = alpha, .beta = beta, .gamma_inv = gamma_inv, .delta_inv = delta_inv};
    parallel_for(spans(nv), threads, ic_l_span, &sj);
    lap(&t0, &tm.scalars);
    if ((rc = fb_run(p->vk.ic, &t1, sc, cs->num_inputs, threads, device, &tm)) < 0 ||
        (rc = fb_run(p->l, &t1, sc + cs->num_inputs, cs->num_aux, threads, device, &tm)) < 0)
        goto done;

    /* h: tau^i (tau^n - 1) / delta, i < n - 1 */
    t0 = groth16_now_s();
    {
        uint64_t e[1] = {n};
        fr_pow(&sj.h0, &tau, e, 1);
        fr_sub(&sj.h0, &sj.h0, &FR_ONE);
        fr_mul(&sj.h0, &sj.h0, &delta_inv);
        sj.tau = tau;
        sj.n = n - 1;
        parallel_for(spans(n - 1), threads, h_span, &sj);
    }
    lap(&t0, &tm.scalars);
    if ((rc = fb_run(p->h, &t1, sc, n - 1, threads, device, &tm)) < 0)
        goto done;

    /* a, b_g1, b_g2 over the dense columns */
    t0 = groth16_now_s();
    size_t k = 0;
    for (uint64_t j = 0; j < nv; j++)
        if (bit_set(da, j))
            sc[k++] = at[j];
    lap(&t0, &tm.scalars);
    if ((rc = fb_run(p->a, &t1, sc, n_a, threads, device, &tm)) < 0)
        goto done;
    t0 = groth16_now_s();
    k = 0;
    for (uint64_t j = 0; j < nv; j++)
        if (bit_set(db, j))
            sc[k++] = bt[j];
    lap(&t0, &tm.scalars);
    if ((rc = fb_run(p->b_g1, &t1, sc, n_b, threads, device, &tm)) < 0 ||
        (rc = fb_run(p->b_g2, &t2, sc, n_b, threads, device, &tm)) < 0)
        goto done;

    if (times)
        *times = tm;
    rc = 0;
done:
    fb_table_free(&t1);
    fb_table_free(&t2);
    mem_free(L);
    mem_free(at);
    mem_free(bt);
    mem_free(ct);
    mem_free(sc);
    /* the toxic waste dies with this frame */
    memset(&tau, 0, sizeof tau);
    memset(&alpha, 0, sizeof alpha);
    memset(&beta, 0, sizeof beta);
    memset(&gamma, 0, sizeof gamma);
    memset(&delta, 0, sizeof delta);
    memset(&sj, 0, sizeof sj);
    return rc;
}
