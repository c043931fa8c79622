/* Bounded disk for long watches; see sample_thin.h. */
#include "harness/run/sample_thin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct held {
    double t_ms;
    uint64_t rss;
    char *line, *procs;
    size_t n, n_procs;
};

struct sample_thin {
    double after_ms, interval_ms;
    sample_thin_emit_fn emit;
    void *ctx;
    struct held *h;
    size_t n, cap;
    double start_ms;     /* the open interval's first tick */
    bool marked;         /* a mark in the open interval */
    double full_until;   /* every row kept up to this time (after a mark) */
    uint64_t dropped;
};

int sample_thin_new(sample_thin_t **ret, double after_ms, double interval_ms, sample_thin_emit_fn emit, void *ctx)
{
    sample_thin_t *t = calloc(1, sizeof *t);
    if (!t)
        return -ENOMEM;
    t->after_ms = after_ms;
    t->interval_ms = interval_ms > 0 ? interval_ms : 10000;
    t->emit = emit;
    t->ctx = ctx;
    t->full_until = -1;
    *ret = t;
    return 0;
}

static void held_free(struct held *h)
{
    free(h->line);
    free(h->procs);
}

/* The open interval to disk by its rule, then emptied. */
static void close_interval(sample_thin_t *t)
{
    if (t->n == 0)
        return;
    bool all = t->marked || t->h[0].t_ms <= t->full_until;
    size_t lo = 0, hi = 0;
    for (size_t i = 1; i < t->n; i++) {
        if (t->h[i].rss < t->h[lo].rss)
            lo = i;
        if (t->h[i].rss > t->h[hi].rss)
            hi = i;
    }
    for (size_t i = 0; i < t->n; i++) {
        if (all || i == lo || i == hi || i + 1 == t->n)
            t->emit(t->ctx, t->h[i].line, t->h[i].n, t->h[i].procs, t->h[i].n_procs);
        else
            t->dropped++;
        held_free(&t->h[i]);
    }
    t->n = 0;
    t->marked = false;
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
    if (t->after_ms <= 0 || t_ms < t->after_ms) {
        t->emit(t->ctx, line, n, procs, n_procs);
        return;
    }
    if (t->n && t_ms - t->start_ms >= t->interval_ms)
        close_interval(t);
    if (marked) {
        /* this interval and the next at full rate: what led to the mark
         * and what follows it */
        t->marked = true;
        t->full_until = t_ms + t->interval_ms;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        struct held *h = realloc(t->h, cap * sizeof *h);
        if (!h) {
            t->emit(t->ctx, line, n, procs, n_procs); /* no room to hold it: kept */
            return;
        }
        t->h = h;
        t->cap = cap;
    }
    struct held *h = &t->h[t->n];
    h->t_ms = t_ms;
    h->rss = rss;
    h->line = copy(line, n);
    h->procs = n_procs ? copy(procs, n_procs) : NULL;
    h->n = n;
    h->n_procs = n_procs;
    if (!h->line || (n_procs && !h->procs)) {
        held_free(h);
        t->emit(t->ctx, line, n, procs, n_procs);
        return;
    }
    if (t->n == 0)
        t->start_ms = t_ms;
    t->n++;
}

void sample_thin_flush(sample_thin_t *t)
{
    if (t)
        close_interval(t);
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
