/*
 * Whether a watch run's tick fits its memory cycle (docs/diagnosis.md,
 * "Sampling that fits the cycle"): the tick of the samples analyzed
 * (run.json config.sample_ms, and with `--sample-ms auto` the changes in
 * run.json sampling.changes), the cycle's period from the proof marks,
 * else from the signal (signal_period.h), and the samples a cycle they
 * give. Fewer than WATCH_SAMPLES_PER_CYCLE: the valleys may fall between
 * the samples, and what would decide is a finer --sample-ms.
 */
#ifndef ZKB_WATCH_SAMPLING_H
#define ZKB_WATCH_SAMPLING_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#define WATCH_SAMPLES_PER_CYCLE 10 /* fewer: the tick is too coarse for the valleys */

typedef struct {
    double tick_ms;           /* the tick of the samples analyzed */
    double period_ms;         /* the cycle; NAN: none found */
    const char *source;       /* where the period came from: "marks", "signal" or "none" */
    double samples_per_cycle; /* period / tick; NAN without a period */
    double strength;          /* "signal": the autocorrelation at the period */
    double amplitude;         /* "signal": the cycle's swing (bytes) */
    bool coarse;              /* fewer than WATCH_SAMPLES_PER_CYCLE samples a cycle */
    int suggest_ms;           /* the --sample-ms that gives about 10 a cycle (>= 1); 0 unless coarse */
    bool auto_tick;           /* the run was watched with --sample-ms auto */
    size_t changes;           /* tick changes run.json records */
    double from_ms;           /* the analyzed samples start here (the last change; 0 without) */
    size_t skipped;           /* samples before from_ms, left out of the analysis */
} watch_sampling_t;

/* The first of the n samples at times t (ms) to analyze: after a tick
 * change (run.json sampling.changes), the first at or after the last
 * change, so every sample analyzed has the one tick that fits the cycle;
 * 0 without changes (or when no sample follows the last one). */
size_t watch_sampling_start(const json_t *run_json, const double *t, size_t n);

/* S for the samples analyzed (y at t, n; skipped: those left out before
 * them): the tick from run.json (the last change's to_ms, else
 * config.sample_ms, else the samples' median spacing), the period from the
 * sorted proof boundaries (n_marks >= 2: their mean spacing), else from y
 * when its cycle swings by at least min_swing bytes. 0, or -ENOMEM. */
int watch_sampling_assess(watch_sampling_t *S, const json_t *run_json, const double *t, const double *y, size_t n,
                          size_t skipped, const double *marks, size_t n_marks, double min_swing);

/* S as the analysis JSON's `sampling` object (a new reference). */
json_t *watch_sampling_json(const watch_sampling_t *S);

/* The warning every command prints when the tick is coarse ("the cycle is
 * 0.31 s (found in the signal) and the tick 0.1 s: 3.1 samples a cycle,
 * about 10 are needed; --sample-ms 31 or auto"); "" otherwise. */
void watch_sampling_line(char *out, size_t cap, const watch_sampling_t *S);

#endif
