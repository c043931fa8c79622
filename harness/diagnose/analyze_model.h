/*
 * The model of a batch run (analyze_model.c): the sample series per memory
 * layer and occupancy count, the baseline window, where work began and
 * ended, and the per-layer fits the batch rules (analyze_rules.c) read.
 * Internal to harness/diagnose/.
 */
#ifndef ZKB_ANALYZE_MODEL_H
#define ZKB_ANALYZE_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "harness/diagnose/analyze.h"

/* samples.csv as columns, one value per sample. */
typedef struct {
    size_t n;
    double *t;                   /* ms */
    double *layer[ANALYZE_NLAYERS];
    double *x[ANALYZE_NX];
    double *occ_sum;             /* q_gpu + n_synth + n_blocked */
    bool *idle, *started;
    bool has_tracked, has_gpu;
} series_t;

/* The model of a batch run the rules read: the series, where work began and
 * ended, the proof completion times; the per-layer numbers go into the
 * result's layer[], baseline_rss, peak_rss, proofs_done. */
typedef struct {
    series_t S;
    size_t n, i0;        /* samples; the first with work (n when none) */
    size_t nb, b0;       /* the baseline window: the nb idle samples from b0 to i0 */
    size_t drain_from;   /* the first of the idle samples at the end */
    bool drained, interrupted;
    const char *status;  /* run.json status (borrowed), or NULL */
    double *tdone;       /* proof completion times, sorted */
    size_t np;
    double t_last, active_s; /* the end of the work (ms), its duration (s) */
    double peak_work;        /* peak RSS - B */
} analyze_model_t;

/* Builds the series, the baseline and the per-layer fits, floors and
 * growth of a batch run with samples; adds "baseline" and "layers" to J and
 * notes to notes. 0, or -ENOMEM with err set (m is then freed). */
int analyze_model_build(analyze_model_t *model, analyze_result_t *R, const analyze_run_t *run, json_t *J,
                        json_t *notes, char *err, size_t errlen);
void analyze_model_free(analyze_model_t *m);

#endif
