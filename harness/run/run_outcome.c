/* How a run ended, in its run.json; see run_outcome.h. */
#define _GNU_SOURCE
#include "harness/run/run_outcome.h"
#include "harness/run/proc_stat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run/run_csv.h"
#include "harness/run/run_files.h"

int run_outcome_load(json_t **ret, const char *dir, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/run.json", dir);
    if (access(path, F_OK) != 0) {
        int e = errno;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(e));
        return -e;
    }
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root || !json_is_object(root)) {
        snprintf(err, errlen, "%s:%d: %s", path, jerr.line, root ? "not a JSON object" : jerr.text);
        json_decref(root);
        return -EINVAL;
    }
    *ret = root;
    return 0;
}

int run_outcome_save(const char *dir, json_t *root, char *err, size_t errlen)
{
    return run_json_save(dir, root, err, errlen);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

json_t *run_outcome_summary(const char *dir, uint64_t baseline_rss)
{
    static const char *const sample_cols[] = {"t_ms", "rss", "hwm", NULL};
    static const char *const proof_cols[] = {"proof", "wall_ms", "verified", NULL};
    static const char *const proof_empty[] = {"verified", NULL};
    char path[4200], err[512];
    run_csv_t samples = {0}, proofs = {0};
    double peak = (double)baseline_rss, wall_ms = 0, tick_med = 0;
    size_t ticks = 0, done = 0, failed = 0;
    double pw_sum = 0, pw_min = 0, pw_max = 0;

    snprintf(path, sizeof path, "%s/samples.csv", dir);
    /* in bounded memory, whatever the file's length: the peak and the last
     * time are exact (the reader's aggregates), the median tick is that of
     * the rows kept */
    static const char *const ext[] = {"rss", "hwm", NULL};
    const run_csv_opts_t so = {.required = sample_cols, .max_rows = (size_t)1 << 16, .extreme_cols = ext};
    if (run_csv_read_opts(&samples, path, &so, err, sizeof err) == 0) {
        int c_t = run_csv_col(&samples, "t_ms"), c_rss = run_csv_col(&samples, "rss"),
            c_hwm = run_csv_col(&samples, "hwm"), c_tick = run_csv_col(&samples, "tick_us");
        ticks = samples.rows_in_file;
        if (ticks) {
            peak = fmax(peak, fmax(samples.col_max[c_rss], samples.col_max[c_hwm]));
            wall_ms = fmax(wall_ms, samples.col_max[c_t]);
        }
        size_t kept = samples.nrows;
        double *tick = c_tick >= 0 && kept ? malloc(kept * sizeof *tick) : NULL;
        size_t nt = 0;
        for (size_t r = 0; tick && r < kept; r++) {
            double us = run_csv_num(&samples, r, c_tick);
            if (!isnan(us))
                tick[nt++] = us;
        }
        if (nt) {
            qsort(tick, nt, sizeof *tick, cmp_double);
            tick_med = nt % 2 ? tick[nt / 2] : (tick[nt / 2 - 1] + tick[nt / 2]) / 2;
        }
        free(tick);
    }
    snprintf(path, sizeof path, "%s/proofs.csv", dir);
    if (run_csv_read(&proofs, path, proof_cols, NULL, proof_empty, err, sizeof err) == 0) {
        int c_wall = run_csv_col(&proofs, "wall_ms"), c_ver = run_csv_col(&proofs, "verified");
        done = proofs.nrows;
        for (size_t r = 0; r < done; r++) {
            double w = run_csv_num(&proofs, r, c_wall);
            pw_sum += w;
            pw_min = r == 0 ? w : fmin(pw_min, w);
            pw_max = r == 0 ? w : fmax(pw_max, w);
            if (run_csv_num(&proofs, r, c_ver) == 0)
                failed++;
        }
    }
    run_csv_free(&samples);
    run_csv_free(&proofs);

    double wall_s = wall_ms / 1e3;
    return json_pack("{s:I, s:I, s:f, s:f, s:I, s:I, s:f, s:{s:f, s:f, s:f}, s:{s:I, s:f}, s:b}", "baseline_rss",
                     (json_int_t)baseline_rss, "peak_rss", (json_int_t)peak, "s_per_proof",
                     done ? wall_s / (double)done : 0.0, "proofs_per_min",
                     wall_s > 0 ? (double)done / wall_s * 60.0 : 0.0, "proofs_done", (json_int_t)done,
                     "proofs_failed", (json_int_t)failed, "wall_s", wall_s, "proof_wall_ms", "avg",
                     done ? pw_sum / (double)done : 0.0, "min", pw_min, "max", pw_max, "sampler", "ticks",
                     (json_int_t)ticks, "median_tick_us", tick_med, "from_files", 1);
}

void run_outcome_set(json_t *root, const char *outcome, uint64_t limit_bytes, const memcap_t *m,
                     const struct memcap_stats *s)
{
    json_object_set_new(root, "outcome", json_string(outcome));
    json_object_set_new(root, "mem_limit", json_integer((json_int_t)limit_bytes));
    json_t *ev = json_null();
    if (s)
        ev = json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:s}", "oom", (json_int_t)s->oom, "oom_kill",
                       (json_int_t)s->oom_kill, "max", (json_int_t)s->max, "high", (json_int_t)s->high, "low",
                       (json_int_t)s->low, "peak_bytes",
                       s->peak ? json_integer((json_int_t)s->peak) : json_null(), /* 0: the kernel has no peak */
                       "limit_bytes", (json_int_t)s->limit, "cgroup", memcap_kind(m));
    json_object_set_new(root, "memory_events", ev);
}

json_t *run_outcome_writer(void)
{
    char boot[64];
    proc_stat_boot_id(boot, sizeof boot);
    return json_pack("{s:I, s:I, s:s}", "pid", (json_int_t)getpid(), "start_ticks",
                     (json_int_t)proc_stat_start_ticks(getpid()), "boot_id", boot);
}

