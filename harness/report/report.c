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
#include "harness/run/errmsg.h"
#include "harness/run/out_file.h"
#include "harness/run/run_csv.h"
#include "harness/run/units.h"

#define PROOF_ROWS_MAX 60 /* proofs.csv rows shown; the rest summarized */
#define STAGES_MAX 16

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
static const char *sz(char buf[32], double v)
{
    if (!isfinite(v))
        return "\xe2\x80\x93";
    return fmt_bytes(buf, fabs(v) < 0.5 ? 0 : v); /* not "-0 B" */
}

static double jget(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* One key/value row; the value escaped. */
static void row_kv(FILE *f, const char *k, const char *v)
{
    fputs("<tr><td class=\"k\">", f);
    html_esc(f, k);
    fputs("</td><td class=\"v\">", f);
    html_esc(f, v);
    fputs("</td></tr>\n", f);
}

/* A JSON value as text: strings as they are, sizes (keys ending in _bytes,
 * mem_limit) in units with the exact count, the rest compact JSON. */
static void json_text(char *out, size_t cap, const char *key, const json_t *v)
{
    char b[32];
    size_t kl = strlen(key);
    bool bytes = (kl > 6 && strcmp(key + kl - 6, "_bytes") == 0) || strcmp(key, "mem_limit") == 0 ||
                 strcmp(key, "baseline_rss") == 0 || strcmp(key, "peak_rss") == 0;
    if (json_is_string(v)) {
        snprintf(out, cap, "%s", json_string_value(v));
    } else if (json_is_number(v) && bytes) {
        snprintf(out, cap, "%s (%.0f)", fmt_bytes(b, json_number_value(v)), json_number_value(v));
    } else if (json_is_real(v)) {
        snprintf(out, cap, "%.6g", json_real_value(v));
    } else {
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        snprintf(out, cap, "%s", s ? s : "?");
        free(s);
    }
}

/* The members of a run.json object, one row each (prefix "config." etc.). */
static void rows_object(FILE *f, const char *prefix, const json_t *o)
{
    const char *key;
    const json_t *v;
    char k[256], text[1024];
    json_object_foreach((json_t *)o, key, v) {
        snprintf(k, sizeof k, "%s%s", prefix, key);
        json_text(text, sizeof text, key, v);
        row_kv(f, k, text);
    }
}

static const char *verdict_class(const char *v)
{
    if (v && strcmp(v, "healthy") == 0)
        return "v-healthy";
    if (v && strcmp(v, "capacity") == 0)
        return "v-capacity";
    return "v-bad";
}

static void fact(FILE *f, const char *value, const char *label)
{
    fputs("<div class=\"fact\"><b>", f);
    html_esc(f, value);
    fputs("</b><span>", f);
    html_esc(f, label);
    fputs("</span></div>\n", f);
}

/* ---- sections ---- */

static void sec_verdict(FILE *f, const analyze_result_t *r)
{
    const char *v = analyze_verdict_name(r->verdict);
    const json_t *J = r->json;
    const char *name = jstr(J, "verdict");
    if (name)
        v = name;
    fprintf(f, "<section class=\"verdict %s\" id=\"verdict\">\n<div class=\"name\">", verdict_class(v));
    html_esc(f, v);
    fputs("</div>\n", f);
    if (r->watch && r->headline[0]) {
        fputs("<p class=\"headline\"><b>", f);
        html_esc(f, r->headline);
        fputs("</b></p>\n", f);
    }
    fputs("<p class=\"reason\">", f);
    html_esc(f, r->reason);
    fputs("</p>\n", f);
    const json_t *checks = json_object_get(J, "checks");
    if (json_is_object(checks)) {
        fputs("<ul class=\"checks\">", f);
        const char *key;
        const json_t *val;
        json_object_foreach((json_t *)checks, key, val) {
            bool on = json_is_true(val);
            fprintf(f, "<li><span class=\"tag %s\">", on ? "bad" : "ok");
            html_esc(f, key);
            fprintf(f, ": %s</span></li>", on ? "yes" : "no");
        }
        fputs("</ul>\n", f);
    }
    fputs("</section>\n", f);
}

static void sec_facts(FILE *f, const analyze_result_t *r)
{
    char a[32], b[32], t[128];
    fputs("<div class=\"facts\">\n", f);
    fact(f, sz(a, r->peak_rss), "peak RSS");
    fact(f, sz(a, r->baseline_rss), "baseline RSS");
    snprintf(t, sizeof t, "%zu", r->proofs_done);
    fact(f, t, "proofs done");
    if (isfinite(r->s_per_proof)) {
        snprintf(t, sizeof t, "%.2f s", r->s_per_proof);
        fact(f, t, "per proof");
    }
    if (!r->watch) {
        snprintf(t, sizeof t, "%d", r->pw);
        fact(f, t, "pw (partitions synthesized in parallel)");
        if (r->largest_pw >= 0) {
            snprintf(t, sizeof t, "%d", r->largest_pw);
            fact(f, t, "largest pw that fits");
        }
    }
    const char *unit = r->watch && !r->per_proof ? "per second" : "per proof";
    if (isfinite(r->leak_rate)) {
        snprintf(t, sizeof t, "%s", sz(a, r->leak_rate));
        char label[96];
        snprintf(label, sizeof label, "growth %s (95%% CI %s .. %s)", unit, sz(a, r->leak_lo), sz(b, r->leak_hi));
        fact(f, t, label);
    }
    fact(f, sz(a, r->never_freed_bytes), r->watch ? "never freed (traced)" : "never freed (tracked)");
    fputs("</div>\n", f);
}

static void sec_layers_batch(FILE *f, const analyze_result_t *r)
{
    static const char *const label[] = {"L0 tracked", "L1 je_allocated", "L2 je_resident", "L3 rss",
                                        "L3\xe2\x88\x92L2 outside heap", "GPU gpu_used"};
    char a[32], b[32], c[32], d[32], e[32], g[32];
    fputs("<h2 id=\"layers\">Memory by layer</h2>\n<p class=\"muted\">L0 is what the prover's tracked buffers "
          "hold, L1 the heap (jemalloc allocated), L2 the allocator's resident pages, L3 the process RSS. The first "
          "layer that grows per proof is where a leak is.</p>\n<table>\n<tr><th>layer</th><th class=\"n\">baseline"
          "</th><th class=\"n\">peak</th><th class=\"n\">end</th><th class=\"n\">end \xe2\x88\x92 baseline</th>"
          "<th class=\"n\">per proof</th><th class=\"n\">95% CI (per proof)</th><th></th></tr>\n",
          f);
    for (int l = 0; l < ANALYZE_NLAYERS; l++) {
        const analyze_layer_t *L = &r->layer[l];
        bool ci = L->fitted && isfinite(L->g_lo);
        fprintf(f, "<tr%s><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                   "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">",
                L->g_significant ? " class=\"hl\"" : "", label[l], sz(a, L->baseline), sz(b, L->peak),
                sz(c, L->end), sz(d, L->end - L->baseline), L->fitted ? sz(e, L->g) : "\xe2\x80\x93");
        if (ci)
            fprintf(f, "%s .. %s", sz(e, L->g_lo), sz(g, L->g_hi));
        fprintf(f, "</td><td>%s</td></tr>\n", L->g_significant ? "<span class=\"tag bad\">GROWS</span>" : "");
    }
    fputs("</table>\n", f);
}

static void sec_layers_watch(FILE *f, const analyze_result_t *r)
{
    char a[32], b[32], c[32], d[32], e[32], g[32], h[32];
    const char *unit = r->per_proof ? "proof" : "second";
    fprintf(f, "<h2 id=\"layers\">Memory by layer</h2>\n<p class=\"muted\">Growth is per %s, from the valley "
               "floors (the lowest value between boundaries).</p>\n<table>\n<tr><th>layer</th><th class=\"n\">"
               "first floor</th><th class=\"n\">last floor</th><th class=\"n\">peak</th><th class=\"n\">end</th>"
               "<th class=\"n\">per %s</th><th class=\"n\">95%% CI</th><th></th></tr>\n",
            unit, unit);
    const char *key;
    const json_t *val;
    json_object_foreach(json_object_get(r->json, "layers"), key, val) {
        const json_t *gr = json_object_get(val, "growth"), *fl = json_object_get(val, "valley_floors");
        size_t nf = json_array_size(fl);
        const json_t *ci = json_object_get(gr, "ci95");
        bool leak = json_is_true(json_object_get(gr, "leak")), bounded = json_is_true(json_object_get(gr, "bounded"));
        fprintf(f, "<tr%s><td>", leak ? " class=\"hl\"" : "");
        html_esc(f, key);
        fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s"
                   "</td><td class=\"n\">%s</td><td class=\"n\">%s .. %s</td><td>%s</td></tr>\n",
                sz(a, nf ? json_number_value(json_array_get(fl, 0)) : NAN),
                sz(b, nf ? json_number_value(json_array_get(fl, nf - 1)) : NAN), sz(c, jget(val, "peak")),
                sz(d, jget(val, "end")), sz(e, jget(gr, r->per_proof ? "bytes_per_proof" : "bytes_per_s")),
                sz(g, json_number_value(json_array_get(ci, 0))), sz(h, json_number_value(json_array_get(ci, 1))),
                leak ? "<span class=\"tag bad\">LEAK</span>" : bounded ? "<span class=\"tag warn\">bounded</span>" : "");
    }
    fputs("</table>\n", f);
}

/* Never-freed tracked buffers by kind, and the bytes held after last use
 * (batch); the traced allocation sites (watch --trace). */
static void sec_sites(FILE *f, const analyze_result_t *r)
{
    char a[32], b[32], c[32], d[32];
    const char *key;
    const json_t *val;
    if (r->watch) {
        const json_t *js = json_object_get(r->json, "sites");
        if (json_array_size(js) == 0)
            return;
        fprintf(f, "<h2 id=\"sites\">Allocation sites</h2>\n<p class=\"muted\">Traced allocations by call site "
                   "(watch --trace), most never-freed bytes first.</p>\n<table>\n<tr><th>function</th><th>where"
                   "</th><th class=\"n\">never freed</th><th class=\"n\">held GiB\xc2\xb7s</th><th class=\"n\">"
                   "per %s</th><th class=\"n\">95%% CI</th><th></th></tr>\n",
                r->per_proof ? "proof" : "second");
        size_t i;
        json_array_foreach(js, i, val) {
            bool leak = json_is_true(json_object_get(val, "leak"));
            fprintf(f, "<tr%s><td>", leak ? " class=\"hl\"" : "");
            html_esc(f, jstr(val, "function"));
            fputs("</td><td>", f);
            html_esc(f, jstr(val, "where"));
            double held = jget(val, "held_gib_s");
            char hs[32] = "\xe2\x80\x93";
            if (isfinite(held))
                snprintf(hs, sizeof hs, "%.3f", held);
            fprintf(f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">"
                       "%s .. %s</td><td>%s</td></tr>\n",
                    sz(a, jget(val, "never_freed_bytes")), hs,
                    sz(b, jget(val, r->per_proof ? "growth_per_proof" : "growth_per_s")),
                    sz(c, jget(val, "growth_lo")), sz(d, jget(val, "growth_hi")),
                    leak ? "<span class=\"tag bad\">LEAK</span>"
                         : json_is_true(json_object_get(val, "bounded")) ? "<span class=\"tag warn\">bounded</span>"
                                                                         : "");
        }
        fputs("</table>\n", f);
        return;
    }
    const json_t *jl = json_object_get(r->json, "leak"), *nf = json_object_get(jl, "never_freed"),
                 *jh = json_object_get(r->json, "held_after_last_use"),
                 *held = json_object_get(jh, "gib_s_by_kind");
    fputs("<h2 id=\"sites\">Buffers never freed and held after last use</h2>\n<div class=\"cols\"><div>\n", f);
    fprintf(f, "<h3>Never freed: %s</h3>\n", sz(a, r->never_freed_bytes));
    if (json_object_size(nf) == 0) {
        fputs("<p class=\"muted\">No tracked buffer was left allocated (resident parameters, circuit and NTT tables "
              "apart).</p>\n",
              f);
    } else {
        fputs("<table>\n<tr><th>kind</th><th class=\"n\">buffers</th><th class=\"n\">bytes</th></tr>\n", f);
        json_object_foreach((json_t *)nf, key, val) {
            fputs("<tr><td>", f);
            html_esc(f, key);
            fprintf(f, "</td><td class=\"n\">%lld</td><td class=\"n\">%s</td></tr>\n",
                    (long long)json_integer_value(json_object_get(val, "count")), sz(a, jget(val, "bytes")));
        }
        fputs("</table>\n", f);
    }
    fprintf(f, "</div><div>\n<h3>Held after last use: %.2f GiB\xc2\xb7s (%.1f%% of the tracked working set)</h3>\n",
            r->held_gibs, 100 * r->held_share);
    if (json_object_size(held) == 0) {
        fputs("<p class=\"muted\">No buffer records a last use.</p>\n", f);
    } else {
        fputs("<table>\n<tr><th>kind</th><th class=\"n\">GiB\xc2\xb7s</th></tr>\n", f);
        json_object_foreach((json_t *)held, key, val) {
            fputs("<tr><td>", f);
            html_esc(f, key);
            fprintf(f, "</td><td class=\"n\">%.3f</td></tr>\n", json_number_value(val));
        }
        fputs("</table>\n", f);
    }
    fputs("</div></div>\n", f);
}

static void sec_capacity(FILE *f, const analyze_result_t *r)
{
    char a[32], b[32], c[32], d[32], e[32];
    const json_t *jc = json_object_get(r->json, "capacity");
    fputs("<h2 id=\"capacity\">Capacity</h2>\n", f);
    if (isfinite(r->ram_bytes)) {
        const char *from = jstr(jc, "ram_from");
        fprintf(f, "<p>%s %s (", from && strstr(from, "mem") ? "Memory limit" : "RAM", sz(a, r->ram_bytes));
        html_esc(f, from ? from : "?");
        fprintf(f, "), margin %.0f%%: peak RSS must stay under %s. Peak RSS %s.", 100 * r->margin,
                sz(b, r->limit_rss), sz(c, r->peak_rss));
        if (!r->watch)
            fprintf(f, " Largest pw that fits: <b>%s</b>.",
                    r->largest_pw >= 0 ? (snprintf(d, sizeof d, "%d", r->largest_pw), d) : "none");
        fputs("</p>\n", f);
    } else {
        fprintf(f, "<p>Peak RSS %s; no RAM size or memory limit recorded to fit (zkbench analyze --ram or "
                   "--mem-limit).</p>\n",
                sz(a, r->peak_rss));
    }
    if (r->watch)
        return;
    const capacity_model_t *m = &r->capacity;
    if (!m->ok) {
        fputs("<p class=\"warn\">No prediction: ", f);
        html_esc(f, m->why);
        fputs("</p>\n", f);
        return;
    }
    fprintf(f, "<p>Bytes a partition holds (tracked, exact): synthesizing %s, waiting %s, proving %s, finishing %s "
               "(%zu partitions measured); untracked near the peak %s (%.0f%%).</p>\n",
            sz(a, m->state_bytes[CAPACITY_SYNTH]), sz(b, m->state_bytes[CAPACITY_HELD]),
            sz(c, m->state_bytes[CAPACITY_PROVE]), sz(d, m->state_bytes[CAPACITY_FINISH]), m->partitions_measured,
            sz(e, m->untracked), 100 * m->untracked_share);
    const char *bt = jstr(json_object_get(jc, "model"), "bound_text");
    if (bt) {
        fputs("<p>", f);
        html_esc(f, bt);
        fputs("</p>\n", f);
    }
    if (m->warning[0]) {
        fputs("<p class=\"warn\">Warning: ", f);
        html_esc(f, m->warning);
        fputs("</p>\n", f);
    }
    fputs("<table>\n<tr><th class=\"n\">pw</th><th class=\"n\">predicted peak RSS</th><th class=\"n\">95% interval"
          "</th><th></th></tr>\n",
          f);
    size_t i;
    const json_t *val;
    json_array_foreach(json_object_get(jc, "predicted"), i, val) {
        long long w = (long long)json_integer_value(json_object_get(val, "pw"));
        bool self = w == r->pw, largest = w == r->largest_pw;
        fprintf(f, "<tr%s><td class=\"n\">%lld</td><td class=\"n\">%s</td><td class=\"n\">%s .. %s</td><td>",
                self ? " class=\"hl\"" : "", w, sz(a, jget(val, "peak_rss")), sz(b, jget(val, "low")),
                sz(c, jget(val, "high")));
        if (self)
            fprintf(f, "this run (measured %s) ", sz(d, r->peak_rss));
        if (largest)
            fputs("<span class=\"tag ok\">largest that fits</span> ", f);
        if (json_is_true(json_object_get(val, "load_peak")))
            fputs("<span class=\"muted\">the parameter load's peak</span>", f);
        else if (json_is_true(json_object_get(val, "bound")))
            fputs("<span class=\"muted\">no more memory: in-flight bound</span>", f);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per-proof times (proofs.csv) and per-stage times (stages.csv). */
static void sec_times(FILE *f, const analyze_run_t *run, const analyze_result_t *r)
{
    const run_csv_t *p = analyze_run_csv(run, "proofs.csv"), *s = analyze_run_csv(run, "stages.csv");
    if (r->watch) {
        const json_t *jb = json_object_get(r->json, "boundaries");
        const char *detail = jstr(jb, "detail");
        if (detail) {
            fputs("<h2 id=\"times\">Proof boundaries</h2>\n<p>", f);
            html_esc(f, detail);
            fputs("</p>\n", f);
        }
        return;
    }
    fputs("<h2 id=\"times\">Proofs and stages</h2>\n<div class=\"cols\"><div>\n", f);
    if (!p || p->nrows == 0) {
        fputs("<p class=\"muted\">proofs.csv has no proofs.</p>\n", f);
    } else {
        int cp = run_csv_col(p, "proof"), cs = run_csv_col(p, "t_submit_ms"), cst = run_csv_col(p, "t_start_ms"),
            cd = run_csv_col(p, "t_done_ms"), cw = run_csv_col(p, "wall_ms"), cv = run_csv_col(p, "verified");
        fprintf(f, "<h3>Per proof (%zu)</h3>\n<table>\n<tr><th class=\"n\">proof</th><th class=\"n\">submitted s</th>"
                   "<th class=\"n\">started s</th><th class=\"n\">done s</th><th class=\"n\">wall s</th>"
                   "<th>verified</th></tr>\n",
                p->nrows);
        for (size_t i = 0; i < p->nrows && i < PROOF_ROWS_MAX; i++) {
            double v = run_csv_num(p, i, cv);
            fprintf(f, "<tr><td class=\"n\">%.0f</td>", run_csv_num(p, i, cp));
            int cols[] = {cs, cst, cd};
            for (int k = 0; k < 3; k++) {
                double t = run_csv_num(p, i, cols[k]);
                if (isfinite(t))
                    fprintf(f, "<td class=\"n\">%.2f</td>", t / 1000);
                else
                    fputs("<td class=\"n\">\xe2\x80\x93</td>", f);
            }
            double w = run_csv_num(p, i, cw);
            if (isfinite(w))
                fprintf(f, "<td class=\"n\">%.2f</td>", w / 1000);
            else
                fputs("<td class=\"n\">\xe2\x80\x93</td>", f);
            fprintf(f, "<td>%s</td></tr>\n", !isfinite(v) ? "\xe2\x80\x93" : v != 0 ? "yes" : "<b>no</b>");
        }
        if (p->nrows > PROOF_ROWS_MAX)
            fprintf(f, "<tr><td colspan=\"6\" class=\"muted\">%zu more in proofs.csv</td></tr>\n",
                    p->nrows - PROOF_ROWS_MAX);
        fputs("</table>\n", f);
    }
    fputs("</div><div>\n", f);
    int cn = s ? run_csv_col(s, "stage") : -1, ca = s ? run_csv_col(s, "t_start_ms") : -1,
        ce = s ? run_csv_col(s, "t_end_ms") : -1;
    const char *names[STAGES_MAX];
    size_t ns = 0;
    for (size_t i = 0; s && cn >= 0 && i < s->nrows; i++) {
        const char *nm = run_csv_text(s, i, cn);
        size_t k = 0;
        while (k < ns && strcmp(names[k], nm) != 0)
            k++;
        if (k == ns && ns < STAGES_MAX)
            names[ns++] = nm;
    }
    if (ns == 0) {
        fputs("<p class=\"muted\">stages.csv has no stages.</p>\n", f);
    } else {
        fputs("<h3>Per stage (one row per partition and stage)</h3>\n<table>\n<tr><th>stage</th><th class=\"n\">"
              "count</th><th class=\"n\">median s</th><th class=\"n\">max s</th><th class=\"n\">total s</th></tr>\n",
              f);
        double *d = malloc(s->nrows * sizeof *d);
        for (size_t k = 0; d && k < ns; k++) {
            size_t m = 0;
            double total = 0;
            for (size_t i = 0; i < s->nrows; i++) {
                double t0 = run_csv_num(s, i, ca), t1 = run_csv_num(s, i, ce);
                if (strcmp(run_csv_text(s, i, cn), names[k]) == 0 && isfinite(t0) && isfinite(t1))
                    d[m++] = (t1 - t0) / 1000, total += (t1 - t0) / 1000;
            }
            qsort(d, m, sizeof *d, cmp_double);
            fputs("<tr><td>", f);
            html_esc(f, names[k]);
            if (m)
                fprintf(f, "</td><td class=\"n\">%zu</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>"
                           "<td class=\"n\">%.2f</td></tr>\n",
                        m, m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2, d[m - 1], total);
            else
                fputs("</td><td class=\"n\">0</td><td></td><td></td><td></td></tr>\n", f);
        }
        free(d);
        fputs("</table>\n", f);
    }
    fputs("</div></div>\n", f);
}

static void sec_settings(FILE *f, const json_t *rj)
{
    fputs("<h2 id=\"settings\">Run settings</h2>\n<table>\n", f);
    const char *key;
    const json_t *v;
    char text[1024];
    /* the run's own scalars first (status, outcome, ...), then its objects */
    json_object_foreach((json_t *)rj, key, v) {
        if (json_is_object(v) || json_is_array(v))
            continue;
        json_text(text, sizeof text, key, v);
        row_kv(f, key, text);
    }
    static const char *const objs[] = {"config", "machine", "versions", "summary", "baseline", "memory_events"};
    for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) {
        const json_t *o = json_object_get(rj, objs[i]);
        if (!json_is_object(o))
            continue;
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%s.", objs[i]);
        rows_object(f, prefix, o);
    }
    fputs("</table>\n", f);
}

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
static int draw_plots(char *tmpdir, size_t tlen, const analyze_run_t *run, const char *run_dir,
                      const char *sweep_csv, char *err, size_t errlen)
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
    return run ? plot_run(run, run_dir, tmpdir, written, sizeof written, err, errlen)
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
        if (html_inline_svg(f, path, names[i]) < 0) {
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
    const char *circuit = jstr(cfg, "circuit");
    const char *command = jstr(cfg, "command");
    if (r->watch)
        snprintf(kind, sizeof kind, "watch run%s%.160s, %zu samples", command ? " of " : "", command ? command : "",
                 r->samples);
    else
        snprintf(kind, sizeof kind, "batch run%s%.160s, %zu samples, %zu proofs", circuit ? " of " : "",
                 circuit ? circuit : "", r->samples, r->proofs_done);
    page_head(f, run_dir, kind);
    fputs("<nav><a href=\"#verdict\">verdict</a><a href=\"#plots\">plots</a><a href=\"#layers\">layers</a>"
          "<a href=\"#capacity\">capacity</a><a href=\"#more-plots\">buffers</a><a href=\"#times\">times</a><a href=\"#settings\">settings</a>"
          "<a href=\"#analysis\">full analysis</a></nav>\n",
          f);
    sec_verdict(f, r);
    sec_facts(f, r);
    sec_plots(f, tmpdir, plot_rc, plot_err, r->watch, 0, 0, "plots", "Memory over time");
    if (r->watch)
        sec_layers_watch(f, r);
    else
        sec_layers_batch(f, r);
    sec_sites(f, r);
    sec_capacity(f, r);
    sec_plots(f, tmpdir, plot_rc, plot_err, r->watch, 1, 3, "more-plots", "Buffers");
    sec_times(f, run, r);
    sec_settings(f, rj);
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
            bool bytes = strstr(nm, "rss") || strstr(nm, "bytes") || strstr(nm, "footprint") ||
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

int report_write(const char *run_dir, const char *out_path, char *err, size_t errlen)
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
                                            "predicted_high", "mem_limit", NULL};
        if ((rc = run_csv_read(&sc, sweep_csv, req, text, empty, err, errlen)) < 0)
            return rc;
        if (sc.nrows == 0) {
            run_csv_free(&sc);
            return errmsg_fail(err, errlen, -EINVAL, "%s: no rows, expected one row per pw", sweep_csv);
        }
    } else {
        if ((rc = analyze_run_load(&run, run_dir, err, errlen)) < 0)
            return rc;
        analyze_opts_t o = {.ram_bytes = 0, .margin = 0.10};
        if ((rc = analyze_compute(&r, run, &o, err, errlen)) < 0) {
            analyze_run_free(run);
            return rc;
        }
    }
    struct out_file of;
    if ((rc = out_file_begin(&of, out_path, err, errlen)) == 0) {
        char tmpdir[PATH_MAX] = "", plot_err[768] = "";
        int plot_rc = draw_plots(tmpdir, sizeof tmpdir, run, run_dir, sweep_csv, plot_err, sizeof plot_err);
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
