/*
 * Series reduced to what a figure can show: at most two points per pixel
 * column of the time axis, the lowest and the highest value of the column
 * in the order they came, so a peak or a dip one sample wide survives and
 * a figure (and the report that inlines its SVG) has the same size for a
 * run of a minute and of three weeks.
 */
#ifndef ZKB_PLOT_DECIMATE_H
#define ZKB_PLOT_DECIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Pixel columns of the time axis a figure reduces to: the width of the
 * 1400-pixel-wide terminals of harness/plot/gp/common.gp, an upper bound on
 * their plot areas. */
#define PLOT_COLUMNS 1400
/* Series reduced each on its own by plot_decimate_write; any further
 * series are sampled at the column's first and last row. */
#define PLOT_DECIMATE_MAX_SERIES 32

/*
 * Writes the rows "t y_0 .. y_{k-1}" of n samples (t in seconds, sorted;
 * y[j][i] in bytes, NAN where not recorded) to f, each y divided by div,
 * reduced per pixel column of [xlo, xhi] (columns of them): a column with
 * one or two samples keeps them as they are; one with more gets two rows,
 * at its first and its last sample's time, each series' minimum and
 * maximum in the order they occurred. Returns the rows written.
 */
size_t plot_decimate_write(FILE *f, const double *t, double *const *y, size_t k, size_t n, double div, double xlo,
                           double xhi, size_t columns);

/*
 * Which of n samples to draw when the rows must stay whole (stacked areas,
 * whose running sums are only right within one row): per pixel column the
 * rows with the lowest and the highest key (the stack's top), in time
 * order; columns with one or two rows keep them. The indices go to idx
 * (room for n); returns how many.
 */
size_t plot_decimate_rows(size_t *idx, const double *t, const double *key, size_t n, double xlo, double xhi,
                          size_t columns);

/* Marks (sorted times, seconds) reduced to one per pixel column: a mark
 * line drawn twice in one column is the same line. In place; returns the
 * count kept. */
size_t plot_decimate_marks(double *marks, size_t n, double xlo, double xhi, size_t columns);

#endif
