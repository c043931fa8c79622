/*
 * The streaming reader's selection (harness/run/run_csv.c) against what
 * the file holds, row by row, computed here naively: random files of 1 to
 * 60000 rows (a text column in some, empty fields, duplicated values that
 * make ties) read with max_rows from 64 to 4096. Every kept row must be
 * the file's row of its number, in order; the head and the tail whole;
 * every bucket of the middle (bucket_rows consecutive rows from the end of
 * the head) keeps its rows at the 16 equal steps and its lowest and
 * highest row of each extreme column; the count stays within the budget;
 * rows_in_file, col_min, col_max and col_sum are exact; without max_rows
 * every row is kept. Random draws from ZKB_SEED (printed on failure).
 */
#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/run_csv.h"

/* A seeded generator (splitmix64) and counted checks; the seed is printed
 * on a failure (ZKB_SEED replays it). tests/common.h is not used: its
 * field headers clash with <math.h>. */
static uint64_t seed, state;
static unsigned long test_failures;

static uint64_t test_rand_below(uint64_t bound)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) % bound;
}

static bool check_at(bool ok, const char *what, int line)
{
    if (!ok) {
        test_failures++;
        fprintf(stderr, "FAIL line %d: %s (ZKB_SEED=%llu)\n", line, what, (unsigned long long)seed);
    }
    return ok;
}
#define CHECK(c) check_at((c), #c, __LINE__)

#define COLS 5 /* t_ms, a, b, c (extremes a and b), name (text, in some files) */

typedef struct {
    size_t n;
    double *v; /* n x 4 */
    bool *empty_c;
} file_t;

static void file_write(file_t *F, const char *path, size_t n, bool text)
{
    FILE *f = fopen(path, "w");
    F->n = n;
    F->v = malloc((n + 1) * 4 * sizeof *F->v);
    F->empty_c = calloc(n + 1, sizeof *F->empty_c);
    fprintf(f, "t_ms,a,b,c%s\n", text ? ",name" : "");
    for (size_t i = 0; i < n; i++) {
        double *r = &F->v[i * 4];
        r[0] = (double)i;
        /* small ranges: ties are common */
        r[1] = (double)test_rand_below(test_rand_below(2) ? 50 : 1000000);
        r[2] = (double)test_rand_below(300) - 150;
        r[3] = (double)test_rand_below(10);
        F->empty_c[i] = test_rand_below(7) == 0;
        fprintf(f, "%.0f,%.0f,%.0f,", r[0], r[1], r[2]);
        if (!F->empty_c[i])
            fprintf(f, "%.0f", r[3]);
        if (text)
            fprintf(f, ",\"n%zu, q\"", i);
        fputc('\n', f);
    }
    fclose(f);
}

/* The kept row holding file row i, or -1. */
static long kept_of(const run_csv_t *c, size_t i, const long *pos)
{
    (void)c;
    return pos[i];
}

static void check_file(size_t n, size_t max_rows, bool text)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/zkb-csvstream-%ld.csv", (long)getpid());
    file_t F;
    file_write(&F, path, n, text);
    static const char *const ext[] = {"a", "b", NULL}, *const empty[] = {"c", NULL}, *const txt[] = {"name", NULL};
    run_csv_opts_t o = {.empty_ok = empty, .text_cols = text ? txt : NULL, .max_rows = max_rows,
                        .extreme_cols = ext};
    run_csv_t c;
    char err[512];
    int rc = run_csv_read_opts(&c, path, &o, err, sizeof err);
    unlink(path);
    if (!CHECK(rc == 0)) {
        fprintf(stderr, "read failed: %s\n", err);
        goto out;
    }
    CHECK(c.rows_in_file == n);
    /* every kept row is the file's, in order */
    long *pos = malloc((n + 1) * sizeof *pos);
    for (size_t i = 0; i < n; i++)
        pos[i] = -1;
    double prev = -1;
    bool rows_ok = true;
    for (size_t k = 0; k < c.nrows; k++) {
        double t = run_csv_num(&c, k, 0);
        size_t i = (size_t)t;
        bool ok = t > prev && i < n && run_csv_num(&c, k, 1) == F.v[i * 4 + 1] &&
                  run_csv_num(&c, k, 2) == F.v[i * 4 + 2] &&
                  (F.empty_c[i] ? isnan(run_csv_num(&c, k, 3)) : run_csv_num(&c, k, 3) == F.v[i * 4 + 3]);
        if (text) {
            char want[32];
            snprintf(want, sizeof want, "n%zu, q", i);
            ok = ok && strcmp(run_csv_text(&c, k, 4), want) == 0;
        }
        rows_ok = rows_ok && ok;
        if (i < n)
            pos[i] = (long)k;
        prev = t;
    }
    CHECK(rows_ok);
    /* exact aggregates */
    for (int j = 1; j < 4; j++) {
        double lo = NAN, hi = NAN, sum = 0;
        for (size_t i = 0; i < n; i++) {
            if (j == 3 && F.empty_c[i])
                continue;
            double v = F.v[i * 4 + j];
            lo = isnan(lo) || v < lo ? v : lo;
            hi = isnan(hi) || v > hi ? v : hi;
            sum += v;
        }
        CHECK((isnan(lo) && isnan(c.col_min[j])) || c.col_min[j] == lo);
        CHECK((isnan(hi) && isnan(c.col_max[j])) || c.col_max[j] == hi);
        CHECK(fabs(c.col_sum[j] - sum) <= 1e-9 * fabs(sum) + 1e-9);
    }
    if (max_rows == 0) {
        CHECK(c.nrows == n && !c.reduced);
    } else {
        size_t m = max_rows < 64 ? 64 : max_rows, head = m / 8 < 4096 ? m / 8 : 4096, tail = head;
        CHECK(c.nrows <= m + 40); /* the budget, and one bucket's roles before a merge */
        bool head_ok = true, tail_ok = true, buckets_ok = true;
        for (size_t i = 0; i < n && i < head; i++)
            head_ok = head_ok && kept_of(&c, i, pos) >= 0;
        for (size_t i = n > tail ? n - tail : 0; i < n; i++)
            tail_ok = tail_ok && kept_of(&c, i, pos) >= 0;
        size_t k = c.bucket_rows, mid_end = n > tail ? n - tail : 0;
        for (size_t b0 = head; k && b0 < mid_end; b0 += k) {
            size_t b1 = b0 + k < mid_end ? b0 + k : mid_end;
            for (size_t j = 0; j < 16; j++) {
                if ((j * k) % 16)
                    continue;
                size_t i = b0 + j * k / 16;
                if (i < b1)
                    buckets_ok = buckets_ok && kept_of(&c, i, pos) >= 0;
            }
            for (int col = 1; col <= 2; col++) {
                size_t lo = b0, hi = b0; /* the first of equal values */
                for (size_t i = b0; i < b1; i++) {
                    if (F.v[i * 4 + col] < F.v[lo * 4 + col])
                        lo = i;
                    if (F.v[i * 4 + col] > F.v[hi * 4 + col])
                        hi = i;
                }
                buckets_ok = buckets_ok && kept_of(&c, lo, pos) >= 0 && kept_of(&c, hi, pos) >= 0;
            }
        }
        CHECK(head_ok);
        CHECK(tail_ok);
        CHECK(buckets_ok);
        CHECK(c.reduced == (c.nrows < n));
    }
    free(pos);
    run_csv_free(&c);
out:
    free(F.v);
    free(F.empty_c);
    if (test_failures)
        fprintf(stderr, "  (file of %zu rows, max_rows %zu, text %d)\n", n, max_rows, text);
}

int main(void)
{
    const char *env = getenv("ZKB_SEED");
    seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    state = seed;
    static const size_t sizes[] = {1, 2, 63, 64, 65, 500, 4097, 20000, 60000};
    static const size_t caps[] = {0, 64, 100, 1000, 4096};
    for (size_t a = 0; a < sizeof sizes / sizeof *sizes && !test_failures; a++)
        for (size_t b = 0; b < sizeof caps / sizeof *caps && !test_failures; b++)
            check_file(sizes[a], caps[b], test_rand_below(2));
    for (int r = 0; r < 6 && !test_failures; r++)
        check_file(1 + test_rand_below(30000), 64 + test_rand_below(3000), r & 1);
    if (test_failures)
        fprintf(stderr, "%lu check(s) failed (ZKB_SEED=%llu)\n", test_failures, (unsigned long long)seed);
    else
        printf("csv-stream: all checks passed (seed %llu)\n", (unsigned long long)seed);
    return test_failures ? 1 : 0;
}
