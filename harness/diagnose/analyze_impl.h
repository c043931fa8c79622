/*
 * What the files of the batch diagnosis share and no caller sees: the loaded
 * run, the sample series with the per-layer model (analyze_model.c) the
 * verdict rules (analyze_rules.c) read, and the small JSON helpers. The
 * public API is analyze.h.
 */
#ifndef ZKB_ANALYZE_IMPL_H
#define ZKB_ANALYZE_IMPL_H

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/diagnose/analyze.h"
#include "harness/run/run_csv.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

/* A run's files as loaded (analyze_load.c). */
struct analyze_run {
    char *dir;
    run_csv_t samples, buffers, stages, proofs, marks, sites;
    bool watch; /* a run of zkbench watch (analyze_watch.c) */
    json_t *run_json;
    json_t *notes; /* array of strings */
};

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


/* What the capacity model says about other pw values, in one clause
 * (analyze_text.c). */
void analyze_capacity_fits_text(char *out, size_t cap, const analyze_result_t *R);

/* A number of run.json: a JSON number, or a size recorded as text ("755G");
 * NAN when absent or malformed. */
static inline double jnum_get(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v)) { /* sizes recorded as text, e.g. "755G" */
        uint64_t sz;
        if (analyze_parse_size(&sz, json_string_value(v)))
            return (double)sz;
    }
    return NAN;
}

static inline json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static inline json_t *jbytes(double v)
{
    return isfinite(v) ? json_integer((json_int_t)llround(v)) : json_null();
}

static inline json_t *coef_json(double v, double se)
{
    json_t *o = json_object();
    json_object_set_new(o, "value", jbytes(v));
    json_object_set_new(o, "se", jbytes(se));
    return o;
}

#endif
