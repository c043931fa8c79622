/*
 * The Groth16 prover (see groth16.h): the circuit's shape, the split
 * prove_start / prove_finish API, and the proof encoding.
 *
 * prove_start, per partition:
 *   a, b, c = A w, B w, C w over the domain (plus a_i = input_i for the
 *     input constraints), tracked as MEM_KIND_ABC (groth16_abc_eval: the
 *     batch pipeline makes them in synthesis, as production provers do);
 *   H: iNTT, coset NTT, (a b - c) / Z on the coset, coset iNTT: on the
 *     CPU in place in a, b and c freed as soon as H is there, a after the
 *     H MSM; on a GPU on the device (a, b, c freed once uploaded), where
 *     h stays for its MSM;
 *   MSMs: H, L (aux), A and B_g1 (density-selected), on opts->threads;
 *   b_g2 MSM on a background thread over a pending copy of the witness
 *     values with a B column (n_b of them).
 * prove_finish joins it and assembles, with random r, s:
 *   A = alpha + sum w_j a_j + r delta
 *   B = beta + sum w_j b_j + s delta          (G2, and B_g1 in G1)
 *   C = sum aux_j l_j + sum h_i h_i' + s A + r B_g1 - r s delta
 */
#define _GNU_SOURCE
#include "prover/groth16.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "arith/curve/encode.h"
#include "prover/mem.h"
#include "prover/msm.h"
#include "prover/parallel.h"
#include "prover/rand.h"

double groth16_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void groth16_stage_done(groth16_stage_fn *on_stage, void *ctx, const char *stage, double t0, double *slot)
{
    double t1 = groth16_now_s();
    *slot = t1 - t0;
    if (on_stage)
        on_stage(ctx, stage, t0, t1);
}

/* A heavy stage on the backend's lane (a no-op on the CPU): it begins when
 * its lane is held, and a wait for it, behind another proof's call on the
 * lane, is a "wait_lane" row of its own (from 0.1 ms; an uncontended lock
 * takes microseconds), so a stage's row spans its own use of the device. */
struct lane_stage {
    const struct groth16_prove_opts *o;
    bool g2;
    double t0; /* the stage's start: the lane held */
};

static int lane_stage_begin(struct lane_stage *s, const struct groth16_prove_opts *o, bool g2)
{
    *s = (struct lane_stage){o, g2, groth16_now_s()};
    if (!o->backend)
        return 0;
    int rc = backend_lane_hold(o->backend, o->gpu_lane, g2);
    if (rc < 0)
        return rc;
    double t = groth16_now_s();
    if (t - s->t0 >= 1e-4 && o->on_stage)
        o->on_stage(o->stage_ctx, "wait_lane", s->t0, t);
    s->t0 = t;
    return 0;
}

/* Releases the lane; when the stage succeeded, its row (and its time in
 * *slot). */
static void lane_stage_end(struct lane_stage *s, const char *stage, double *slot, int rc)
{
    backend_lane_drop(s->o->backend, s->o->gpu_lane, s->g2);
    if (rc == 0)
        groth16_stage_done(s->o->on_stage, s->o->stage_ctx, stage, s->t0, slot);
}

/* ---- shape -------------------------------------------------------------- */

size_t groth16_domain_size(const r1cs_t *cs)
{
    uint64_t need = cs->num_constraints + cs->num_inputs;
    size_t n = 1;
    while (n < need)
        n <<= 1;
    return n;
}

void groth16_shape_free(groth16_shape_t *s)
{
    if (!s)
        return;
    mem_free(s->density_a);
    mem_free(s->density_b);
    ntt_domain_free(&s->domain);
    free(s);
}

int groth16_shape_new(groth16_shape_t **ret, const r1cs_t *cs)
{
    if (!cs || cs->num_inputs == 0)
        return -EINVAL;
    size_t n = groth16_domain_size(cs);
    if (n > ((size_t)1 << NTT_MAX_LOG))
        return -EINVAL;
    groth16_shape_t *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->cs = cs;
    s->n = n;
    size_t words = r1cs_density_words(cs);
    s->density_a = mem_calloc(MEM_KIND_CIRCUIT, -1, -1, words * sizeof(uint64_t));
    s->density_b = mem_calloc(MEM_KIND_CIRCUIT, -1, -1, words * sizeof(uint64_t));
    int rc = -ENOMEM;
    if (!s->density_a || !s->density_b)
        goto fail;
    uint64_t ni, na;
    if ((rc = r1cs_density(s->density_a, &ni, &na, cs, R1CS_A)) < 0)
        goto fail;
    /* the input constraints put every input into A */
    for (uint32_t j = 0; j < cs->num_inputs; j++)
        s->density_a[j / 64] |= (uint64_t)1 << (j % 64);
    s->n_a = cs->num_inputs + na;
    if ((rc = r1cs_density(s->density_b, &ni, &na, cs, R1CS_B)) < 0)
        goto fail;
    s->n_b = ni + na;
    if ((rc = ntt_domain_init(&s->domain, n, NTT_DOMAIN_TWIDDLES, -1, -1)) < 0)
        goto fail;
    *ret = s;
    return 0;
fail:
    groth16_shape_free(s);
    return rc;
}

int groth16_params_check(const groth16_params_t *pk, const groth16_shape_t *shape, char *msg, size_t cap)
{
    const r1cs_t *cs = shape->cs;
    const char *what = NULL;
    size_t have = 0, want = 0;
    if (pk->vk.n_ic != cs->num_inputs)
        what = "ic", have = pk->vk.n_ic, want = cs->num_inputs;
    else if (pk->n_h != shape->n - 1)
        what = "h", have = pk->n_h, want = shape->n - 1;
    else if (pk->n_l != cs->num_aux)
        what = "l", have = pk->n_l, want = cs->num_aux;
    else if (pk->n_a != shape->n_a)
        what = "a", have = pk->n_a, want = shape->n_a;
    else if (pk->n_b_g1 != shape->n_b)
        what = "b_g1", have = pk->n_b_g1, want = shape->n_b;
    else if (pk->n_b_g2 != shape->n_b)
        what = "b_g2", have = pk->n_b_g2, want = shape->n_b;
    if (what) {
        snprintf(msg, cap, "the parameters belong to another circuit: %s has %zu points, this circuit needs %zu",
                 what, have, want);
        return -EINVAL;
    }
    return 0;
}

/* ---- proving ------------------------------------------------------------ */

void groth16_prove_opts_default(struct groth16_prove_opts *o)
{
    memset(o, 0, sizeof *o);
    o->proof = -1;
    o->partition = -1;
    o->dealloc = DEALLOC_SYNC;
    o->split = true;
}

struct groth16_pending {
    const groth16_params_t *pk;
    const groth16_shape_t *shape;
    struct groth16_prove_opts opts;
    fr_t *w_b;              /* the witness values with a B column (n_b): the b_g2 MSM's scalars */
    size_t n_b;
    g1_jac_t a, b1, l, h;   /* G1 MSM results */
    g2_jac_t b2;
    int b2_rc;
    double t_b2, dev_b2;
    pthread_t thread;
    bool thread_running;
};

static void msm_opts_for(struct msm_opts *m, const struct groth16_prove_opts *o)
{
    msm_opts_default(m);
    m->threads = o->threads;
    m->proof = o->proof;
    m->partition = o->partition;
}

static int run_b2(groth16_pending_t *p)
{
    struct msm_opts m;
    msm_opts_for(&m, &p->opts);
    struct lane_stage ls;
    int rc = lane_stage_begin(&ls, &p->opts, true);
    if (rc < 0)
        return rc;
    rc = backend_msm_g2(p->opts.backend, p->opts.gpu_lane, &p->b2, p->pk, p->w_b, p->n_b, /* density= */ NULL, &m);
    lane_stage_end(&ls, "msm_b2", &p->t_b2, rc);
    mem_touch(p->w_b); /* from here on the pending copy only waits for finish */
    if (p->opts.free_at_last_use & (1u << MEM_KIND_PENDING)) {
        void *bufs[1] = {p->w_b};
        p->w_b = NULL;
        dealloc_release(bufs, 1, p->opts.dealloc);
    }
    if (rc == 0)
        p->dev_b2 = backend_device_ms(p->opts.backend, p->opts.gpu_lane, BACKEND_STAGE_MSM_B_G2) / 1e3;
    return rc;
}

static void *b2_thread(void *arg)
{
    groth16_pending_t *p = arg;
    p->b2_rc = run_b2(p);
    return NULL;
}

/* Unpins (when pinned) and releases buffers of abc as mode says. */
static void abc_release(fr_t *const *bufs, size_t n, bool pinned, enum dealloc_mode mode)
{
    dealloc_release_with((void *const *)bufs, n, mode, pinned ? backend_host_unpin : NULL);
}

void groth16_abc_free(groth16_abc_t *abc)
{
    if (!abc)
        return;
    fr_t *bufs[3] = {abc->a, abc->b, abc->c};
    abc_release(bufs, 3, abc->pinned, DEALLOC_SYNC);
    abc->a = abc->b = abc->c = NULL;
    abc->pinned = false;
}

int groth16_abc_eval(groth16_abc_t *ret, const groth16_shape_t *shape, const fr_t *w, unsigned threads,
                     int proof, int partition, const backend_t *backend)
{
    const r1cs_t *cs = shape->cs;
    size_t n = shape->n;
    uint64_t m = cs->num_constraints;
    if (!w || !fr_is_one(&w[0]))
        return -EINVAL;
    groth16_abc_t t = {
        .a = mem_alloc(MEM_KIND_ABC, proof, partition, n * sizeof(fr_t)),
        .b = mem_alloc(MEM_KIND_ABC, proof, partition, n * sizeof(fr_t)),
        .c = mem_alloc(MEM_KIND_ABC, proof, partition, n * sizeof(fr_t)),
    };
    int rc = -ENOMEM;
    if (backend && t.a && t.b && t.c) {
        /* all three or none: the upload path is chosen per array, but a
         * partial pin would be undone piecemeal */
        int pa = backend_host_pin(backend, t.a, n * sizeof(fr_t));
        int pb = pa == 0 ? backend_host_pin(backend, t.b, n * sizeof(fr_t)) : pa;
        int pc = pb == 0 ? backend_host_pin(backend, t.c, n * sizeof(fr_t)) : pb;
        if (pc == 0) {
            t.pinned = true;
        } else {
            if (pa == 0)
                backend_host_unpin(t.a);
            if (pb == 0)
                backend_host_unpin(t.b);
        }
    }
    if (!t.a || !t.b || !t.c || (rc = r1cs_eval(t.a, t.b, t.c, cs, w, threads)) < 0) {
        groth16_abc_free(&t);
        return rc;
    }
    /* input constraints: input_j * 0 = 0 */
    for (uint32_t j = 0; j < cs->num_inputs; j++) {
        t.a[m + j] = w[j];
        t.b[m + j] = FR_ZERO;
        t.c[m + j] = FR_ZERO;
    }
    size_t used = m + cs->num_inputs;
    memset(t.a + used, 0, (n - used) * sizeof(fr_t));
    memset(t.b + used, 0, (n - used) * sizeof(fr_t));
    memset(t.c + used, 0, (n - used) * sizeof(fr_t));
    *ret = t;
    return 0;
}

void groth16_pending_free(groth16_pending_t *p)
{
    if (!p)
        return;
    if (p->thread_running)
        pthread_join(p->thread, NULL);
    mem_free(p->w_b);
    free(p);
}

/* The witness values selected by a density bitmap, in order, in blocks of
 * SELECT_BLOCK_VARS variables on threads: each block's output starts at the
 * count of set bits before it. On one thread, a 2^24 partition's selection
 * (with the page faults of the fresh output) held up every GPU partition's
 * start by 0.3-0.45 s on the H200 host. */
#define SELECT_BLOCK_VARS ((uint64_t)1 << 18)

struct select_job {
    fr_t *out;
    const fr_t *w;
    uint64_t nv;
    const uint64_t *density;
    const size_t *start; /* output index of each block's first selected value */
};

static void select_block(void *ctx, size_t b)
{
    const struct select_job *j = ctx;
    uint64_t v0 = b * SELECT_BLOCK_VARS, v1 = v0 + SELECT_BLOCK_VARS < j->nv ? v0 + SELECT_BLOCK_VARS : j->nv;
    size_t k = j->start[b];
    for (uint64_t v = v0; v < v1; v++)
        if (j->density[v / 64] >> (v % 64) & 1)
            j->out[k++] = j->w[v];
}

static void select_dense(fr_t *out, const fr_t *w, uint64_t nv, const uint64_t *density, unsigned threads)
{
    size_t blocks = (size_t)((nv + SELECT_BLOCK_VARS - 1) / SELECT_BLOCK_VARS);
    size_t *start = malloc((blocks ? blocks : 1) * sizeof *start);
    struct select_job job = {out, w, nv, density, start};
    if (!start) { /* no room for the offsets: on this thread */
        for (uint64_t v = 0, k = 0; v < nv; v++)
            if (density[v / 64] >> (v % 64) & 1)
                out[k++] = w[v];
        return;
    }
    size_t k = 0;
    for (size_t b = 0; b < blocks; b++) {
        start[b] = k;
        uint64_t v0 = b * SELECT_BLOCK_VARS, v1 = v0 + SELECT_BLOCK_VARS < nv ? v0 + SELECT_BLOCK_VARS : nv;
        for (uint64_t word = v0 / 64; word * 64 < v1; word++) {
            uint64_t bits = density[word];
            if ((word + 1) * 64 > v1)
                bits &= ((uint64_t)1 << (v1 - word * 64)) - 1; /* bits past nv do not count */
            k += (size_t)__builtin_popcountll(bits);
        }
    }
    parallel_for(blocks, threads, select_block, &job);
    free(start);
}

/* The witness handed over with free_at_last_use's aux bit, at its last use. */
static void free_witness(fr_t **w)
{
    if (!*w)
        return;
    mem_touch(*w);
    mem_free(*w);
    *w = NULL;
}

int groth16_prove_start_abc(groth16_pending_t **ret, const groth16_params_t *pk, const groth16_shape_t *shape,
                            const fr_t *w, groth16_abc_t *abc, const struct groth16_prove_opts *opts)
{
    const r1cs_t *cs = shape->cs;
    groth16_abc_t own = *abc;
    memset(abc, 0, sizeof *abc);
    /* w is ours to free at its last use when the caller handed it over */
    fr_t *w_owned = opts->free_at_last_use & (1u << MEM_KIND_AUX) ? (fr_t *)w : NULL;
    bool free_w_on_cpu = !opts->backend;
    if (!pk || !w || !fr_is_one(&w[0]) || !own.a || !own.b || !own.c || pk->n_h != shape->n - 1 ||
        pk->n_l != cs->num_aux || pk->vk.n_ic != cs->num_inputs || pk->n_a != shape->n_a ||
        pk->n_b_g1 != shape->n_b || pk->n_b_g2 != shape->n_b) {
        free_witness(&w_owned);
        groth16_abc_free(&own);
        return -EINVAL;
    }
    groth16_pending_t *p = calloc(1, sizeof *p);
    if (!p) {
        free_witness(&w_owned);
        groth16_abc_free(&own);
        return -ENOMEM;
    }
    p->pk = pk;
    p->shape = shape;
    p->opts = *opts;
    const struct groth16_prove_opts *o = &p->opts;
    groth16_times_t unused, *t = o->times ? o->times : &unused;
    uint64_t nv = r1cs_num_vars(cs);
    int rc = -ENOMEM;

    p->n_b = shape->n_b;
    p->w_b = mem_alloc(MEM_KIND_PENDING, o->proof, o->partition, p->n_b * sizeof(fr_t));
    if (!p->w_b)
        goto fail;
    select_dense(p->w_b, w, nv, shape->density_b, o->threads);
    if (o->split) {
        if (pthread_create(&p->thread, NULL, b2_thread, p) == 0)
            p->thread_running = true;
        else
            p->b2_rc = run_b2(p);
    }

    /* H: in place of a on the CPU, where b and c are done with once it is
     * there; on the device on a GPU, where a, b and c are done with as soon
     * as they are uploaded */
    struct lane_stage ls;
    if ((rc = lane_stage_begin(&ls, o, false)) < 0)
        goto fail;
    rc = backend_compute_h(o->backend, o->gpu_lane, own.a, own.b, own.c, &shape->domain, o->threads);
    /* the row ends with the device's work: the release below is the host's */
    lane_stage_end(&ls, "h", &t->ntt, rc);
    {
        /* a GPU has read all three; the CPU keeps h in a. Page-locked ones
         * are unpinned where the buffers are released. On a GPU off this
         * thread when releases are asynchronous: at 2^27 freeing the three
         * 4 GiB buffers took 1.2 s of the worker's time, which the device
         * then idled (results/h200/porep-32g.md). On the CPU the release
         * shares the cores with the prove anyway, and stays where the
         * capacity model measures it; a serial queue (a fault injected)
         * holds the partition's other buffers, not these */
        fr_t *done[3] = {own.b, own.c, o->backend ? own.a : NULL};
        enum dealloc_mode mode =
            own.pinned || (o->backend && o->dealloc == DEALLOC_ASYNC) ? o->dealloc : DEALLOC_SYNC;
        abc_release(done, 3, own.pinned, mode);
        own.b = own.c = NULL;
        if (o->backend)
            own.a = NULL;
    }
    if (rc < 0)
        goto fail;
    t->dev_ntt = backend_device_ms(o->backend, o->gpu_lane, BACKEND_STAGE_H) / 1e3;
    t->dev_h_upload = backend_device_ms(o->backend, o->gpu_lane, BACKEND_STAGE_H_UPLOAD) / 1e3;
    struct msm_opts m;
    msm_opts_for(&m, o);
    if ((rc = lane_stage_begin(&ls, o, false)) < 0)
        goto fail;
    rc = backend_msm_h(o->backend, o->gpu_lane, &p->h, pk, own.a, shape->n - 1, &m);
    lane_stage_end(&ls, "msm_h", &t->msm_h, rc);
    mem_free(own.a);
    own.a = NULL;
    if (rc < 0)
        goto fail;
    t->dev_msm_h = backend_device_ms(o->backend, o->gpu_lane, BACKEND_STAGE_MSM_H) / 1e3;
    /* the witness as the three MSMs over it read it: on a GPU copied to the
     * device once (the copy counts in msm_l) */
    const fr_t *wm;
    if ((rc = lane_stage_begin(&ls, o, false)) < 0)
        goto fail;
    if ((rc = backend_witness(o->backend, o->gpu_lane, w, nv, &wm)) == 0 && o->backend)
        free_witness(&w_owned); /* the MSMs read the device's copy */
    if (rc == 0)
        rc = backend_msm_g1(o->backend, o->gpu_lane, &p->l, BACKEND_L, pk, wm + cs->num_inputs, cs->num_aux, NULL,
                            &m);
    lane_stage_end(&ls, "msm_l", &t->msm_l, rc);
    if (rc < 0)
        goto fail;
    t->dev_msm_l = backend_device_ms(o->backend, o->gpu_lane, BACKEND_STAGE_MSM_L) / 1e3;
    if ((rc = lane_stage_begin(&ls, o, false)) < 0)
        goto fail;
    rc = backend_msm_g1(o->backend, o->gpu_lane, &p->a, BACKEND_A, pk, wm, nv, shape->density_a, &m);
    lane_stage_end(&ls, "msm_a", &t->msm_a, rc);
    if (rc < 0)
        goto fail;
    t->dev_msm_a = backend_device_ms(o->backend, o->gpu_lane, BACKEND_STAGE_MSM_A) / 1e3;
    if ((rc = lane_stage_begin(&ls, o, false)) < 0)
        goto fail;
    rc = backend_msm_g1(o->backend, o->gpu_lane, &p->b1, BACKEND_B_G1, pk, wm, nv, shape->density_b, &m);
    lane_stage_end(&ls, "msm_b1", &t->msm_b1, rc);
    if (rc < 0)
        goto fail;
    if (free_w_on_cpu)
        free_witness(&w_owned);
    t->dev_msm_b1 = backend_device_ms(o->backend, o->gpu_lane, BACKEND_STAGE_MSM_B_G1) / 1e3;
    *ret = p;
    return 0;
fail:
    free_witness(&w_owned);
    groth16_abc_free(&own);
    groth16_pending_free(p);
    return rc;
}

int groth16_prove_start(groth16_pending_t **ret, const groth16_params_t *pk, const groth16_shape_t *shape,
                        const fr_t *w, const struct groth16_prove_opts *opts)
{
    if (!pk || !w || !fr_is_one(&w[0]))
        return -EINVAL;
    groth16_abc_t abc;
    double t0 = groth16_now_s();
    int rc = groth16_abc_eval(&abc, shape, w, opts->threads, opts->proof, opts->partition, opts->backend);
    if (rc < 0)
        return rc;
    if (opts->times)
        opts->times->eval = groth16_now_s() - t0;
    return groth16_prove_start_abc(ret, pk, shape, w, &abc, opts);
}

int groth16_prove_finish(groth16_proof_t *proof, groth16_pending_t *p)
{
    int rc;
    double t_start = groth16_now_s();
    if (p->thread_running) {
        pthread_join(p->thread, NULL);
        p->thread_running = false;
    } else if (!p->opts.split) {
        p->b2_rc = run_b2(p);
    }
    rc = p->b2_rc;
    if (rc < 0) {
        groth16_pending_free(p);
        return rc;
    }
    const groth16_vk_t *vk = &p->pk->vk;
    fr_t r, s, rs;
    if (p->opts.blind) {
        r = p->opts.blind[0];
        s = p->opts.blind[1];
    } else if ((rc = rand_fr(&r)) < 0 || (rc = rand_fr(&s)) < 0) {
        /* the blinding: a failing random source is an error, never a loop */
        groth16_pending_free(p);
        return rc;
    }
    fr_mul(&rs, &r, &s);

    g1_jac_t a, b1, c, t, delta1;
    g2_jac_t b2, t2;
    g1_jac_from_affine(&delta1, &vk->delta_g1);
    /* A = alpha + msm + r delta */
    g1_jac_mul_fr(&t, &delta1, &r);
    g1_jac_add(&a, &p->a, &t);
    g1_jac_add_mixed(&a, &a, &vk->alpha_g1);
    /* B = beta + msm + s delta, in G2 and G1 */
    g2_jac_from_affine(&t2, &vk->delta_g2);
    g2_jac_mul_fr(&t2, &t2, &s);
    g2_jac_add(&b2, &p->b2, &t2);
    g2_jac_add_mixed(&b2, &b2, &vk->beta_g2);
    g1_jac_mul_fr(&t, &delta1, &s);
    g1_jac_add(&b1, &p->b1, &t);
    g1_jac_add_mixed(&b1, &b1, &vk->beta_g1);
    /* C = L + H + s A + r B1 - r s delta */
    g1_jac_add(&c, &p->l, &p->h);
    g1_jac_mul_fr(&t, &a, &s);
    g1_jac_add(&c, &c, &t);
    g1_jac_mul_fr(&t, &b1, &r);
    g1_jac_add(&c, &c, &t);
    g1_jac_mul_fr(&t, &delta1, &rs);
    g1_jac_neg(&t, &t);
    g1_jac_add(&c, &c, &t);

    g1_jac_to_affine(&proof->a, &a);
    g2_jac_to_affine(&proof->b, &b2);
    g1_jac_to_affine(&proof->c, &c);

    void *bufs[1] = {p->w_b};
    p->w_b = NULL;
    dealloc_release(bufs, 1, p->opts.dealloc);
    if (p->opts.times) {
        p->opts.times->msm_b2 = p->t_b2;
        p->opts.times->dev_msm_b2 = p->dev_b2;
        p->opts.times->finish = groth16_now_s() - t_start;
    }
    groth16_pending_free(p);
    return 0;
}

int groth16_prove(groth16_proof_t *proof, const groth16_params_t *pk, const groth16_shape_t *shape,
                  const fr_t *w, const struct groth16_prove_opts *opts)
{
    groth16_pending_t *p;
    int rc = groth16_prove_start(&p, pk, shape, w, opts);
    if (rc < 0)
        return rc;
    return groth16_prove_finish(proof, p);
}

/* ---- encoding ------------------------------------------------------------ */

void groth16_proof_write(uint8_t out[GROTH16_PROOF_BYTES], const groth16_proof_t *proof)
{
    encode_g1_write_compressed(out, &proof->a);
    encode_g2_write_compressed(out + ENCODE_G1_COMPRESSED_BYTES, &proof->b);
    encode_g1_write_compressed(out + ENCODE_G1_COMPRESSED_BYTES + ENCODE_G2_COMPRESSED_BYTES, &proof->c);
}

int groth16_proof_read(groth16_proof_t *proof, const uint8_t in[GROTH16_PROOF_BYTES])
{
    groth16_proof_t p;
    int rc;
    if ((rc = encode_g1_read(&p.a, in, ENCODE_G1_COMPRESSED_BYTES, 0)) < 0 ||
        (rc = encode_g2_read(&p.b, in + ENCODE_G1_COMPRESSED_BYTES, ENCODE_G2_COMPRESSED_BYTES, 0)) < 0 ||
        (rc = encode_g1_read(&p.c, in + ENCODE_G1_COMPRESSED_BYTES + ENCODE_G2_COMPRESSED_BYTES,
                             ENCODE_G1_COMPRESSED_BYTES, 0)) < 0)
        return rc;
    *proof = p;
    return 0;
}
