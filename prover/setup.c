/*
 * Groth16 key generation from seeded toxic waste, as bellperson's
 * generator lays the keys out (see groth16.h and params.h).
 *
 * The QAP is evaluated at tau through the Lagrange basis of the domain H
 * (size n, generator w): L_i(tau) = (tau^n - 1) / n * w^i / (tau - w^i),
 * with one batch inversion, then accumulated over the columns of A, B, C.
 * Every query point is a fixed-base multiple of a generator: a table of
 * d * 2^(k*c) * G for each c-bit window k turns one scalar multiplication
 * into ~255/c mixed additions (Brickell, Gordon, McCurley, Wilson, "Fast
 * exponentiation with precomputation", EUROCRYPT 1992, the simple windowed
 * form), on all threads, with batch conversion to affine per chunk. With
 * groth16_setup_on and a device, a GPU runs the multiplications with the
 * same table (kernels_fixed_base) and the CPU the conversion to affine.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "prover/field/bls12_381.h"
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
    int rc = g->batch_to_affine(t->table, jac, entries);
    mem_free(jac);
    return rc;
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

/* fb_batch with the multiplications on CUDA device `device`
 * (kernels_fixed_base, the same table) and the conversion to affine here. */
static int fb_batch_device(void *out, const fb_table_t *t, const fr_t *scalars, size_t n, unsigned threads,
                           int device)
{
    const struct fb_group *g = t->g;
    if (n == 0)
        return 0;
    uint8_t *jac = mem_alloc(MEM_KIND_OTHER, -1, -1, n * g->jac_bytes);
    if (!jac)
        return -ENOMEM;
    int rc = kernels_set_device(device);
    if (rc == 0)
        rc = kernels_fixed_base(jac, g == &FB_G2 ? KERNELS_CURVE_G2 : KERNELS_CURVE_G1, t->table, t->windows, t->c,
                                scalars, n);
    if (rc == 0) {
        struct fb_affine_job job = {g, jac, out, n};
        parallel_for((n + SETUP_CHUNK - 1) / SETUP_CHUNK, threads, fb_affine_chunk, &job);
    }
    mem_free(jac);
    return rc;
}

/* The fixed-base multiplications of a setup: on the CPU (device < 0) or
 * on that CUDA device; the points are the same either way. */
static int fb_run(void *out, const fb_table_t *t, const fr_t *scalars, size_t n, unsigned threads, int device)
{
    return device < 0 ? fb_batch(out, t, scalars, n, threads) : fb_batch_device(out, t, scalars, n, threads, device);
}

/* ---- the QAP at tau -------------------------------------------------------- */

/* Lagrange basis of the domain at tau. */
static int lagrange_at(fr_t *L, size_t n, const fr_t *tau, const fr_t *omega)
{
    fr_t *den = mem_alloc(MEM_KIND_OTHER, -1, -1, n * sizeof(fr_t));
    if (!den)
        return -ENOMEM;
    fr_t wi = FR_ONE;
    for (size_t i = 0; i < n; i++) {
        fr_sub(&den[i], tau, &wi);       /* tau - w^i */
        L[i] = wi;
        fr_mul(&wi, &wi, omega);
    }
    fr_t *inv = mem_alloc(MEM_KIND_OTHER, -1, -1, n * sizeof(fr_t));
    if (!inv) {
        mem_free(den);
        return -ENOMEM;
    }
    fr_batch_inv(inv, den, n);
    /* (tau^n - 1) / n */
    fr_t zn, nf;
    uint64_t e[1] = {n};
    fr_pow(&zn, tau, e, 1);
    fr_sub(&zn, &zn, &FR_ONE);
    fr_from_u64(&nf, n);
    fr_inv(&nf, &nf);
    fr_mul(&zn, &zn, &nf);
    for (size_t i = 0; i < n; i++) {
        fr_mul(&L[i], &L[i], &inv[i]);
        fr_mul(&L[i], &L[i], &zn);
    }
    mem_free(inv);
    mem_free(den);
    return 0;
}

/* at[j] += sum over rows i of M[i][j] * L[i], for one matrix. */
static void accumulate(fr_t *at, const r1cs_t *cs, enum r1cs_matrix_id which, const fr_t *L)
{
    const r1cs_matrix_t *m = &cs->m[which];
    for (uint64_t i = 0; i < cs->num_constraints; i++) {
        for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
            fr_t t;
            fr_mul(&t, &cs->coeffs[m->coeff[k]], &L[i]);
            fr_add(&at[m->col[k]], &at[m->col[k]], &t);
        }
    }
}

static bool bit_set(const uint64_t *bits, uint64_t j)
{
    return (bits[j / 64] >> (j % 64)) & 1;
}

int groth16_setup(groth16_params_t **ret, const groth16_shape_t *shape, uint64_t seed, unsigned threads)
{
    return groth16_setup_on(ret, shape, seed, threads, -1);
}

int groth16_setup_on(groth16_params_t **ret, const groth16_shape_t *shape, uint64_t seed, unsigned threads,
                     int device)
{
    const r1cs_t *cs = shape->cs;
    size_t n = shape->n;
    const uint64_t *da = shape->density_a, *db = shape->density_b;
    uint64_t n_a = shape->n_a, n_b = shape->n_b;
    uint64_t nv = r1cs_num_vars(cs);
    int rc = -ENOMEM;

    uint64_t state = seed;
    fr_t tau, alpha, beta, gamma, delta;
    rand_fr_nonzero(&tau, &state);
    rand_fr_nonzero(&alpha, &state);
    rand_fr_nonzero(&beta, &state);
    rand_fr_nonzero(&gamma, &state);
    rand_fr_nonzero(&delta, &state);

    fr_t *L = NULL, *at = NULL, *bt = NULL, *ct = NULL, *sc = NULL;
    groth16_params_t *p = NULL;
    fb_table_t t1 = {0}, t2 = {0};

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
    if ((rc = lagrange_at(L, n, &tau, &shape->domain.root)) < 0)
        goto done;
    accumulate(at, cs, R1CS_A, L);
    accumulate(bt, cs, R1CS_B, L);
    accumulate(ct, cs, R1CS_C, L);
    /* input constraints: row m + j has A = input j */
    for (uint32_t j = 0; j < cs->num_inputs; j++)
        fr_add(&at[j], &at[j], &L[cs->num_constraints + j]);
    if ((rc = params_alloc(&p, cs->num_inputs, n - 1, cs->num_aux, n_a, n_b, n_b)) < 0)
        goto done;
    size_t g1_scalars = (n - 1) + nv + n_a + n_b;
    if ((rc = fb_table_init(&t1, &FB_G1, g1_scalars, threads)) < 0 ||
        (rc = fb_table_init(&t2, &FB_G2, n_b + 3, threads)) < 0)
        goto done;

    fr_t gamma_inv, delta_inv, s;
    fr_inv(&gamma_inv, &gamma);
    fr_inv(&delta_inv, &delta);

    /* verifying key */
    fr_t vk_sc[3] = {alpha, beta, delta};
    g1_affine_t vk_g1[3];
    if ((rc = fb_run(vk_g1, &t1, vk_sc, 3, 1, device)) < 0)
        goto done;
    p->vk.alpha_g1 = vk_g1[0];
    p->vk.beta_g1 = vk_g1[1];
    p->vk.delta_g1 = vk_g1[2];
    fr_t vk_sc2[3] = {beta, gamma, delta};
    g2_affine_t vk_g2[3];
    if ((rc = fb_run(vk_g2, &t2, vk_sc2, 3, 1, device)) < 0)
        goto done;
    p->vk.beta_g2 = vk_g2[0];
    p->vk.gamma_g2 = vk_g2[1];
    p->vk.delta_g2 = vk_g2[2];

    /* ic (inputs) and l (aux): (beta A + alpha B + C) / gamma or / delta */
    for (uint64_t j = 0; j < nv; j++) {
        fr_t x, y;
        fr_mul(&x, &beta, &at[j]);
        fr_mul(&y, &alpha, &bt[j]);
        fr_add(&x, &x, &y);
        fr_add(&x, &x, &ct[j]);
        fr_mul(&sc[j], &x, j < cs->num_inputs ? &gamma_inv : &delta_inv);
    }
    if ((rc = fb_run(p->vk.ic, &t1, sc, cs->num_inputs, threads, device)) < 0 ||
        (rc = fb_run(p->l, &t1, sc + cs->num_inputs, cs->num_aux, threads, device)) < 0)
        goto done;

    /* h: tau^i (tau^n - 1) / delta, i < n - 1 */
    {
        uint64_t e[1] = {n};
        fr_pow(&s, &tau, e, 1);
        fr_sub(&s, &s, &FR_ONE);
        fr_mul(&s, &s, &delta_inv);
        for (size_t i = 0; i + 1 < n; i++) {
            sc[i] = s;
            fr_mul(&s, &s, &tau);
        }
        if ((rc = fb_run(p->h, &t1, sc, n - 1, threads, device)) < 0)
            goto done;
    }

    /* a, b_g1, b_g2 over the dense columns */
    size_t k = 0;
    for (uint64_t j = 0; j < nv; j++)
        if (bit_set(da, j))
            sc[k++] = at[j];
    if ((rc = fb_run(p->a, &t1, sc, n_a, threads, device)) < 0)
        goto done;
    k = 0;
    for (uint64_t j = 0; j < nv; j++)
        if (bit_set(db, j))
            sc[k++] = bt[j];
    if ((rc = fb_run(p->b_g1, &t1, sc, n_b, threads, device)) < 0 ||
        (rc = fb_run(p->b_g2, &t2, sc, n_b, threads, device)) < 0)
        goto done;

    *ret = p;
    p = NULL;
    rc = 0;
done:
    fb_table_free(&t1);
    fb_table_free(&t2);
    params_free(p);
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
    return rc;
}
