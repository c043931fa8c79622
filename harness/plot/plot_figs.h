/*
 * The figures of a run, one function each (plot_memory.c, plot_buffers.c,
 * plot_sweep.c), called by plot_run (plot.c) with what they share.
 */
#ifndef ZKB_PLOT_FIGS_H
#define ZKB_PLOT_FIGS_H

#include <stddef.h>

#include "harness/diagnose/analyze.h"
#include "harness/plot/plot_gp.h"

typedef struct {
    const analyze_run_t *run;
    const analyze_result_t *res; /* the diagnosis; NULL when it could not be made */
    const analyze_opts_t *opts;  /* what it was made with (NULL: analyze's defaults) */
    char verdict[400];           /* the title's verdict line */
    const char *tmp;             /* scripts and data (plot_gp_setup) */
    plot_figs_t figs;
    char name[256];              /* the run's name (plot_run_name) */
    double xlo, xhi, t_end;      /* time axis, seconds */
    bool watch;
} plot_ctx_t;

/* memory: the memory layers over time, the baseline, the RAM or memory
 * limit, the leak trend, proof completions or marks; the verdict in the title. */
int plot_memory(plot_ctx_t *c, char *err, size_t errlen);
/* kinds: live tracked bytes stacked by kind, host and device on separate
 * panels (batch runs with live_<kind> columns; nothing drawn otherwise). */
int plot_kinds(plot_ctx_t *c, char *err, size_t errlen);
/* buffers: one row per buffer in order of allocation, a bar from allocation
 * to free (to the end when never freed), coloured by kind (batch) or site
 * (watch), and on the right axis the live bytes of those buffers: rows are
 * ranks, never bytes, so no height suggests memory the process did not hold. */
int plot_buffers(plot_ctx_t *c, char *err, size_t errlen);
/* whatif: analyze's what-if entries as ranked horizontal bars, the peak
 * each saves (nothing drawn when the analysis has none). */
int plot_whatif(plot_ctx_t *c, char *err, size_t errlen);
/* The live bytes of buffers.csv b over time: *t (seconds, sorted) and *v
 * (bytes live just after t), *n steps, both allocated (the caller frees).
 * Returns 0 or -ENOMEM. */
int plot_buffers_live(const run_csv_t *b, double **t, double **v, size_t *n);
/* sweep: measured and predicted peak RSS against pw from sweep_csv (and
 * sweep-model.csv beside it). -EINVAL for a malformed table. */
int plot_sweep_fig(plot_figs_t *F, const char *tmp, const char *sweep_csv, char *err, size_t errlen);

/* The limit a run's memory is held to: opts's --ram or --mem-limit when
 * given, else from run.json a memory cgroup (mem_limit, or
 * config.mem_limit) or else the machine's RAM. 0 when unknown; *label gets
 * "memory limit" or "RAM". */
double plot_run_limit(const analyze_run_t *run, const analyze_opts_t *opts, const char **label);

#endif
