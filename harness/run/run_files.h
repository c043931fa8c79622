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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "prover/mem.h"

typedef struct run_files run_files_t;

/*
 * The folder of a new run (batch, sweep, watch), created with mkdir's
 * O_EXCL semantics so two runs never share one.
 *   out != NULL: that folder (missing parents made). When it already holds
 *   a run (run.json, one of the run CSVs or sweep tables) it is refused
 *   with -EEXIST, unless force: then those files are removed first, so the
 *   new run replaces the old one.
 *   out == NULL: results/runs/<prefix><UTC yyyymmdd-HHMMSS.mmm>-<pid>; when
 *   that exists, "-2", "-3", ... is appended.
 * The path goes to dir (cap bytes). Returns 0, or -errno with one line in
 * err naming the folder.
 */
int run_dir_create(char *dir, size_t cap, const char *out, const char *prefix, bool force, char *err,
                   size_t errlen);

/* Removes the run files of dir (those run_dir_create looks for, and the
 * figures and report made from them) and, when remove_dir, dir itself if
 * that leaves it empty: a command refused after making its folder (exit 2)
 * leaves nothing behind. */
void run_dir_discard(const char *dir, bool remove_dir);

/* Writes root to DIR/run.json through a temporary file (created O_EXCL in
 * DIR) and a rename, so a reader sees the old file or the new one; no
 * temporary file is left on failure. When the folder's filesystem is full
 * (ENOSPC, EDQUOT), a compact copy is written over the old run.json in
 * place as a last resort, so the outcome is recorded if it fits at all.
 * Returns 0 or -errno with one line in err. */
int run_json_save(const char *dir, json_t *root, char *err, size_t errlen);

/* Creates the four CSV files with their headers in dir (made by
 * run_dir_create; the files must not exist: O_EXCL). t0: the run's start
 * (run_clock_now()). On failure err holds one line naming the path. */
int run_files_open(run_files_t **ret, const char *dir, double t0, char *err, size_t cap);
/* Writes the rows of buffers still live (empty t_free_ms) and closes every
 * file. Returns 0 or the first write error of the run (-errno; see
 * run_files_error). NULL accepted. */
int run_files_close(run_files_t *rf);

/*
 * Write errors. Every row is written whole or not at all: a failed write
 * is cut back to the last whole row, and that file takes no more rows. The
 * first failure of the run is kept: run_files_error returns it (-errno, 0
 * when none) with one line naming the file in msg. run_files_fail records
 * a failure found elsewhere (the sampler's samples.csv).
 */
int run_files_error(run_files_t *rf, char *msg, size_t cap);
void run_files_fail(run_files_t *rf, const char *name, int neg_errno);

FILE *run_files_samples(run_files_t *rf);
const char *run_files_dir(const run_files_t *rf);

/* A mem_sink_fn (ctx = the run_files_t): queues the event. */
void run_files_mem_sink(void *ctx, const struct mem_event *ev);
/* Writes buffers.csv rows for the buffers freed since the last call. */
void run_files_drain(run_files_t *rf);

void run_files_stage(run_files_t *rf, int proof, int partition, const char *stage, const char *worker,
                     double t_start_ms, double t_end_ms);
/* A partition's proof into proofs.bin: `len` bytes (bellperson's
 * compressed encoding, GROTH16_PROOF_BYTES) at (proof * partitions +
 * partition) * len, so the proofs of a run lie in order whatever order
 * they completed in (a run stopped early leaves zeros where a partition
 * was not proved). */
void run_files_partition_proof(run_files_t *rf, int proof, int partition, unsigned partitions,
                               const uint8_t *bytes, size_t len);
/* verified: 1, 0, or -1 (not verified: empty field). */
void run_files_proof(run_files_t *rf, int proof, double t_submit_ms, double t_start_ms, double t_done_ms,
                     int verified);

/* Called with each proof row as written (wall_ms: t_done_ms - t_submit_ms),
 * on the writing thread; NULL: none. Set it before work starts. */
void run_files_set_proof_hook(run_files_t *rf, void (*fn)(void *ctx, double wall_ms), void *ctx);

/* run_json_save into the run's folder; a failure is also recorded as the
 * run's write error. */
int run_files_write_json(run_files_t *rf, json_t *root, char *err, size_t errlen);

/*
 * The run.json of a run stopped at once (batch: a second SIGINT/SIGTERM),
 * which has no time to be made then: image is rendered now and kept, and
 * run_files_abort writes it. NULL disarms (once the run's end is written).
 * 0 or -ENOMEM (the previous image stays armed). Not to be called from the
 * handler; once run_files_abort has started it does nothing.
 */
int run_files_arm_abort(run_files_t *rf, const json_t *image);
/* Async-signal-safe: writes the armed image over run.json (a temporary
 * file renamed), or nothing when none is armed. 0 or -errno. */
int run_files_abort(run_files_t *rf);

#endif
