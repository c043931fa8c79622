/*
 * The tick of `watch --sample-ms auto` (watch_autotick.h). Runs in the
 * sampler's thread: every WATCH_AUTOTICK_EVERY samples it looks for the
 * cycle over the samples taken at the present tick (at most the last
 * WATCH_AUTOTICK_WINDOW), from the marks when there are 3 or more, else
 * from the signal; a cycle with fewer than WATCH_SAMPLES_PER_CYCLE
 * samples lowers the tick to a twelfth of it. A cycle faster than the
 * tick can show reads as its alias, a longer cycle: the first change is
 * then too small, and the look at the finer tick that follows finds the
 * true cycle and lowers it again.
 */
#include "harness/cli/watch_autotick.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/diagnose/signal_period.h"
#include "harness/diagnose/watch_floors.h"
#include "harness/diagnose/watch_sampling.h"

#define WATCH_AUTOTICK_WINDOW 1024 /* samples at one tick looked at */
#define WATCH_AUTOTICK_EVERY 16    /* samples between two looks */
#define WATCH_AUTOTICK_TARGET 12   /* samples a cycle aimed at (above 10, so a jittered cycle does not retrigger) */
#define WATCH_AUTOTICK_MARKS 8     /* the latest marks whose spacing is the period */

struct watch_autotick {
    unsigned start_ms, tick_ms;
    _Atomic(sampler_t *) sampler;
    void (*next)(void *ctx, const sample_t *x);
    void *next_ctx;
    /* the sampler thread's own */
    double t[WATCH_AUTOTICK_WINDOW], y[WATCH_AUTOTICK_WINDOW];
    size_t n, head, since;
    double marks[WATCH_AUTOTICK_MARKS];
    size_t n_marks;
    uint64_t last_done;
    bool have_done;
    /* read by the main thread */
    pthread_mutex_t lock;
    watch_autotick_change_t changes[WATCH_AUTOTICK_MAX_CHANGES];
    size_t n_changes;
};

int watch_autotick_new(watch_autotick_t **ret, unsigned start_ms)
{
    watch_autotick_t *a = calloc(1, sizeof *a);
    if (!a)
        return -ENOMEM;
    a->start_ms = a->tick_ms = start_ms;
    atomic_init(&a->sampler, NULL);
    pthread_mutex_init(&a->lock, NULL);
    *ret = a;
    return 0;
}

void watch_autotick_free(watch_autotick_t *a)
{
    if (!a)
        return;
    pthread_mutex_destroy(&a->lock);
    free(a);
}

void watch_autotick_chain(watch_autotick_t *a, void (*fn)(void *ctx, const sample_t *x), void *ctx)
{
    a->next = fn;
    a->next_ctx = ctx;
}

void watch_autotick_attach(watch_autotick_t *a, sampler_t *s)
{
    atomic_store(&a->sampler, s);
}

/* The cycle (ms) over what was seen at this tick, and where it came from;
 * NAN when none. */
static double autotick_period(watch_autotick_t *a, const char **source)
{
    if (a->n_marks >= 3) {
        *source = "marks";
        return (a->marks[a->n_marks - 1] - a->marks[0]) / (double)(a->n_marks - 1);
    }
    double t[WATCH_AUTOTICK_WINDOW], y[WATCH_AUTOTICK_WINDOW];
    size_t first = (a->head + WATCH_AUTOTICK_WINDOW - a->n) % WATCH_AUTOTICK_WINDOW;
    for (size_t k = 0; k < a->n; k++) {
        t[k] = a->t[(first + k) % WATCH_AUTOTICK_WINDOW];
        y[k] = a->y[(first + k) % WATCH_AUTOTICK_WINDOW];
    }
    signal_period_t P;
    *source = "signal";
    /* the same swing the analysis asks of a cycle (watch_sampling.h) */
    if (signal_period_find(&P, t, y, a->n) < 0 || !(P.amplitude >= WATCH_MIN_GROWTH))
        return NAN;
    return P.period;
}

void watch_autotick_on_sample(void *ctx, const sample_t *x)
{
    watch_autotick_t *a = ctx;
    a->t[a->head] = x->t_ms;
    a->y[a->head] = (double)x->rss_anon;
    a->head = (a->head + 1) % WATCH_AUTOTICK_WINDOW;
    if (a->n < WATCH_AUTOTICK_WINDOW)
        a->n++;
    a->since++;
    uint64_t done = x->occ[SAMPLER_PROOFS_DONE];
    if (a->have_done && done > a->last_done) {
        if (a->n_marks == WATCH_AUTOTICK_MARKS)
            memmove(a->marks, a->marks + 1, (WATCH_AUTOTICK_MARKS - 1) * sizeof *a->marks);
        else
            a->n_marks++;
        a->marks[a->n_marks - 1] = x->t_ms;
    }
    a->last_done = done;
    a->have_done = true;
    sampler_t *s = atomic_load(&a->sampler);
    if (s && a->since >= WATCH_AUTOTICK_EVERY && a->tick_ms > WATCH_AUTOTICK_FLOOR_MS &&
        a->n_changes < WATCH_AUTOTICK_MAX_CHANGES && (a->n_marks >= 3 || a->n >= SIGNAL_PERIOD_MIN_SAMPLES)) {
        a->since = 0;
        const char *source;
        double p = autotick_period(a, &source);
        if (isfinite(p) && p < WATCH_SAMPLES_PER_CYCLE * (double)a->tick_ms) {
            double want = floor(p / WATCH_AUTOTICK_TARGET);
            unsigned to = want <= WATCH_AUTOTICK_FLOOR_MS ? WATCH_AUTOTICK_FLOOR_MS : (unsigned)want;
            if (to < a->tick_ms && sampler_set_period(s, to) == 0) {
                pthread_mutex_lock(&a->lock);
                a->changes[a->n_changes++] = (watch_autotick_change_t){.t_ms = x->t_ms, .from_ms = a->tick_ms,
                                                                       .to_ms = to, .period_ms = p, .source = source};
                a->tick_ms = to;
                pthread_mutex_unlock(&a->lock);
                a->n = a->head = 0; /* what follows is at the new tick */
                a->n_marks = 0;
            }
        }
    }
    if (a->next)
        a->next(a->next_ctx, x);
}

size_t watch_autotick_changes(watch_autotick_t *a, watch_autotick_change_t *out, size_t cap)
{
    pthread_mutex_lock(&a->lock);
    size_t n = a->n_changes;
    memcpy(out, a->changes, (n < cap ? n : cap) * sizeof *out);
    pthread_mutex_unlock(&a->lock);
    return n;
}

unsigned watch_autotick_tick(watch_autotick_t *a)
{
    pthread_mutex_lock(&a->lock);
    unsigned t = a->tick_ms;
    pthread_mutex_unlock(&a->lock);
    return t;
}

json_t *watch_autotick_json(watch_autotick_t *a)
{
    watch_autotick_change_t ch[WATCH_AUTOTICK_MAX_CHANGES];
    size_t n = watch_autotick_changes(a, ch, WATCH_AUTOTICK_MAX_CHANGES);
    json_t *arr = json_array();
    for (size_t k = 0; k < n; k++)
        json_array_append_new(arr, json_pack("{s:f, s:i, s:i, s:f, s:s}", "t_ms", ch[k].t_ms, "from_ms",
                                             (int)ch[k].from_ms, "to_ms", (int)ch[k].to_ms, "period_ms",
                                             ch[k].period_ms, "source", ch[k].source));
    return json_pack("{s:b, s:i, s:i, s:i, s:o}", "auto", 1, "start_ms", (int)a->start_ms, "floor_ms",
                     (int)WATCH_AUTOTICK_FLOOR_MS, "final_ms", (int)watch_autotick_tick(a), "changes", arr);
}

void watch_autotick_say(watch_autotick_t *a, console_t *con, bool quiet, size_t *said)
{
    watch_autotick_change_t ch[WATCH_AUTOTICK_MAX_CHANGES];
    size_t n = a ? watch_autotick_changes(a, ch, WATCH_AUTOTICK_MAX_CHANGES) : 0;
    for (; *said < n && !quiet; ++*said) {
        const watch_autotick_change_t *c = &ch[*said];
        console_end_live(con);
        cli_error(0, "watch: --sample-ms auto: tick %u -> %u ms at %.1f s (a cycle of %.3g s %s: %.1f samples a "
                  "cycle at %u ms)", c->from_ms, c->to_ms, c->t_ms / 1000, c->period_ms / 1000,
                  strcmp(c->source, "marks") == 0 ? "between proof marks" : "found in the signal",
                  c->period_ms / c->from_ms, c->from_ms);
    }
}
