/*
 * The period of a cyclic signal (a program's memory that rises and falls
 * once a proof), found from the samples alone: the autocorrelation of the
 * detrended series, resampled onto an even grid (docs/diagnosis.md,
 * "Sampling that fits the cycle"). Pure functions on arrays: no I/O.
 */
#ifndef ZKB_SIGNAL_PERIOD_H
#define ZKB_SIGNAL_PERIOD_H

#include <stddef.h>

/* At most this many grid points are used (the latest ones): enough for the
 * periods a tick can fail to resolve (below 10 ticks) many times over. */
#define SIGNAL_PERIOD_MAX_POINTS 4096
/* Fewer samples give no period. */
#define SIGNAL_PERIOD_MIN_SAMPLES 24
/* The autocorrelation at the period, and its rise above the trough before
 * it, must reach this (white or AR(1) noise stays far below). */
#define SIGNAL_PERIOD_MIN_CORR 0.3

typedef struct {
    double period;    /* in t's unit; NAN: no period (flat, noise, too short, not cyclic) */
    double strength;  /* the autocorrelation at the period, 0..1; 0 with no period */
    double amplitude; /* the 5th..95th percentile range of the detrended series (y's unit) */
    double step;      /* the grid's spacing (the median spacing of t); NAN with fewer than 2 samples */
    size_t points;    /* grid points used */
} signal_period_t;

/* The period of y sampled at times t (n samples, t non-decreasing). A
 * period is given only when it repeats: a peak of the autocorrelation of
 * at least SIGNAL_PERIOD_MIN_CORR, standing that far above the trough
 * before it, at a lag of 2 grid steps or more, with at least 4 periods in
 * the window and a second peak near twice the lag. Returns 0 (ret filled,
 * period NAN when there is none), -EINVAL for a NULL pointer or a
 * non-finite value, -ENOMEM. */
int signal_period_find(signal_period_t *ret, const double *t, const double *y, size_t n);

#endif
