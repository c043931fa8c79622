/*
 * The retention part of the capacity model (capacity_retention.h) on
 * hand-made numbers with worked answers: the decay window, the 90th
 * percentiles near the peak, R(pw) with each of its bounds, and the peak
 * capacity_predict builds from it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/diagnose/capacity.h"
#include "harness/diagnose/capacity_retention.h"

static int fails;

#define CHECK(cond, ...)                                                                                         \
    do {                                                                                                         \
        if (!(cond)) {                                                                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                 \
            fprintf(stderr, __VA_ARGS__);                                                                        \
            fputc('\n', stderr);                                                                                 \
            fails++;                                                                                             \
        }                                                                                                        \
    } while (0)

#define MIB 1048576.0

static void test_window(void)
{
    const double t[] = {0, 100, 200, 1000}, b[] = {1, 2, 3, 4};
    /* windows of 150 ms: {0, 100} 3, {100, 200} 5, {1000} 4 */
    CHECK(capacity_retention_window(t, b, 4, 150) == 5, "150 ms: %g", capacity_retention_window(t, b, 4, 150));
    CHECK(capacity_retention_window(t, b, 4, 0) == 4, "0 ms: one free at a time");
    CHECK(capacity_retention_window(t, b, 4, -1) == 10, "never decays: every free");
    CHECK(capacity_retention_window(t, b, 0, 150) == 0, "no frees");
}

static void test_measure(void)
{
    /* ten samples: the 90th percentile is the 9th smallest (index floor(0.9 * 9) = 8) */
    double ret[10], arena[10], count[10];
    for (int i = 0; i < 10; i++) {
        ret[i] = (10 - i) * MIB; /* 10..1 MiB, unsorted */
        arena[i] = 2 * ret[i];   /* more than all arenas: clamped to the total */
        count[i] = i % 4;
    }
    capacity_retention_t r;
    memset(&r, 0, sizeof r);
    CHECK(capacity_retention_measure(&r, ret, arena, count, 10) == 0, "measure");
    CHECK(r.measured && r.per_arena && r.bytes == 9 * MIB && r.arena == 9 * MIB && r.arenas == 3,
          "p90 %g MiB, arena %g MiB, arenas %d", r.bytes / MIB, r.arena / MIB, r.arenas);
    CHECK(ret[0] == 10 * MIB, "the caller's values are left alone");
    CHECK(capacity_retention_measure(&r, NULL, NULL, NULL, 10) == 0 && !r.measured && r.bytes == 0,
          "no je_dirty column: nothing measured");
    CHECK(capacity_retention_at(&r, 1, 4) == 0, "not measured: R = 0");
}

/* The porep 2^16 run of results/capacity-cpu.md in round numbers: 28 MiB
 * kept near the peak at pw 1, 25 of them by the synthesis worker's arena,
 * 8 arenas, 8 partitions of 8 MiB in flight, 10 s decay. */
static capacity_retention_t fitted(void)
{
    capacity_retention_t r = {.measured = true, .per_arena = true, .bytes = 28 * MIB, .arena = 25 * MIB,
                              .arenas = 3, .arenas_max = 8, .dirty_decay_ms = 10000, .muzzy_decay_ms = 0,
                              .freed_in_decay = 200 * MIB, .in_flight = 64 * MIB};
    return r;
}

static void test_at(void)
{
    capacity_retention_t r = fitted();
    CHECK(capacity_retention_at(&r, 1, 1) == 28 * MIB, "at the fit: what was measured");
    CHECK(capacity_retention_at(&r, 1, 2) == 53 * MIB, "pw 2: one more arena, 28 + 25 = 53 MiB: %g",
          capacity_retention_at(&r, 1, 2) / MIB);
    /* pw 4: 28 + 3 x 25 = 103, but the synthesis arenas keep at most the
     * 64 MiB in flight, and the other arenas their 3: 67 */
    CHECK(capacity_retention_at(&r, 1, 4) == 67 * MIB, "pw 4: in-flight bound 67 MiB: %g",
          capacity_retention_at(&r, 1, 4) / MIB);
    r.in_flight = INFINITY;
    CHECK(capacity_retention_at(&r, 1, 16) == (28 + 7 * 25) * MIB, "pw 16: 8 arenas at most: %g",
          capacity_retention_at(&r, 1, 16) / MIB);
    r.freed_in_decay = 20 * MIB; /* 20 MiB freed per decay period: 40 with 2 workers */
    CHECK(capacity_retention_at(&r, 1, 2) == 40 * MIB, "decay bound at pw 2: %g", capacity_retention_at(&r, 1, 2) / MIB);
    r.freed_in_decay = 10 * MIB; /* below what was measured: never less than the fit's own */
    CHECK(capacity_retention_at(&r, 1, 2) == 28 * MIB, "decay bound below the fit: %g",
          capacity_retention_at(&r, 1, 2) / MIB);
    r = fitted();
    r.dirty_decay_ms = 0;
    CHECK(capacity_retention_at(&r, 1, 4) == 28 * MIB, "decay 0: nothing accumulates");
    r = fitted();
    r.per_arena = false; /* no per-arena column: all of it in the one synthesis arena */
    CHECK(capacity_retention_at(&r, 1, 2) == 56 * MIB, "without per-arena: 2 x 28: %g",
          capacity_retention_at(&r, 1, 2) / MIB);
    CHECK(capacity_retention_at(&r, 1, 3) == 64 * MIB, "without per-arena, in-flight bound 0 + 64: %g",
          capacity_retention_at(&r, 1, 3) / MIB);
    r = fitted();
    r.arenas_max = 2;
    CHECK(capacity_retention_at(&r, 1, 4) == 53 * MIB, "2 arenas: pw 4 shares them");
    r = fitted();
    r.bytes = 67 * MIB; /* fitted at pw 4: fewer workers keep less, never below 0 */
    CHECK(capacity_retention_at(&r, 4, 3) == 42 * MIB && capacity_retention_at(&r, 4, 1) == 0,
          "below the fit: %g, %g", capacity_retention_at(&r, 4, 3) / MIB, capacity_retention_at(&r, 4, 1) / MIB);
}

static void test_predict(void)
{
    capacity_model_t m;
    memset(&m, 0, sizeof m);
    m.ok = true;
    m.pw = 1;
    m.gpu_workers = m.gpu_queue = m.finishing = 1;
    m.concurrency = 2;
    m.partitions = 4;
    m.state_bytes[CAPACITY_SYNTH] = m.state_bytes[CAPACITY_HELD] = 8 * MIB;
    m.state_bytes[CAPACITY_PROVE] = 13 * MIB;
    m.state_bytes[CAPACITY_FINISH] = 0.5 * MIB;
    m.baseline = 40 * MIB;
    m.rest_share = 0.1;
    m.retention = fitted();
    m.tracked_run = 29.5 * MIB;
    capacity_point_t c;
    /* pw 2: 2 slots + 1 queued waiting (3 x 8), 13 proving, 0.5 finishing:
     * 37.5 MiB, x 1.1 = 41.25, + 53 kept + 40 baseline = 134.25 MiB */
    capacity_predict(&c, &m, 2);
    CHECK(fabs(c.peak - 134.25 * MIB) < 1 && c.retention == 53 * MIB, "pw 2 peak %g MiB, retention %g",
          c.peak / MIB, c.retention / MIB);
    /* pw 6: 5 slots at most (8 in flight - 1 finishing - 1 proving - 1
     * queued); retention of 5 workers bounded at 67 */
    capacity_predict(&c, &m, 6);
    CHECK(c.bound && c.retention == 67 * MIB, "pw 6: bound %d, retention %g", c.bound, c.retention / MIB);
    capacity_point_t c5;
    capacity_predict(&c5, &m, 5);
    CHECK(c5.peak == c.peak, "pw 6 adds nothing over pw 5");
}

int main(void)
{
    test_window();
    test_measure();
    test_at();
    test_predict();
    if (fails) {
        fprintf(stderr, "%d failures\n", fails);
        return 1;
    }
    printf("capacity retention tests passed\n");
    return 0;
}
