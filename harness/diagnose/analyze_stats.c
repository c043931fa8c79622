/*
 * The statistics of the diagnosis (docs/diagnosis.md, "The fit"): least
 * squares by modified Gram-Schmidt QR with standard errors corrected for
 * the lag-1 autocorrelation of the residuals, Student's t, the median, a
 * line's slope with its interval, and the growth of one series over time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_json.h"

double analyze_t95(double dof)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (!(dof >= 1))
        return NAN;
    if (dof > 30)
        return 1.96 + 2.4 / dof; /* within 0.005 of the exact quantile above 30 */
    /* The effective dof of autocorrelated residuals is fractional: the
     * table's entry below it would widen the interval past 95 % (at dof
     * 1.81, 12.7 for the exact 4.77: a 10-floor last third of a leak read
     * "does not continue"). log t is nearly linear in 1 / dof: exact at the
     * table's entries, between them within 3 % and never below the exact
     * quantile (t is convex there). */
    int k = (int)floor(dof);
    if (k == 30 || dof == k)
        return t[k - 1];
    double w = (1.0 / k - 1.0 / dof) / (1.0 / k - 1.0 / (k + 1));
    return exp(log(t[k - 1]) + w * (log(t[k]) - log(t[k - 1])));
}

int analyze_ols(analyze_ols_t *ret, const double *x, const double *y, size_t n, size_t p)
{
    if (p == 0 || p > 8)
        return -EINVAL;
    analyze_ols_t o = {.n = n, .p = p};
    double *q = malloc(n * p * sizeof *q); /* column-major Q */
    double *e = malloc(n * sizeof *e);
    if (!q || !e) {
        free(q);
        free(e);
        return -ENOMEM;
    }
    double r[8][8] = {{0}};
    size_t kept[8], nk = 0;
    for (size_t j = 0; j < p; j++) {
        double *v = q + j * n, norm0 = 0, mean = 0, var = 0;
        for (size_t i = 0; i < n; i++) {
            v[i] = x[i * p + j];
            norm0 += v[i] * v[i];
            mean += v[i];
        }
        mean = n ? mean / (double)n : 0;
        for (size_t i = 0; i < n; i++)
            var += (v[i] - mean) * (v[i] - mean);
        norm0 = sqrt(norm0);
        bool is_intercept = j == 0 && var == 0 && norm0 > 0;
        if (norm0 == 0 || (!is_intercept && var <= 1e-12 * norm0 * norm0))
            continue; /* constant (or all zero): dropped */
        for (size_t kk = 0; kk < nk; kk++) {
            double *u = q + kept[kk] * n, d = 0;
            for (size_t i = 0; i < n; i++)
                d += u[i] * v[i];
            r[kk][nk] = d;
            for (size_t i = 0; i < n; i++)
                v[i] -= d * u[i];
        }
        double norm = 0;
        for (size_t i = 0; i < n; i++)
            norm += v[i] * v[i];
        norm = sqrt(norm);
        if (norm <= 1e-9 * norm0) {
            for (size_t kk = 0; kk < nk; kk++)
                r[kk][nk] = 0;
            continue; /* collinear with earlier columns: dropped */
        }
        for (size_t i = 0; i < n; i++)
            v[i] /= norm;
        r[nk][nk] = norm;
        kept[nk++] = j;
        o.kept[j] = true;
    }
    o.rank = nk;
    /* beta: R b = Q^T y */
    double qty[8], b[8] = {0};
    for (size_t kk = 0; kk < nk; kk++) {
        double *u = q + kept[kk] * n, d = 0;
        for (size_t i = 0; i < n; i++)
            d += u[i] * y[i];
        qty[kk] = d;
    }
    for (size_t kk = nk; kk-- > 0;) {
        double s = qty[kk];
        for (size_t l = kk + 1; l < nk; l++)
            s -= r[kk][l] * b[l];
        b[kk] = s / r[kk][kk];
    }
    for (size_t kk = 0; kk < nk; kk++)
        o.beta[kept[kk]] = b[kk];
    /* residuals */
    double ssr = 0, sst = 0, ymean = 0, lag = 0;
    for (size_t i = 0; i < n; i++)
        ymean += y[i];
    ymean = n ? ymean / (double)n : 0;
    for (size_t i = 0; i < n; i++) {
        double f = 0;
        for (size_t j = 0; j < p; j++)
            f += x[i * p + j] * o.beta[j];
        e[i] = y[i] - f;
        ssr += e[i] * e[i];
        sst += (y[i] - ymean) * (y[i] - ymean);
        if (i > 0)
            lag += e[i] * e[i - 1];
    }
    o.rho = ssr > 0 ? lag / ssr : 0;
    if (o.rho < 0)
        o.rho = 0;
    if (o.rho > 0.98)
        o.rho = 0.98;
    o.n_eff = (double)n * (1 - o.rho) / (1 + o.rho);
    o.r2 = sst > 0 ? 1 - ssr / sst : 1;
    double dof = (double)n - (double)nk;
    o.dof = o.n_eff - (double)nk;
    o.resid_sd = dof > 0 ? sqrt(ssr / dof) : NAN;
    /* covariance: sigma^2 R^-1 R^-T, inflated by (1+rho)/(1-rho) */
    double rinv[8][8] = {{0}};
    for (size_t kk = nk; kk-- > 0;) {
        rinv[kk][kk] = 1 / r[kk][kk];
        for (size_t l = kk + 1; l < nk; l++) {
            double s = 0;
            for (size_t m = kk + 1; m <= l; m++)
                s += r[kk][m] * rinv[m][l];
            rinv[kk][l] = -s / r[kk][kk];
        }
    }
    double infl = (1 + o.rho) / (1 - o.rho);
    for (size_t kk = 0; kk < nk; kk++) {
        double v = 0;
        for (size_t l = kk; l < nk; l++)
            v += rinv[kk][l] * rinv[kk][l];
        o.se[kept[kk]] = dof > 0 ? sqrt(v * ssr / dof * infl) : NAN;
    }
    free(q);
    free(e);
    *ret = o;
    return 0;
}

int analyze_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double analyze_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return v[n / 2];
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, analyze_cmp_double);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

bool analyze_fit_line(double *slope, double *lo, double *hi, double *sd, const double *xs, const double *ys,
                      size_t n)
{
    if (n < 3)
        return false;
    double *x = malloc(2 * n * sizeof *x);
    if (!x)
        return false;
    for (size_t i = 0; i < n; i++) {
        x[2 * i] = 1;
        x[2 * i + 1] = xs[i];
    }
    analyze_ols_t o;
    int rc = analyze_ols(&o, x, ys, n, 2);
    free(x);
    if (rc < 0 || !o.kept[1])
        return false;
    double t = analyze_t95(o.dof >= 1 ? o.dof : 1);
    *slope = o.beta[1];
    *lo = o.beta[1] - t * o.se[1];
    *hi = o.beta[1] + t * o.se[1];
    if (sd)
        *sd = isfinite(o.resid_sd) ? o.resid_sd : 0;
    if (!isfinite(*lo)) { /* a perfect fit through three points: no spread */
        *lo = *hi = *slope;
    }
    return true;
}

int analyze_trend(analyze_trend_t *ret, const double *t_ms, const double *y, size_t n, size_t n_windows)
{
    if (n < 3)
        return -EINVAL;
    analyze_trend_t tr = {0};
    double *ts = malloc(n * sizeof *ts);
    if (!ts)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        ts[i] = t_ms[i] / 1000.0;
    if (!analyze_fit_line(&tr.slope, &tr.slope_lo, &tr.slope_hi, NULL, ts, y, n)) {
        free(ts);
        return -EINVAL;
    }
    if (n_windows > 32)
        n_windows = 32;
    if (n_windows > n / 2)
        n_windows = n / 2;
    double wt[32];
    for (size_t w = 0; w < n_windows; w++) {
        size_t a = w * n / n_windows, b = (w + 1) * n / n_windows;
        double m = INFINITY, at = ts[a];
        for (size_t i = a; i < b; i++)
            if (y[i] < m) {
                m = y[i];
                at = ts[i];
            }
        tr.floors[w] = m;
        wt[w] = at;
    }
    tr.n_windows = n_windows;
    if (!analyze_fit_line(&tr.floor_slope, &tr.floor_lo, &tr.floor_hi, NULL, wt, tr.floors, n_windows))
        tr.floor_slope = tr.floor_lo = tr.floor_hi = NAN;
    size_t a = 2 * n / 3;
    if (!analyze_fit_line(&tr.last_third_slope, &tr.last_third_lo, &tr.last_third_hi, NULL, ts + a, y + a, n - a))
        tr.last_third_slope = tr.last_third_lo = tr.last_third_hi = NAN;
    /* Noise scale from successive differences (robust: median absolute
     * difference, 1.4826 / sqrt(2) turns it into a standard deviation). */
    double *d = malloc((n - 1) * sizeof *d);
    double noise = 0;
    if (d) {
        for (size_t i = 1; i < n; i++)
            d[i - 1] = fabs(y[i] - y[i - 1]);
        noise = 1.4826 / sqrt(2.0) * analyze_median(d, n - 1);
        free(d);
    }
    double rise = n_windows ? tr.floors[n_windows - 1] - tr.floors[0] : 0;
    double last_growth = isfinite(tr.last_third_slope) ? tr.last_third_slope * (ts[n - 1] - ts[a]) : 0;
    tr.noise = noise;
    tr.floor_rise = rise;
    /* growing: the line's slope is significant, or the valley floors rose
     * well above the noise; plateau: it grew, but the last third added less
     * than a tenth of the rise (a bounded cache, not a leak) */
    tr.growing = tr.slope_lo > 0 || (rise > 6 * noise && rise > 0 && tr.floor_slope > 0);
    tr.plateau = tr.growing && last_growth < fmax(3 * noise, 0.1 * rise);
    free(ts);
    *ret = tr;
    return 0;
}

void analyze_anon_peak(const run_csv_t *sc, double *peak_anon, double *file_at_peak)
{
    int ca = run_csv_col(sc, "rss_anon"), cf = run_csv_col(sc, "rss_file"), cr = run_csv_col(sc, "rss");
    double pa = NAN, pr = NAN, file = NAN;
    for (size_t i = 0; i < sc->nrows; i++) {
        double a = ca >= 0 ? run_csv_num(sc, i, ca) : NAN, r = cr >= 0 ? run_csv_num(sc, i, cr) : NAN;
        if (isfinite(a) && !(a <= pa))
            pa = a;
        if (isfinite(r) && !(r <= pr)) {
            pr = r;
            file = cf >= 0 ? run_csv_num(sc, i, cf) : NAN;
        }
    }
    *peak_anon = pa;
    *file_at_peak = isfinite(file) ? file : NAN;
}

double analyze_margin(const analyze_opts_t *opts, const char *ram_src)
{
    if (opts && opts->margin >= 0)
        return opts->margin;
    return ram_src && strstr(ram_src, "mem-limit") == NULL && strstr(ram_src, "mem_limit") == NULL ? 0.10 : 0.0;
}
