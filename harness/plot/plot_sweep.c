/*
 * The sweep figure (plot_figs.h): peak RSS against pw, measured and
 * predicted with their intervals, the model's curve, and the limit.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/plot/plot_figs.h"
#include "harness/plot/plot_style.h"
#include "harness/run/errmsg.h"
#include "harness/run/units.h"

typedef struct {
    double pw, peak, pred, lo, hi;
    bool killed;
    double off; /* anonymous figures: the predicted RSS less the predicted anonymous peak */
} sweep_row_t;

typedef struct {
    double pw, pred, lo, hi;
} model_row_t;

static int cmp_row(const void *a, const void *b)
{
    double x = ((const sweep_row_t *)a)->pw, y = ((const sweep_row_t *)b)->pw;
    return (x > y) - (x < y);
}

/* sweep-model.csv beside sweep_csv (the model's curve): *n rows, 0 when the
 * file is not there. */
static int read_model(const char *sweep_csv, model_row_t **ret, size_t *n, char *err, size_t errlen)
{
    char path[PATH_MAX];
    const char *slash = strrchr(sweep_csv, '/');
    snprintf(path, sizeof path, "%.*s/sweep-model.csv", slash ? (int)(slash - sweep_csv) : 1, slash ? sweep_csv : ".");
    *ret = NULL;
    *n = 0;
    if (access(path, F_OK) != 0)
        return 0;
    static const char *const req[] = {"pw", "predicted_peak_rss", "predicted_low", "predicted_high", NULL};
    run_csv_t c;
    if (run_csv_read(&c, path, req, NULL, NULL, err, errlen) < 0)
        return -EINVAL;
    int cpw = run_csv_col(&c, "pw"), cp = run_csv_col(&c, "predicted_peak_rss"), cl = run_csv_col(&c, "predicted_low"),
        ch = run_csv_col(&c, "predicted_high");
    model_row_t *m = malloc((c.nrows + 1) * sizeof *m);
    if (!m) {
        run_csv_free(&c);
        return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < c.nrows; i++)
        m[i] = (model_row_t){run_csv_num(&c, i, cpw), run_csv_num(&c, i, cp), run_csv_num(&c, i, cl),
                             run_csv_num(&c, i, ch)};
    *n = c.nrows;
    *ret = m;
    run_csv_free(&c);
    return 0;
}

static double fin(double v)
{
    return isfinite(v) ? v : 0;
}

static void put(FILE *f, double v, double div)
{
    isfinite(v) ? fprintf(f, " %.9g", v / div) : fputs(" NaN", f);
}

int plot_sweep_fig(plot_figs_t *F, const char *tmp, const char *sweep_csv, char *err, size_t errlen)
{
    static const char *const req[] = {"pw", "s_per_proof", "peak_rss", "predicted_peak_rss", NULL};
    static const char *const text[] = {"outcome", NULL};
    static const char *const empty[] = {"s_per_proof", "peak_rss", "predicted_peak_rss", "ram_bytes",
                                        "footprint_per_partition", "predicted_low", "predicted_high", "mem_limit",
                                        "peak_anon", "predicted_peak_anon", NULL};
    run_csv_t c;
    if (run_csv_read(&c, sweep_csv, req, text, empty, err, errlen) < 0)
        return -EINVAL;
    if (c.nrows == 0) {
        run_csv_free(&c);
        return errmsg_fail(err, errlen, -EINVAL, "%s: no rows, expected one row per pw", sweep_csv);
    }
    sweep_row_t *row = malloc(c.nrows * sizeof *row);
    if (!row) {
        run_csv_free(&c);
        return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
    }
    int cpw = run_csv_col(&c, "pw"), cpk = run_csv_col(&c, "peak_rss"), cpr = run_csv_col(&c, "predicted_peak_rss"),
        clo = run_csv_col(&c, "predicted_low"), chi = run_csv_col(&c, "predicted_high"),
        cram = run_csv_col(&c, "ram_bytes"), cml = run_csv_col(&c, "mem_limit"), coc = run_csv_col(&c, "outcome"),
        cpa = run_csv_col(&c, "peak_anon"), cppa = run_csv_col(&c, "predicted_peak_anon");
    double ram = NAN, ml = NAN;
    size_t n = 0, n_done = 0, n_killed = 0;
    for (size_t i = 0; i < c.nrows; i++) {
        if (run_csv_num(&c, i, cram) > 0)
            ram = run_csv_num(&c, i, cram);
        if (run_csv_num(&c, i, cml) > 0)
            ml = run_csv_num(&c, i, cml);
    }
    /* under a cap, the anonymous peaks when every drawn row has them */
    bool anon = isfinite(ml) && cpa >= 0 && cppa >= 0;
    for (int pass = 0; pass < 2; pass++) {
        n = n_done = n_killed = 0;
        for (size_t i = 0; i < c.nrows; i++) {
            /* a failed point (no peak, or an outcome neither complete nor
             * oom-killed) is not drawn; files without outcomes draw every row */
            const char *oc = run_csv_text(&c, i, coc);
            bool killed = strcmp(oc, "oom-killed") == 0;
            if (!isfinite(run_csv_num(&c, i, cpk)) || (!killed && *oc && strcmp(oc, "complete") != 0))
                continue;
            row[n] = (sweep_row_t){run_csv_num(&c, i, cpw), run_csv_num(&c, i, cpk), run_csv_num(&c, i, cpr),
                                   run_csv_num(&c, i, clo), run_csv_num(&c, i, chi), killed, 0};
            if (anon) {
                /* the prediction shifted by its own RSS-to-anonymous offset */
                double pa = run_csv_num(&c, i, cpa), off = row[n].pred - run_csv_num(&c, i, cppa);
                anon = isfinite(pa) && (isfinite(off) || !isfinite(row[n].pred));
                row[n].peak = pa;
                row[n].off = isfinite(off) ? off : 0;
                row[n].pred -= row[n].off, row[n].lo -= row[n].off, row[n].hi -= row[n].off;
            }
            *(killed ? &n_killed : &n_done) += 1;
            n++;
        }
        if (pass == 0 && anon)
            break; /* every row had them: drawn as anonymous */
        anon = false; /* some row had none: RSS for all (the second pass) */
    }
    run_csv_free(&c);
    if (n_done == 0) {
        free(row);
        return errmsg_fail(err, errlen, -EINVAL, "%s: no completed run to draw (every run was OOM-killed)", sweep_csv);
    }
    qsort(row, n, sizeof *row, cmp_row);
    model_row_t *model;
    size_t nm;
    int rc = read_model(sweep_csv, &model, &nm, err, errlen);
    if (rc < 0) {
        free(row);
        return rc;
    }
    if (anon) {
        /* the model's curve (RSS) shifted too, when one offset fits every
         * row (the batch model: the file-backed pages do not grow with pw);
         * else it is not drawn */
        double off = NAN;
        bool one = true;
        for (size_t i = 0; i < n; i++)
            if (isfinite(row[i].pred) && row[i].pred + row[i].off > 0) {
                if (!isfinite(off))
                    off = row[i].off;
                one = one && fabs(row[i].off - off) <= 0.01 * (row[i].pred + row[i].off);
            }
        if (!one || !isfinite(off))
            nm = 0;
        for (size_t i = 0; i < nm; i++)
            model[i].pred -= off, model[i].lo -= off, model[i].hi -= off;
    }
    /* ranges and the scale */
    double pw_lo = INFINITY, pw_hi = -INFINITY, dmax = 0;
    bool has_pred = false, has_range = false; /* has_range: range.dat has a row */
    for (size_t i = 0; i < n; i++) {
        pw_lo = fmin(pw_lo, row[i].pw), pw_hi = fmax(pw_hi, row[i].pw);
        dmax = fmax(dmax, fmax(fin(row[i].peak), fmax(fin(row[i].pred), fin(row[i].hi))));
        has_pred = has_pred || isfinite(row[i].pred);
    }
    for (size_t i = 0; i < nm; i++) {
        pw_lo = fmin(pw_lo, model[i].pw), pw_hi = fmax(pw_hi, model[i].pw);
        dmax = fmax(dmax, fmax(fin(model[i].pred), fin(model[i].hi)));
    }
    double lim = isfinite(ml) ? ml : ram;
    bool lim_on = isfinite(lim) && (dmax <= 0 || lim <= 3 * dmax);
    double top = fmax(dmax, lim_on ? lim : 0) * 1.08;
    if (!(top > 0))
        top = 1024 * 1024;
    plot_unit_t u = plot_unit_for(top);

    FILE *f = plot_gp_open(tmp, "sweep.dat", err, errlen), *fk = plot_gp_open(tmp, "killed.dat", err, errlen),
         *fr = plot_gp_open(tmp, "range.dat", err, errlen), *fm = plot_gp_open(tmp, "model.dat", err, errlen),
         *fp = plot_gp_open(tmp, "pred.dat", err, errlen);
    if (f && fk && fr && fm && fp) {
        for (size_t i = 0; i < n; i++) {
            FILE *to = row[i].killed ? fk : f;
            fprintf(to, "%.0f", row[i].pw);
            put(to, row[i].peak, u.div);
            put(to, row[i].pred, u.div);
            put(to, row[i].lo, u.div);
            put(to, row[i].hi, u.div);
            fputc('\n', to);
            if (isfinite(row[i].pred)) {
                fprintf(fp, "%.0f", row[i].pw);
                put(fp, row[i].pred, u.div);
                put(fp, row[i].lo, u.div);
                put(fp, row[i].hi, u.div);
                fputc('\n', fp);
            }
        }
        for (size_t i = 0; i < n;) { /* measured min..max of each pw run more than once */
            size_t e = i;
            double lo = INFINITY, hi = -INFINITY;
            for (; e < n && row[e].pw == row[i].pw; e++)
                if (!row[e].killed)
                    lo = fmin(lo, row[e].peak), hi = fmax(hi, row[e].peak);
            if (hi > lo) { /* equal peaks (a pw run again under a cap) draw no range */
                fprintf(fr, "%.0f %.9g %.9g\n", row[i].pw, lo / u.div, hi / u.div);
                has_range = true;
            }
            i = e;
        }
        for (size_t i = 0; i < nm; i++) {
            fprintf(fm, "%.0f", model[i].pw);
            put(fm, model[i].pred, u.div);
            put(fm, model[i].lo, u.div);
            put(fm, model[i].hi, u.div);
            fputc('\n', fm);
        }
    }
    free(row);
    free(model);
    rc = 0;
    FILE *all[] = {f, fk, fr, fm, fp};
    for (int k = 0; k < 5; k++)
        if (!all[k])
            rc = -EIO;
        else if (plot_gp_close(all[k], err, errlen) < 0)
            rc = -EIO;
    if (rc < 0 || !(f = plot_gp_open(tmp, "vars.gp", err, errlen)))
        return -EIO;
    char name[256], title[400], lab[160], b1[32], b2[32];
    char dir[PATH_MAX];
    const char *slash = strrchr(sweep_csv, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - sweep_csv) : 1, slash ? (slash == sweep_csv ? "/" : sweep_csv) : ".");
    plot_run_name(name, sizeof name, dir);
    snprintf(title, sizeof title, "%s: %s against pw (%zu run%s completed, %zu OOM-killed)", name,
             anon ? "anonymous peak (what the cgroup charges)" : "peak RSS", n_done, n_done == 1 ? "" : "s", n_killed);
    plot_vars_str(f, "title", title);
    plot_vars_str(f, "ylab", anon ? "peak anonymous memory (rss_anon)" : "peak RSS");
    plot_vars_str(f, "unit", u.name);
    /* explicit x range: one pw alone would make gnuplot warn */
    plot_vars_num(f, "xlo", pw_lo - 0.5);
    plot_vars_num(f, "xhi", pw_hi + 0.5);
    plot_vars_num(f, "ymax", top / u.div);
    fprintf(f, "has_pred = %d\nhas_killed = %d\nhas_range = %d\nhas_model = %d\n", has_pred, n_killed > 0, has_range,
            nm > 0);
    plot_vars_num(f, "lim", isfinite(lim) ? lim / u.div : NAN);
    fprintf(f, "lim_on = %d\n", lim_on);
    const char *what = isfinite(ml) ? "memory limit" : "RAM";
    if (lim_on)
        snprintf(lab, sizeof lab, "%s %s", what, fmt_bytes(b1, lim));
    else if (isfinite(lim))
        snprintf(lab, sizeof lab, "%s %s (off the scale: the largest peak %s is %.1f%% of it)", what,
                 fmt_bytes(b1, lim), fmt_bytes(b2, dmax), 100 * dmax / lim);
    else
        lab[0] = '\0';
    plot_vars_str(f, "lim_label", lab);
    if ((rc = plot_gp_close(f, err, errlen)) < 0)
        return rc;
    return plot_figs_draw(F, tmp, "sweep.gp", "sweep", err, errlen);
}
