/*
 * One `zkbench batch` run (README: "Files of a run"): N proofs of a circuit
 * through the pipeline (pipeline.h) while the sampler records every memory
 * layer, into a run folder the caller made. The command line (cli/cmd_batch.c)
 * fills struct batch_opts and calls batch_check, then batch_run or, with a
 * memory cap, batch_capped. Errors are one line on stderr (errmsg_print);
 * every function returns the command's exit status: 0 done, 1 a proof failed
 * to verify, the prover failed, the batch process was killed or a run file
 * could not be written, 2 bad input found on loading it, 3 OOM-killed under
 * the cap, 130 interrupted by SIGINT/SIGTERM (files complete to that point).
 */
#ifndef ZKB_BATCH_H
#define ZKB_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/metrics/metrics_export.h"
#include "harness/run/mem_budget.h"
#include "harness/run/memcap.h"
#include "harness/run/pipeline.h"
#include "prover/backend.h"
#include "prover/params_map.h"

struct batch_opts {
    struct pipeline_config pc;
    const char *circuit, *params, *out, *backend;
    bool force;      /* --force: replace the run in --out */
    bool quiet;      /* --quiet: errors and the final verdict line only */
    bool no_analyze; /* --no-analyze: no diagnosis or plots at the end */
    unsigned sample_ms;
    uint64_t mem_limit; /* bytes; 0: no cap */
    uint64_t gpu_mem;   /* --gpu-mem: device bytes per GPU; 0: what each has free */
    enum params_load params_load;
    char inject_text[512];
    /* --gpus: "all", or the CUDA devices listed (n_gpus; 0: not given,
     * device 0); resolved against the machine in batch_run */
    bool gpus_all;
    int gpus[BACKEND_MAX_DEVICES];
    unsigned n_gpus;
    bool queue_set;              /* --gpu-queue given: else gpu_workers x devices */
    uint64_t mem_budget;         /* --mem-budget: bytes of RSS partitions are admitted under; 0: none */
    const char *model_dir;       /* --model: the run the budget's model comes from; NULL: learned */
    const struct mem_budget_model *model; /* loaded from model_dir (the caller's storage) */
    struct metrics_opts metrics; /* --listen, --metrics-file, --listen-linger */
    metrics_export_t *mx;        /* bound before any work; NULL: none */
};

/* SIGINT/SIGTERM from now on end the run with run.json marked interrupted
 * (a second one stops it at once, run.json saying so); first thing in
 * `zkbench batch`, so no interrupt ever kills a run outright. */
void batch_signals_install(void);

/* The checks made before any file is written (the circuit, the parameters
 * or the cache's key, the devices asked for): -1 to go on, else the exit
 * status after one line. No side effect. */
int batch_check(const struct batch_opts *o);

/* The batch in this process, in out_dir (made by the caller): everything
 * from the device check on (CUDA is first touched here, so that a capped
 * batch's child, not the parent, initializes it). cap: the cgroup this
 * process runs in, or NULL. A file that cannot be written (a full disk)
 * stops the run: exit 1, run.json marked failed if it can be written. */
int batch_run(const struct batch_opts *o, const char *out_dir, const memcap_t *cap);

/* batch_run in a child process inside cap, waited for outside it: this
 * process survives an OOM kill of the child and finishes run.json (outcome
 * oom-killed, exit 3). SIGINT/SIGTERM go on to the child. */
int batch_capped(const struct batch_opts *o, const char *out_dir, const memcap_t *cap);

#endif
