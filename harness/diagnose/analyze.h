/*
 * Diagnosis of a zkbench run (DESIGN.md, "Diagnosis method"; the method is
 * explained in docs/diagnosis.md): baselines per memory layer, per-slot
 * footprints and the leak rate from a least-squares fit of each layer over
 * pipeline occupancy, valley floors, retention, memory held after last use,
 * queue pile-ups, capacity, and one verdict with its evidence.
 *
 * The functions return 0 or a negative errno and never print; messages for
 * the user are left in err (one line, naming the file and the value).
 * `analyze`, `check`, `sweep` and `watch` all go through this API.
 */
#ifndef ZKB_ANALYZE_H
#define ZKB_ANALYZE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/diagnose/analyze_names.h"
#include "harness/diagnose/capacity.h"
#include "harness/run/run_csv.h"

/* Ordinary least squares of y (n) on the columns of x (n x p, row-major),
 * by modified Gram-Schmidt QR. A column that is constant (when intercept is
 * set, column 0 is the intercept) or collinear with earlier ones is dropped:
 * kept[j] false, beta[j] = se[j] = 0. Standard errors are corrected for the
 * lag-1 autocorrelation of the residuals (AR(1): n_eff = n (1-rho)/(1+rho)),
 * since successive samples are not independent. */
typedef struct {
    size_t n, p, rank;
    double beta[8], se[8];
    bool kept[8];
    double r2, resid_sd, rho, n_eff, dof;
} analyze_ols_t;
int analyze_ols(analyze_ols_t *ret, const double *x, const double *y, size_t n, size_t p);
/* Two-sided 95% quantile of Student's t with dof (>= 1, fractional too)
 * degrees of freedom; NAN below 1. */
double analyze_t95(double dof);
/* Slope of y over x with intercept: slope, its 95% CI and (sd, may be
 * NULL) the residual sd. Returns false when there are fewer than 3 points
 * or x is constant (analyze_stats.c). */
bool analyze_fit_line(double *slope, double *lo, double *hi, double *sd, const double *xs, const double *ys,
                      size_t n);
/* qsort's comparison of doubles, ascending. */
int analyze_cmp_double(const void *a, const void *b);
/* Median of v[0..n) (v is not changed); NAN for n == 0. */
double analyze_median(const double *v, size_t n);
/* From samples.csv: *peak_anon the largest rss_anon, *file_at_peak the
 * rss_file of the sample with the largest rss (NAN where a column is
 * missing). A memory cgroup charges the anonymous part in full; file-backed
 * pages (a mapped key) it may reclaim, so under a cap the anonymous peak is
 * the figure a prediction is held to (docs/diagnosis.md, "Capacity"). */
void analyze_anon_peak(const run_csv_t *samples, double *peak_anon, double *file_at_peak);


/* Growth of one series over time (for `watch`, which has only RSS and GPU):
 * slope in units per second with its 95% interval (AR(1)-corrected), valley
 * floors (minimum of each of n_windows equal windows, at most 32) and their
 * slope, the noise scale (robust sd from successive differences), and:
 *   growing: the slope's CI is above 0, or the floors rose > 6 noise;
 *   plateau: growing, but the last third of the series added less than
 *            max(3 noise, 10% of the floor rise): growth stopped (a bounded
 *            cache is not a leak). */
typedef struct {
    double slope, slope_lo, slope_hi;       /* per second */
    double floor_slope, floor_lo, floor_hi; /* per second, from the window floors */
    double last_third_slope, last_third_lo, last_third_hi;
    double noise, floor_rise;
    bool growing, plateau;
    size_t n_windows;
    double floors[32];
} analyze_trend_t;
int analyze_trend(analyze_trend_t *ret, const double *t_ms, const double *y, size_t n, size_t n_windows);

/* A run's files, loaded and checked. */
typedef struct analyze_run analyze_run_t;
/* Loads RUN_DIR's samples.csv, buffers.csv, stages.csv, proofs.csv and
 * run.json (buffers/stages/proofs may be absent: noted; samples.csv and
 * run.json must be there). Bad input: -EINVAL/-ENOENT with one line in err.
 * Notes (a dropped partial row, a missing optional file) are collected. The
 * caller frees *ret with analyze_run_free. */
int analyze_run_load(analyze_run_t **ret, const char *dir, char *err, size_t errlen);
void analyze_run_free(analyze_run_t *run);
/* run.json as read (borrowed). */
const json_t *analyze_run_json(const analyze_run_t *run);
/* One of the run's CSV files as read (borrowed): name is "samples.csv",
 * "buffers.csv", "stages.csv" or "proofs.csv"; NULL for another name. */
const run_csv_t *analyze_run_csv(const analyze_run_t *run, const char *name);
/* The notes collected while loading (borrowed JSON array of strings). */
const json_t *analyze_run_notes(const analyze_run_t *run);
/* Whether the run is a zkbench watch run (run.json config.mode "pid" or
 * "command", or no heap counters and no batch config): analyzed from the
 * process layers, marks and traced sites (analyze_watch.c). For a watch run
 * analyze_run_csv also gives "marks.csv" and "sites.csv" (empty when the
 * run has none), and buffers.csv's kinds are free-form site labels. */
bool analyze_run_is_watch(const analyze_run_t *run);
/* The run folder as given to analyze_run_load (borrowed). */
const char *analyze_run_dir(const analyze_run_t *run);

typedef struct {
    uint64_t ram_bytes; /* RAM to fit in; 0: run.json machine RAM if recorded */
    double margin;      /* fraction of RAM kept free, e.g. 0.10; negative: the default (analyze_margin) */
    const char *ram_from; /* how ram_bytes was given ("--ram", "--mem-limit"); NULL: "--ram" */
} analyze_opts_t;
/* The margin the limit is held to: opts's when given (>= 0), else 0 for a
 * memory cgroup's limit (--mem-limit, run.json's mem_limit: the kernel's cap
 * is exact, as sweep holds it) and 10 % for RAM, which others share.
 * ram_src names where the limit came from ("--ram", "--mem-limit", "run.json
 * mem_limit", ...). */
double analyze_margin(const analyze_opts_t *opts, const char *ram_src);

typedef struct {
    double baseline;            /* B: measured (run.json summary, or idle samples) */
    double peak, end, after_drain; /* after_drain: NAN when the run did not drain */
    analyze_ols_t fit;          /* columns: intercept, then ANALYZE_X_* */
    double g, g_lo, g_hi;       /* leak rate, bytes per proof, 95% CI */
    bool g_significant;         /* CI excludes 0 and g*proofs above the noise threshold */
    size_t n_floors;
    double floor_slope, floor_lo, floor_hi; /* valley-floor trend, bytes per proof */
    bool fitted;
} analyze_layer_t;

typedef struct {
    analyze_verdict_t verdict;
    char reason[1280];  /* one sentence with the numbers */
    char leak_where[160]; /* which layer/kind leaks, when verdict is leak */
    analyze_layer_t layer[ANALYZE_NLAYERS];
    /* headline numbers, also used by `check` and `sweep` */
    double peak_rss, baseline_rss, s_per_proof; /* s_per_proof NAN if unknown */
    double peak_anon, file_at_peak;               /* analyze_anon_peak; NAN where not sampled */
    double footprint_per_partition, footprint_se; /* rss f_synth: bytes per synthesis slot */
    double leak_rate, leak_lo, leak_hi;           /* of the leak layer, or the largest among those checked */
    int leak_layer;
    double never_freed_bytes;                     /* tracked, excluding resident kinds */
    double retained_bytes, retained_share;        /* (rss - je_allocated) at end minus at baseline */
    double held_gibs, held_share;                 /* GiB*s after last use; share of the tracked working set area */
    double pileup_s, pileup_excess;               /* longest stretch above the bound; max excess */
    int pw, largest_pw;                           /* largest_pw: -1 when no RAM size or no model */
    capacity_model_t capacity;                    /* the capacity model (capacity.ok: it gives numbers) */
    double ram_bytes, margin;
    double limit_rss;    /* what peak RSS is compared with: RAM or cap less the margin (+ file-backed RSS for a cap) */
    size_t proofs_done, samples;
    /* share of the work span with H or an MSM running (stages.csv); NAN:
     * unknown (the JSON's prove_busy has the seconds and the backend) */
    double prove_busy;
    /* a watch run: growth is per proof when it has proof boundaries (marks,
     * proofs_done), else per second; leak_rate/lo/hi are in that unit */
    bool watch, per_proof;
    char headline[320]; /* "leak: 2.0 MiB per proof, never freed at f (f.c:14)", "healthy: no leak, ..." */
    /* the run's status when it did not complete ("incomplete: the process
     * died at 41.2 s (no end record)"); "" for a complete run */
    char status_line[320];
    /* what would decide, when the verdict is inconclusive ("run >= 5
     * proofs (3 more)", "--sample-ms 30: ..."); "" otherwise */
    char decide[400];
    /* a watch run whose tick is coarser than a tenth of its cycle (marked
     * or found in the signal): the cycle, the tick and the --sample-ms that
     * fits (watch_sampling.h); "" otherwise */
    char sampling_line[400];
    bool dead; /* status running, and the process that wrote it is gone */
    /* status running, and the process that writes it is alive: run.json is
     * still its writer's, so analyze leaves it alone (cmd_analyze) */
    bool live;
    /* what the capacity model says in one line (a batch run): the largest
     * pw that fits, that any pw fits, or why no number can be given */
    char capacity_line[640];
    /* the what-if that buys the most pw (analyze_whatif.h), when the
     * verdict is capacity; "" otherwise */
    char whatif_line[480];
    json_t *json; /* the whole analysis (verdict, evidence, every section); owned */
} analyze_result_t;

/* Analyzes a loaded run. Returns 0, -EINVAL (err: e.g. no samples) or
 * -ENOMEM. The caller clears *ret with analyze_result_clear. */
int analyze_compute(analyze_result_t *ret, const analyze_run_t *run, const analyze_opts_t *opts, char *err,
                    size_t errlen);
void analyze_result_clear(analyze_result_t *r);
/* analyze_run_load then analyze_compute (opts NULL: analyze's defaults):
 * 0 with *run and *ret to free and clear, or the first step's error with
 * nothing left to free. */
int analyze_run_open(analyze_run_t **run, analyze_result_t *ret, const char *dir, const analyze_opts_t *opts,
                     char *err, size_t errlen);
/* The verdict in words, the lines every command prints (analyze, batch,
 * watch, sweep, report; docs/diagnosis.md, "One verdict"): "status" when
 * the run did not complete, "verdict" with the headline, "" with the
 * reason, "decide" when inconclusive, "sampling" when a watch run's tick
 * is too coarse for its cycle, "capacity" for a batch run, "what-if"
 * with the change that buys the most pw when the verdict is capacity. The
 * lines borrow r's strings; a command lays out the key as it likes.
 * Returns the number of lines. */
#define ANALYZE_LINES_MAX 8
typedef struct {
    const char *key, *text;
} analyze_line_t;
size_t analyze_verdict_lines(analyze_line_t lines[ANALYZE_LINES_MAX], const analyze_result_t *r);
/* Predicted peak RSS at pw synthesis workers, from the capacity model
 * (capacity.h). NAN when the model gives no numbers. */
double analyze_predict_peak(const analyze_result_t *r, int pw);
/* Writes r's verdict object into DIR/run.json under "verdict" (read, modify,
 * write to a temp file, rename): the rest of run.json is kept. */
int analyze_write_verdict(const char *dir, const analyze_result_t *r, char *err, size_t errlen);

#endif
