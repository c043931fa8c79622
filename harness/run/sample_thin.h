/*
 * Bounded disk for long watches: after the first `after_ms` of a run, the
 * sampler's rows go through here, interval by interval (`interval_ms`).
 * Each interval keeps its last row and, per segment between proof marks
 * (the whole interval when it holds none), the rows of the lowest and the
 * highest rss, so every valley floor and peak, of the run and of each
 * proof, is on disk. Rows within the mark window (below) before or after a
 * mark are kept as well; the rest is left off. A window that reaches back
 * into the interval closed last finds its rows still held: an interval's
 * last window's worth of rows waits until the next closes (memory: an
 * interval and a tenth). The rows are unchanged samples, in time order,
 * so everything that reads samples.csv reads a thinned one; procs.csv
 * keeps the rows of the same ticks. At the default tick a day of
 * samples.csv after the first shrinks from about 86 MB to about 3 MB
 * without marks; a simulated week with a proof every 38 s keeps
 * 0.70 million of 10 million rows (125 MB with procs.csv). docs/watch.md, "Long runs".
 */
#ifndef ZKB_SAMPLE_THIN_H
#define ZKB_SAMPLE_THIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rows kept either side of a mark (ms), or a tenth of the interval if
 * less: a per-proof reading needs the rows at and just after the mark
 * (the release, the floor) and what led to it (the last peak); 10 rows a
 * side at the default 100 ms tick, a small share of what is thinned. */
#define SAMPLE_THIN_MARK_WINDOW_MS 1000.0

typedef struct sample_thin sample_thin_t;

/* Where a kept row goes: its samples.csv line and its procs.csv rows. */
typedef void (*sample_thin_emit_fn)(void *ctx, const char *line, size_t n, const char *procs, size_t n_procs);

/* after_ms <= 0: every row is kept (emitted at once). 0 or -ENOMEM. */
int sample_thin_new(sample_thin_t **ret, double after_ms, double interval_ms, sample_thin_emit_fn emit, void *ctx);
/* One tick: its time, rss, whether a proof was marked since the tick
 * before, its line and its procs rows (copied when held). */
void sample_thin_offer(sample_thin_t *t, double t_ms, uint64_t rss, bool marked, const char *line, size_t n,
                       const char *procs, size_t n_procs);
/* Emits what the open interval holds by its rule (the run's end). */
void sample_thin_flush(sample_thin_t *t);
/* Ticks left off disk so far. */
uint64_t sample_thin_dropped(const sample_thin_t *t);
void sample_thin_free(sample_thin_t *t);

#endif
