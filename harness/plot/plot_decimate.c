/* Min/max per pixel column of the time axis; see plot_decimate.h. */
#include "harness/plot/plot_decimate.h"

#include <math.h>

/* The pixel column of time t, clamped to [0, columns). */
static size_t column_of(double t, double xlo, double xhi, size_t columns)
{
    double x = (t - xlo) / (xhi - xlo) * (double)columns;
    if (!(x > 0))
        return 0;
    if (x >= (double)columns)
        return columns - 1;
    return (size_t)x;
}

static void write_row(FILE *f, double t, double *const *y, size_t k, size_t i, double div)
{
    fprintf(f, "%.3f", t);
    for (size_t j = 0; j < k; j++)
        isfinite(y[j][i]) ? fprintf(f, " %.9g", y[j][i] / div) : fputs(" NaN", f);
    fputc('\n', f);
}

size_t plot_decimate_write(FILE *f, const double *t, double *const *y, size_t k, size_t n, double div, double xlo,
                           double xhi, size_t columns)
{
    size_t rows = 0;
    if (!(xhi > xlo) || columns == 0) {
        for (size_t i = 0; i < n; i++)
            write_row(f, t[i], y, k, i, div);
        return n;
    }
    for (size_t a = 0; a < n;) {
        size_t col = column_of(t[a], xlo, xhi, columns), b = a + 1;
        while (b < n && column_of(t[b], xlo, xhi, columns) == col)
            b++;
        if (b - a <= 2) {
            for (size_t i = a; i < b; i++)
                write_row(f, t[i], y, k, i, div);
            rows += b - a;
            a = b;
            continue;
        }
        /* two rows: the first and the last time of the column; in each
         * series the extreme that came first goes into the first row */
        size_t pick[PLOT_DECIMATE_MAX_SERIES][2];
        for (size_t j = 0; j < k && j < PLOT_DECIMATE_MAX_SERIES; j++) {
            size_t lo = b, hi = b;
            for (size_t i = a; i < b; i++) {
                double v = y[j][i];
                if (!isfinite(v))
                    continue;
                if (lo == b || v < y[j][lo])
                    lo = i;
                if (hi == b || v > y[j][hi])
                    hi = i;
            }
            pick[j][0] = lo < hi ? lo : hi; /* b (none finite) stays b */
            pick[j][1] = lo < hi ? hi : lo;
        }
        for (int r = 0; r < 2; r++) {
            fprintf(f, "%.3f", t[r ? b - 1 : a]);
            for (size_t j = 0; j < k; j++) {
                size_t i = j < PLOT_DECIMATE_MAX_SERIES ? pick[j][r] : (r ? b - 1 : a);
                i < b && isfinite(y[j][i]) ? fprintf(f, " %.9g", y[j][i] / div) : fputs(" NaN", f);
            }
            fputc('\n', f);
        }
        rows += 2;
        a = b;
    }
    return rows;
}

size_t plot_decimate_rows(size_t *idx, const double *t, const double *key, size_t n, double xlo, double xhi,
                          size_t columns)
{
    size_t m = 0;
    if (!(xhi > xlo) || columns == 0) {
        for (size_t i = 0; i < n; i++)
            idx[m++] = i;
        return m;
    }
    for (size_t a = 0; a < n;) {
        size_t col = column_of(t[a], xlo, xhi, columns), b = a + 1;
        while (b < n && column_of(t[b], xlo, xhi, columns) == col)
            b++;
        if (b - a <= 2) {
            for (size_t i = a; i < b; i++)
                idx[m++] = i;
        } else {
            size_t lo = a, hi = a;
            for (size_t i = a + 1; i < b; i++) {
                if (key[i] < key[lo])
                    lo = i;
                if (key[i] > key[hi])
                    hi = i;
            }
            idx[m++] = lo < hi ? lo : hi;
            if (lo != hi)
                idx[m++] = lo < hi ? hi : lo;
        }
        a = b;
    }
    return m;
}

size_t plot_decimate_marks(double *marks, size_t n, double xlo, double xhi, size_t columns)
{
    if (!(xhi > xlo) || columns == 0 || n == 0)
        return n;
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (column_of(marks[i], xlo, xhi, columns) != column_of(marks[m - 1], xlo, xhi, columns))
            marks[m++] = marks[i];
    return m;
}
