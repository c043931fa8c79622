/*
 * Groth16 over BLS12-381 (Groth, "On the Size of Pairing-based
 * Non-interactive Arguments", EUROCRYPT 2016), laid out as bellperson lays
 * it out: the same QAP (with one extra constraint input_i * 0 = 0 per public
 * input), the same proving-key queries, the same proof.
 *
 *   setup   groth16_setup: keys from seeded toxic waste (setup.c)
 *   prove   groth16_prove_start / groth16_prove_finish, the split API of
 *           production GPU provers, and groth16_prove on top (groth16.c)
 *   verify  groth16_verify / groth16_verify_batch with a prepared key
 *           (verify.c)
 */
#ifndef ZKB_GROTH16_H
#define ZKB_GROTH16_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/curve/pairing.h"
#include "prover/backend.h"
#include "prover/dealloc.h"
#include "prover/mem.h"
#include "prover/ntt.h"
#include "prover/params.h"
#include "prover/r1cs.h"

typedef struct {
    g1_affine_t a;
    g2_affine_t b;
    g1_affine_t c;
} groth16_proof_t;

/* Bytes of a proof in bellperson's compressed encoding: A (48) || B (96) ||
 * C (48). */
#define GROTH16_PROOF_BYTES 192

/* The QAP domain of a system: the power of two >= constraints + inputs. */
size_t groth16_domain_size(const r1cs_t *cs);

/*
 * What Groth16 derives once from a circuit and shares across every proof:
 * the domain, the NTT tables, and the density of the A columns (input
 * constraints included, so every input is set) and B columns, which select
 * the a, b_g1 and b_g2 query points. Tracked as MEM_KIND_CIRCUIT /
 * MEM_KIND_NTT, part of the baseline.
 */
typedef struct {
    const r1cs_t *cs;         /* borrowed: must outlive the shape */
    size_t n;                 /* domain size */
    uint64_t *density_a;      /* bit j: variable j has an a query point */
    uint64_t *density_b;      /* bit j: variable j has b_g1/b_g2 points */
    uint64_t n_a, n_b;        /* set bits */
    ntt_domain_t domain;
} groth16_shape_t;

/* -EINVAL (empty system, domain over 2^NTT_MAX_LOG), -ENOMEM. */
int groth16_shape_new(groth16_shape_t **ret, const r1cs_t *cs);
/* NULL is accepted. */
void groth16_shape_free(groth16_shape_t *shape);

/*
 * Proving and verifying keys for cs from toxic waste drawn from seed
 * (tau, alpha, beta, gamma, delta: for tests and benchmarks only; a real
 * ceremony never knows them). Fixed-base windowed multiplication on
 * `threads` threads (0: all cores). *ret: free with params_free.
 * -EINVAL (empty system, domain over 2^27), -ENOMEM.
 */
int groth16_setup(groth16_params_t **ret, const groth16_shape_t *shape, uint64_t seed, unsigned threads);
/* Where a setup's time went, in seconds (groth16_setup_on). */
typedef struct {
    double qap;      /* the QAP at tau: the Lagrange basis, the columns of A, B, C */
    double tables;   /* the fixed-base window tables of G1 and G2, and the key's arrays allocated */
    double scalars;  /* each query point's scalar */
    double multiply; /* the fixed-base multiplications and the conversion to affine (on a device
                        with their transfers) */
} groth16_setup_times_t;

/* The same with the fixed-base multiplications on CUDA device `device`
 * (-1: the CPU, as groth16_setup): the keys are byte for byte the CPU's.
 * times: NULL, or where the phases' seconds go. -ENODEV without that
 * device (or in a build without CUDA). */
int groth16_setup_on(groth16_params_t **ret, const groth16_shape_t *shape, uint64_t seed, unsigned threads,
                     int device, groth16_setup_times_t *times);

/* The same into p, whose arrays have groth16_key_counts's sizes (heap
 * form, or a key file being written: params_map_create): every point is
 * written. -EINVAL for other sizes; p is unchanged on failure only in that
 * case. */
int groth16_setup_into(groth16_params_t *p, const groth16_shape_t *shape, uint64_t seed, unsigned threads,
                       int device, groth16_setup_times_t *times);
/* The key's array sizes for shape: ic, h, l, a, b_g1, b_g2. */
void groth16_key_counts(size_t counts[6], const groth16_shape_t *shape);

/* Does pk fit the circuit (query sizes match its domain and densities)?
 * 0, or -EINVAL with a description in msg (cap bytes). */
int groth16_params_check(const groth16_params_t *pk, const groth16_shape_t *shape, char *msg, size_t cap);

/* ---- proving ---------------------------------------------------------- */

/* Seconds spent in each stage of one proof (filled when the options ask
 * for it): the stage breakdown of benchmarks and stages.csv. */
typedef struct {
    double eval;     /* a, b, c from the matrices */
    double ntt;      /* the H computation */
    double msm_h, msm_l, msm_a, msm_b1; /* G1 MSMs */
    double msm_b2;   /* the G2 MSM (on its own thread when split) */
    double finish;   /* prove_finish: join, assembly, release */
    /* On a GPU backend, the device's own time of each stage (CUDA events;
     * 0 on the CPU): H's uploads and transforms, each MSM. */
    double dev_ntt, dev_msm_h, dev_msm_l, dev_msm_a, dev_msm_b1, dev_msm_b2;
    double dev_h_upload; /* of dev_ntt: until a, b and c were on the device */
} groth16_times_t;

/* Called as a heavy stage of a prove ends (groth16_prove_opts.on_stage). */
typedef void groth16_stage_fn(void *ctx, const char *stage, double t_start_s, double t_end_s);

/* CLOCK_MONOTONIC in seconds: the clock of the stage times. */
double groth16_now_s(void);
/* A heavy stage that began at t0 (groth16_now_s) is over: its seconds into
 * *slot, and on_stage(ctx, stage, t0, now) when on_stage is set. */
void groth16_stage_done(groth16_stage_fn *on_stage, void *ctx, const char *stage, double t0, double *slot);

struct groth16_prove_opts {
    unsigned threads;   /* CPU threads for NTT and MSM; 0: all cores */
    groth16_times_t *times; /* NULL, or where to record the stage times */
    const backend_t *backend; /* NULL: the CPU; else a GPU (backend_gpu_new) */
    unsigned gpu_lane;  /* the backend's lane for this proof (a prover worker's index); callers
                           that share a lane must not interleave their proofs */
    int proof;          /* tags of the tracked buffers (-1: none) */
    int partition;
    enum dealloc_mode dealloc; /* how prove_finish releases the pending buffers */
    bool split;         /* b_g2 MSM on a background thread (default) */
    /* NULL: fresh random r, s for each proof. Else r = blind[0], s =
     * blind[1] (borrowed until prove_finish): tests that compare the
     * proofs of two backends byte for byte. */
    const fr_t *blind;
    /* NULL, or called as each heavy stage of prove_start_abc and finish
     * ends: "h" (the quotient H), "msm_h", "msm_l", "msm_a", "msm_b1" and
     * "msm_b2" (the G2 MSM; from the split's background thread when split),
     * with its start and end in CLOCK_MONOTONIC seconds: stages.csv's rows
     * inside a partition's prove. */
    groth16_stage_fn *on_stage;
    void *stage_ctx;
    /* Kinds freed inside the prove at their last use, a bit (1u << kind)
     * each (zkbench batch --free-at-last-use); 0: none. MEM_KIND_AUX:
     * prove_start_abc owns w (a mem_alloc buffer) and frees it once no MSM
     * reads it any more (on a GPU when it is on the device, on the CPU
     * after the B_g1 MSM); MEM_KIND_PENDING: the b_g2 scalars are released
     * (as dealloc says) right after the G2 MSM instead of at finish. */
    unsigned free_at_last_use;
};

/* The kinds free_at_last_use can name: what the prove holds past a last use
 * (mem.h names them, so that analyze's what-if knows them too). */
#define GROTH16_FREE_AT_LAST_USE MEM_KINDS_FREEABLE_AT_LAST_USE

/* Defaults: all cores, split, synchronous release, tags -1. */
void groth16_prove_opts_default(struct groth16_prove_opts *o);

typedef struct groth16_pending groth16_pending_t;

/*
 * The a, b, c evaluations of one partition over the domain: n elements
 * each, (A w, B w, C w) for the constraints, then input_j, 0, 0 for the
 * input constraints, then zeros. Production provers (bellperson, cuzk)
 * make them in synthesis, beside the witness, and the partition holds both
 * until the prover takes them; tracked as MEM_KIND_ABC, tagged with the
 * partition. Bytes: 3 * n * sizeof(fr_t).
 */
typedef struct {
    fr_t *a, *b, *c;
    bool pinned; /* page-locked for the GPU backend (backend_host_pin) */
} groth16_abc_t;

/* Evaluates a, b, c from the witness w (r1cs_num_vars elements) on
 * `threads` threads; with a GPU backend (not NULL) into page-locked memory
 * when the driver allows, so H's uploads need no staging copies. 0,
 * -EINVAL (w[0] != 1), -ENOMEM (nothing left allocated). */
int groth16_abc_eval(groth16_abc_t *ret, const groth16_shape_t *shape, const fr_t *w, unsigned threads,
                     int proof, int partition, const backend_t *backend);
/* Frees what is left of abc (members may be NULL) and clears it. */
void groth16_abc_free(groth16_abc_t *abc);

/*
 * Everything up to the G1 MSMs: evaluates a, b, c from the shared matrices
 * and the witness w (r1cs_num_vars(cs) elements: [1, inputs, aux]),
 * computes H by NTT, runs the H, L, A and B_g1 MSMs, and starts the b_g2
 * MSM on a background thread (opts->split; otherwise finish runs it). The
 * pending handle owns a copy of what
 * finishing needs (kind MEM_KIND_PENDING), so the caller may free w at once.
 * (groth16_abc_eval, then groth16_prove_start_abc.)
 * Returns 0 and *ret, -EINVAL (w[0] != 1, pk does not fit cs), -ENOMEM.
 */
int groth16_prove_start(groth16_pending_t **ret, const groth16_params_t *pk,
                        const groth16_shape_t *shape, const fr_t *w,
                        const struct groth16_prove_opts *opts);
/*
 * prove_start from a, b, c made in synthesis. Takes abc over (*abc is
 * cleared, also on failure): b and c are freed once H is computed, a (which
 * holds H after that) once the H MSM is done. w stays the caller's (unless
 * opts->free_at_last_use hands it over: then it is freed here, also on
 * failure); it is no longer read when this returns, so the caller frees it
 * then. The
 * pending handle keeps only the witness values the b_g2 MSM reads (n_b
 * elements, MEM_KIND_PENDING) until finish.
 */
int groth16_prove_start_abc(groth16_pending_t **ret, const groth16_params_t *pk, const groth16_shape_t *shape,
                            const fr_t *w, groth16_abc_t *abc, const struct groth16_prove_opts *opts);
/*
 * Joins the b_g2 MSM, assembles the proof and releases the pending buffers
 * as opts->dealloc says. Consumes p (also on failure). 0 or -ENOMEM.
 */
int groth16_prove_finish(groth16_proof_t *proof, groth16_pending_t *p);
/* Frees a pending handle without finishing (joins its thread first). */
void groth16_pending_free(groth16_pending_t *p);
/* start + finish. */
int groth16_prove(groth16_proof_t *proof, const groth16_params_t *pk, const groth16_shape_t *shape,
                  const fr_t *w, const struct groth16_prove_opts *opts);

/* ---- verifying -------------------------------------------------------- */

typedef struct {
    const groth16_vk_t *vk;     /* borrowed: must outlive the prepared key */
    g2_prepared_t neg_gamma;
    g2_prepared_t neg_delta;
    g2_prepared_t neg_beta;
} groth16_pvk_t;

/* Prepares vk (heap, ~60 KiB); free with groth16_pvk_free (NULL ok). */
int groth16_pvk_new(groth16_pvk_t **ret, const groth16_vk_t *vk);
void groth16_pvk_free(groth16_pvk_t *pvk);

/*
 * 1 when proof verifies for the public inputs (n_inputs = vk->n_ic - 1, the
 * ONE excluded), 0 when it does not, -EINVAL for a wrong input count.
 */
int groth16_verify(const groth16_pvk_t *pvk, const groth16_proof_t *proof, const fr_t *inputs,
                   size_t n_inputs);
/* All n proofs at once (a random linear combination: one final
 * exponentiation); inputs holds n * n_inputs elements, proof k's at
 * k * n_inputs. 1 when all verify, 0 when any does not, -EINVAL for
 * inputs of the wrong count, -EIO when no randomness could be had. */
int groth16_verify_batch(const groth16_pvk_t *pvk, const groth16_proof_t *proofs, const fr_t *inputs,
                         size_t n, size_t n_inputs);

/* Encodings of a proof (compressed, bellperson order). read: 0 or an
 * ENCODE_ERR_* code (arith/curve/encode.h). */
void groth16_proof_write(uint8_t out[GROTH16_PROOF_BYTES], const groth16_proof_t *proof);
int groth16_proof_read(groth16_proof_t *proof, const uint8_t in[GROTH16_PROOF_BYTES]);

#endif
