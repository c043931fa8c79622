/*
 * The metrics export of a batch or watch run (README: "Prometheus"): the
 * options --listen, --metrics-file and --listen-linger, checked and the
 * port bound before any work; then the HTTP server (metrics_http.h) and a
 * thread that rewrites --metrics-file every METRICS_FILE_PERIOD_MS
 * atomically (a temporary file in the same folder, fsync, rename); at the
 * end the final values, kept served until a scrape has fetched them.
 */
#ifndef ZKB_METRICS_EXPORT_H
#define ZKB_METRICS_EXPORT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness/metrics/metrics.h"
#include "harness/metrics/metrics_verdict.h"

#define METRICS_FILE_PERIOD_MS 2000
#define METRICS_LINGER_DEFAULT_S 30

/* getopt_long values of the options, out of the range of characters. */
enum {
    METRICS_OPT_LISTEN = 0x1501,
    METRICS_OPT_FILE,
    METRICS_OPT_LINGER,
    METRICS_OPT_VERDICT_S,
};

struct metrics_opts {
    const char *listen, *file;
    unsigned linger_s, verdict_s;
};

/* Defaults: no export, linger METRICS_LINGER_DEFAULT_S, a verdict every
 * METRICS_VERDICT_PERIOD_S. */
void metrics_opts_init(struct metrics_opts *o);
/* Takes option c (a METRICS_OPT_* value) with its argument: 1 taken, 0 not
 * one of these, -EINVAL with err naming the value. */
int metrics_opts_set(struct metrics_opts *o, int c, const char *arg, char *err, size_t errlen);

typedef struct metrics_export metrics_export_t;

/* Before any work: binds --listen's port and checks that --metrics-file's
 * folder takes a file. *ret = NULL when neither is asked. 0 or -errno with
 * err naming the value (all of them usage errors: exit 2). */
int metrics_export_new(metrics_export_t **ret, const struct metrics_opts *o, char *err, size_t errlen);
/* "ADDR:PORT" the server listens on, or NULL (no --listen; x NULL). */
const char *metrics_export_address(const metrics_export_t *x);
/* Starts serving and writing with the run's description; NULL x: nothing.
 * 0 or -errno with err. */
int metrics_export_start(metrics_export_t *x, const struct metrics_config *cfg, char *err, size_t errlen);
/* Once the run folder exists: zkbench_verdict, analyze's verdict of it,
 * every --metrics-verdict-s and at metrics_export_end (metrics_verdict.h);
 * place moves analyze's process out of the run's memory cap (NULL: the run
 * is not capped). NULL x, or before metrics_export_start: nothing. 0 or
 * -errno with err. */
int metrics_export_verdict(metrics_export_t *x, const char *run_dir, metrics_place_fn place, void *place_ctx,
                           char *err, size_t errlen);
/* The metrics to feed (a sampler on_sample ctx), or NULL. */
metrics_t *metrics_export_metrics(metrics_export_t *x);
/*
 * The run's work is over (the sampler stopped): zkbench_running drops to 0,
 * zkbench_verdict becomes analyze's verdict of the files as they are (the
 * run's end written: batch and watch call this after run.json's); with --listen, serving goes on until a scrape has fetched that state, at
 * most --listen-linger seconds, or until *stop is set (a signal; NULL: never;
 * no wait at all when it is set already); then --metrics-file gets the final
 * values. 0; -ETIMEDOUT when the linger ran out with no scrape of the final
 * values; or the first error writing --metrics-file (err says which).
 * NULL x: 0.
 */
int metrics_export_end(metrics_export_t *x, atomic_int *stop, char *err, size_t errlen);
/* Stops everything; NULL accepted. */
void metrics_export_free(metrics_export_t *x);

/* The memory limit that applies to process pid: the lowest memory.max on
 * its cgroup v2 path, or 0 when none (or no cgroup v2). */
uint64_t metrics_cgroup_limit(pid_t pid);

#endif
