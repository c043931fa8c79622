/* The batch pipeline; see pipeline.h. */
#define _GNU_SOURCE
#include "harness/run/run_clock.h"
#include "harness/run/pipeline.h"

#include <errno.h>
#include <jemalloc/jemalloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "prover/backend.h"
#include "prover/mem.h"

struct pipeline;

/* What a prove's stage rows are written with (groth16's on_stage). */
struct stage_tag {
    struct pipeline *p;
    int proof, partition;
    char worker[16]; /* the prover worker the partition went through */
};

/* One partition on its way through the stages. */
struct part {
    struct part *next;
    int proof, partition;
    struct stage_tag tag;
    fr_t *w;                    /* witness, until prove_start is done */
    groth16_abc_t abc;          /* a, b, c from synthesis, until prove_start takes them */
    void *shadow;               /* planted leak/hold buffer (faults) */
    groth16_pending_t *pending; /* from prove_start to prove_finish */
    groth16_proof_t proof_out;
    double t_queued;            /* ms: entered the prover queue */
    uint64_t reserved;          /* bytes it holds of the memory budget */
    bool budgeted;              /* admitted by the budget, not yet returned to it */
    fr_t blind[2];              /* r, s with --blind-seed */
};

struct queue {
    struct part *head, *tail;
    unsigned n, cap; /* cap 0: unbounded */
};

struct proof_state {
    double t_submit, t_start, t_done;
    unsigned parts_done;
    int verified; /* as written to proofs.csv */
    bool started, failed;
    groth16_proof_t *proofs; /* partitions */
    fr_t *inputs;            /* partitions x n_inputs */
};

/* A buffer to free at a later time (planted hold fault). */
struct delayed {
    struct delayed *next;
    void *buf;
    double due_ms;
};

struct pipeline {
    struct pipeline_config cfg;
    struct pipeline_env env;
    size_t n_inputs;

    pthread_mutex_t lock;
    pthread_cond_t cond; /* any change: queues, proofs done */
    struct queue synth_q, prove_q, finish_q;
    struct proof_state *proofs;
    unsigned admitted, in_flight, done, failed;
    unsigned *done_order; /* proofs in the order they completed (done of them) */
    unsigned reported;    /* of done_order, handed to env.proof_done */
    bool stopping, closing;
    int error;
    struct delayed *delayed;

    /* partitions per state, changed under lock only, so that one look
     * under the lock sees every partition in exactly one state */
    unsigned n_synth, n_blocked, n_prove, n_finish;
    unsigned parts_admitted; /* admitted and not dropped (failure, interruption) */
    unsigned parts_done;
    atomic_uint proofs_done;
    atomic_uint leak_counter;

    pthread_t *threads;
    unsigned n_provers;    /* gpu_workers per device (in all on the CPU) */
    unsigned n_threads;
};

static double t_ms(const struct pipeline *p)
{
    return (run_clock_now() - p->env.t0) * 1e3;
}

/* groth16's on_stage: a heavy stage of a partition's prove (h, msm_*) as a
 * row of stages.csv; msm_b2 comes from the split's own thread. */
static void on_prove_stage(void *ctx, const char *stage, double t_start_s, double t_end_s)
{
    const struct stage_tag *tag = ctx;
    double t0 = tag->p->env.t0;
    run_files_stage(tag->p->env.rf, tag->proof, tag->partition, stage, tag->worker, (t_start_s - t0) * 1e3,
                    (t_end_s - t0) * 1e3);
}

static void q_push(struct queue *q, struct part *x)
{
    x->next = NULL;
    if (q->tail)
        q->tail->next = x;
    else
        q->head = x;
    q->tail = x;
    q->n++;
}

static struct part *q_pop(struct queue *q)
{
    struct part *x = q->head;
    if (x) {
        q->head = x->next;
        if (!q->head)
            q->tail = NULL;
        q->n--;
    }
    return x;
}

static void fail_locked(struct pipeline *p, int rc)
{
    if (!p->error)
        p->error = rc;
    p->stopping = true;
    pthread_cond_broadcast(&p->cond);
}

static void purge_allocator(const struct pipeline *p)
{
    if (p->cfg.faults.no_purge)
        return;
    mallctl("arena.4096.purge", NULL, NULL, NULL, 0);
}

static void free_part(struct part *x)
{
    mem_free(x->w);
    groth16_abc_free(&x->abc);
    if (x->pending)
        groth16_pending_free(x->pending);
    free(x);
}

/* A partition that will never be done (a failure, an interruption) leaves
 * the admitted count with its last state (under p->lock); the caller frees
 * it after unlocking, so no buffer (nor a b_g2 join) is freed under the
 * lock the sampler takes every tick. */
static void drop_part_locked(struct pipeline *p, struct part *x)
{
    p->parts_admitted--;
    if (x->budgeted)
        mem_budget_done_locked(p->env.budget, x->proof, x->partition, /* dropped= */ true, &x->reserved);
    x->budgeted = false;
}

/* The budget's view of a partition's move to state s (under p->lock). */
static void budget_move_locked(struct pipeline *p, struct part *x, enum mem_budget_state s)
{
    if (p->env.budget)
        mem_budget_move_locked(p->env.budget, x->proof, x->partition, s, &x->reserved);
}

/* Whether synthesis may take x now (under p->lock): 1 yes, 0 wait, < 0 never. */
static int budget_admit_locked(struct pipeline *p, struct part *x)
{
    if (!p->env.budget)
        return 1;
    int rc = mem_budget_admit_locked(p->env.budget, x->proof, x->partition, &x->reserved);
    x->budgeted = rc == 1;
    return rc;
}

/* A partition's blinding with --blind-seed: r and s from splitmix64 over
 * the seed, the proof and the partition, below 2^254 < r (a test's
 * randomness, not a secret's). */
static void blind_for(fr_t out[2], uint64_t seed, int proof, int partition)
{
    uint64_t z = seed ^ ((uint64_t)(unsigned)proof << 32 | (unsigned)partition) * 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < 2; k++) {
        uint64_t limbs[4];
        for (int i = 0; i < 4; i++) {
            uint64_t v = (z += 0x9e3779b97f4a7c15ull);
            v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ull;
            v = (v ^ (v >> 27)) * 0x94d049bb133111ebull;
            limbs[i] = v ^ (v >> 31);
        }
        limbs[3] >>= 2;
        fr_from_limbs(&out[k], limbs);
    }
}

/* ---- planted faults ------------------------------------------------------ */

/* A buffer of the fault's kind, the size of the witness, written so it is
 * resident: the leak or the held memory the diagnosis must find. */
static void *make_shadow(struct pipeline *p, int kind, const struct part *x)
{
    size_t bytes = r1cs_num_vars(p->env.circ->r1cs) * sizeof(fr_t);
    void *b = mem_alloc((enum mem_kind)kind, x->proof, x->partition, bytes);
    if (b)
        memset(b, 0x5a, bytes);
    return b;
}

static void hold_buffer(struct pipeline *p, void *buf)
{
    struct delayed *d = malloc(sizeof *d);
    if (!d) {
        mem_free(buf);
        return;
    }
    mem_touch(buf);
    d->buf = buf;
    d->due_ms = t_ms(p) + p->cfg.faults.hold_ms;
    pthread_mutex_lock(&p->lock);
    d->next = p->delayed;
    p->delayed = d;
    pthread_mutex_unlock(&p->lock);
}

static bool leak_this_one(struct pipeline *p)
{
    unsigned every = p->cfg.faults.leak_every ? p->cfg.faults.leak_every : 1;
    return atomic_fetch_add(&p->leak_counter, 1) % every == 0;
}

/* The witness after prove_start: freed, leaked, or held, as planted. */
static void release_witness(struct pipeline *p, struct part *x)
{
    const struct pipeline_faults *f = &p->cfg.faults;
    if (f->leak_kind == MEM_KIND_AUX && leak_this_one(p)) {
        mem_touch(x->w);
        x->w = NULL; /* leaked on purpose */
    } else if (f->hold_kind == MEM_KIND_AUX) {
        hold_buffer(p, x->w);
        x->w = NULL;
    } else {
        mem_touch(x->w);
        mem_free(x->w);
        x->w = NULL;
    }
}

static void release_shadow(struct pipeline *p, struct part *x)
{
    if (!x->shadow)
        return;
    const struct pipeline_faults *f = &p->cfg.faults;
    if (f->leak_kind >= 0 && f->leak_kind != MEM_KIND_AUX) {
        if (leak_this_one(p))
            mem_touch(x->shadow); /* never freed */
        else
            mem_free(x->shadow);
    } else {
        hold_buffer(p, x->shadow);
    }
    x->shadow = NULL;
}

static void run_delayed(struct pipeline *p, bool all)
{
    double now = t_ms(p);
    pthread_mutex_lock(&p->lock);
    struct delayed **pp = &p->delayed, *due = NULL;
    while (*pp) {
        struct delayed *d = *pp;
        if (all || d->due_ms <= now) {
            *pp = d->next;
            d->next = due;
            due = d;
        } else {
            pp = &d->next;
        }
    }
    pthread_mutex_unlock(&p->lock);
    while (due) {
        struct delayed *d = due;
        due = d->next;
        mem_free(d->buf);
        free(d);
    }
}

/* ---- workers --------------------------------------------------------------- */

struct worker_arg {
    struct pipeline *p;
    unsigned index;
};

static void *synth_main(void *arg)
{
    struct worker_arg *wa = arg;
    struct pipeline *p = wa->p;
    char name[16];
    snprintf(name, sizeof name, "synth%u", wa->index);
    const struct pipeline_faults *f = &p->cfg.faults;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int admit = 0;
        while (!p->stopping && !(p->closing && !p->synth_q.head) &&
               !(p->synth_q.head && (admit = budget_admit_locked(p, p->synth_q.head)) != 0))
            pthread_cond_wait(&p->cond, &p->lock);
        if (admit < 0)
            fail_locked(p, admit); /* one partition alone exceeds the budget */
        if (admit <= 0) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        struct part *x = q_pop(&p->synth_q);
        struct proof_state *ps = &p->proofs[x->proof];
        if (!ps->started) {
            ps->started = true;
            ps->t_start = t_ms(p);
        }
        p->n_synth++;
        pthread_mutex_unlock(&p->lock);

        double t0 = t_ms(p);
        int rc = circuit_witness_alloc(&x->w, p->env.circ, p->cfg.seed + (uint64_t)x->proof, x->proof,
                                       (unsigned)x->partition, p->cfg.threads);
        /* a, b, c with the witness, as production synthesis makes them (a
         * zkey circuit proves monolithically from its witness alone) */
        if (rc == 0 && !p->env.circ->prove)
            rc = groth16_abc_eval(&x->abc, p->env.shape, x->w, p->cfg.threads, x->proof, x->partition,
                                  p->env.backend);
        if (rc == 0 && (f->leak_kind >= 0 && f->leak_kind != MEM_KIND_AUX))
            x->shadow = make_shadow(p, f->leak_kind, x);
        else if (rc == 0 && f->hold_kind >= 0 && f->hold_kind != MEM_KIND_AUX)
            x->shadow = make_shadow(p, f->hold_kind, x);
        double t1 = t_ms(p);
        if (rc < 0) {
            pthread_mutex_lock(&p->lock);
            p->n_synth--;
            fail_locked(p, rc);
            drop_part_locked(p, x);
            pthread_mutex_unlock(&p->lock);
            free_part(x);
            break;
        }
        run_files_stage(p->env.rf, x->proof, x->partition, "synth", name, t0, t1);

        /* Hand over to the prover queue. The worker keeps the partition (and
         * its slot) while the queue is full (state: blocked), which bounds
         * the synthesized partitions to pw + queue depth, unless the pile-up
         * fault lets it go on synthesizing. */
        pthread_mutex_lock(&p->lock);
        p->n_synth--;
        p->n_blocked++;
        budget_move_locked(p, x, MEM_BUDGET_HELD);
        while (!f->pileup && p->prove_q.cap && p->prove_q.n >= p->prove_q.cap && !p->stopping)
            pthread_cond_wait(&p->cond, &p->lock);
        p->n_blocked--;
        if (p->stopping) {
            drop_part_locked(p, x);
            /* the finish workers wait for n_synth, n_blocked and n_prove
             * to reach 0 once stopping: without this wake-up the last synth
             * worker's exit went unseen and an interrupted batch hung in
             * pthread_join (seen under TSan in CI's batch test, and as the
             * rare harden-signal timeout) */
            pthread_cond_broadcast(&p->cond);
            pthread_mutex_unlock(&p->lock);
            free_part(x);
            break;
        }
        x->t_queued = t_ms(p);
        q_push(&p->prove_q, x);
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

static void *prove_main(void *arg)
{
    struct worker_arg *wa = arg;
    struct pipeline *p = wa->p;
    char name[16];
    snprintf(name, sizeof name, "prove%u", wa->index);
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->prove_q.head && !p->stopping &&
               !(p->closing && !p->synth_q.head && p->n_synth == 0 && p->n_blocked == 0))
            pthread_cond_wait(&p->cond, &p->lock);
        struct part *x = p->stopping ? NULL : q_pop(&p->prove_q);
        if (!x) {
            pthread_mutex_unlock(&p->lock);
            break;
        }
        p->n_prove++;
        budget_move_locked(p, x, MEM_BUDGET_PROVE);
        pthread_cond_broadcast(&p->cond); /* a queue slot is free */
        pthread_mutex_unlock(&p->lock);

        double t0 = t_ms(p);
        run_files_stage(p->env.rf, x->proof, x->partition, "queue", name, x->t_queued, t0);
        struct groth16_prove_opts o;
        groth16_prove_opts_default(&o);
        o.threads = p->cfg.threads;
        o.proof = x->proof;
        o.partition = x->partition;
        o.dealloc = p->cfg.dealloc;
        o.split = p->cfg.split;
        o.backend = p->env.backend;
        o.gpu_lane = wa->index; /* worker i: lane i, on device i % devices */
        o.free_at_last_use = p->cfg.free_at_last_use;
        if (p->cfg.blind_seeded) {
            blind_for(x->blind, p->cfg.blind_seed, x->proof, x->partition);
            o.blind = x->blind;
        }
        /* lives in x until prove_finish, which joins the thread of msm_b2 */
        x->tag = (struct stage_tag){p, x->proof, x->partition, {0}};
        snprintf(x->tag.worker, sizeof x->tag.worker, "%s", name);
        if (p->env.rf) {
            o.on_stage = on_prove_stage;
            o.stage_ctx = &x->tag;
        }
        const circuit_t *circ = p->env.circ;
        /* the public inputs first: with aux freed at its last use the
         * prove owns the witness */
        struct proof_state *ps = &p->proofs[x->proof];
        memcpy(&ps->inputs[(size_t)x->partition * p->n_inputs], &x->w[1], p->n_inputs * sizeof(fr_t));
        bool w_handed = !circ->prove && (o.free_at_last_use & (1u << MEM_KIND_AUX));
        int rc = circ->prove ? circ->prove(circ, &x->proof_out, x->w, &o) /* its own keys, monolithic */
                             : groth16_prove_start_abc(&x->pending, p->env.pk, p->env.shape, x->w, &x->abc, &o);
        if (w_handed)
            x->w = NULL; /* freed by the prove at its last use */
        else if (rc == 0)
            release_witness(p, x);
        double t1 = t_ms(p);
        pthread_mutex_lock(&p->lock);
        p->n_prove--;
        if (rc < 0) {
            fail_locked(p, rc);
            drop_part_locked(p, x);
            pthread_mutex_unlock(&p->lock);
            free_part(x);
            break;
        }
        run_files_stage(p->env.rf, x->proof, x->partition, "prove", name, t0, t1);
        p->n_finish++;
        budget_move_locked(p, x, MEM_BUDGET_FINISH);
        q_push(&p->finish_q, x);
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
    }
    return NULL;
}

/* The last partition of a proof: verify all partitions as one batch. */
static void complete_proof(struct pipeline *p, int proof, const char *worker)
{
    struct proof_state *ps = &p->proofs[proof];
    int verified = -1;
    if (p->cfg.verify) {
        double t0 = t_ms(p);
        int rc = groth16_verify_batch(p->env.pvk, ps->proofs, ps->inputs, p->cfg.partitions, p->n_inputs);
        verified = rc == 1;
        run_files_stage(p->env.rf, proof, -1, "verify", worker, t0, t_ms(p));
    }
    ps->t_done = t_ms(p);
    run_files_proof(p->env.rf, proof, ps->t_submit, ps->t_start, ps->t_done, verified);
    if (p->cfg.trim == TRIM_PROOF)
        purge_allocator(p);
    free(ps->proofs);
    free(ps->inputs);
    ps->proofs = NULL;
    ps->inputs = NULL;
    pthread_mutex_lock(&p->lock);
    ps->verified = verified;
    p->done_order[p->done] = (unsigned)proof;
    p->done++;
    p->in_flight--;
    if (verified == 0) {
        p->failed++;
        ps->failed = true;
    }
    atomic_fetch_add(&p->proofs_done, 1);
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
}

/* No partition can reach the finish stage any more (under p->lock). */
static bool finish_can_exit(const struct pipeline *p)
{
    if (p->n_synth || p->n_blocked || p->n_prove)
        return false;
    return p->stopping || (p->closing && !p->synth_q.head && !p->prove_q.head);
}

static void *finish_main(void *arg)
{
    struct worker_arg *wa = arg;
    struct pipeline *p = wa->p;
    char name[16];
    snprintf(name, sizeof name, "finish%u", wa->index);
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (!p->finish_q.head && !finish_can_exit(p))
            pthread_cond_wait(&p->cond, &p->lock);
        struct part *x = q_pop(&p->finish_q);
        pthread_mutex_unlock(&p->lock);
        if (!x)
            break;
        double t0 = t_ms(p);
        struct proof_state *ps = &p->proofs[x->proof];
        int rc = x->pending ? groth16_prove_finish(&x->proof_out, x->pending) : 0;
        x->pending = NULL;
        release_shadow(p, x);
        if (p->cfg.trim == TRIM_PARTITION)
            purge_allocator(p);
        double t1 = t_ms(p);
        if (rc < 0) {
            pthread_mutex_lock(&p->lock);
            p->n_finish--;
            fail_locked(p, rc);
            drop_part_locked(p, x);
            pthread_mutex_unlock(&p->lock);
            free_part(x);
            continue; /* keep finishing the others: their threads must be joined */
        }
        run_files_stage(p->env.rf, x->proof, x->partition, "finish", name, t0, t1);
        uint8_t enc[GROTH16_PROOF_BYTES];
        groth16_proof_write(enc, &x->proof_out);
        run_files_partition_proof(p->env.rf, x->proof, x->partition, p->cfg.partitions, enc, sizeof enc);
        pthread_mutex_lock(&p->lock);
        p->n_finish--;
        p->parts_done++;
        if (x->budgeted) {
            mem_budget_done_locked(p->env.budget, x->proof, x->partition, /* dropped= */ false, &x->reserved);
            x->budgeted = false;
            pthread_cond_broadcast(&p->cond); /* room for the next admission */
        }
        ps->proofs[x->partition] = x->proof_out;
        bool last = ++ps->parts_done == p->cfg.partitions;
        bool stopping = p->stopping;
        pthread_mutex_unlock(&p->lock);
        int proof = x->proof;
        free_part(x);
        if (last && !stopping)
            complete_proof(p, proof, name);
    }
    return NULL;
}

/* ---- coordinator ------------------------------------------------------------ */

int pipeline_new(pipeline_t **ret, const struct pipeline_config *cfg, const struct pipeline_env *env)
{
    struct pipeline *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->cfg = *cfg;
    p->env = *env;
    p->n_inputs = env->circ->r1cs->num_inputs - 1;
    p->prove_q.cap = cfg->gpu_queue;
    p->proofs = calloc(cfg->count, sizeof *p->proofs);
    p->done_order = calloc(cfg->count, sizeof *p->done_order);
    p->n_provers = cfg->gpu_workers * (env->backend ? backend_devices(env->backend) : 1);
    p->n_threads = cfg->pw + p->n_provers + cfg->finish_workers;
    p->threads = calloc(p->n_threads, sizeof *p->threads);
    if (!p->proofs || !p->threads || !p->done_order) {
        pipeline_free(p);
        return -ENOMEM;
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    *ret = p;
    return 0;
}

void pipeline_free(pipeline_t *p)
{
    if (!p)
        return;
    if (p->proofs) {
        for (unsigned i = 0; i < p->cfg.count; i++) {
            free(p->proofs[i].proofs);
            free(p->proofs[i].inputs);
        }
    }
    free(p->proofs);
    free(p->done_order);
    free(p->threads);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
    free(p);
}

void pipeline_occupancy(void *ctx, uint64_t occ[SAMPLER_OCC_COUNT])
{
    struct pipeline *p = ctx;
    pthread_mutex_lock(&p->lock);
    occ[SAMPLER_Q_SYNTH] = p->synth_q.n;
    occ[SAMPLER_N_SYNTH] = p->n_synth;
    occ[SAMPLER_N_BLOCKED] = p->n_blocked;
    occ[SAMPLER_Q_GPU] = p->prove_q.n;
    occ[SAMPLER_N_GPU] = p->n_prove;
    occ[SAMPLER_N_FINISH] = p->n_finish;
    occ[SAMPLER_PARTITIONS_ADMITTED] = p->parts_admitted;
    occ[SAMPLER_PARTITIONS_DONE] = p->parts_done;
    occ[SAMPLER_RESERVED_BYTES] = p->env.budget ? mem_budget_reserved_locked(p->env.budget) : 0;
    pthread_mutex_unlock(&p->lock);
    occ[SAMPLER_N_DEALLOC] = dealloc_pending();
    occ[SAMPLER_PROOFS_DONE] = atomic_load(&p->proofs_done);
}

/* Queues the partitions of the next proof (under p->lock). */
static int admit_locked(struct pipeline *p)
{
    unsigned j = p->admitted;
    struct proof_state *ps = &p->proofs[j];
    ps->proofs = calloc(p->cfg.partitions, sizeof *ps->proofs);
    ps->inputs = calloc((size_t)p->cfg.partitions * p->n_inputs + 1, sizeof *ps->inputs);
    if (!ps->proofs || !ps->inputs)
        return -ENOMEM;
    for (unsigned i = 0; i < p->cfg.partitions; i++) {
        struct part *x = calloc(1, sizeof *x);
        if (!x)
            return -ENOMEM;
        x->proof = (int)j;
        x->partition = (int)i;
        q_push(&p->synth_q, x);
    }
    ps->t_submit = t_ms(p);
    p->parts_admitted += p->cfg.partitions;
    p->admitted++;
    p->in_flight++;
    return 0;
}

static int start_threads(struct pipeline *p, struct worker_arg *args)
{
    unsigned k = 0;
    for (unsigned i = 0; i < p->cfg.pw; i++, k++) {
        args[k] = (struct worker_arg){p, i};
        if (pthread_create(&p->threads[k], NULL, synth_main, &args[k]) != 0)
            return -EAGAIN;
    }
    for (unsigned i = 0; i < p->n_provers; i++, k++) {
        args[k] = (struct worker_arg){p, i};
        if (pthread_create(&p->threads[k], NULL, prove_main, &args[k]) != 0)
            return -EAGAIN;
    }
    for (unsigned i = 0; i < p->cfg.finish_workers; i++, k++) {
        args[k] = (struct worker_arg){p, i};
        if (pthread_create(&p->threads[k], NULL, finish_main, &args[k]) != 0)
            return -EAGAIN;
    }
    return 0;
}

/* Hands the proofs completed since the last call to env.proof_done, in
 * the order they completed (called and returning with p->lock held; the
 * callback runs without it). */
static void report_done_locked(struct pipeline *p)
{
    while (p->reported < p->done) {
        const struct proof_state *ps = &p->proofs[p->done_order[p->reported]];
        struct pipeline_proof info = {.proof = p->done_order[p->reported], .order = p->reported + 1,
                                      .t_submit_ms = ps->t_submit, .t_start_ms = ps->t_start,
                                      .t_done_ms = ps->t_done, .verified = ps->verified};
        p->reported++;
        if (!p->env.proof_done)
            continue;
        pthread_mutex_unlock(&p->lock);
        p->env.proof_done(p->env.progress_ctx, &info);
        pthread_mutex_lock(&p->lock);
    }
}

int pipeline_run(pipeline_t *p, struct pipeline_result *out)
{
    memset(out, 0, sizeof *out);
    struct worker_arg *args = calloc(p->n_threads, sizeof *args);
    if (!args)
        return -ENOMEM;
    unsigned started = 0;
    pthread_mutex_lock(&p->lock);
    int rc = start_threads(p, args);
    for (unsigned i = 0; i < p->n_threads; i++)
        if (p->threads[i])
            started = i + 1;
    if (rc < 0)
        fail_locked(p, rc);
    double t_first = t_ms(p);
    for (;;) {
        /* a run file that cannot be written (a full disk) stops the run */
        int werr = p->env.rf ? run_files_error(p->env.rf, NULL, 0) : 0;
        if (werr < 0 && !p->stopping)
            fail_locked(p, werr);
        if (p->env.stop_flag && atomic_load(p->env.stop_flag) && !p->stopping) {
            out->interrupted = true;
            p->stopping = true;
            pthread_cond_broadcast(&p->cond);
        }
        if (p->stopping)
            break;
        while (p->admitted < p->cfg.count && p->in_flight < p->cfg.concurrency) {
            if ((rc = admit_locked(p)) < 0) {
                fail_locked(p, rc);
                break;
            }
            pthread_cond_broadcast(&p->cond);
        }
        if (p->done == p->cfg.count)
            break;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cond, &p->lock, &ts);
        report_done_locked(p);
        unsigned done = p->reported;
        pthread_mutex_unlock(&p->lock);
        run_delayed(p, false);
        if (p->env.progress)
            p->env.progress(p->env.progress_ctx, done, p->cfg.count);
        pthread_mutex_lock(&p->lock);
    }
    p->closing = true;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < started; i++)
        if (p->threads[i])
            pthread_join(p->threads[i], NULL);
    free(args);
    /* proofs completed after the loop's last look (an interruption lets
     * the ones in their last stage finish) */
    pthread_mutex_lock(&p->lock);
    report_done_locked(p);
    unsigned reported = p->reported;
    pthread_mutex_unlock(&p->lock);
    if (p->env.progress)
        p->env.progress(p->env.progress_ctx, reported, p->cfg.count);
    /* what an interruption left in the queues */
    struct part *x, *dropped = NULL;
    pthread_mutex_lock(&p->lock);
    struct queue *qs[3] = {&p->synth_q, &p->prove_q, &p->finish_q};
    for (int k = 0; k < 3; k++) {
        while ((x = q_pop(qs[k]))) {
            if (qs[k] == &p->finish_q)
                p->n_finish--;
            drop_part_locked(p, x);
            x->next = dropped;
            dropped = x;
        }
    }
    pthread_mutex_unlock(&p->lock);
    while ((x = dropped)) {
        dropped = x->next;
        free_part(x);
    }
    /* held buffers (planted hold fault) are freed when due, not early, so
     * the drain the sampler records is the real one */
    for (;;) {
        pthread_mutex_lock(&p->lock);
        bool pending_holds = p->delayed != NULL;
        pthread_mutex_unlock(&p->lock);
        if (!pending_holds || out->interrupted)
            break;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
        run_delayed(p, false);
    }
    run_delayed(p, true);
    dealloc_drain();

    out->proofs_done = p->done;
    out->proofs_failed = p->failed;
    out->error = p->error;
    out->wall_s = (t_ms(p) - t_first) / 1e3;
    double sum = 0, mn = 0, mx = 0;
    unsigned n = 0;
    for (unsigned j = 0; j < p->admitted; j++) {
        const struct proof_state *ps = &p->proofs[j];
        if (ps->t_done <= 0)
            continue;
        double w = ps->t_done - ps->t_submit;
        sum += w;
        mn = n == 0 || w < mn ? w : mn;
        mx = n == 0 || w > mx ? w : mx;
        n++;
    }
    out->proof_ms_avg = n ? sum / n : 0;
    out->proof_ms_min = mn;
    out->proof_ms_max = mx;
    return p->error;
}
