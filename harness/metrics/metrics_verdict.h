/*
 * analyze's verdict of a run for its metrics (zkbench_verdict, README:
 * "Prometheus"): the one engine's words, so that an alert says what
 * `zkbench analyze RUN_DIR` says. The verdict comes from
 * `zkbench analyze --json --no-save RUN_DIR`, run as a child process: the
 * analysis's memory never lands in the sampled process, whose heap is what
 * the run measures. A thread evaluates it every period while the run lasts;
 * the end evaluates it once more, on the finished files.
 */
#ifndef ZKB_METRICS_VERDICT_H
#define ZKB_METRICS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "harness/metrics/metrics.h"

/* The default period, and the longest one evaluation may take before its
 * child is killed (analyze of a week's run takes seconds). */
#define METRICS_VERDICT_PERIOD_S 30
#define METRICS_VERDICT_TIMEOUT_S 120

/* Moves the analysis's child process (pid) out of the run's memory cap, so
 * that its memory is not charged to the run's limit; 0 or -errno. */
typedef int (*metrics_place_fn)(pid_t pid, void *ctx);

struct metrics_verdict_config {
    const char *run_dir;    /* the run folder; copied */
    unsigned period_s;      /* between evaluations; 0: only the final one */
    metrics_place_fn place; /* NULL: the child stays where this process is */
    void *place_ctx;
};

/* One evaluation: the verdict's name and headline of run_dir as analyze
 * gives them now. 0, or -errno with err (analyze failed: its one line). */
int metrics_verdict_eval(const struct metrics_verdict_config *c, char *verdict, size_t vlen, char *headline,
                         size_t hlen, char *err, size_t errlen);

typedef struct metrics_verdict metrics_verdict_t;

/* Starts the thread that sets m's verdict every period. 0 or -errno. */
int metrics_verdict_start(metrics_verdict_t **ret, metrics_t *m, const struct metrics_verdict_config *c);
/* Stops the thread, then (final) evaluates once more on the files as they
 * are now. 0, or the final evaluation's error with err. NULL v: 0. */
int metrics_verdict_stop(metrics_verdict_t *v, bool final, char *err, size_t errlen);
/* Stops without a final evaluation, and frees; NULL accepted. */
void metrics_verdict_free(metrics_verdict_t *v);

#endif
