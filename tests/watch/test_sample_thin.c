/*
 * harness/run/sample_thin.c against a naive reference written here: ticks
 * every 10 ms for 20 s with a random rss, marks at random ticks; thinning
 * after 5 s in intervals of 0.5 s. The reference decides each tick's fate
 * from the whole series (an interval with a mark, or starting within one
 * interval after a mark, keeps all; else its lowest and highest rss and
 * its last), and the kept rows must be exactly those, in order, with
 * their procs rows; the count of dropped ticks matches; before 5 s every
 * tick is kept; after_ms 0 keeps everything.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/sample_thin.h"

#define N 2000
static int fails;
#define CHECK(c) ((c) ? 1 : (fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c), fails++, 0))

static int kept[N], n_kept;
static bool procs_ok = true;

static void emit(void *ctx, const char *line, size_t n, const char *procs, size_t np)
{
    (void)ctx;
    int i = atoi(line);
    char want[32];
    snprintf(want, sizeof want, "p%d\n", i);
    if (n != strlen(line) || np != strlen(want) || memcmp(procs, want, np) != 0)
        procs_ok = false;
    kept[n_kept++] = i;
}

int main(void)
{
    unsigned seed = (unsigned)(getenv("SEED") ? atoi(getenv("SEED")) : 12345);
    srand(seed);
    double t[N];
    uint64_t rss[N];
    bool mark[N];
    for (int i = 0; i < N; i++) {
        t[i] = i * 10.0;
        rss[i] = 1000 + (uint64_t)(rand() % 100000);
        mark[i] = rand() % 400 == 0;
    }
    sample_thin_t *th;
    CHECK(sample_thin_new(&th, 5000, 500, emit, NULL) == 0);
    for (int i = 0; i < N; i++) {
        char line[32], procs[32];
        snprintf(line, sizeof line, "%d,row\n", i);
        snprintf(procs, sizeof procs, "p%d\n", i);
        sample_thin_offer(th, t[i], rss[i], mark[i], line, strlen(line), procs, strlen(procs));
    }
    sample_thin_flush(th);
    /* the reference: intervals open at the first tick at or after 5 s and
     * at each tick 500 ms or more after the open one's start */
    bool want[N];
    int n_want = 0, dropped = 0;
    double full_until = -1;
    for (int i = 0; i < N;) {
        if (t[i] < 5000) {
            want[i++] = true;
            continue;
        }
        int a = i, b = i;
        while (b < N && t[b] - t[a] < 500)
            b++;
        bool marked = false;
        double until = full_until;
        for (int k = a; k < b; k++)
            if (mark[k])
                marked = true, until = t[k] + 500;
        bool all = marked || t[a] <= full_until;
        full_until = until;
        int lo = a, hi = a;
        for (int k = a; k < b; k++) {
            if (rss[k] < rss[lo])
                lo = k;
            if (rss[k] > rss[hi])
                hi = k;
        }
        for (int k = a; k < b; k++)
            want[k] = all || k == lo || k == hi || k == b - 1;
        i = b;
    }
    for (int i = 0; i < N; i++)
        want[i] ? n_want++ : dropped++;
    CHECK(n_kept == n_want);
    int j = 0;
    bool same = true;
    for (int i = 0; i < N && j <= n_kept; i++)
        if (want[i])
            same = same && j < n_kept && kept[j++] == i;
    CHECK(same);
    CHECK(procs_ok);
    CHECK(sample_thin_dropped(th) == (uint64_t)dropped);
    if (!CHECK(dropped > (N - 500) / 2)) /* it thins: over half of the 1500 ticks after 5 s */
        fprintf(stderr, "kept %d, dropped %d\n", n_want, dropped);
    sample_thin_free(th);

    /* after_ms 0: every tick, at once */
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
        printf("sample_thin: %d of %d ticks kept, all as the reference says (seed %u)\n", n_want, N, seed);
    return fails ? 1 : 0;
}
