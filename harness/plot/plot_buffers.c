/*
 * The kinds and buffers figures (plot_figs.h): where tracked memory went, by
 * kind over time, and buffer by buffer.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/plot/plot_decimate.h"
#include "harness/plot/plot_figs.h"
#include "harness/plot/plot_style.h"
#include "harness/run/errmsg.h"
#include "harness/run/units.h"

#define MAX_KINDS 64
#define MAX_BARS 4000 /* buffers drawn in the lifetime chart; more are thinned */
#define MAX_SITES 8   /* a watch run's sites with a colour of their own */

/* ---- kinds ---- */

typedef struct {
    const char *name;
    int col;
} kind_col_t;

static int cmp_kind_col(const void *a, const void *b)
{
    return plot_kind_cmp(((const kind_col_t *)a)->name, ((const kind_col_t *)b)->name);
}

/* One panel's data file (running sums) and its vars P_n, P_names,
 * P_colors, P_unit, P_max. */
static int kinds_panel(const plot_ctx_t *c, const kind_col_t *k, size_t nk, const char *file, const char *p,
                       FILE *vars, char *err, size_t errlen)
{
    const run_csv_t *s = analyze_run_csv(c->run, "samples.csv");
    int ct = run_csv_col(s, "t_ms");
    size_t n = s->nrows;
    double *t = malloc((n + 1) * sizeof *t), *total = malloc((n + 1) * sizeof *total);
    size_t *rows = malloc((n + 1) * sizeof *rows);
    if (!t || !total || !rows) {
        free(t);
        free(total);
        free(rows);
        return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
    }
    double top = 0;
    for (size_t i = 0; i < n; i++) {
        double cum = 0;
        for (size_t j = 0; j < nk; j++)
            cum += fmax(0, run_csv_num(s, i, k[j].col));
        top = fmax(top, cum);
        total[i] = cum;
        t[i] = run_csv_num(s, i, ct) / 1000;
    }
    /* whole rows, those with the lowest and highest stack per pixel column:
     * the figure's size does not grow with the run's length */
    size_t nr = plot_decimate_rows(rows, t, total, n, c->xlo, c->xhi, PLOT_COLUMNS);
    free(t);
    free(total);
    top = top > 0 ? top * 1.05 : 1024 * 1024;
    plot_unit_t u = plot_unit_for(top);
    FILE *f = plot_gp_open(c->tmp, file, err, errlen);
    if (!f) {
        free(rows);
        return -EIO;
    }
    for (size_t r = 0; r < nr; r++) {
        size_t i = rows[r];
        double cum = 0;
        fprintf(f, "%.3f", run_csv_num(s, i, ct) / 1000);
        for (size_t j = 0; j < nk; j++) {
            cum += fmax(0, run_csv_num(s, i, k[j].col));
            fprintf(f, " %.9g", cum / u.div);
        }
        fputc('\n', f);
    }
    free(rows);
    int rc = plot_gp_close(f, err, errlen);
    if (rc < 0)
        return rc;
    char var[32], words[MAX_KINDS * 24] = "", colors[MAX_KINDS * 8] = "";
    for (size_t j = 0; j < nk; j++) {
        plot_words_add(words, sizeof words, k[j].name);
        plot_words_add(colors, sizeof colors, plot_kind_color(k[j].name));
    }
    snprintf(var, sizeof var, "%s_n", p);
    fprintf(vars, "%s = %zu\n", var, nk);
    snprintf(var, sizeof var, "%s_names", p);
    plot_vars_str(vars, var, words);
    snprintf(var, sizeof var, "%s_colors", p);
    plot_vars_str(vars, var, colors);
    snprintf(var, sizeof var, "%s_unit", p);
    plot_vars_str(vars, var, u.name);
    snprintf(var, sizeof var, "%s_max", p);
    plot_vars_num(vars, var, top / u.div);
    return 0;
}

int plot_kinds(plot_ctx_t *c, char *err, size_t errlen)
{
    const run_csv_t *s = analyze_run_csv(c->run, "samples.csv");
    kind_col_t host[MAX_KINDS], dev[MAX_KINDS];
    size_t nh = 0, nd = 0;
    for (size_t j = 0; j < s->ncols; j++) {
        if (strncmp(s->names[j], "live_", 5) != 0 || strlen(s->names[j]) > 5 + 20)
            continue;
        bool any = false;
        for (size_t i = 0; i < s->nrows && !any; i++)
            any = run_csv_num(s, i, (int)j) > 0;
        const char *kind = s->names[j] + 5;
        if (!any)
            continue;
        if (plot_kind_is_device(kind) && nd < MAX_KINDS)
            dev[nd++] = (kind_col_t){kind, (int)j};
        else if (!plot_kind_is_device(kind) && nh < MAX_KINDS)
            host[nh++] = (kind_col_t){kind, (int)j};
    }
    if (nh + nd == 0)
        return 0; /* no tracked buffers: no figure (plot_run says which were drawn) */
    qsort(host, nh, sizeof *host, cmp_kind_col);
    qsort(dev, nd, sizeof *dev, cmp_kind_col);
    FILE *vars = plot_gp_open(c->tmp, "vars.gp", err, errlen);
    if (!vars)
        return -EIO;
    int rc = kinds_panel(c, host, nh, "kinds_host.dat", "host", vars, err, errlen);
    if (rc == 0)
        rc = kinds_panel(c, dev, nd, "kinds_dev.dat", "dev", vars, err, errlen);
    char title[400];
    snprintf(title, sizeof title, "%s: live tracked bytes by kind (each kind has a fixed colour)", c->name);
    plot_vars_str(vars, "title", title);
    plot_vars_num(vars, "xlo", c->xlo);
    plot_vars_num(vars, "xhi", c->xhi);
    int crc = plot_gp_close(vars, err, errlen);
    if (rc < 0 || (rc = crc) < 0)
        return rc;
    return plot_figs_draw(&c->figs, c->tmp, "kinds.gp", "kinds", err, errlen);
}

/* ---- buffers ---- */

static const run_csv_t *order_csv; /* for the comparisons: qsort has no context argument */
static int order_col;

static int cmp_num(const void *a, const void *b)
{
    double x = run_csv_num(order_csv, *(const size_t *)a, order_col),
           y = run_csv_num(order_csv, *(const size_t *)b, order_col);
    return (x > y) - (x < y);
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(run_csv_text(order_csv, *(const size_t *)a, order_col),
                  run_csv_text(order_csv, *(const size_t *)b, order_col));
}

typedef struct {
    char name[48];
    double bytes;
} label_t;

static int cmp_label_bytes(const void *a, const void *b)
{
    double x = ((const label_t *)a)->bytes, y = ((const label_t *)b)->bytes;
    return (x < y) - (x > y);
}

static int cmp_label_kind(const void *a, const void *b)
{
    return plot_kind_cmp(((const label_t *)a)->name, ((const label_t *)b)->name);
}

/* The legend: the kinds of a batch run in their fixed order; a watch run's
 * MAX_SITES sites with the most bytes, then "other". */
static size_t buffer_labels(const run_csv_t *b, int ck, int cbytes, bool watch, label_t *lab, size_t cap,
                            bool *other)
{
    size_t *by = malloc(b->nrows * sizeof *by), n = 0;
    *other = false;
    if (!by)
        return 0;
    for (size_t i = 0; i < b->nrows; i++)
        by[i] = i;
    order_csv = b;
    order_col = ck;
    qsort(by, b->nrows, sizeof *by, cmp_text);
    size_t groups = 0;
    for (size_t r = 0; r < b->nrows;) {
        size_t e = r;
        double tot = 0;
        while (e < b->nrows && strcmp(run_csv_text(b, by[e], ck), run_csv_text(b, by[r], ck)) == 0)
            tot += run_csv_num(b, by[e++], cbytes);
        groups++;
        if (n < cap) {
            snprintf(lab[n].name, sizeof lab[n].name, "%.47s", run_csv_text(b, by[r], ck));
            for (char *q = lab[n].name; *q; q++)
                if (*q == ' ' || *q == '\'' || *q == '"')
                    *q = '_'; /* a word of the legend list */
            lab[n++].bytes = tot;
        }
        r = e;
    }
    free(by);
    if (watch) {
        qsort(lab, n, sizeof *lab, cmp_label_bytes);
        if (n > MAX_SITES)
            n = MAX_SITES;
    } else {
        qsort(lab, n, sizeof *lab, cmp_label_kind);
    }
    *other = groups > n;
    return n;
}

static const char *const site_color[MAX_SITES] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                  "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define OTHER_COLOR "#7f7f7f"

typedef struct {
    double t, d;
} live_ev_t;

static int cmp_live_ev(const void *a, const void *b)
{
    double x = ((const live_ev_t *)a)->t, y = ((const live_ev_t *)b)->t;
    return (x > y) - (x < y);
}

int plot_buffers_live(const run_csv_t *b, double **t, double **v, size_t *n)
{
    int cb = run_csv_col(b, "bytes"), cta = run_csv_col(b, "t_alloc_ms"), ctf = run_csv_col(b, "t_free_ms");
    live_ev_t *ev = malloc((2 * b->nrows + 1) * sizeof *ev);
    *t = malloc((2 * b->nrows + 1) * sizeof **t);
    *v = malloc((2 * b->nrows + 1) * sizeof **v);
    if (!ev || !*t || !*v) {
        free(ev);
        free(*t);
        free(*v);
        *t = *v = NULL;
        return -ENOMEM;
    }
    size_t ne = 0;
    for (size_t i = 0; i < b->nrows; i++) {
        double by = run_csv_num(b, i, cb), tf = run_csv_num(b, i, ctf);
        ev[ne++] = (live_ev_t){run_csv_num(b, i, cta) / 1000, by};
        if (isfinite(tf))
            ev[ne++] = (live_ev_t){tf / 1000, -by};
    }
    qsort(ev, ne, sizeof *ev, cmp_live_ev);
    double live = 0;
    for (size_t e = 0; e < ne; e++) {
        live += ev[e].d;
        (*t)[e] = ev[e].t;
        (*v)[e] = fmax(0, live);
    }
    free(ev);
    *n = ne;
    return 0;
}

/* live.dat: the live bytes as steps (each event twice: before and after),
 * reduced per pixel column; *peak: their maximum. */
static int buffers_live_file(const plot_ctx_t *c, const run_csv_t *b, double *peak, plot_unit_t *u, char *err,
                             size_t errlen)
{
    double *t, *v;
    size_t n;
    if (plot_buffers_live(b, &t, &v, &n) < 0)
        return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
    double *st = malloc((2 * n + 2) * sizeof *st), *sv = malloc((2 * n + 2) * sizeof *sv);
    if (!st || !sv) {
        free(t), free(v), free(st), free(sv);
        return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
    }
    size_t m = 0;
    double prev = 0;
    *peak = 0;
    for (size_t e = 0; e < n; e++) {
        st[m] = t[e], sv[m++] = prev;
        st[m] = t[e], sv[m++] = prev = v[e];
        *peak = fmax(*peak, v[e]);
    }
    if (m && c->xhi > st[m - 1])
        st[m] = c->xhi, sv[m++] = prev; /* never-freed bytes stay to the end */
    free(t);
    free(v);
    *u = plot_unit_for(*peak > 0 ? *peak * 1.05 : 1024);
    FILE *f = plot_gp_open(c->tmp, "live.dat", err, errlen);
    if (!f) {
        free(st), free(sv);
        return -EIO;
    }
    double *ys[1] = {sv};
    plot_decimate_write(f, st, ys, 1, m, u->div, c->xlo, c->xhi, PLOT_COLUMNS);
    free(st);
    free(sv);
    return plot_gp_close(f, err, errlen);
}

int plot_buffers(plot_ctx_t *c, char *err, size_t errlen)
{
    const run_csv_t *b = analyze_run_csv(c->run, "buffers.csv");
    if (b->nrows == 0)
        return 0;
    int ck = run_csv_col(b, "kind"), cta = run_csv_col(b, "t_alloc_ms"), ctf = run_csv_col(b, "t_free_ms"),
        cbytes = run_csv_col(b, "bytes");
    label_t lab[MAX_KINDS];
    bool other, drawn[MAX_KINDS] = {false}, other_drawn = false;
    size_t nl = buffer_labels(b, ck, cbytes, c->watch, lab, MAX_KINDS, &other);
    size_t *order = malloc(b->nrows * sizeof *order);
    if (!order || nl == 0) {
        free(order);
        return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
    }
    /* by allocation time: rows are written at free */
    for (size_t i = 0; i < b->nrows; i++)
        order[i] = i;
    order_csv = b;
    order_col = cta;
    qsort(order, b->nrows, sizeof *order, cmp_num);
    size_t stride = b->nrows > MAX_BARS ? (b->nrows + MAX_BARS - 1) / MAX_BARS : 1;
    double all = 0, nf_bytes = 0;
    size_t nf_count = 0;
    for (size_t i = 0; i < b->nrows; i++) {
        all += run_csv_num(b, i, cbytes);
        if (!isfinite(run_csv_num(b, i, ctf)))
            nf_count++, nf_bytes += run_csv_num(b, i, cbytes);
    }
    FILE *fr = plot_gp_open(c->tmp, "buffers.dat", err, errlen), *fn = plot_gp_open(c->tmp, "buffers_nf.dat", err, errlen);
    if (!fr || !fn) {
        if (fr)
            fclose(fr);
        if (fn)
            fclose(fn);
        free(order);
        return -EIO;
    }
    bool has_freed = false, has_nf = false;
    size_t rank = 0;
    for (size_t ii = 0; ii < b->nrows; ii += stride) {
        size_t i = order[ii];
        char name[48];
        snprintf(name, sizeof name, "%.47s", run_csv_text(b, i, ck));
        for (char *q = name; *q; q++)
            if (*q == ' ' || *q == '\'' || *q == '"')
                *q = '_';
        const char *color = OTHER_COLOR;
        size_t k = 0;
        while (k < nl && strcmp(lab[k].name, name) != 0)
            k++;
        if (k < nl) {
            color = c->watch ? site_color[k] : plot_kind_color(name);
            drawn[k] = true;
        } else {
            other_drawn = true;
        }
        double tf = run_csv_num(b, i, ctf);
        bool nf = !isfinite(tf);
        /* a row per buffer, its rank in allocation order */
        fprintf(nf ? fn : fr, "%.3f %.3f %zu %.2f %ld\n", run_csv_num(b, i, cta) / 1000, nf ? c->xhi : tf / 1000,
                rank, rank + 1.0, strtol(color + 1, NULL, 16));
        *(nf ? &has_nf : &has_freed) = true;
        rank++;
    }
    free(order);
    int rc = plot_gp_close(fr, err, errlen), rc2 = plot_gp_close(fn, err, errlen);
    if (rc < 0 || (rc = rc2) < 0)
        return rc;
    double peak = 0;
    plot_unit_t u = plot_unit_for(1024);
    if ((rc = buffers_live_file(c, b, &peak, &u, err, errlen)) < 0)
        return rc;
    FILE *f = plot_gp_open(c->tmp, "vars.gp", err, errlen);
    if (!f)
        return -EIO;
    char title[900], names[MAX_KINDS * 50] = "", colors[MAX_KINDS * 8] = "", b1[32], b2[32], nfl[120], ll[160];
    for (size_t k = 0; k < nl; k++) {
        if (!drawn[k]) /* thinned out: no legend entry for what is not drawn */
            continue;
        plot_words_add(names, sizeof names, lab[k].name);
        plot_words_add(colors, sizeof colors, c->watch ? site_color[k] : plot_kind_color(lab[k].name));
    }
    if (other && other_drawn) {
        plot_words_add(names, sizeof names, "other");
        plot_words_add(colors, sizeof colors, OTHER_COLOR);
    }
    const char *what = c->watch ? "allocations by site" : "buffers by kind";
    int tl = snprintf(title, sizeof title, "%s: %s (%zu, %s allocated in all, at most %s live at once", c->name, what,
                      b->nrows, fmt_bytes(b1, all), fmt_bytes(b2, peak));
    if (stride > 1)
        tl += snprintf(title + tl, sizeof title - tl, "; every %zu-th drawn", stride);
    snprintf(title + tl, sizeof title - tl, "; never freed: %zu, %s)", nf_count, fmt_bytes(b1, nf_bytes));
    plot_vars_str(f, "title", title);
    plot_vars_str(f, "unit", u.name);
    plot_vars_num(f, "xlo", c->xlo);
    plot_vars_num(f, "xhi", c->xhi);
    plot_vars_num(f, "rows", (double)(rank ? rank : 1));
    plot_vars_num(f, "y2max", (peak > 0 ? peak * 1.05 : 1024) / u.div);
    plot_vars_str(f, "names", names);
    plot_vars_str(f, "colors", colors);
    fprintf(f, "has_freed = %d\nhas_nf = %d\n", has_freed, has_nf);
    snprintf(nfl, sizeof nfl, "never freed (hatched, to the end): %zu, %s", nf_count, fmt_bytes(b1, nf_bytes));
    plot_vars_str(f, "nf_label", nfl);
    snprintf(ll, sizeof ll, "live bytes (right axis)");
    plot_vars_str(f, "live_label", ll);
    if ((rc = plot_gp_close(f, err, errlen)) < 0)
        return rc;
    return plot_figs_draw(&c->figs, c->tmp, "buffers.gp", "buffers", err, errlen);
}
