/*
 * The memory figure (plot_figs.h): every layer the run recorded over time,
 * with what a reader compares them with: the baseline, the RAM or memory
 * limit, the leak trend when the diagnosis found a leak (baseline + growth
 * per proof x proofs done), and when the proofs completed.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "harness/plot/plot_decimate.h"
#include "harness/plot/plot_figs.h"
#include "harness/plot/plot_style.h"
#include "harness/run/errmsg.h"
#include "harness/run/units.h"

enum { S_RSS, S_ANON, S_FILE, S_CG, S_RES, S_ALLOC, S_TRACKED, S_GPU, S_TREND, S_N };
static const char *const s_word[S_N] = {"rss", "anon", "file", "cg", "resident", "allocated", "tracked", "gpu",
                                        "trend"};

static double json_bytes(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    uint64_t sz;
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v) && analyze_parse_size(&sz, json_string_value(v)))
        return (double)sz;
    return NAN;
}

double plot_run_limit(const analyze_run_t *run, const analyze_opts_t *opts, const char **label)
{
    if (opts && opts->ram_bytes) {
        *label = opts->ram_from && strcmp(opts->ram_from, "--mem-limit") == 0 ? "memory limit" : "RAM";
        return (double)opts->ram_bytes;
    }
    const json_t *rj = analyze_run_json(run), *machine = json_object_get(rj, "machine");
    double v = json_bytes(rj, "mem_limit");
    if (!(v > 0))
        v = json_bytes(json_object_get(rj, "config"), "mem_limit");
    if (v > 0) {
        *label = "memory limit";
        return v;
    }
    v = json_bytes(machine, "ram_bytes");
    if (!(v > 0))
        v = json_bytes(machine, "ram");
    *label = v > 0 ? "RAM" : NULL;
    return v > 0 ? v : 0;
}

typedef struct {
    size_t n;
    double *t;          /* seconds */
    double *s[S_N];     /* bytes; NAN where not recorded */
    double *marks;      /* seconds, sorted */
    size_t nmarks;
} mem_series_t;

static void series_free(mem_series_t *m)
{
    free(m->t);
    for (int k = 0; k < S_N; k++)
        free(m->s[k]);
    free(m->marks);
}

static bool any_finite(const double *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        if (isfinite(v[i]))
            return true;
    return false;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Live bytes of buffers.csv at each sample (a watch run's traced bytes). */
static int traced_bytes(const analyze_run_t *run, mem_series_t *m)
{
    const run_csv_t *b = analyze_run_csv(run, "buffers.csv");
    if (b->nrows == 0)
        return 0;
    double *et, *ev;
    size_t ne;
    if (plot_buffers_live(b, &et, &ev, &ne) < 0)
        return -ENOMEM;
    double live = 0;
    for (size_t i = 0, e = 0; i < m->n; i++) {
        while (e < ne && et[e] <= m->t[i])
            live = ev[e++];
        m->s[S_TRACKED][i] = live;
    }
    free(et);
    free(ev);
    return 0;
}

/* Reads the layers, marks and the trend of the run into m. */
static int mem_series(const plot_ctx_t *c, mem_series_t *m)
{
    const run_csv_t *s = analyze_run_csv(c->run, "samples.csv");
    size_t n = m->n = s->nrows;
    m->t = calloc(n, sizeof *m->t);
    for (int k = 0; k < S_N; k++)
        if ((m->s[k] = malloc(n * sizeof *m->s[k])))
            for (size_t i = 0; i < n; i++)
                m->s[k][i] = NAN;
    bool ok = m->t != NULL;
    for (int k = 0; k < S_N; k++)
        ok = ok && m->s[k];
    if (!ok)
        return -ENOMEM;
    int ct = run_csv_col(s, "t_ms"), cpd = run_csv_col(s, "proofs_done");
    for (size_t i = 0; i < n; i++)
        m->t[i] = run_csv_num(s, i, ct) / 1000;
    static const char *const col[S_N] = {"rss", "rss_anon", "rss_file", "cg_current", "je_resident", "je_allocated",
                                         NULL, "gpu_used", NULL};
    for (int k = 0; k < S_N; k++) {
        int j = col[k] ? run_csv_col(s, col[k]) : -1;
        /* a batch run draws RSS with the heap layers, a watch run with its
         * anonymous and file parts and the cgroup */
        bool wanted = c->watch ? k != S_RES && k != S_ALLOC : k != S_ANON && k != S_FILE && k != S_CG;
        if (j < 0 || !wanted || run_csv_absent(s, (size_t)j))
            continue;
        for (size_t i = 0; i < n; i++)
            m->s[k][i] = run_csv_num(s, i, j);
    }
    /* GPU: a watch run's per-process gpu<i>_used, summed, else gpu_used */
    int cg[64], ncg = 0;
    for (size_t j = 0; c->watch && j < s->ncols && ncg < 64; j++) {
        const char *nm = s->names[j];
        size_t len = strlen(nm);
        if (strncmp(nm, "gpu", 3) == 0 && nm[3] >= '0' && nm[3] <= '9' && len > 8 &&
            strcmp(nm + len - 5, "_used") == 0 && !strstr(nm, "device") && !run_csv_absent(s, j))
            cg[ncg++] = (int)j;
    }
    bool gpu_any = false;
    for (size_t i = 0; i < n; i++) {
        if (ncg) {
            double g = 0;
            for (int k = 0; k < ncg; k++)
                g += isfinite(run_csv_num(s, i, cg[k])) ? run_csv_num(s, i, cg[k]) : 0;
            m->s[S_GPU][i] = g;
        }
        gpu_any = gpu_any || m->s[S_GPU][i] > 0;
    }
    if (!gpu_any) /* a CPU run: no line at 0 */
        for (size_t i = 0; i < n; i++)
            m->s[S_GPU][i] = NAN;
    /* tracked: the host kinds' live bytes (batch), the traced bytes (watch) */
    if (c->watch) {
        if (traced_bytes(c->run, m) < 0)
            return -ENOMEM;
    } else {
        bool any = false;
        for (size_t j = 0; j < s->ncols; j++)
            any = any || (strncmp(s->names[j], "live_", 5) == 0 && !plot_kind_is_device(s->names[j] + 5));
        for (size_t i = 0; any && i < n; i++) {
            double tr = 0;
            for (size_t j = 0; j < s->ncols; j++)
                if (strncmp(s->names[j], "live_", 5) == 0 && !plot_kind_is_device(s->names[j] + 5) &&
                    isfinite(run_csv_num(s, i, (int)j)))
                    tr += run_csv_num(s, i, (int)j);
            m->s[S_TRACKED][i] = tr;
        }
    }
    /* marks: proofs.csv's completions (batch); marks.csv, else each proof
     * counted in proofs_done (watch) */
    const run_csv_t *p = analyze_run_csv(c->run, c->watch ? "marks.csv" : "proofs.csv");
    int cm = run_csv_col(p, c->watch ? "t_ms" : "t_done_ms");
    m->marks = malloc((p->nrows + n + 1) * sizeof *m->marks);
    if (!m->marks)
        return -ENOMEM;
    for (size_t i = 0; i < p->nrows; i++)
        if (isfinite(run_csv_num(p, i, cm)))
            m->marks[m->nmarks++] = run_csv_num(p, i, cm) / 1000;
    if (c->watch && m->nmarks == 0 && cpd >= 0)
        for (size_t i = 0; i < n; i++)
            if (run_csv_num(s, i, cpd) > (i ? run_csv_num(s, i - 1, cpd) : 0))
                m->marks[m->nmarks++] = m->t[i];
    qsort(m->marks, m->nmarks, sizeof *m->marks, cmp_double);

    /* the leak trend: the leaking layer's baseline + g x work done */
    const analyze_result_t *r = c->res;
    if (!r || r->verdict != ANALYZE_LEAK || r->leak_layer < 0 || !(r->leak_rate > 0))
        return 0;
    int l = r->leak_layer == ANALYZE_L_OUTSIDE ? ANALYZE_L_RSS : r->leak_layer;
    double base = r->layer[l].baseline;
    if (!isfinite(base))
        return 0;
    bool per_proof = !c->watch || r->per_proof;
    for (size_t i = 0, k = 0; i < n; i++) {
        double u;
        if (!c->watch) {
            u = run_csv_num(s, i, cpd);
        } else if (per_proof) {
            /* a watch run's baseline is the floor between its first two
             * marks (analyze_watch.c) */
            while (k < m->nmarks && m->marks[k] <= m->t[i])
                k++;
            u = k > 1 ? (double)(k - 1) : 0;
        } else {
            u = m->t[i] - m->t[0];
        }
        m->s[S_TREND][i] = isfinite(u) ? base + r->leak_rate * u : NAN;
    }
    return 0;
}

int plot_memory(plot_ctx_t *c, char *err, size_t errlen)
{
    mem_series_t m = {0};
    int rc = mem_series(c, &m);
    if (rc < 0) {
        series_free(&m);
        return errmsg_fail(err, errlen, rc, "out of memory");
    }
    const analyze_result_t *r = c->res;
    bool has[S_N];
    double dmax = 0;
    for (int k = 0; k < S_N; k++) {
        has[k] = any_finite(m.s[k], m.n);
        for (size_t i = 0; has[k] && i < m.n; i++)
            if (isfinite(m.s[k][i]))
                dmax = fmax(dmax, m.s[k][i]);
    }
    double rss_peak = 0;
    for (size_t i = 0; has[S_RSS] && i < m.n; i++)
        rss_peak = fmax(rss_peak, isfinite(m.s[S_RSS][i]) ? m.s[S_RSS][i] : 0);
    double base = r ? r->baseline_rss : NAN;
    if (isfinite(base))
        dmax = fmax(dmax, base);
    const char *lim_what = NULL;
    double lim = plot_run_limit(c->run, c->opts, &lim_what);
    /* a limit far above the run would flatten every line: only a note */
    bool lim_on = lim > 0 && (dmax <= 0 || lim <= 3 * dmax);
    double top = fmax(dmax, lim_on ? lim : 0) * 1.05;
    if (!(top > 0))
        top = 1024 * 1024;
    plot_unit_t u = plot_unit_for(top);

    FILE *f = plot_gp_open(c->tmp, "memory.dat", err, errlen);
    if (!f) {
        series_free(&m);
        return -EIO;
    }
    /* at most two points per pixel column: a figure's size does not grow
     * with the run's length, and every peak and dip is still drawn */
    plot_decimate_write(f, m.t, m.s, S_N, m.n, u.div, c->xlo, c->xhi, PLOT_COLUMNS);
    if ((rc = plot_gp_close(f, err, errlen)) < 0 || !(f = plot_gp_open(c->tmp, "marks.dat", err, errlen))) {
        series_free(&m);
        return rc < 0 ? rc : -EIO;
    }
    size_t nmarks = m.nmarks, m_n = m.n;
    size_t drawn = plot_decimate_marks(m.marks, m.nmarks, c->xlo, c->xhi, PLOT_COLUMNS);
    for (size_t i = 0; i < drawn; i++)
        fprintf(f, "%.3f\n", m.marks[i]);
    series_free(&m);
    if ((rc = plot_gp_close(f, err, errlen)) < 0 || !(f = plot_gp_open(c->tmp, "vars.gp", err, errlen)))
        return rc < 0 ? rc : -EIO;

    char layers[96] = "", t1[400], lab[200], b1[32];
    for (int k = 0; k < S_N; k++)
        if (has[k])
            plot_words_add(layers, sizeof layers, s_word[k]);
    const char *outcome = json_string_value(json_object_get(analyze_run_json(c->run), "outcome"));
    bool killed = outcome && strcmp(outcome, "oom-killed") == 0;
    if (c->watch)
        snprintf(t1, sizeof t1, "%s: memory of the watched process (%zu mark%s%s)", c->name, nmarks,
                 nmarks == 1 ? "" : "s", killed ? "; OOM-killed at the end" : "");
    else
        snprintf(t1, sizeof t1, "%s: memory over time (%zu proof%s done%s)", c->name, nmarks, nmarks == 1 ? "" : "s",
                 killed ? "; OOM-killed at the end" : "");
    plot_vars_str(f, "title1", t1);
    plot_vars_str(f, "title2", c->verdict);
    plot_vars_str(f, "unit", u.name);
    plot_vars_num(f, "xlo", c->xlo);
    plot_vars_num(f, "xhi", c->xhi);
    plot_vars_num(f, "ymax", top / u.div);
    plot_vars_str(f, "layers", layers);
    /* one sample is a point: a line through it would draw nothing */
    plot_vars_str(f, "sty", m_n > 1 ? "lines" : "linespoints pt 7 ps 1.2");
    plot_vars_str(f, "tracked_label", c->watch ? "L0 traced allocations" : "L0 tracked buffers");
    fprintf(f, "has_marks = %d\n", nmarks > 0);
    plot_vars_str(f, "marks_label", c->watch ? "mark" : "proof done");
    if (has[S_TREND]) {
        bool per_proof = !c->watch || r->per_proof;
        snprintf(lab, sizeof lab, "leak trend +%s per %s (%s)", fmt_bytes(b1, r->leak_rate),
                 per_proof ? "proof" : "s", analyze_layer_name(r->leak_layer));
        plot_vars_str(f, "trend_label", lab);
    } else {
        plot_vars_str(f, "trend_label", "");
    }
    plot_vars_num(f, "base", isfinite(base) ? base / u.div : NAN);
    snprintf(lab, sizeof lab, "baseline %s (%s)", fmt_bytes(b1, base),
             !c->watch ? "before the first proof" : r && r->per_proof ? "RSS floor of the first proof" : "RSS floor at the start");
    plot_vars_str(f, "base_label", lab);
    plot_vars_num(f, "lim", lim > 0 ? lim / u.div : NAN);
    if (lim > 0 && lim_on)
        snprintf(lab, sizeof lab, "%s %s", lim_what, fmt_bytes(b1, lim));
    else if (lim > 0)
        snprintf(lab, sizeof lab, "%s %s (off the scale: peak RSS %.1f%% of it)", lim_what, fmt_bytes(b1, lim),
                 100 * rss_peak / lim);
    else
        lab[0] = '\0';
    plot_vars_str(f, "lim_label", lab);
    fprintf(f, "lim_on = %d\n", lim_on);
    if ((rc = plot_gp_close(f, err, errlen)) < 0)
        return rc;
    return plot_figs_draw(&c->figs, c->tmp, "memory.gp", "memory", err, errlen);
}
