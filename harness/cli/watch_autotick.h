/*
 * `zkbench watch --sample-ms auto` (docs/watch.md, "A tick that fits the
 * cycle"): watch starts at the default tick and, as the run goes, finds
 * the period of the memory cycle from the proof marks (--mark), else from
 * the RssAnon signal (signal_period.h), and lowers the sampler's tick so a
 * cycle gets about 12 samples (at least WATCH_SAMPLES_PER_CYCLE), down to
 * WATCH_AUTOTICK_FLOOR_MS. The tick is never raised. Each change is kept
 * for run.json (sampling.changes) and for the one line watch prints.
 */
#ifndef ZKB_WATCH_AUTOTICK_H
#define ZKB_WATCH_AUTOTICK_H

#include <jansson.h>
#include <stddef.h>

#include "harness/run/console.h"
#include "harness/run/sampler.h"

#define WATCH_AUTOTICK_FLOOR_MS 1u   /* the finest tick (the sampler's: whole ms) */
#define WATCH_AUTOTICK_MAX_CHANGES 32

typedef struct watch_autotick watch_autotick_t;

typedef struct {
    double t_ms;            /* when the new tick took effect (samples.csv's clock) */
    unsigned from_ms, to_ms;
    double period_ms;       /* the cycle found */
    const char *source;     /* "marks" or "signal" */
} watch_autotick_change_t;

/* A controller starting at start_ms. 0 or -ENOMEM; free with
 * watch_autotick_free (NULL accepted). */
int watch_autotick_new(watch_autotick_t **ret, unsigned start_ms);
void watch_autotick_free(watch_autotick_t *a);
/* Samples go on to fn(ctx, x) after the controller has seen them (the
 * metrics exporter); fn may be NULL. Before sampler_start. */
void watch_autotick_chain(watch_autotick_t *a, void (*fn)(void *ctx, const sample_t *x), void *ctx);
/* The sampler whose tick it sets, once sampler_start has made it (samples
 * before are kept, not acted on). */
void watch_autotick_attach(watch_autotick_t *a, sampler_t *s);
/* The sampler's on_sample hook (its thread): ctx is the controller. */
void watch_autotick_on_sample(void *ctx, const sample_t *x);
/* The changes so far into out (at most cap); returns how many there are. */
size_t watch_autotick_changes(watch_autotick_t *a, watch_autotick_change_t *out, size_t cap);
/* The tick now. */
unsigned watch_autotick_tick(watch_autotick_t *a);
/* run.json's "sampling" object: auto, start_ms, floor_ms, final_ms and
 * changes [{t_ms, from_ms, to_ms, period_ms, source}]. A new reference. */
json_t *watch_autotick_json(watch_autotick_t *a);

/* One line on stderr ("zkbench: watch: --sample-ms auto: tick 100 -> 25
 * ms at 3.2 s (a cycle of 0.31 s found in the signal: ...)") for each
 * change not yet said (*said of them were; a NULL a has none), the live
 * line ended first; none when quiet. On stderr: a command's stdout is its
 * own. Call from the thread that owns con. */
void watch_autotick_say(watch_autotick_t *a, console_t *con, bool quiet, size_t *said);

#endif
