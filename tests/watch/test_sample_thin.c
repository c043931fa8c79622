/*
 * harness/run/sample_thin.c against a naive reference written here, which
 * decides each tick's fate from the whole series: before after_ms every
 * tick; after it, per interval (opened at a tick interval_ms or more after
 * the open one's start), the last tick and, per segment split at marked
 * ticks, the first lowest and the first highest rss; and every tick within
 * the mark window (W = min(SAMPLE_THIN_MARK_WINDOW_MS, interval / 10))
 * before or after a marked tick. The kept rows must be exactly those, in
 * order, with their procs rows, and the dropped count the rest. Series:
 * random rss and marks at two interval sizes (W = a tenth and W capped),
 * then flat rss with marks placed by hand: mid-interval, just after an
 * interval starts (the window reaches into the interval before), two close
 * together, and a mark every tick for a while; after_ms 0 keeps all.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/sample_thin.h"

#define N 20000
static int fails;
#define CHECK(c) ((c) ? 1 : (fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c), fails++, 0))

static int kept[N], n_kept;
static bool procs_ok = true;
static double t[N];
static uint64_t rss[N];
static bool mark[N], want[N];

static void emit(void *ctx, const char *line, size_t n, const char *procs, size_t np)
{
    (void)ctx;
    int i = atoi(line);
    char w[32];
    snprintf(w, sizeof w, "p%d\n", i);
    if (n != strlen(line) || np != strlen(w) || memcmp(procs, w, np) != 0)
        procs_ok = false;
    if (n_kept < N)
        kept[n_kept++] = i;
}

/* The reference's fate of ticks 0..n-1 into want[]; the count kept. */
static int reference(int n, double after, double interval)
{
    double w = interval / 10 < SAMPLE_THIN_MARK_WINDOW_MS ? interval / 10 : SAMPLE_THIN_MARK_WINDOW_MS;
    for (int i = 0; i < n; i++)
        want[i] = t[i] < after;
    for (int i = 0; i < n; i++)
        if (mark[i])
            for (int k = 0; k < n; k++)
                if (fabs(t[k] - t[i]) <= w)
                    want[k] = true;
    int a = 0;
    while (a < n && t[a] < after)
        a++;
    while (a < n) {
        int b = a;
        while (b < n && t[b] - t[a] < interval)
            b++;
        want[b - 1] = true;
        for (int s = a; s < b;) {
            int e = s + 1;
            while (e < b && !mark[e])
                e++;
            int lo = s, hi = s;
            for (int k = s; k < e; k++) {
                if (rss[k] < rss[lo])
                    lo = k;
                if (rss[k] > rss[hi])
                    hi = k;
            }
            want[lo] = want[hi] = true;
            s = e;
        }
        a = b;
    }
    int c = 0;
    for (int i = 0; i < n; i++)
        c += want[i];
    return c;
}

/* Ticks 0..n-1 through sample_thin; whether it kept what the reference
 * says (want[]), in order, and dropped the rest. */
static bool same_as_reference(const char *what, int n, double after, double interval)
{
    int n_want = reference(n, after, interval);
    sample_thin_t *th;
    n_kept = 0;
    if (!CHECK(sample_thin_new(&th, after, interval, emit, NULL) == 0))
        return false;
    for (int i = 0; i < n; i++) {
        char line[32], procs[32];
        snprintf(line, sizeof line, "%d,row\n", i);
        snprintf(procs, sizeof procs, "p%d\n", i);
        sample_thin_offer(th, t[i], rss[i], mark[i], line, strlen(line), procs, strlen(procs));
    }
    sample_thin_flush(th);
    bool ok = n_kept == n_want && sample_thin_dropped(th) == (uint64_t)(n - n_want);
    for (int i = 0, j = 0; i < n && ok; i++)
        if (want[i])
            ok = kept[j++] == i;
    sample_thin_free(th);
    if (!ok) {
        int first = -1;
        for (int i = 0, j = 0; i < n && first < 0; i++)
            if (want[i] && (j >= n_kept || kept[j++] != i))
                first = i;
        fprintf(stderr, "%s: kept %d, the reference %d; first difference at tick %d (t %.0f ms)\n", what, n_kept,
                n_want, first, first >= 0 ? t[first] : NAN);
    }
    return ok;
}

static void flat(int n, double tick)
{
    for (int i = 0; i < n; i++)
        t[i] = i * tick, rss[i] = 1000, mark[i] = false;
}

int main(void)
{
    unsigned seed = (unsigned)(getenv("SEED") ? atoi(getenv("SEED")) : 12345);
    srand(seed);

    /* random: 2000 ticks of 10 ms, thinned after 5 s per 0.5 s (W 50 ms) */
    for (int i = 0; i < 2000; i++) {
        t[i] = i * 10.0;
        rss[i] = 1000 + (uint64_t)(rand() % 100000);
        mark[i] = rand() % 400 == 0;
    }
    CHECK(same_as_reference("random, 0.5 s intervals", 2000, 5000, 500));
    CHECK(procs_ok);
    int k0 = n_kept;
    if (!CHECK(k0 < 2000 - 1500 / 2)) /* it thins: over half of the 1500 ticks after 5 s */
        fprintf(stderr, "kept %d\n", k0);
    /* random: 20000 ticks of 10 ms, a mark about every 4 s, per 20 s (W capped at 1 s) */
    for (int i = 0; i < N; i++) {
        t[i] = i * 10.0;
        rss[i] = 1000 + (uint64_t)(rand() % 100000);
        mark[i] = rand() % 400 == 0;
    }
    CHECK(same_as_reference("random, 20 s intervals", N, 5000, 20000));
    int marks = 0;
    for (int i = 0; i < N; i++)
        marks += mark[i] && t[i] >= 5000;
    /* bounded by the windows: about 201 rows a mark (less where they
     * overlap), 3 per interval and 2 per segment */
    if (!CHECK(n_kept <= 500 + marks * (201 + 2) + 8 * 3))
        fprintf(stderr, "kept %d with %d marks\n", n_kept, marks);

    /* flat rss, ticks of 10 ms, after 1 s, intervals of 1 s (W 100 ms):
     * the lowest and highest of a segment are its first row */
    flat(1000, 10);
    mark[250] = true; /* mid-interval: t 2.50 s */
    mark[503] = true; /* 30 ms into the interval from 5.00 s */
    mark[700] = mark[712] = true; /* two windows that overlap */
    for (int i = 850; i < 880; i++)
        mark[i] = true; /* every tick for 0.3 s */
    CHECK(same_as_reference("placed marks", 1000, 1000, 1000));
    CHECK(!want[239] && want[240] && want[250] && want[260] && !want[261]);
    CHECK(want[493] && !want[492] && want[495]); /* into the interval before */
    CHECK(want[500] && want[513] && !want[514]);
    for (int i = 690; i <= 722; i++)
        CHECK(want[i]);
    CHECK(!want[689] && !want[723]);
    int in_run = 0;
    for (int i = 800; i < 900; i++)
        in_run += want[i];
    CHECK(in_run == 30 + 2 * 10 + 2); /* the marks, 10 each side, the interval's first and last */
    CHECK(!want[839] && want[840] && want[889] && !want[890]);
    int outside = 0; /* after 1 s, away from every window: each interval's first and last (a segment
                     * after a mark starts at the marked tick, in its window) */
    for (int i = 100; i < 1000; i++)
        outside += want[i] && !(i >= 240 && i <= 260) && !(i >= 493 && i <= 513) && !(i >= 690 && i <= 722) &&
                   !(i >= 840 && i <= 889);
    if (!CHECK(outside == 9 * 2 - 4)) /* 499, 500, 699, 700 lie in windows */
        fprintf(stderr, "outside %d\n", outside);

    /* a mark before after_ms: its window reaches past it */
    flat(300, 10);
    mark[98] = true;
    CHECK(same_as_reference("mark before after_ms", 300, 1000, 1000));
    CHECK(want[108] && !want[109]);

    /* after_ms 0: every tick, at once */
    sample_thin_t *th;
    n_kept = 0;
    CHECK(sample_thin_new(&th, 0, 500, emit, NULL) == 0);
    for (int i = 0; i < 100; i++) {
        char line[32], procs[32];
        snprintf(line, sizeof line, "%d,row\n", i);
        snprintf(procs, sizeof procs, "p%d\n", i);
        sample_thin_offer(th, t[i] + 10000, rss[i], false, line, strlen(line), procs, strlen(procs));
        CHECK(n_kept == i + 1);
    }
    sample_thin_free(th);
    if (fails)
        fprintf(stderr, "%d check(s) failed (seed %u)\n", fails, seed);
    else
        printf("sample_thin: every tick as the reference says (%d of 2000 kept at random; seed %u)\n", k0, seed);
    return fails ? 1 : 0;
}
