/*
 * The batch pipeline, shaped like production GPU provers:
 *
 *   coordinator (the calling thread): admits proofs while fewer than
 *     `concurrency` are in flight, each as `partitions` synthesis jobs;
 *   synthesis pool (`pw` threads): witness of a partition (kind aux), then
 *     hands it to the bounded prover queue (`gpu_queue` slots), blocking while
 *     it is full, so at most pw + gpu_queue synthesized partitions exist;
 *   prover workers (`gpu_workers` per device, worker i on the backend's lane i;
 *     in all on the CPU):
 *     prove_start (a, b, c, H, G1 MSMs; b_g2 MSM started on its own thread),
 *     free the witness, hand the pending handle to the finish stage;
 *   finish pool: prove_finish (join b_g2, assemble, release the pending
 *     buffers as `dealloc` says), and when a proof's last partition is done,
 *     batch-verify it and write its row.
 *
 * With a memory budget (mem_budget.h) a synthesis worker takes the next
 * partition only when the budget admits it, so pw is a ceiling.
 *
 * Every stage writes its row to stages.csv; occupancy counters feed the
 * sampler. Faults can be planted (struct pipeline_faults) to check that the
 * diagnosis names them.
 */
#ifndef ZKB_PIPELINE_H
#define ZKB_PIPELINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "harness/run/mem_budget.h"
#include "harness/run/run_clock.h"
#include "harness/run/run_files.h"
#include "harness/run/sampler.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"

/* When jemalloc is asked to purge its dirty pages (--purge-after, --trim). */
enum pipeline_trim { TRIM_NONE, TRIM_PARTITION, TRIM_PROOF };

/* Planted faults (zkbench batch --inject). */
struct pipeline_faults {
    int leak_kind;         /* -1: none; else a mem_kind whose buffers are leaked */
    unsigned leak_every;   /* leak one in every N partitions (1: all) */
    int hold_kind;         /* -1: none; else buffers of this kind held... */
    unsigned hold_ms;      /* ...this long after their last use */
    bool no_purge;         /* --trim asks, nothing is purged */
    bool pileup;           /* synthesis does not wait for the prover queue */
};

struct pipeline_config {
    unsigned count, concurrency, partitions;
    unsigned pw, gpu_workers, gpu_queue, finish_workers, threads;
    bool split, verify;
    enum dealloc_mode dealloc;
    enum pipeline_trim trim;
    uint64_t seed;
    /* kinds freed at their last use, a bit (1u << mem_kind) each
     * (--free-at-last-use; GROTH16_FREE_AT_LAST_USE names the ones that can) */
    unsigned free_at_last_use;
    /* --blind-seed: each partition's blinding r, s drawn from blind_seed,
     * its proof and partition, so two runs' proofs compare byte for byte */
    bool blind_seeded;
    uint64_t blind_seed;
    struct pipeline_faults faults;
};

/* A completed proof, as proofs.csv has it (times: ms since env.t0). */
struct pipeline_proof {
    unsigned proof;            /* its index in the batch (proofs.csv's proof) */
    unsigned order;            /* 1 for the first to complete, ... */
    double t_submit_ms, t_start_ms, t_done_ms;
    int verified;              /* 1, 0, or -1 when not verified */
};

struct pipeline_env {
    const circuit_t *circ;
    const groth16_params_t *pk;
    const groth16_shape_t *shape;
    const groth16_pvk_t *pvk;
    const backend_t *backend; /* NULL: CPU */
    run_files_t *rf;
    mem_budget_t *budget;     /* --mem-budget: admission by memory (borrowed); NULL: by pw alone */
    double t0;                        /* run start, run_clock_now() */
    atomic_int *stop_flag;        /* set by SIGINT/SIGTERM */
    /* progress: called by the coordinator about every 200 ms */
    void (*progress)(void *ctx, unsigned proofs_done, unsigned count);
    /* proof_done: called by the coordinator once per completed proof, in
     * the order they completed, before the progress call that counts it;
     * the times are the ones written to proofs.csv. Both run on the
     * thread that called pipeline_run, so a console needs no lock. */
    void (*proof_done)(void *ctx, const struct pipeline_proof *proof);
    void *progress_ctx;
};

struct pipeline_result {
    unsigned proofs_done, proofs_failed;
    bool interrupted;
    int error;             /* first worker error (negative errno), 0 if none */
    double wall_s;         /* first admission to last proof */
    double proof_ms_avg, proof_ms_min, proof_ms_max;
};

typedef struct pipeline pipeline_t;

/* Creates the pipeline (no threads yet). */
int pipeline_new(pipeline_t **ret, const struct pipeline_config *cfg, const struct pipeline_env *env);
/* Runs the batch to completion or interruption on the calling thread. */
int pipeline_run(pipeline_t *p, struct pipeline_result *out);
void pipeline_free(pipeline_t *p);
/* A sampler occupancy callback (ctx = the pipeline). */
void pipeline_occupancy(void *ctx, uint64_t occ[SAMPLER_OCC_COUNT]);

#endif
