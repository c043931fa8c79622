/*
 * The growth of a series of valley floors, the core of a watch run's leak
 * rule (docs/diagnosis.md, "Watch runs"): three least-squares lines over
 * the floors (all, the last two thirds, the last third) with the AR(1)
 * correction, the rise from the first floors to the last third and the
 * floors' own noise, and from them leak, bounded (growth that stopped) or
 * neither. Used for each layer and each traced site (analyze_watch.c).
 */
#ifndef ZKB_WATCH_FLOORS_H
#define ZKB_WATCH_FLOORS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "harness/diagnose/analyze_names.h" /* MIB */

#define WATCH_SIGNIFICANCE 1.45  /* x the 95% half-width, as in analyze.c */
#define WATCH_MIN_GROWTH (1.0 * MIB) /* over the fitted floors */
#define WATCH_NOISE_FACTOR 4.0   /* the growth must pass this many residual sd */
#define WATCH_MIN_GROWTH_SHARE 0.005 /* and this share of the floors' level */
#define WATCH_TAIL_SHARE (1.0 / 3) /* the last third grows at >= this share of the slope */
#define WATCH_MIN_FLOORS 4

typedef struct {
    size_t m;
    double first, last, min, max;
    double g, g_lo, g_hi, g_sd;          /* the last two thirds of the floors */
    double all, all_lo, all_hi, all_sd;  /* every floor */
    double tail, tail_lo, tail_hi, tail_sd; /* the last third */
    double growth_late;                  /* g times the span of the last two thirds */
    double span_late;                    /* that span, in x (proofs or seconds) */
    double span_tail;                    /* the last third's span */
    double rise;                         /* median floor of the last third - of the first three */
    double noise;                        /* the floors' robust sd, from successive differences */
    double bound_at;                     /* x where a bounded series reached 90% of its rise */
    bool fitted, significant, continues, leak, grew, bounded;
} watch_growth_t;

/* The growth of the m floors f at x (proof numbers, or seconds); m == 0
 * (x, f NULL) gives an empty result with no numbers. */
void watch_growth_of(watch_growth_t *G, const double *x, const double *f, size_t m);
/* G as the analysis JSON shows it; per_proof: the unit is a proof, else a
 * second. A new reference. */
json_t *watch_growth_json(const watch_growth_t *G, bool per_proof);

#endif
