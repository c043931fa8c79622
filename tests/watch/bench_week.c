/*
 * A week of watch's samples in minutes (issue 27, item 3; results/
 * long-watch.md): the sampler's row pipeline (sampler.c in its fed mode:
 * the samples.csv row, this process's procs.csv row, the thinning writer,
 * the tick histogram, and metrics_on_sample as with --metrics-listen) fed
 * N synthetic readings at a simulated tick, as fast as it takes them. What
 * a real tick adds, reading /proc, is measured by a real watch
 * (scripts/bench-long-watch.sh). The readings: a prover's sawtooth (RSS
 * from 8 GiB, up 4 GiB over each proof of PROOF_S s, then down, with a
 * MiB of noise), a proof mark at each valley with --marks. Prints a line
 * at each checkpoint (10^k ticks and every 10^6): the CPU per tick over
 * the ticks since the last checkpoint, the files' bytes, this process's
 * peak RSS; writes DIR/run.json as a watch's, so `zkbench analyze DIR`
 * reads the folder.
 *   bench_week DIR TICKS [--tick-ms MS] [--thin-after S] [--thin-interval S]
 *              [--marks] [--proof-s S]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/metrics/metrics.h"
#include "harness/run/proc_tree.h"
#include "harness/run/sampler.h"

#define GIB (1ull << 30)
#define MIB (1ull << 20)

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long long file_bytes(const char *dir, const char *name)
{
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int usage(void)
{
    fputs("usage: bench_week DIR TICKS [--tick-ms MS] [--thin-after S] [--thin-interval S] [--marks] "
          "[--proof-s S]\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    const char *dir = argv[1];
    unsigned long long n = strtoull(argv[2], NULL, 10);
    double tick_ms = 60.48, thin_after = 3600, thin_interval = 10, proof_s = 38;
    int marks = 0;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--marks") == 0)
            marks = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--tick-ms") == 0)
            tick_ms = atof(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--thin-after") == 0)
            thin_after = atof(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--thin-interval") == 0)
            thin_interval = atof(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--proof-s") == 0)
            proof_s = atof(argv[++i]);
        else
            return usage();
    }
    if (n == 0 || !(tick_ms > 0) || !(proof_s > 0))
        return usage();
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        perror(dir);
        return 1;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/procs.csv", dir);
    FILE *procs = fopen(path, "w");
    snprintf(path, sizeof path, "%s/marks.csv", dir);
    FILE *mk = marks ? fopen(path, "w") : NULL;
    if (!csv || !procs || (marks && !mk)) {
        perror(dir);
        return 1;
    }
    proc_tree_write_header(procs);
    if (mk)
        fputs("t_ms,pid,source,name\n", mk);

    struct metrics_config mc = {.version = "bench", .commit = "bench", .circuit = "watch"};
    metrics_t *m = NULL;
    if (metrics_new(&m, &mc) < 0)
        return 1;
    static _Atomic uint64_t done;
    struct sampler_config sc = {.period_ms = 1, .pid = getpid(), .t0 = run_clock_now(), .tree = true,
                                .children = true, .procs_csv = procs, .proofs_done = marks ? &done : NULL,
                                .on_sample = metrics_on_sample, .sample_ctx = m,
                                .thin_after_ms = thin_after * 1e3, .thin_interval_ms = thin_interval * 1e3,
                                .fed = true};
    sampler_t *s = NULL;
    int rc = sampler_start(&s, &sc, csv);
    if (rc < 0) {
        fprintf(stderr, "bench_week: sampler_start: %s\n", strerror(-rc));
        return 1;
    }
    printf("ticks simulated_days cpu_us_per_tick wall_us_per_tick samples_csv_bytes procs_csv_bytes maxrss_kib "
           "user_us_per_tick sys_us_per_tick\n");
    fflush(stdout);
    double c0 = cpu_s(), w0 = wall_s(), c_last = c0, w_last = w0, u_last = 0, s_last = 0;
    unsigned long long last = 0, next_pow = 100000, proofs = 0;
    uint64_t peak = 0, first_rss = 0, rss = 0;
    const double proof_ms = proof_s * 1e3;
    for (unsigned long long i = 0; i < n; i++) {
        sample_t x = {0};
        x.t_ms = (double)i * tick_ms;
        double phase = x.t_ms / proof_ms;
        unsigned long long k = (unsigned long long)phase;
        rss = 8 * GIB + (uint64_t)((phase - (double)k) * 4.0 * (double)GIB) + (next() & (MIB - 1));
        x.rss = rss;
        x.rss_anon = rss - GIB;
        x.rss_file = GIB;
        if (rss > peak)
            peak = rss;
        x.hwm = peak;
        x.n_procs = 1;
        x.tick_us = 15.0; /* the /proc read's median, not timed here */
        if (marks && k > proofs) {
            proofs = k;
            atomic_store(&done, k);
            fprintf(mk, "%.3f,%d,output,proof\n", x.t_ms, (int)getpid());
        }
        x.occ[SAMPLER_PROOFS_DONE] = marks ? k : 0;
        if (i == 0)
            first_rss = rss;
        if ((rc = sampler_feed(s, &x)) < 0) {
            fprintf(stderr, "bench_week: tick %llu: %s\n", i, strerror(-rc));
            return 1;
        }
        unsigned long long t = i + 1;
        if (t == next_pow || t % 1000000 == 0 || t == n) {
            if (t == next_pow)
                next_pow *= 10;
            double c = cpu_s(), w = wall_s();
            struct rusage ru;
            getrusage(RUSAGE_SELF, &ru);
            fflush(mk);
            double u = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6,
                   sy = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6, dt = (double)(t - last);
            printf("%llu %.2f %.2f %.2f %lld %lld %ld %.2f %.2f\n", t, (double)t * tick_ms / 86400e3,
                   (c - c_last) / dt * 1e6, (w - w_last) / dt * 1e6, file_bytes(dir, "samples.csv"),
                   file_bytes(dir, "procs.csv"), ru.ru_maxrss, (u - u_last) / dt * 1e6, (sy - s_last) / dt * 1e6);
            fflush(stdout);
            c_last = c, w_last = w, u_last = u, s_last = sy, last = t;
        }
    }
    rc = sampler_stop(s);
    fclose(csv);
    fclose(procs);
    if (mk)
        fclose(mk);
    metrics_free(m);
    if (rc < 0) {
        fprintf(stderr, "bench_week: %s\n", strerror(-rc));
        return 1;
    }
    /* run.json as watch writes it, with what analyze reads */
    snprintf(path, sizeof path, "%s/run.json", dir);
    FILE *j = fopen(path, "w");
    if (!j)
        return 1;
    fprintf(j,
            "{\"status\": \"complete\", \"outcome\": \"complete\", \"interrupted\": false, \"exit_code\": 0,\n"
            " \"config\": {\"mode\": \"command\", \"pid\": %d, \"command\": \"bench_week (synthetic readings)\",\n"
            "  \"sample_ms\": %g, \"sample_ms_auto\": false, \"smaps\": false, \"gpu\": false, \"mem_limit\": null,\n"
            "  \"children\": true, \"cgroup\": null, \"mark\": %s, \"mark_file\": null, \"kill_after_s\": 10,\n"
            "  \"thin_after_s\": %g, \"thin_interval_s\": %g},\n"
            " \"summary\": {\"first_rss\": %llu, \"last_rss\": %llu, \"peak_rss\": %llu, \"wall_s\": %.3f,\n"
            "  \"ticks\": %llu, \"median_tick_us\": 15.0, \"proofs_done\": %llu},\n"
            " \"synthetic\": {\"cpu_s\": %.3f, \"wall_s\": %.3f, \"proof_s\": %g}}\n",
            (int)getpid(), tick_ms, marks ? "\"proof\"" : "null", thin_after, thin_interval,
            (unsigned long long)first_rss, (unsigned long long)rss, (unsigned long long)peak,
            (double)n * tick_ms / 1e3, n, proofs, cpu_s() - c0, wall_s() - w0, proof_s);
    fclose(j);
    return 0;
}
