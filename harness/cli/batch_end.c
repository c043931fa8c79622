/* The diagnosis at the end of a batch; see batch_end.h. */
#include "harness/cli/batch_end.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/plot/plot.h"
#include "harness/report/report.h"
#include "harness/run/run_csv.h"
#include "harness/run/units.h"

/* What each verdict means, in the words of the question it answers. */
static const char *verdict_gloss(analyze_verdict_t v)
{
    switch (v) {
    case ANALYZE_LEAK: return "memory grows with every proof";
    case ANALYZE_QUEUE_PILEUP: return "synthesized partitions pile up beyond the pipeline's bounds";
    case ANALYZE_HELD_TOO_LONG: return "buffers stay allocated long after their last use";
    case ANALYZE_RETENTION: return "freed memory stays with the allocator after the work";
    case ANALYZE_CAPACITY: return "no leak: the work needs more memory than the limit leaves";
    case ANALYZE_HEALTHY: break;
    }
    return "no leak, retention, queue pile-up or long holds";
}

size_t batch_end_evidence(char lines[4][320], const analyze_result_t *r)
{
    char a[32], b[32], c[32], d[32];
    size_t n = 0;
    int k = snprintf(lines[n], 320, "memory     baseline RSS %s, peak RSS %s", fmt_bytes(a, r->baseline_rss),
                     fmt_bytes(b, r->peak_rss));
    if (isfinite(r->footprint_per_partition) && r->footprint_per_partition > 0 && k > 0 && k < 320)
        snprintf(lines[n] + k, 320 - (size_t)k, "; %s per partition in synthesis",
                 fmt_bytes(c, r->footprint_per_partition));
    n++;
    switch (r->verdict) {
    case ANALYZE_LEAK:
        if (r->leak_layer >= 0 && isfinite(r->leak_rate))
            snprintf(lines[n++], 320, "leak       %.120s: %s per proof (95%% CI %s .. %s)", r->leak_where,
                     fmt_bytes(a, r->leak_rate), fmt_bytes(b, r->leak_lo), fmt_bytes(c, r->leak_hi));
        if (r->never_freed_bytes > 0)
            snprintf(lines[n++], 320, "never freed %s in tracked buffers%s%.120s", fmt_bytes(a, r->never_freed_bytes),
                     r->leak_layer < 0 ? " of " : "", r->leak_layer < 0 ? r->leak_where : "");
        break;
    case ANALYZE_QUEUE_PILEUP:
        snprintf(lines[n++], 320, "queue      up to %.0f partitions above the bound (pw + queue depth) for %.1f s",
                 r->pileup_excess, r->pileup_s);
        break;
    case ANALYZE_HELD_TOO_LONG:
        snprintf(lines[n++], 320, "held       %.2f GiB*s after the last use: %.0f%% of the tracked working set",
                 r->held_gibs, 100 * r->held_share);
        break;
    case ANALYZE_RETENTION:
        snprintf(lines[n++], 320, "retained   %s kept after the work (RSS - je_allocated above its baseline): "
                                  "%.0f%% of the peak working set",
                 fmt_bytes(a, r->retained_bytes), 100 * r->retained_share);
        break;
    case ANALYZE_CAPACITY:
        snprintf(lines[n++], 320, "limit      peak RSS %s against %s usable (%s less a %.0f%% margin)",
                 fmt_bytes(a, r->peak_rss), fmt_bytes(b, r->limit_rss), fmt_bytes(c, r->ram_bytes),
                 100 * r->margin);
        break;
    case ANALYZE_HEALTHY:
        if (isfinite(r->leak_rate))
            snprintf(lines[n++], 320, "growth     %s per proof (95%% CI %s .. %s): %s", fmt_bytes(a, r->leak_rate),
                     fmt_bytes(b, r->leak_lo), fmt_bytes(c, r->leak_hi),
                     r->leak_lo > 0 || r->leak_hi < 0 ? "below the leak threshold" : "not significant");
        break;
    }
    const char *bound = json_string_value(json_object_get(json_object_get(r->json, "capacity"), "bound_by"));
    if (r->largest_pw >= 0 && isfinite(r->ram_bytes) && bound && strcmp(bound, "in-flight") == 0)
        snprintf(lines[n++], 320, "capacity   any pw fits %s less %.0f%%: the proofs in flight, not pw, bound the "
                                  "memory (this run: pw %d)",
                 fmt_bytes(d, r->ram_bytes), 100 * r->margin, r->pw);
    else if (r->largest_pw >= 0 && isfinite(r->ram_bytes))
        snprintf(lines[n++], 320, "capacity   the largest pw that fits %s less %.0f%% is %d (this run: pw %d)",
                 fmt_bytes(d, r->ram_bytes), 100 * r->margin, r->largest_pw, r->pw);
    else if (!r->capacity.ok && r->capacity.why[0])
        snprintf(lines[n++], 320, "capacity   no prediction: %.200s", r->capacity.why);
    return n;
}

/* Draws the run's figures into run_dir; prints their paths, or one line
 * on stderr saying why there are none. Returns false when a figure could
 * not be written (a full disk): the batch fails then. Without gnuplot
 * there are no figures, and that is no failure. */
static bool batch_end_plots(console_t *con, const analyze_run_t *run, const char *run_dir)
{
    char written[256] = "", err[768];
    int rc = plot_run(run, run_dir, run_dir, written, sizeof written, err, sizeof err);
    if (rc == -ENOENT) {
        if (!con->quiet)
            cli_error(0, "batch: no plots: %s", err);
        return true;
    }
    if (rc < 0) {
        cli_error(0, "batch: %s", err);
        return false;
    }
    char line[2048];
    size_t n = (size_t)snprintf(line, sizeof line, "plots     ");
    char *save = NULL;
    for (char *w = strtok_r(written, " ", &save); w && n < sizeof line; w = strtok_r(NULL, " ", &save))
        n += (size_t)snprintf(line + n, sizeof line - n, " %s/%s.png", run_dir, w);
    console_say(con, "%s (and .svg)", line);
    return true;
}

int batch_end_diagnose(console_t *con, const char *run_dir)
{
    char err[768];
    analyze_run_t *run = NULL;
    analyze_result_t r;
    run_csv_set_warn(cli_warn_csv);
    /* analyze's defaults: run.json's limit or RAM */
    int rc = analyze_run_open(&run, &r, run_dir, NULL, err, sizeof err);
    if (rc < 0) {
        cli_error(0, "batch: no diagnosis: %s", err);
        return rc;
    }
    bool verdict_saved = analyze_write_verdict(run_dir, &r, err, sizeof err) == 0;
    if (!verdict_saved)
        cli_error(0, "batch: %s", err);

    console_say(con, "%s", "");
    console_say(con, "diagnosis (zkbench analyze %s):", run_dir);
    const char *name = analyze_verdict_name(r.verdict);
    if (r.verdict == ANALYZE_LEAK && r.leak_where[0])
        console_final(con, "verdict    %s: %s (%s)", name, verdict_gloss(r.verdict), r.leak_where);
    else
        console_final(con, "verdict    %s: %s", name, verdict_gloss(r.verdict));
    char ev[4][320];
    size_t n = batch_end_evidence(ev, &r);
    for (size_t i = 0; i < n; i++)
        console_say(con, "  %s", ev[i]);
    /* what was written for the reader, a line each: the figures, then the
     * report beside them */
    bool written = batch_end_plots(con, run, run_dir) && verdict_saved;
    char report[4300];
    snprintf(report, sizeof report, "%s/report.html", run_dir);
    if (report_write(run_dir, report, err, sizeof err) < 0) {
        cli_error(0, "batch: no report: %s", err);
        written = false;
    } else {
        console_say(con, "report     %s", report);
    }
    console_say(con, "more       zkbench analyze %s (every memory layer, the capacity model); zkbench plot %s",
                run_dir, run_dir);
    analyze_result_clear(&r);
    analyze_run_free(run);
    return written ? 0 : 1;
}
