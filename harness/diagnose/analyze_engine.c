/*
 * The verdict engine: analyze_compute picks the rules of the run's kind
 * (a batch: analyze_rules.c; a watch: analyze_watch.c), and the run's
 * status and the verdict's words (analyze_verdict_words) that every
 * command prints from it. The top of harness/diagnose/ below the text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_rules.h"
#include "harness/diagnose/analyze_run.h"
#include "harness/diagnose/analyze_watch.h"
#include "harness/diagnose/capacity.h"

int analyze_compute(analyze_result_t *ret, const analyze_run_t *run, const analyze_opts_t *opts, char *err,
                    size_t errlen)
{
    if (run->watch && run->samples.nrows > 0)
        return analyze_watch_compute(ret, run, opts, err, errlen);
    return analyze_batch_compute(ret, run, opts, err, errlen);
}

void analyze_result_clear(analyze_result_t *r)
{
    if (!r)
        return;
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

double analyze_predict_peak(const analyze_result_t *r, int pw)
{
    if (!r->capacity.ok)
        return NAN;
    capacity_point_t c;
    capacity_predict(&c, &r->capacity, pw);
    return c.peak;
}

int analyze_run_open(analyze_run_t **run, analyze_result_t *ret, const char *dir, const analyze_opts_t *opts,
                     char *err, size_t errlen)
{
    int rc = analyze_run_load(run, dir, err, errlen);
    if (rc < 0)
        return rc;
    if ((rc = analyze_compute(ret, *run, opts, err, errlen)) < 0) {
        analyze_run_free(*run);
        *run = NULL;
    }
    return rc;
}
