/*
 * The Groth16 prover for snarkjs keys (see zkey_prove.h).
 */
#include "prover/iden3/zkey_prove.h"

#include <errno.h>
#include <string.h>

#include "prover/mem.h"
#include "prover/msm.h"
#include "prover/ntt.h"
#include "prover/parallel.h"
#include "prover/rand.h"

void iden3_prove_opts_default(struct iden3_prove_opts *o)
{
    memset(o, 0, sizeof *o);
    o->proof = -1;
    o->partition = -1;
}

#define CHUNK 4096

/* dst[j] = src[(k_inv j) mod n]: snarkjs's row order into ours. */
typedef struct {
    fr_t *dst;
    const fr_t *src;
    size_t n;
    uint64_t k_inv;
} gather_t;

static void gather_chunk(void *ctx, size_t c)
{
    gather_t *g = ctx;
    size_t end = (c + 1) * CHUNK < g->n ? (c + 1) * CHUNK : g->n;
    uint64_t mask = g->n - 1;
    for (size_t j = c * CHUNK; j < end; j++)
        g->dst[j] = g->src[(g->k_inv * j) & mask];
}

/* data[i] *= g^i: evaluating afterwards gives the values on the coset g <w>. */
typedef struct {
    fr_t *data[3];
    size_t n;
    fr_t g;
} shift_t;

static void shift_chunk(void *ctx, size_t c)
{
    shift_t *s = ctx;
    size_t start = c * CHUNK, end = start + CHUNK < s->n ? start + CHUNK : s->n;
    fr_t p;
    uint64_t e = start;
    fr_pow(&p, &s->g, &e, 1);
    for (size_t i = start; i < end; i++) {
        for (int k = 0; k < 3; k++)
            fr_mul(&s->data[k][i], &s->data[k][i], &p);
        fr_mul(&p, &p, &s->g);
    }
}

/* The inverse of an odd k modulo 2^64 (Newton: each step doubles the
 * correct low bits). */
static uint64_t inv_odd(uint64_t k)
{
    uint64_t x = k;
    for (int i = 0; i < 6; i++)
        x *= 2 - k * x;
    return x;
}

int iden3_zkey_prove(groth16_proof_t *proof, const iden3_zkey_t *z, const fr_t *w, size_t n_w,
                     const struct iden3_prove_opts *opts)
{
    struct iden3_prove_opts def;
    if (!opts) {
        iden3_prove_opts_default(&def);
        opts = &def;
    }
    if (!proof || !z || !w || n_w != z->n_vars || !fr_is_one(&w[0]))
        return -EINVAL;
    groth16_times_t unused, *t = opts->times ? opts->times : &unused;
    memset(t, 0, sizeof *t);
    const size_t n = z->n;
    const unsigned th = opts->threads;
    const int pf = opts->proof, pt = opts->partition;
    ntt_domain_t d = {0};
    fr_t *ta = NULL, *tb = NULL, *abc[3] = {NULL, NULL, NULL};
    int rc = -ENOMEM;

    /* a, b in snarkjs's order, then ours; c = a b. */
    double t0 = groth16_now_s();
    ta = mem_alloc(MEM_KIND_ABC, pf, pt, n * sizeof(fr_t));
    tb = mem_alloc(MEM_KIND_ABC, pf, pt, n * sizeof(fr_t));
    for (int k = 0; k < 3; k++)
        abc[k] = mem_alloc(k == 2 ? MEM_KIND_H : MEM_KIND_ABC, pf, pt, n * sizeof(fr_t));
    if (!ta || !tb || !abc[0] || !abc[1] || !abc[2])
        goto done;
    if ((rc = r1cs_eval(ta, tb, NULL, z->ab, w, th)) < 0)
        goto done;
    uint64_t k = iden3_snarkjs_root_exponent();
    gather_t g = {abc[0], ta, n, inv_odd(k)};
    size_t chunks = (n + CHUNK - 1) / CHUNK;
    parallel_for(chunks, th, gather_chunk, &g);
    g.dst = abc[1];
    g.src = tb;
    parallel_for(chunks, th, gather_chunk, &g);
    mem_free(ta);
    mem_free(tb);
    ta = tb = NULL;
    memcpy(abc[2], abc[0], n * sizeof(fr_t));
    ntt_pointwise_mul_sub(abc[2], abc[1], NULL, NULL, n, th);
    t->eval = groth16_now_s() - t0;

    /* a b - c on the odd coset. */
    t0 = groth16_now_s();
    if ((rc = ntt_domain_init(&d, n, NTT_DOMAIN_TWIDDLES, pf, pt)) < 0)
        goto done;
    for (int i = 0; i < 3; i++)
        if ((rc = ntt_inverse(&d, abc[i], th)) < 0)
            goto done;
    shift_t sh = {{abc[0], abc[1], abc[2]}, n, {{0}}};
    iden3_snarkjs_root(&sh.g, z->log_n + 1);
    parallel_for(chunks, th, shift_chunk, &sh);
    for (int i = 0; i < 3; i++)
        if ((rc = ntt_forward(&d, abc[i], th)) < 0)
            goto done;
    ntt_pointwise_mul_sub(abc[0], abc[1], abc[2], NULL, n, th);
    mem_free(abc[1]);
    mem_free(abc[2]);
    abc[1] = abc[2] = NULL;
    ntt_domain_free(&d);
    groth16_stage_done(opts->on_stage, opts->stage_ctx, "h", t0, &t->ntt);

    /* MSMs. */
    struct msm_opts mo;
    msm_opts_default(&mo);
    mo.threads = th;
    mo.proof = pf;
    mo.partition = pt;
    g1_jac_t h, a, b1, c;
    g2_jac_t b2;
    size_t npub = z->n_public + 1ull, nv = z->n_vars;
    t0 = groth16_now_s();
    if ((rc = msm_g1(&h, z->h, n, abc[0], n, NULL, &mo)) < 0)
        goto done;
    groth16_stage_done(opts->on_stage, opts->stage_ctx, "msm_h", t0, &t->msm_h);
    mem_free(abc[0]);
    abc[0] = NULL;
    t0 = groth16_now_s();
    if ((rc = msm_g1(&c, z->c, nv - npub, w + npub, nv - npub, NULL, &mo)) < 0)
        goto done;
    groth16_stage_done(opts->on_stage, opts->stage_ctx, "msm_l", t0, &t->msm_l);
    t0 = groth16_now_s();
    if ((rc = msm_g1(&a, z->a, z->n_a, w, nv, z->density_a, &mo)) < 0)
        goto done;
    groth16_stage_done(opts->on_stage, opts->stage_ctx, "msm_a", t0, &t->msm_a);
    t0 = groth16_now_s();
    if ((rc = msm_g1(&b1, z->b_g1, z->n_b_g1, w, nv, z->density_b1, &mo)) < 0)
        goto done;
    groth16_stage_done(opts->on_stage, opts->stage_ctx, "msm_b1", t0, &t->msm_b1);
    t0 = groth16_now_s();
    if ((rc = msm_g2(&b2, z->b_g2, z->n_b_g2, w, nv, z->density_b2, &mo)) < 0)
        goto done;
    groth16_stage_done(opts->on_stage, opts->stage_ctx, "msm_b2", t0, &t->msm_b2);

    /* Assembly with the blinding r, s. */
    t0 = groth16_now_s();
    fr_t r, s, rs;
    if (opts->r)
        r = *opts->r;
    else if ((rc = rand_fr(&r)) < 0)
        goto done;
    if (opts->s)
        s = *opts->s;
    else if ((rc = rand_fr(&s)) < 0)
        goto done;
    fr_mul(&rs, &r, &s);
    fr_neg(&rs, &rs);
    const groth16_vk_t *vk = &z->vk;
    g1_jac_t delta1, tmp;
    g2_jac_t delta2, tmp2;
    g1_jac_from_affine(&delta1, &vk->delta_g1);
    g2_jac_from_affine(&delta2, &vk->delta_g2);
    /* pi_a */
    g1_jac_add_mixed(&a, &a, &vk->alpha_g1);
    g1_jac_mul_fr(&tmp, &delta1, &r);
    g1_jac_add(&a, &a, &tmp);
    /* pi_b (G2) and its G1 twin */
    g2_jac_add_mixed(&b2, &b2, &vk->beta_g2);
    g2_jac_mul_fr(&tmp2, &delta2, &s);
    g2_jac_add(&b2, &b2, &tmp2);
    g1_jac_add_mixed(&b1, &b1, &vk->beta_g1);
    g1_jac_mul_fr(&tmp, &delta1, &s);
    g1_jac_add(&b1, &b1, &tmp);
    /* pi_c */
    g1_jac_add(&c, &c, &h);
    g1_jac_mul_fr(&tmp, &a, &s);
    g1_jac_add(&c, &c, &tmp);
    g1_jac_mul_fr(&tmp, &b1, &r);
    g1_jac_add(&c, &c, &tmp);
    g1_jac_mul_fr(&tmp, &delta1, &rs);
    g1_jac_add(&c, &c, &tmp);
    g1_jac_to_affine(&proof->a, &a);
    g2_jac_to_affine(&proof->b, &b2);
    g1_jac_to_affine(&proof->c, &c);
    t->finish = groth16_now_s() - t0;
    rc = 0;
done:
    ntt_domain_free(&d);
    mem_free(ta);
    mem_free(tb);
    for (int i = 0; i < 3; i++)
        mem_free(abc[i]);
    return rc;
}
