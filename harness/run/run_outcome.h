/*
 * How a run ended, in its run.json: written by the process that stays
 * outside the memory cap (batch and watch under --mem-limit) once the work
 * has ended, however it ended. It adds the outcome, the limit and the
 * cgroup's memory events and, for a batch that was killed before writing
 * its summary, a summary computed from the CSV files it left (README:
 * "Files of a run").
 */
#ifndef ZKB_RUN_OUTCOME_H
#define ZKB_RUN_OUTCOME_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/run/memcap.h"

/* Reads DIR/run.json into *ret (the caller's: json_decref). Returns 0,
 * -ENOENT when there is none, or -errno with one line in err. */
int run_outcome_load(json_t **ret, const char *dir, char *err, size_t errlen);
/* Writes root to DIR/run.json: run_json_save (run_files.h). */
int run_outcome_save(const char *dir, json_t *root, char *err, size_t errlen);

/*
 * A batch summary from DIR's files, for a run killed before it wrote one:
 * peak_rss is the largest rss or hwm in samples.csv (a torn last row is
 * ignored), proofs_done the rows of proofs.csv, wall_s the last sample's
 * t_ms; baseline_rss is given (run.json's baseline.rss, 0 if unknown).
 * Files that are missing count as empty. Returns a new object, NULL when
 * out of memory.
 */
json_t *run_outcome_summary(const char *dir, uint64_t baseline_rss);

/* Sets root's "outcome" to outcome, "mem_limit" to limit_bytes and
 * "memory_events" to s's counts with the cgroup's version (null when s is
 * NULL: the counters could not be read). "status" is the caller's. */
void run_outcome_set(json_t *root, const char *outcome, uint64_t limit_bytes, const memcap_t *m,
                     const struct memcap_stats *s);

/* Who writes the run, for a reader that finds it "running" later: {"pid",
 * "start_ticks" (field 22 of /proc/PID/stat, so a reused pid is told
 * apart), "boot_id"}; analyze says a run whose writer is gone died
 * (docs/diagnosis.md, "A run that did not complete"). A new object; NULL
 * when out of memory. */
json_t *run_outcome_writer(void);

#endif
