/*
 * The sampler's metrics for Prometheus (README: "Prometheus"): the latest
 * sample, the proof durations and a rolling leak-rate fit, rendered as an
 * OpenMetrics 1.0 exposition (what `--listen` serves to Prometheus) or in
 * Prometheus's text format 0.0.4 (what node_exporter's textfile collector
 * reads, and what --metrics-file writes). Thread-safe: the sampler thread
 * feeds it, the HTTP server and the file writer render it.
 */
#ifndef ZKB_METRICS_H
#define ZKB_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/run/sampler.h"

enum metrics_format {
    METRICS_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
    METRICS_TEXT,        /* text/plain; version=0.0.4 */
};

/* What the run is; the strings are copied. */
struct metrics_config {
    const char *version, *commit; /* zkbench's version and the commit it was built from */
    const char *circuit;          /* batch: the resolved circuit spec; NULL: none */
    const char *command;          /* watch: the watched command line; NULL: none */
    unsigned pw;                  /* batch: synthesis workers; 0: none */
    unsigned proofs_requested;    /* batch: --count; 0: none */
    bool heap;        /* the sampled process is this one: allocator, tracked, partitions, proofs */
    /* watch --mark/--mark-file: the samples' proofs_done counts the marks,
     * so proofs completed, their cadence as durations and the leak rate
     * are exported for the watched program too */
    bool marks;
    bool gpu;         /* the sampler reads device memory */
    uint64_t mem_limit; /* bytes, --mem-limit or the cgroup's memory.max; 0: unknown */
};

/* The longest verdict headline kept (analyze_result_t's is shorter). */
#define METRICS_HEADLINE_MAX 400

/* Proofs in the rolling leak-rate fit, and the fewest that give a rate. */
#define METRICS_FIT_WINDOW 32
#define METRICS_FIT_MIN 4
/* Upper bounds of the proof-duration histogram's finite buckets, seconds. */
#define METRICS_DURATION_BUCKETS 16

typedef struct metrics metrics_t;

int metrics_new(metrics_t **ret, const struct metrics_config *cfg);
/* NULL accepted. */
void metrics_free(metrics_t *m);

/* A sampler on_sample hook (ctx = the metrics_t; NULL: nothing). Takes the
 * sample as the latest and into the rolling fit: every sample of the last
 * METRICS_FIT_WINDOW proof intervals, RSS and je_allocated against the
 * partitions in flight and proofs_done, refitted at each completion. */
void metrics_on_sample(void *ctx, const sample_t *x);
/* One completed proof's wall time (proofs.csv's wall_ms, in seconds). */
void metrics_observe_proof(metrics_t *m, double seconds);
/* zkbench_running: 1 while the work runs (the default), 0 after. */
void metrics_set_running(metrics_t *m, bool running);

/* Whether the sampler reads device memory (known once the backend is), and
 * the CUDA device of each of its per-device readings (ids NULL: the i-th
 * reading is device i, as NVML numbers them). */
void metrics_set_gpu(metrics_t *m, bool gpu, const int *ids, unsigned n_ids);

/* The exposition of the state now, in a malloc'd NUL-terminated string the
 * caller frees; *ended (NULL: not wanted) says whether it is the state after
 * metrics_set_running(false). 0 or -ENOMEM. */
int metrics_render(metrics_t *m, enum metrics_format fmt, char **text, size_t *len, bool *ended);
/* The Content-Type of a format. */
const char *metrics_content_type(enum metrics_format fmt);

/* analyze's verdict of the run so far (metrics_verdict.h): the verdict's
 * name ("leak", "inconclusive", ...) and its headline, exported as
 * zkbench_verdict{verdict=..., headline=...} 1 from then on. */
void metrics_set_verdict(metrics_t *m, const char *verdict, const char *headline);

/* The rolling fit now: growth per proof of RSS (layer 0) or je_allocated
 * (layer 1); false while fewer than METRICS_FIT_MIN intervals (after the
 * first, left out) are known. */
bool metrics_leak_rate(metrics_t *m, int layer, double *bytes_per_proof);

#endif
