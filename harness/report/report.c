/*
 * The HTML report of a run (report.h): the run is loaded and analyzed
 * first, the plots drawn into a temporary folder, then one page is written
 * to a temporary name and renamed into place. Everything the page shows
 * comes from the analysis (analyze.h), run.json and the run's CSVs; every
 * string from them goes through html_esc.
 */
#include "harness/report/report.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_text.h"
#include "harness/plot/plot.h"
#include "harness/report/report_html.h"
#include "harness/report/report_sections.h"
#include "harness/run/errmsg.h"
#include "harness/run/out_file.h"
#include "harness/run/run_csv.h"
#include "harness/run/units.h"

static const char css[] =
    ":root{--fg:#1d2430;--muted:#5b6675;--line:#d9dee5;--soft:#f4f6f9}"
    "*{box-sizing:border-box}"
    "body{margin:0;font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;"
    "color:var(--fg);background:#fff}"
    "main{max-width:1180px;margin:0 auto;padding:24px 28px 48px}"
    "h1{font-size:24px;margin:0 0 2px}"
    "h2{font-size:19px;margin:34px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}"
    "h3{font-size:15px;margin:18px 0 6px}"
    ".sub{color:var(--muted);margin:0 0 18px;overflow-wrap:anywhere}"
    "nav{margin:0 0 18px;font-size:14px}nav a{margin-right:14px;color:#2457a6;text-decoration:none}"
    ".verdict{border-left:8px solid #888;background:var(--soft);padding:12px 18px 14px;border-radius:6px}"
    ".verdict .name{font-size:28px;font-weight:700;letter-spacing:.02em}"
    ".verdict p{margin:6px 0}.verdict .reason{font-size:16px}"
    ".v-healthy{border-color:#2e8540}.v-healthy .name{color:#2e8540}"
    ".v-capacity{border-color:#c77700}.v-capacity .name{color:#a86400}"
    ".v-bad{border-color:#c62828}.v-bad .name{color:#c62828}"
    ".v-inconclusive{border-color:#5f6b7a}.v-inconclusive .name{color:#3d4752}.verdict .status{font-weight:bold}"
    ".checks{margin:8px 0 0;padding:0;list-style:none}.checks li{display:inline-block;margin:0 8px 4px 0}"
    ".facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(165px,1fr));gap:10px;margin:16px 0}"
    ".fact{border:1px solid var(--line);border-radius:6px;padding:8px 12px}"
    ".fact b{display:block;font-size:18px;font-variant-numeric:tabular-nums}.fact span{color:var(--muted);font-size:13px}"
    "table{border-collapse:collapse;margin:6px 0 12px;font-size:14px}"
    "th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}"
    "th{background:var(--soft);font-weight:600}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.k{color:var(--muted);white-space:nowrap}td.v{overflow-wrap:anywhere}"
    "th.wrap{white-space:normal}.wide{overflow-x:auto}.wide td{white-space:nowrap}"
    "tr.hl td{background:#fff4d6}"
    ".tag{display:inline-block;padding:0 7px;border-radius:4px;font-size:12.5px;font-weight:600}"
    ".tag.bad{background:#fde0e0;color:#a11}.tag.ok{background:#e3f3e6;color:#1d6b2f}"
    ".tag.warn{background:#fff0cc;color:#7a5000}.tag.off{background:#eceff3;color:#5b6675}"
    ".cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:0 28px}"
    "figure{margin:12px 0 26px}figure svg{display:block;width:100%;height:auto;border:1px solid var(--line);"
    "border-radius:4px}"
    "figcaption{color:var(--muted);font-size:13px;margin-top:4px}"
    "pre{background:var(--soft);padding:12px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12.5px;line-height:1.4;border-radius:4px}"
    ".muted{color:var(--muted)}.warn{color:#7a5000}"
    "footer{margin-top:36px;color:var(--muted);font-size:13px}";

/* A size for people, "–" when unknown. */
/* ---- plots ---- */

static void rm_tree_flat(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d))) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* Draws the plots into a temporary folder; *tmpdir set (to remove) when
 * made. Returns plot_run's or plot_sweep's code, err set on failure. */
static int draw_plots(char *tmpdir, size_t tlen, const analyze_run_t *run, const analyze_opts_t *opts,
                      const char *run_dir, const char *sweep_csv, char *err, size_t errlen)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, tlen, "%s/zkbench-report-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        int e = errno;
        snprintf(err, errlen, "cannot make a temporary folder for the plots (%s): %s", tmpdir, strerror(e));
        tmpdir[0] = 0;
        return -e;
    }
    char written[256];
    return run ? plot_run(run, opts, run_dir, tmpdir, written, sizeof written, err, errlen)
               : plot_sweep(sweep_csv, tmpdir, err, errlen);
}

/* The figures from first to last (names[]), under title; the note about
 * missing plots goes under the first section only. */
static void sec_plots(FILE *f, const char *tmpdir, int plot_rc, const char *plot_err, bool watch, size_t first,
                      size_t last, const char *id, const char *title)
{
    static const char *const names[] = {"memory", "kinds", "buffers", "sweep"};
    static const char *const what[] = {
        "Memory over time: each layer, proof completions marked",
        "Live tracked bytes by buffer kind",
        "One bar per buffer from allocation to free",
        "Peak RSS against pw: measured, and the model's prediction with its interval",
    };
    static const char *const what_watch[] = {
        "Memory of the watched process over time, with its marks",
        "Live traced bytes by kind",
        "One bar per traced allocation from allocation to free, by site",
        "Peak RSS against pw",
    };
    if (plot_rc < 0 && first > 0)
        return;
    int drawn = 0;
    char path[PATH_MAX];
    for (size_t i = first; i <= last && plot_rc >= 0; i++) {
        snprintf(path, sizeof path, "%s/%s.svg", tmpdir, names[i]);
        drawn += access(path, R_OK) == 0;
    }
    if (plot_rc >= 0 && drawn == 0 && first > 0)
        return;
    fprintf(f, "<h2 id=\"%s\">%s</h2>\n", id, title);
    if (plot_rc < 0) {
        fprintf(f, "<p class=\"warn\">The plots are not in this report: %s</p>\n",
                plot_rc == -ENOENT ? "gnuplot was not found when this report was written (install gnuplot "
                                     "and run zkbench report again)"
                                   : "gnuplot failed");
        fputs("<p class=\"muted\">", f);
        html_esc(f, plot_err);
        fputs("</p>\n", f);
        return;
    }
    drawn = 0;
    for (size_t i = first; i <= last; i++) {
        snprintf(path, sizeof path, "%s/%s.svg", tmpdir, names[i]);
        if (access(path, R_OK) != 0)
            continue;
        fprintf(f, "<figure id=\"plot-%s\">\n", names[i]);
        char svg_title[256];
        snprintf(svg_title, sizeof svg_title, "%s: %s", names[i], watch ? what_watch[i] : what[i]);
        if (html_inline_svg(f, path, names[i], svg_title) < 0) {
            fprintf(f, "<p class=\"warn\">%s.svg could not be read.</p>\n", names[i]);
        } else {
            drawn++;
        }
        fprintf(f, "<figcaption>%s: %s</figcaption>\n</figure>\n", names[i], watch ? what_watch[i] : what[i]);
    }
    if (!drawn)
        fputs("<p class=\"muted\">gnuplot drew no figure for this run.</p>\n", f);
}

/* ---- the page ---- */

static void page_head(FILE *f, const char *run_dir, const char *kind)
{
    /* the folder by its full path ("." says nothing in a mail), named in the title */
    char full[PATH_MAX];
    const char *shown = realpath(run_dir, full) ? full : run_dir;
    const char *slash = strrchr(shown, '/');
    const char *name = slash && slash[1] ? slash + 1 : shown;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"zkbench report\">\n<title>zkbench report: ",
          f);
    html_esc(f, name);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>zkbench report</h1>\n<p class=\"sub\">",
            css);
    html_esc(f, shown);
    fputs(" \xc2\xb7 ", f);
    html_esc(f, kind);
    time_t now = time(NULL);
    struct tm tm;
    char when[40];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tm));
    fprintf(f, " \xc2\xb7 written %s</p>\n", when);
}

static void page_foot(FILE *f)
{
    fputs("<footer>Written by zkbench report: one file, no scripts, nothing fetched. The method is in "
          "docs/diagnosis.md of zkbench.</footer>\n</main>\n</body>\n</html>\n",
          f);
}

static void write_run_page(FILE *f, const char *run_dir, const analyze_run_t *run, const analyze_result_t *r,
                           const char *tmpdir, int plot_rc, const char *plot_err)
{
    const json_t *rj = analyze_run_json(run);
    char kind[256];
    const json_t *cfg = json_object_get(rj, "config");
    const char *circuit = json_string_value(json_object_get(cfg, "circuit"));
    const char *command = json_string_value(json_object_get(cfg, "command"));
    if (r->watch)
        snprintf(kind, sizeof kind, "watch run%s%.160s, %zu samples", command ? " of " : "", command ? command : "",
                 r->samples);
    else
        snprintf(kind, sizeof kind, "batch run%s%.160s, %zu samples, %zu proofs", circuit ? " of " : "",
                 circuit ? circuit : "", r->samples, r->proofs_done);
    page_head(f, run_dir, kind);
    fputs("<nav><a href=\"#verdict\">verdict</a><a href=\"#plots\">plots</a><a href=\"#layers\">layers</a>"
          "<a href=\"#capacity\">capacity</a><a href=\"#what-if\">what-if</a><a href=\"#more-plots\">buffers</a><a href=\"#times\">times</a><a href=\"#settings\">settings</a>"
          "<a href=\"#analysis\">full analysis</a></nav>\n",
          f);
    report_sec_verdict(f, r);
    report_sec_facts(f, r);
    sec_plots(f, tmpdir, plot_rc, plot_err, r->watch, 0, 0, "plots", "Memory over time");
    report_sec_layers(f, r);
    report_sec_sites(f, r);
    report_sec_capacity(f, r);
    char wsvg[PATH_MAX];
    snprintf(wsvg, sizeof wsvg, "%s/whatif.svg", tmpdir);
    report_sec_whatif(f, r, plot_rc >= 0 && access(wsvg, R_OK) == 0 ? wsvg : NULL,
                      plot_rc < 0 ? "the plots are not in this report (see Memory over time)" : NULL);
    sec_plots(f, tmpdir, plot_rc, plot_err, r->watch, 1, 3, "more-plots", "Buffers");
    report_sec_times(f, run, r);
    report_sec_settings(f, rj);
    /* the same facts as `zkbench analyze`, word for word */
    fputs("<h2 id=\"analysis\">Full analysis (zkbench analyze)</h2>\n<pre>", f);
    char *text = NULL;
    size_t tlen = 0;
    FILE *m = open_memstream(&text, &tlen);
    if (m) {
        analyze_text_write(m, run_dir, r);
        fclose(m);
        html_esc_n(f, text, tlen);
    }
    free(text);
    fputs("</pre>\n", f);
    page_foot(f);
}

/* A sweep folder: sweep.csv as a table, and the sweep plot. */
static void write_sweep_page(FILE *f, const char *run_dir, const run_csv_t *c, const char *tmpdir, int plot_rc,
                             const char *plot_err)
{
    char kind[64];
    snprintf(kind, sizeof kind, "sweep of %zu runs", c->nrows);
    page_head(f, run_dir, kind);
    fputs("<h2 id=\"table\">Runs by pw</h2>\n<div class=\"wide\"><table>\n<tr>", f);
    for (size_t j = 0; j < c->ncols; j++) {
        /* long column names may break after an underscore */
        fprintf(f, "<th%s>", c->is_text[j] ? "" : " class=\"n wrap\"");
        for (const char *q = c->names[j]; *q; q++) {
            html_esc_n(f, q, 1);
            if (*q == '_')
                fputs("<wbr>", f);
        }
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t i = 0; i < c->nrows; i++) {
        fputs("<tr>", f);
        for (size_t j = 0; j < c->ncols; j++) {
            const char *nm = c->names[j];
            if (c->is_text[j]) {
                fputs("<td>", f);
                html_esc(f, run_csv_text(c, i, (int)j));
                fputs("</td>", f);
                continue;
            }
            double v = run_csv_num(c, i, (int)j);
            char b[32];
            bool bytes = strstr(nm, "rss") || strstr(nm, "anon") || strstr(nm, "bytes") || strstr(nm, "footprint") ||
                         strstr(nm, "predicted") || strcmp(nm, "mem_limit") == 0;
            if (!isfinite(v))
                fputs("<td class=\"n\">\xe2\x80\x93</td>", f);
            else if (bytes)
                fprintf(f, "<td class=\"n\">%s</td>", fmt_bytes(b, v));
            else
                fprintf(f, "<td class=\"n\">%.6g</td>", v);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table></div>\n", f);
    sec_plots(f, tmpdir, plot_rc, plot_err, false, 0, 3, "plots", "Plots");
    page_foot(f);
}

int report_write(const char *run_dir, const analyze_opts_t *opts, const char *out_path, char *err, size_t errlen)
{
    char def[PATH_MAX], samples[PATH_MAX], sweep_csv[PATH_MAX];
    if (!out_path) {
        if ((size_t)snprintf(def, sizeof def, "%s/report.html", run_dir) >= sizeof def)
            return errmsg_fail(err, errlen, -ENAMETOOLONG, "%s: the folder name is too long", run_dir);
        out_path = def;
    }
    snprintf(samples, sizeof samples, "%s/samples.csv", run_dir);
    snprintf(sweep_csv, sizeof sweep_csv, "%s/sweep.csv", run_dir);
    bool sweep = access(samples, F_OK) != 0 && access(sweep_csv, F_OK) == 0;

    /* everything is read and checked before anything is written */
    analyze_run_t *run = NULL;
    analyze_result_t r = {0};
    run_csv_t sc = {0};
    int rc;
    if (sweep) {
        static const char *const req[] = {"pw", "peak_rss", NULL};
        static const char *const text[] = {"outcome", "verdict", NULL};
        static const char *const empty[] = {"concurrency", "s_per_proof", "predicted_peak_rss",
                                            "footprint_per_partition", "ram_bytes", "predicted_low",
                                            "predicted_high", "mem_limit", "peak_anon", "predicted_peak_anon",
                                            NULL};
        if ((rc = run_csv_read(&sc, sweep_csv, req, text, empty, err, errlen)) < 0)
            return rc;
        if (sc.nrows == 0) {
            run_csv_free(&sc);
            return errmsg_fail(err, errlen, -EINVAL, "%s: no rows, expected one row per pw", sweep_csv);
        }
    } else {
        if ((rc = analyze_run_open(&run, &r, run_dir, opts, err, errlen)) < 0)
            return rc;
    }
    struct out_file of;
    if ((rc = out_file_begin(&of, out_path, err, errlen)) == 0) {
        char tmpdir[PATH_MAX] = "", plot_err[768] = "";
        int plot_rc = draw_plots(tmpdir, sizeof tmpdir, run, opts, run_dir, sweep_csv, plot_err, sizeof plot_err);
        FILE *f = fopen(of.tmp, "w");
        if (!f) {
            rc = -errno;
            snprintf(err, errlen, "cannot write %s: %s", of.tmp, strerror(-rc));
        } else {
            errno = 0;
            if (sweep)
                write_sweep_page(f, run_dir, &sc, tmpdir, plot_rc, plot_err);
            else
                write_run_page(f, run_dir, run, &r, tmpdir, plot_rc, plot_err);
            bool bad = ferror(f) != 0;
            int e = errno;
            if (fclose(f) != 0 || bad) {
                rc = -(bad && e ? e : errno ? errno : EIO);
                snprintf(err, errlen, "cannot write %s: %s", out_path, strerror(-rc));
            }
        }
        if (tmpdir[0])
            rm_tree_flat(tmpdir);
        if (rc == 0)
            rc = out_file_commit(&of, err, errlen);
        if (rc < 0)
            out_file_abort(&of);
    }
    run_csv_free(&sc);
    analyze_result_clear(&r);
    analyze_run_free(run);
    return rc;
}
