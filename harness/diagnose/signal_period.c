/*
 * The period of a sampled signal (signal_period.h). The method, in order:
 *   1. the samples onto an even grid at their median spacing (linear
 *      interpolation; at most the latest SIGNAL_PERIOD_MAX_POINTS points),
 *      so a jittered or thinned series reads as an evenly sampled one;
 *   2. the least-squares line taken off (a leak's ramp would otherwise
 *      dominate every lag);
 *   3. the normalized autocorrelation r(k), each lag averaged over its own
 *      overlap (Box & Jenkins, "Time Series Analysis", 2.1.5, without the
 *      bias toward short lags);
 *   4. the period: the first peak of r (a local maximum at a lag >= 2)
 *      that reaches SIGNAL_PERIOD_MIN_CORR, rises that much above the
 *      lowest r before it and is at least half the highest such peak (so
 *      a weak harmonic at half the period is passed over, and a multiple of
 *      the period is not taken for it), with r near twice the lag at least
 *      half as high: a pattern that repeats. Noise decays in r without such
 *      a peak, a flat series has no variance: neither has a period.
 *   5. refined by a parabola through the peak and the peaks near its
 *      multiples (the lag of the j-th over j), which gives the period to a
 *      fraction of a grid step.
 */
#include "harness/diagnose/signal_period.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PERIOD_HARMONIC_SHARE 0.5 /* a peak this share of the highest is taken before it */
#define PERIOD_REPEAT_SHARE 0.5   /* r near a multiple of the period, against r at the period */
#define PERIOD_MULTIPLES 8        /* peaks at multiples used to refine */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the positive spacings of t; NAN when there is none.
 * scratch holds n doubles. */
static double median_step(const double *t, size_t n, double *scratch)
{
    size_t k = 0;
    for (size_t i = 1; i < n; i++)
        if (t[i] > t[i - 1])
            scratch[k++] = t[i] - t[i - 1];
    if (k == 0)
        return NAN;
    qsort(scratch, k, sizeof *scratch, cmp_double);
    return k % 2 ? scratch[k / 2] : (scratch[k / 2 - 1] + scratch[k / 2]) / 2;
}

/* g[0..m): y at t_start + k*step, linearly interpolated (t non-decreasing,
 * t_start >= t[0]). */
static void resample(double *g, size_t m, const double *t, const double *y, size_t n, double t_start, double step)
{
    size_t j = 0;
    for (size_t k = 0; k < m; k++) {
        double tk = t_start + (double)k * step;
        while (j + 1 < n && t[j + 1] <= tk)
            j++;
        if (j + 1 >= n || t[j + 1] <= t[j])
            g[k] = y[j];
        else
            g[k] = y[j] + (y[j + 1] - y[j]) * (tk - t[j]) / (t[j + 1] - t[j]);
    }
}

/* g less its least-squares line over the index; returns the variance left. */
static double detrend(double *g, size_t m)
{
    double xm = (double)(m - 1) / 2, mean = 0, sxx = 0, sxy = 0;
    for (size_t k = 0; k < m; k++)
        mean += g[k];
    mean /= (double)m;
    for (size_t k = 0; k < m; k++) {
        double dx = (double)k - xm;
        sxx += dx * dx;
        sxy += dx * (g[k] - mean);
    }
    double slope = sxx > 0 ? sxy / sxx : 0, var = 0;
    for (size_t k = 0; k < m; k++) {
        g[k] -= mean + slope * ((double)k - xm);
        var += g[k] * g[k];
    }
    return var / (double)m;
}

/* The vertex of the parabola through r[k-1], r[k], r[k+1] (1 <= k < len-1). */
static double vertex(const double *r, size_t k)
{
    double d = r[k - 1] - 2 * r[k] + r[k + 1];
    double off = d < 0 ? 0.5 * (r[k - 1] - r[k + 1]) / d : 0;
    return (double)k + (fabs(off) <= 0.5 ? off : 0);
}

/* The local maximum of r within [c - w, c + w] (inside [2, len - 2]), or 0. */
static size_t peak_near(const double *r, size_t len, double c, double w)
{
    double lo = fmax(2, floor(c - w)), hi = fmin((double)len - 2, ceil(c + w));
    size_t best = 0;
    for (size_t k = (size_t)lo; (double)k <= hi; k++)
        if (r[k] >= r[k - 1] && r[k] >= r[k + 1] && (!best || r[k] > r[best]))
            best = k;
    return best;
}

int signal_period_find(signal_period_t *ret, const double *t, const double *y, size_t n)
{
    if (!ret || (n && (!t || !y)))
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(t[i]) || !isfinite(y[i]))
            return -EINVAL;
    signal_period_t R = {.period = NAN, .strength = 0, .amplitude = 0, .step = NAN, .points = 0};
    if (n < 2) {
        *ret = R;
        return 0;
    }
    double *scratch = malloc(n * sizeof *scratch);
    if (!scratch)
        return -ENOMEM;
    R.step = median_step(t, n, scratch);
    free(scratch);
    if (!isfinite(R.step) || n < SIGNAL_PERIOD_MIN_SAMPLES) {
        *ret = R;
        return 0;
    }
    double span = t[n - 1] - t[0];
    size_t m = (size_t)floor(span / R.step) + 1;
    if (m > SIGNAL_PERIOD_MAX_POINTS)
        m = SIGNAL_PERIOD_MAX_POINTS;
    double t_start = t[n - 1] - (double)(m - 1) * R.step;
    size_t len = m / 2 + 1; /* lags 0 .. m/2 */
    double *g = malloc(m * sizeof *g), *r = malloc(len * sizeof *r), *q = malloc(m * sizeof *q);
    if (!g || !r || !q) {
        free(g);
        free(r);
        free(q);
        return -ENOMEM;
    }
    resample(g, m, t, y, n, t_start, R.step);
    R.points = m;
    double var = detrend(g, m), level = 0;
    for (size_t i = 0; i < n; i++)
        level = fmax(level, fabs(y[i]));
    memcpy(q, g, m * sizeof *q);
    qsort(q, m, sizeof *q, cmp_double);
    R.amplitude = q[(size_t)floor(0.95 * (double)(m - 1))] - q[(size_t)ceil(0.05 * (double)(m - 1))];
    /* flat: nothing left after the line, but rounding */
    if (m < SIGNAL_PERIOD_MIN_SAMPLES || !(sqrt(var) > 1e-12 * level))
        goto done;
    for (size_t k = 0; k < len; k++) {
        double s = 0;
        for (size_t i = 0; i + k < m; i++)
            s += g[i] * g[i + k];
        r[k] = s / (double)(m - k) / var;
    }
    /* candidates: peaks at lags 2 .. m/4 (four periods in the window) */
    size_t last = m / 4 < len - 2 ? m / 4 : len - 2, first = 0;
    double trough = r[1], best = 0;
    for (int pass = 0; pass < 2 && !first; pass++) {
        trough = r[1];
        for (size_t k = 2; k <= last; k++) {
            trough = fmin(trough, r[k - 1]);
            bool peak = r[k] > r[k - 1] && r[k] >= r[k + 1] && r[k] >= SIGNAL_PERIOD_MIN_CORR &&
                        r[k] - trough >= SIGNAL_PERIOD_MIN_CORR;
            if (!peak)
                continue;
            if (pass == 0)
                best = fmax(best, r[k]);
            else if (r[k] >= PERIOD_HARMONIC_SHARE * best) {
                first = k;
                break;
            }
        }
        if (best == 0)
            break;
    }
    if (!first)
        goto done;
    double p = vertex(r, first);
    /* the pattern repeats: a peak near twice the lag */
    size_t k2 = peak_near(r, len, 2 * p, fmax(2, 0.1 * 2 * p));
    if (!k2 || r[k2] < PERIOD_REPEAT_SHARE * r[first])
        goto done;
    for (int j = 2; j <= PERIOD_MULTIPLES; j++) {
        double w = fmax(1, 0.05 * j * p);
        if (j * p + w > (double)len - 2)
            break;
        size_t kj = peak_near(r, len, j * p, w);
        if (!kj || r[kj] < PERIOD_REPEAT_SHARE * r[first])
            break;
        p = vertex(r, kj) / j;
    }
    R.period = p * R.step;
    /* each lag is averaged over its own m - k products, which lets a short
     * window's peak pass 1 by a little (1.0004 seen): a correlation is at
     * most 1 */
    R.strength = fmin(1.0, r[first]);
done:
    free(g);
    free(r);
    free(q);
    *ret = R;
    return 0;
}
