/*
 * Whether a watch run's tick fits its memory cycle (watch_sampling.h).
 */
#include "harness/diagnose/watch_sampling.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_json.h"
#include "harness/diagnose/signal_period.h"

/* The last of run.json's sampling.changes, or NULL. */
static const json_t *last_change(const json_t *run_json)
{
    const json_t *ch = json_object_get(json_object_get(run_json, "sampling"), "changes");
    size_t k = json_array_size(ch);
    return k ? json_array_get(ch, k - 1) : NULL;
}

size_t watch_sampling_start(const json_t *run_json, const double *t, size_t n)
{
    double at = jnum_get(last_change(run_json), "t_ms");
    if (!isfinite(at))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (t[i] >= at)
            return i;
    return 0;
}

int watch_sampling_assess(watch_sampling_t *S, const json_t *run_json, const double *t, const double *y, size_t n,
                          size_t skipped, const double *marks, size_t n_marks, double min_swing)
{
    const json_t *cfg = json_object_get(run_json, "config"), *ch = last_change(run_json);
    watch_sampling_t R = {.period_ms = NAN, .source = "none", .samples_per_cycle = NAN, .strength = NAN,
                          .amplitude = NAN, .skipped = skipped};
    R.auto_tick = json_is_true(json_object_get(cfg, "sample_ms_auto"));
    R.changes = json_array_size(json_object_get(json_object_get(run_json, "sampling"), "changes"));
    R.from_ms = ch && n ? t[0] : 0;
    R.tick_ms = ch ? jnum_get(ch, "to_ms") : jnum_get(cfg, "sample_ms");
    if (!(R.tick_ms > 0) && n >= 2)
        R.tick_ms = (t[n - 1] - t[0]) / (double)(n - 1);
    if (n_marks >= 2) {
        R.period_ms = (marks[n_marks - 1] - marks[0]) / (double)(n_marks - 1);
        R.source = "marks";
    } else {
        signal_period_t P;
        int rc = signal_period_find(&P, t, y, n);
        if (rc == -ENOMEM)
            return rc;
        if (rc == 0 && isfinite(P.period) && P.amplitude >= min_swing) {
            R.period_ms = P.period;
            R.source = "signal";
            R.strength = P.strength;
            R.amplitude = P.amplitude;
        }
    }
    if (isfinite(R.period_ms) && R.tick_ms > 0) {
        R.samples_per_cycle = R.period_ms / R.tick_ms;
        R.coarse = R.samples_per_cycle < WATCH_SAMPLES_PER_CYCLE;
        if (R.coarse) {
            int ms = (int)floor(R.period_ms / WATCH_SAMPLES_PER_CYCLE);
            R.suggest_ms = ms > 1 ? ms : 1;
        }
    }
    *S = R;
    return 0;
}

json_t *watch_sampling_json(const watch_sampling_t *S)
{
    json_t *o = json_object();
    json_object_set_new(o, "tick_ms", jnum(S->tick_ms));
    json_object_set_new(o, "period_ms", jnum(S->period_ms));
    json_object_set_new(o, "source", json_string(S->source));
    json_object_set_new(o, "samples_per_cycle", jnum(S->samples_per_cycle));
    json_object_set_new(o, "needed", json_integer(WATCH_SAMPLES_PER_CYCLE));
    json_object_set_new(o, "enough", isfinite(S->samples_per_cycle) ? json_boolean(!S->coarse) : json_null());
    json_object_set_new(o, "suggest_sample_ms", S->suggest_ms ? json_integer(S->suggest_ms) : json_null());
    json_object_set_new(o, "signal_strength", jnum(S->strength));
    json_object_set_new(o, "cycle_swing", jbytes(S->amplitude));
    json_object_set_new(o, "auto", json_boolean(S->auto_tick));
    json_object_set_new(o, "tick_changes", json_integer((json_int_t)S->changes));
    json_object_set_new(o, "analyzed_from_ms", jnum(S->from_ms));
    json_object_set_new(o, "samples_left_out", json_integer((json_int_t)S->skipped));
    return o;
}

void watch_sampling_line(char *out, size_t cap, const watch_sampling_t *S)
{
    if (!S->coarse) {
        snprintf(out, cap, "%s", "");
        return;
    }
    snprintf(out, cap, "the cycle is %.3g s (%s) and the tick %.3g s: %.1f samples a cycle, about %d are needed; "
             "--sample-ms %d%s", S->period_ms / 1000, strcmp(S->source, "marks") == 0 ? "between proof marks"
                                                                                      : "found in the signal",
             S->tick_ms / 1000, S->samples_per_cycle, WATCH_SAMPLES_PER_CYCLE, S->suggest_ms,
             !S->auto_tick         ? " or --sample-ms auto"
             : S->tick_ms <= 1 ? " (the finest tick: a cycle this short is not resolved)"
                               : " (--sample-ms auto had not found the cycle while the run went on)");
}
