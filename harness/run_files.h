/*
 * The files of a batch run (README: "Files of a run"): samples.csv (written
 * by the sampler through run_files_samples), buffers.csv (from the tracked
 * buffers' events: run_files_mem_sink queues them, run_files_drain writes the
 * rows of freed buffers, once per sampler tick), stages.csv and proofs.csv
 * (a row per call, flushed), and run.json (replaced atomically).
 */
#ifndef ZKB_RUN_FILES_H
#define ZKB_RUN_FILES_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "prover/mem.h"

typedef struct run_files run_files_t;

/* Creates dir (and missing parents) if needed, and the four CSV files with
 * their headers. t0: the run's start (cli_now()). On failure err holds one
 * line naming the path. */
int run_files_open(run_files_t **ret, const char *dir, double t0, char *err, size_t cap);
/* Writes the rows of buffers still live (empty t_free_ms) and closes every
 * file. NULL accepted. */
void run_files_close(run_files_t *rf);

FILE *run_files_samples(run_files_t *rf);
const char *run_files_dir(const run_files_t *rf);

/* A mem_sink_fn (ctx = the run_files_t): queues the event. */
void run_files_mem_sink(void *ctx, const struct mem_event *ev);
/* Writes buffers.csv rows for the buffers freed since the last call. */
void run_files_drain(run_files_t *rf);

void run_files_stage(run_files_t *rf, int proof, int partition, const char *stage, const char *worker,
                     double t_start_ms, double t_end_ms);
/* verified: 1, 0, or -1 (not verified: empty field). */
void run_files_proof(run_files_t *rf, int proof, double t_submit_ms, double t_start_ms, double t_done_ms,
                     int verified);

/* Called with each proof row as written (wall_ms: t_done_ms - t_submit_ms),
 * on the writing thread; NULL: none. Set it before work starts. */
void run_files_set_proof_hook(run_files_t *rf, void (*fn)(void *ctx, double wall_ms), void *ctx);

/* Writes root to DIR/run.json through a temporary file and a rename. */
int run_files_write_json(run_files_t *rf, json_t *root);

#endif
