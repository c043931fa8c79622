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
#include "tests/check.h"


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
    CHECK(capacity_retention_at(&r, 1, 4, 7, 5) == 0, "not measured: R = 0");
}

/* The porep 2^16 run of results/capacity-cpu.md in round numbers: 9 MiB
 * kept near the peak at pw 1, 8 of them by the synthesis worker's arena,
 * 8 arenas, partitions of 8 MiB, 10 s decay. At the peak (the model's
 * occupancy: a queue of 1, 1 proving, 1 finishing) pw + 3 partitions are
 * held, pw + 1 of them waiting. */
static capacity_retention_t fitted(void)
{
    capacity_retention_t r = {.measured = true, .per_arena = true, .bytes = 9 * MIB, .arena = 8 * MIB,
                              .arenas = 3, .arenas_max = 8, .dirty_decay_ms = 10000, .muzzy_decay_ms = 0,
                              .freed_in_decay = 200 * MIB, .partition_bytes = 8 * MIB};
    return r;
}

static void test_at(void)
{
    capacity_retention_t r = fitted();
    CHECK(capacity_retention_at(&r, 1, 1, 4, 2) == 9 * MIB, "at the fit: what was measured");
    /* pw 2: 9 + 8 = 17, below 1 + 2 arenas x ceil(5 / 2) x 8 - 3 x 8 = 25 */
    CHECK(capacity_retention_at(&r, 1, 2, 5, 3) == 17 * MIB, "pw 2: one more arena, 9 + 8 = 17 MiB: %g",
          capacity_retention_at(&r, 1, 2, 5, 3) / MIB);
    /* pw 3: 9 + 2 x 8 = 25, but 3 arenas hold 2 of the 6 partitions each
     * (48 MiB), 4 of them waiting: 16 kept, and the other arenas' 1: 17 */
    CHECK(capacity_retention_at(&r, 1, 3, 6, 4) == 17 * MIB, "pw 3: footprint bound 17 MiB: %g",
          capacity_retention_at(&r, 1, 3, 6, 4) / MIB);
    /* pw 4: 9 + 3 x 8 = 33; 4 arenas x 2 x 8 = 64, 40 waiting: 1 + 24 */
    CHECK(capacity_retention_at(&r, 1, 4, 7, 5) == 25 * MIB, "pw 4: footprint bound 25 MiB: %g",
          capacity_retention_at(&r, 1, 4, 7, 5) / MIB);
    r.partition_bytes = 0; /* unknown: no footprint bound */
    CHECK(capacity_retention_at(&r, 1, 16, 19, 17) == (9 + 7 * 8) * MIB, "pw 16: 8 arenas at most: %g",
          capacity_retention_at(&r, 1, 16, 19, 17) / MIB);
    r = fitted();
    r.freed_in_decay = 8 * MIB; /* 8 MiB freed per decay period: 16 with 2 workers */
    CHECK(capacity_retention_at(&r, 1, 2, 5, 3) == 16 * MIB, "decay bound at pw 2: %g",
          capacity_retention_at(&r, 1, 2, 5, 3) / MIB);
    r.freed_in_decay = 4 * MIB; /* below what was measured: never less than the fit's own */
    CHECK(capacity_retention_at(&r, 1, 2, 5, 3) == 9 * MIB, "decay bound below the fit: %g",
          capacity_retention_at(&r, 1, 2, 5, 3) / MIB);
    r = fitted();
    /* 5 workers, 8 held (the in-flight bound), 6 waiting: 9 + 4 x 8 = 41,
     * bound 1 + 5 x 2 x 8 - 6 x 8 = 33 */
    CHECK(capacity_retention_at(&r, 1, 5, 8, 6) == 33 * MIB, "pw 5: %g", capacity_retention_at(&r, 1, 5, 8, 6) / MIB);
    r.partition_bytes = 2 * MIB; /* small partitions: the bound never goes below R_fit */
    CHECK(capacity_retention_at(&r, 1, 4, 7, 5) == 9 * MIB, "small partitions: %g",
          capacity_retention_at(&r, 1, 4, 7, 5) / MIB);
    r = fitted();
    r.dirty_decay_ms = 0;
    CHECK(capacity_retention_at(&r, 1, 4, 7, 5) == 9 * MIB, "decay 0: nothing accumulates");
    r = fitted();
    r.per_arena = false; /* no per-arena column: all of it in the one synthesis arena */
    CHECK(capacity_retention_at(&r, 1, 2, 5, 3) == 18 * MIB, "without per-arena: 2 x 9: %g",
          capacity_retention_at(&r, 1, 2, 5, 3) / MIB);
    CHECK(capacity_retention_at(&r, 1, 4, 7, 5) == 24 * MIB, "without per-arena, footprint bound 0 + 64 - 40: %g",
          capacity_retention_at(&r, 1, 4, 7, 5) / MIB);
    r = fitted();
    r.arenas_max = 2;
    CHECK(capacity_retention_at(&r, 1, 4, 7, 5) == 17 * MIB, "2 arenas: pw 4 shares them");
    r = fitted();
    r.bytes = 25 * MIB; /* fitted at pw 4: fewer workers keep less, never below 0 */
    CHECK(capacity_retention_at(&r, 4, 3, 6, 4) == 17 * MIB && capacity_retention_at(&r, 4, 1, 4, 2) == 1 * MIB,
          "below the fit: %g, %g", capacity_retention_at(&r, 4, 3, 6, 4) / MIB,
          capacity_retention_at(&r, 4, 1, 4, 2) / MIB);
    r.bytes = 20 * MIB;
    CHECK(capacity_retention_at(&r, 4, 1, 4, 2) == 0, "never below 0");
    r = fitted();
    /* 20 MiB kept at pw 1, 19 by the synthesis arena: the bounds alone
     * give 20, 25 (1 + 2 x 3 x 8 - 3 x 8), 20 (1 + 3 x 2 x 8 - 4 x 8, not
     * below the fit), 25 at pw 1..4; pw 3 can run pw 2's schedules */
    r.bytes = 20 * MIB;
    r.arena = 19 * MIB;
    double at[6];
    for (int w = 1; w <= 5; w++)
        at[w] = capacity_retention_at(&r, 1, w, w + 3, w + 1) / MIB;
    CHECK(at[1] == 20 && at[2] == 25 && at[3] == 25 && at[4] == 25 && at[5] == 33,
          "never less with more workers: %g %g %g %g %g", at[1], at[2], at[3], at[4], at[5]);
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
     * 37.5 MiB, x 1.1 = 41.25, + 17 kept + 40 baseline = 98.25 MiB */
    capacity_predict(&c, &m, 2);
    CHECK(fabs(c.peak - 98.25 * MIB) < 1 && c.retention == 17 * MIB, "pw 2 peak %g MiB, retention %g",
          c.peak / MIB, c.retention / MIB);
    /* pw 5: 8 in flight (2 proofs x 4) leave room for all: 5 slots, 1
     * queued, 1 proving and 1 finishing */
    capacity_predict(&c, &m, 5);
    CHECK(!c.bound && c.n[CAPACITY_HELD] == 6 && c.n[CAPACITY_PROVE] == 1 && c.n[CAPACITY_FINISH] == 1,
          "pw 5: bound %d, held %d, proving %d, finishing %d", c.bound, c.n[CAPACITY_HELD], c.n[CAPACITY_PROVE],
          c.n[CAPACITY_FINISH]);
    /* pw 6: the 8 in flight fill the states that hold the most first: 1
     * proving (13), 1 queued and 6 slots (8 each), none finishing (0.5);
     * 69 x 1.1 = 75.9 MiB; 6 workers, 8 held, 7 waiting: 9 + 5 x 8 = 49,
     * bound 1 + 6 x 2 x 8 - 7 x 8 = 41 kept; + 40 baseline = 156.9 MiB */
    capacity_predict(&c, &m, 6);
    CHECK(!c.bound && c.n[CAPACITY_HELD] == 7 && c.n[CAPACITY_FINISH] == 0 && c.retention == 41 * MIB &&
              fabs(c.peak - 156.9 * MIB) < 1,
          "pw 6: bound %d, held %d, finishing %d, retention %g, peak %g MiB", c.bound, c.n[CAPACITY_HELD],
          c.n[CAPACITY_FINISH], c.retention / MIB, c.peak / MIB);
    /* pw 7: no eighth slot: bound, and nothing more than pw 6 */
    capacity_point_t c7;
    capacity_predict(&c7, &m, 7);
    CHECK(c7.bound && c7.peak == c.peak, "pw 7: bound %d, adds nothing over pw 6", c7.bound);
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
