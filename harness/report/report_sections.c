/*
 * The sections of a run's report page (report_sections.h): each writes its
 * HTML from the analysis, run.json and the run's CSVs, every string from
 * them escaped, every size through fmt_bytes.
 */
#include "harness/report/report_sections.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/capacity.h"
#include "harness/report/report_html.h"
#include "harness/run/run_csv.h"
#include "harness/run/units.h"

#define PROOF_ROWS_MAX 60 /* proofs.csv rows shown; the rest summarized */
#define STAGES_MAX 16

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

void report_sec_verdict(FILE *f, const analyze_result_t *r)
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

void report_sec_facts(FILE *f, const analyze_result_t *r)
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
void report_sec_sites(FILE *f, const analyze_result_t *r)
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

void report_sec_capacity(FILE *f, const analyze_result_t *r)
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
void report_sec_times(FILE *f, const analyze_run_t *run, const analyze_result_t *r)
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

void report_sec_layers(FILE *f, const analyze_result_t *r)
{
    if (r->watch)
        sec_layers_watch(f, r);
    else
        sec_layers_batch(f, r);
}

