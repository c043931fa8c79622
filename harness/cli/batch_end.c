/* The diagnosis at the end of a batch; see batch_end.h. */
#include "harness/cli/batch_end.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/cli/say_verdict.h"
#include "harness/plot/plot.h"
#include "harness/report/report.h"
#include "harness/run/run_csv.h"
#include "harness/run/units.h"

size_t batch_end_evidence(char lines[4][320], const analyze_result_t *r)
{
    char a[32], b[32], c[32];
    int k = snprintf(lines[0], 320, "memory     baseline RSS %s, peak RSS %s", fmt_bytes(a, r->baseline_rss),
                     fmt_bytes(b, r->peak_rss));
    if (isfinite(r->footprint_per_partition) && r->footprint_per_partition > 0 && k > 0 && k < 320)
        snprintf(lines[0] + k, 320 - (size_t)k, "; %s per partition in synthesis",
                 fmt_bytes(c, r->footprint_per_partition));
    return 1;
}

/* Draws the run's figures into run_dir; prints their paths, or one line
 * on stderr saying why there are none. Returns false when a figure could
 * not be written (a full disk): the batch fails then. Without gnuplot
 * there are no figures, and that is no failure. */
static bool batch_end_plots(console_t *con, const analyze_run_t *run, const char *run_dir)
{
    char written[256] = "", err[768];
    int rc = plot_run(run, NULL, run_dir, run_dir, written, sizeof written, err, sizeof err);
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
    /* the engine's words, as analyze prints them; then the measured peak */
    say_verdict(con, &r, "", "  ");
    char ev[4][320];
    size_t n = batch_end_evidence(ev, &r);
    for (size_t i = 0; i < n; i++)
        console_say(con, "  %s", ev[i]);
    /* what was written for the reader, a line each: the figures, then the
     * report beside them */
    bool written = batch_end_plots(con, run, run_dir) && verdict_saved;
    char report[4300];
    snprintf(report, sizeof report, "%s/report.html", run_dir);
    if (report_write(run_dir, NULL, report, err, sizeof err) < 0) {
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
