/*
 * zkbench plot (plot.h): diagnoses the run, so that the figures can show
 * the verdict, then draws them one by one and renames them into place
 * together. The figures themselves are in plot_memory.c, plot_buffers.c,
 * plot_whatif.c and plot_sweep.c; gnuplot and its embedded scripts in plot_gp.c.
 */
#include "harness/plot/plot.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "harness/plot/plot_figs.h"
#include "harness/plot/plot_style.h"
#include "harness/run/errmsg.h"
#include "harness/run/units.h"

static bool oom_killed(const analyze_run_t *run)
{
    const char *o = json_string_value(json_object_get(analyze_run_json(run), "outcome"));
    return o && strcmp(o, "oom-killed") == 0;
}

/* The verdict as one short line for a title. */
static void verdict_line(char *buf, size_t len, const analyze_result_t *r, const analyze_run_t *run)
{
    char b1[32], b2[32];
    const char *v = analyze_verdict_name(r->verdict);
    if (r->watch && r->headline[0]) {
        snprintf(buf, len, "verdict: %s", r->headline);
        return;
    }
    switch (r->verdict) {
    case ANALYZE_LEAK:
        if (r->leak_rate > 0 && r->layer[r->leak_layer < 0 ? 0 : r->leak_layer].g_significant)
            snprintf(buf, len, "verdict: %s: %s, +%s per proof", v, r->leak_where, fmt_bytes(b1, r->leak_rate));
        else
            snprintf(buf, len, "verdict: %s: %s, %s never freed", v, r->leak_where, fmt_bytes(b1, r->never_freed_bytes));
        break;
    case ANALYZE_QUEUE_PILEUP:
        snprintf(buf, len, "verdict: %s: up to %.0f partitions over the pipeline's bound, for %.1f s", v,
                 r->pileup_excess, r->pileup_s);
        break;
    case ANALYZE_HELD_TOO_LONG:
        snprintf(buf, len, "verdict: %s: buffers kept after their last use, %.0f%% of the tracked working set", v,
                 100 * r->held_share);
        break;
    case ANALYZE_RETENTION:
        snprintf(buf, len, "verdict: %s: %s kept by the allocator after drain (%.0f%% of the working set)", v,
                 fmt_bytes(b1, r->retained_bytes), 100 * r->retained_share);
        break;
    case ANALYZE_CAPACITY:
        if (oom_killed(run) && isfinite(r->ram_bytes))
            snprintf(buf, len, "verdict: %s: OOM-killed under the memory limit %s, at peak RSS %s", v,
                     fmt_bytes(b1, r->ram_bytes), fmt_bytes(b2, r->peak_rss));
        else if (isfinite(r->limit_rss))
            snprintf(buf, len, "verdict: %s: peak RSS %s above %s (the limit less a %.0f%% margin)", v,
                     fmt_bytes(b1, r->peak_rss), fmt_bytes(b2, r->limit_rss), 100 * r->margin);
        else
            snprintf(buf, len, "verdict: %s: peak RSS %s", v, fmt_bytes(b1, r->peak_rss));
        break;
    default:
        snprintf(buf, len, "verdict: %s: no growth per proof; peak RSS %s, baseline %s", v, fmt_bytes(b1, r->peak_rss),
                 fmt_bytes(b2, r->baseline_rss));
        break;
    }
}

int plot_run(const analyze_run_t *run, const analyze_opts_t *opts, const char *run_dir, const char *out_dir,
             char *written, size_t wlen, char *err, size_t errlen)
{
    const run_csv_t *s = analyze_run_csv(run, "samples.csv"), *b = analyze_run_csv(run, "buffers.csv");
    char tmp[PATH_MAX], sweep[PATH_MAX];
    int rc;
    if (written && wlen)
        written[0] = '\0';
    /* everything that can refuse the run is checked before any drawing */
    if (s->nrows == 0)
        return errmsg_fail(err, errlen, -EINVAL, "%s/samples.csv: no samples (empty run), nothing to plot", run_dir);
    snprintf(sweep, sizeof sweep, "%s/sweep.csv", run_dir);
    bool has_sweep = access(sweep, F_OK) == 0;
    if ((rc = plot_ensure_dir(out_dir, err, errlen)) < 0 || (rc = plot_gp_setup(tmp, sizeof tmp, err, errlen)) < 0)
        return rc;
    plot_ctx_t c = {.run = run, .opts = opts, .tmp = tmp, .figs = {.out_dir = out_dir}, .watch = analyze_run_is_watch(run)};
    plot_run_name(c.name, sizeof c.name, run_dir);

    /* the diagnosis, as analyze computes it (by default against the run's own limit) */
    analyze_result_t res;
    char aerr[300];
    bool have_res = analyze_compute(&res, run, opts, aerr, sizeof aerr) == 0;
    if (have_res) {
        c.res = &res;
        verdict_line(c.verdict, sizeof c.verdict, &res, run);
    } else {
        snprintf(c.verdict, sizeof c.verdict, "verdict: none (%s)", aerr);
    }

    /* explicit ranges: a run of one sample, or of equal times, would make
     * gnuplot warn about an empty range (and a warning is a failure here) */
    int ct = run_csv_col(s, "t_ms"), cta = run_csv_col(b, "t_alloc_ms");
    c.t_end = run_csv_num(s, s->nrows - 1, ct) / 1000;
    c.xlo = run_csv_num(s, 0, ct) / 1000, c.xhi = c.t_end;
    for (size_t i = 0; i < b->nrows; i++) {
        double ta = run_csv_num(b, i, cta) / 1000;
        if (isfinite(ta))
            c.xlo = fmin(c.xlo, ta), c.xhi = fmax(c.xhi, ta);
    }
    if (!(c.xhi > c.xlo))
        c.xhi = c.xlo + 1;

    if ((rc = plot_memory(&c, err, errlen)) == 0 && (c.watch || (rc = plot_kinds(&c, err, errlen)) == 0) &&
        (rc = plot_buffers(&c, err, errlen)) == 0 && (c.watch || (rc = plot_whatif(&c, err, errlen)) == 0) &&
        has_sweep)
        rc = plot_sweep_fig(&c.figs, tmp, sweep, err, errlen);
    if (rc == 0)
        rc = plot_figs_commit(&c.figs, written, wlen, err, errlen);
    else
        plot_figs_discard(&c.figs);
    if (have_res)
        analyze_result_clear(&res);
    plot_gp_cleanup(tmp);
    return rc;
}

int plot_sweep(const char *sweep_csv, const char *out_dir, char *err, size_t errlen)
{
    char tmp[PATH_MAX];
    int rc;
    if ((rc = plot_ensure_dir(out_dir, err, errlen)) < 0 || (rc = plot_gp_setup(tmp, sizeof tmp, err, errlen)) < 0)
        return rc;
    plot_figs_t F = {.out_dir = out_dir};
    rc = plot_sweep_fig(&F, tmp, sweep_csv, err, errlen);
    if (rc == 0)
        rc = plot_figs_commit(&F, NULL, 0, err, errlen);
    else
        plot_figs_discard(&F);
    plot_gp_cleanup(tmp);
    return rc;
}
