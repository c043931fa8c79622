/* Bounded disk for long watches; see sample_thin.h. */
#include "harness/run/sample_thin.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct held {
    double t_ms;
    uint64_t rss;
    char *line, *procs;
    size_t n, n_procs;
    bool win; /* within the window of a mark */
    bool ext; /* its segment's lowest or highest rss, or its interval's last */
};

/*
 * h[0, tail) is the end of the interval closed last, the rows a mark in
 * the open interval can still reach back to; h[tail, n) is the open
 * interval, h[seg, n) its segment since the last mark, whose lowest and
 * highest rss are h[lo] and h[hi].
 */
struct sample_thin {
    double after_ms, interval_ms, window_ms;
    sample_thin_emit_fn emit;
    void *ctx;
    struct held *h;
    size_t n, cap, tail, seg, lo, hi;
    double start_ms;   /* the open interval's first tick */
    double win_until;  /* rows up to this time are in a mark's window */
    uint64_t dropped;
};

int sample_thin_new(sample_thin_t **ret, double after_ms, double interval_ms, sample_thin_emit_fn emit, void *ctx)
{
    sample_thin_t *t = calloc(1, sizeof *t);
    if (!t)
        return -ENOMEM;
    t->after_ms = after_ms;
    t->interval_ms = interval_ms > 0 ? interval_ms : 10000;
    t->window_ms = t->interval_ms / 10 < SAMPLE_THIN_MARK_WINDOW_MS ? t->interval_ms / 10 : SAMPLE_THIN_MARK_WINDOW_MS;
    t->emit = emit;
    t->ctx = ctx;
    t->win_until = -INFINITY;
    *ret = t;
    return 0;
}

static void held_free(struct held *h)
{
    free(h->line);
    free(h->procs);
}

/* h[a, b) to disk by their flags, then freed. */
static void settle(sample_thin_t *t, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++) {
        struct held *h = &t->h[i];
        if (h->win || h->ext)
            t->emit(t->ctx, h->line, h->n, h->procs, h->n_procs);
        else
            t->dropped++;
        held_free(h);
    }
}

/* The open segment's lowest and highest to keep; the next begins at n. */
static void end_segment(sample_thin_t *t)
{
    if (t->seg < t->n)
        t->h[t->lo].ext = t->h[t->hi].ext = true;
    t->seg = t->n;
}

/*
 * Closes the open interval before a tick at next_ms: the last interval's
 * held end goes to disk, and the rows of this one that a mark at next_ms
 * or later cannot reach; those it can stay held as the new end.
 */
static void close_interval(sample_thin_t *t, double next_ms)
{
    if (t->n == t->tail)
        return;
    end_segment(t);
    t->h[t->n - 1].ext = true;
    settle(t, 0, t->tail);
    size_t k = t->n;
    while (k > t->tail && t->h[k - 1].t_ms >= next_ms - t->window_ms)
        k--;
    settle(t, t->tail, k);
    memmove(t->h, t->h + k, (t->n - k) * sizeof *t->h);
    t->n = t->tail = t->seg = t->n - k;
}

static char *copy(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

void sample_thin_offer(sample_thin_t *t, double t_ms, uint64_t rss, bool marked, const char *line, size_t n,
                       const char *procs, size_t n_procs)
{
    if (marked)
        t->win_until = t_ms + t->window_ms;
    if (t->after_ms <= 0 || t_ms < t->after_ms) {
        t->emit(t->ctx, line, n, procs, n_procs);
        return;
    }
    if (t->n > t->tail && t_ms - t->start_ms >= t->interval_ms)
        close_interval(t, t_ms);
    if (marked) {
        end_segment(t);
        /* the window before it; a row already in a window ends the walk
         * (windows are contiguous), so each row is walked over once */
        for (size_t i = t->n; i > 0 && !t->h[i - 1].win && t->h[i - 1].t_ms >= t_ms - t->window_ms; i--)
            t->h[i - 1].win = true;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        struct held *h = realloc(t->h, cap * sizeof *h);
        if (!h) {
            /* no room to hold it: what is held by its rule, then this, kept */
            sample_thin_flush(t);
            t->emit(t->ctx, line, n, procs, n_procs);
            return;
        }
        t->h = h;
        t->cap = cap;
    }
    struct held *h = &t->h[t->n];
    *h = (struct held){.t_ms = t_ms, .rss = rss, .n = n, .n_procs = n_procs, .win = t_ms <= t->win_until};
    h->line = copy(line, n);
    h->procs = n_procs ? copy(procs, n_procs) : NULL;
    if (!h->line || (n_procs && !h->procs)) {
        held_free(h);
        sample_thin_flush(t);
        t->emit(t->ctx, line, n, procs, n_procs);
        return;
    }
    if (t->n == t->tail)
        t->start_ms = t_ms;
    if (t->seg == t->n)
        t->lo = t->hi = t->n;
    else if (rss < t->h[t->lo].rss)
        t->lo = t->n;
    else if (rss > t->h[t->hi].rss)
        t->hi = t->n;
    t->n++;
}

void sample_thin_flush(sample_thin_t *t)
{
    if (!t)
        return;
    close_interval(t, INFINITY);
    settle(t, 0, t->n);
    t->n = t->tail = t->seg = 0;
}

uint64_t sample_thin_dropped(const sample_thin_t *t)
{
    return t ? t->dropped : 0;
}

void sample_thin_free(sample_thin_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        held_free(&t->h[i]);
    free(t->h);
    free(t);
}
