/*
 * Allocator retention in the capacity model (docs/diagnosis.md, "Capacity
 * and other pw values", "Retention"): the freed pages jemalloc keeps for
 * its decay (dirty and muzzy), measured near the run's peak and carried to
 * another pw by the arenas that synthesis threads allocate partitions from:
 *
 *   R(pw) = min(R_fit + (a(pw) - a(pw_fit)) * r,
 *               R_fit - a(pw_fit) * r + a * ceil(L(pw) / a) * F - waiting(pw) * F,
 *               freed in one decay period * a(pw) / a(pw_fit))
 *
 * a(w) = min(w, opt.narenas): the arenas w synthesis workers allocate their
 * partitions from; r, the most one arena keeps near the peak: one synthesis
 * worker's arena. The footprint bound: an arena reuses its own freed pages,
 * so what it holds (live and kept) is the most of its partitions live at
 * once; workers take partitions in turn, so of the L(pw) partitions the
 * pipeline holds at the peak (the model's occupancy, all states) one
 * arena's are at most ceil(L / a), each of F bytes (what synthesis
 * allocates for one), and the waiting(pw) partitions synthesizing or
 * waiting at the peak are live, not kept. The decay bound: pages freed more
 * than one decay period ago are returned, and freeing grows at most with
 * the workers. Neither bound takes R below R_fit; a decay of 0 returns
 * pages at once: R stays R_fit. The share is a whole number of
 * partitions, so the minimum can fall with one more worker; pw workers can
 * run every schedule fewer do, so R(pw) is the largest minimum at any w
 * from pw_fit to pw: it never falls as pw grows.
 */
#ifndef ZKB_CAPACITY_RETENTION_H
#define ZKB_CAPACITY_RETENTION_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool measured;         /* the run has je_dirty (a batch: yes; watch or old files: no, R = 0) */
    bool per_arena;        /* and je_arena_freed_max: r measured, else R_fit / a(pw_fit) */
    double bytes;          /* R_fit: dirty + muzzy near the peak at the run's pw */
    double arena;          /* r: the most one arena keeps there */
    int arenas;            /* the most arenas keeping freed pages there */
    int arenas_max;        /* opt.narenas (0: unknown, no bound) */
    double dirty_decay_ms; /* -1: never; NAN: unknown */
    double muzzy_decay_ms;
    double freed_in_decay; /* the most partition bytes freed within one decay period (INFINITY: unknown) */
    double partition_bytes; /* F: the bytes synthesis allocates for one partition (0: no footprint bound) */
} capacity_retention_t;

/* The retention near the peak from the fit samples' values: dirty + muzzy
 * (ret), the most of one arena (arena, NULL without the column) and the
 * arenas keeping any (count, NULL likewise), k samples each; their 90th
 * percentiles, as the residual's. Sets measured, per_arena, bytes, arena,
 * arenas; 0 or -ENOMEM. */
int capacity_retention_measure(capacity_retention_t *r, const double *ret, const double *arena, const double *count,
                               size_t k);

/* The settings from run.json's "allocator" (NULL: unknown, no bound). */
void capacity_retention_settings(capacity_retention_t *r, const json_t *allocator);

/* The most bytes freed within any window of window_ms, from frees at
 * times t[0..n) (sorted) of bytes[0..n); all of them when window_ms < 0
 * (never decays). */
double capacity_retention_window(const double *t, const double *bytes, size_t n, double window_ms);

/* R at `workers` synthesis workers, fitted at `workers_fit`, with `held`
 * partitions live at the peak in all states, `waiting` of them
 * synthesizing, blocked or queued. */
double capacity_retention_at(const capacity_retention_t *r, int workers_fit, int workers, int held, int waiting);

/* The parts as JSON (capacity.model.retention). New reference. */
json_t *capacity_retention_json(const capacity_retention_t *r, int workers_fit);

#endif
