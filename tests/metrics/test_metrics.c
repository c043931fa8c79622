/*
 * The metrics exposition (harness/metrics/metrics.c) against text written by hand
 * from the OpenMetrics and text-format specifications: every line of a known
 * state, label escaping, cumulative histogram buckets checked against a naive
 * count, the rolling leak-rate fit against a naive regression of planted
 * samples, and the refusals of --listen / --listen-linger values, the port in
 * use included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness/metrics/metrics.h"
#include "harness/metrics/metrics_export.h"
#include "harness/metrics/metrics_http.h"
#include "tests/common.h" /* (no math.h: fp.h's FP_ZERO is also its macro) */

static double absd(double v)
{
    return v < 0 ? -v : v;
}

/* Log-uniform in 0.01 .. 10^5. */
static double rand_log(void)
{
    double v = 0.01 * (1 + 9 * (double)test_rand_below(1u << 30) / (1u << 30));
    for (uint64_t e = test_rand_below(7); e > 0; e--)
        v *= 10;
    return v;
}

static char *render(metrics_t *m, enum metrics_format f, bool *ended)
{
    char *t = NULL;
    size_t len = 0;
    CHECK(metrics_render(m, f, &t, &len, ended) == 0);
    CHECK(t && strlen(t) == len);
    return t;
}

/* Prints both texts' first difference. */
static void same_text(const char *got, const char *want, const char *what)
{
    if (CHECK(strcmp(got, want) == 0))
        return;
    size_t i = 0;
    while (got[i] && got[i] == want[i])
        i++;
    size_t ls = i;
    while (ls > 0 && want[ls - 1] != '\n')
        ls--;
    fprintf(stderr, "%s: first difference at byte %zu\n  got:  %.120s\n  want: %.120s\n", what, i, got + ls, want + ls);
}

static const char *const kinds[MEM_KIND_COUNT] = {"params",  "circuit",    "aux",     "abc",     "ntt",    "h",
                                                  "msm",     "pending",    "pinned",  "other",   "gpu_params",
                                                  "gpu_abc", "gpu_ntt",    "gpu_h",   "gpu_msm", "gpu_other"};

/* A known state; the expected exposition is written out line by line. */
static void test_known_state(void)
{
    struct metrics_config cfg = {.version = "1.2.3", .commit = "abcdef0", .circuit = "porep:constraints=2^10",
                                 .pw = 3, .proofs_requested = 5, .heap = true, .gpu = true,
                                 .mem_limit = 1ull << 30};
    metrics_t *m = NULL;
    CHECK(metrics_new(&m, &cfg) == 0);
    sample_t x = {0};
    x.rss = 1000;
    x.rss_anon = 600;
    x.rss_file = 400;
    x.je_allocated = 11;
    x.je_active = 12;
    x.je_resident = 13;
    x.je_retained = 14;
    x.je_dirty = 15;
    x.je_muzzy = 16;
    x.gpu_used = 77;
    /* two devices, CUDA 1 and 3; the second's utilisation not read */
    x.gpu_ok = true;
    x.gpu.n = 2;
    x.gpu.used[0] = 30, x.gpu.used[1] = 47;
    x.gpu.util[0] = 40, x.gpu.util[1] = -1;
    static const int ids[] = {1, 3};
    metrics_set_gpu(m, true, ids, 2);
    metrics_set_verdict(m, "leak", "leak: memory grows with every proof (L0 tracked buffers of kind 'aux' \"a\")");
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        x.live[k] = 100 + (uint64_t)k;
    for (int i = 0; i < SAMPLER_OCC_COUNT; i++)
        x.occ[i] = 20 + (uint64_t)i;
    x.occ[SAMPLER_PROOFS_DONE] = 2;
    x.tick_us = 250;
    metrics_on_sample(m, &x);
    metrics_observe_proof(m, 0.05);  /* the first bucket */
    metrics_observe_proof(m, 1.0);   /* on a bound: le is inclusive */
    metrics_observe_proof(m, 20000); /* beyond the last: +Inf alone */

    static char want[16384];
    size_t n = 0;
#define L(...) (n += (size_t)snprintf(want + n, sizeof want - n, __VA_ARGS__))
    L("# HELP zkbench The zkbench run: version, commit, and what runs.\n");
    L("# TYPE zkbench info\n");
    L("zkbench_info{version=\"1.2.3\",commit=\"abcdef0\",circuit=\"porep:constraints=2^10\",pw=\"3\",command=\"\"} 1\n");
    L("# HELP zkbench_running 1 while the work runs, 0 once it has ended.\n# TYPE zkbench_running gauge\n");
    L("zkbench_running 1\n");
    L("# HELP zkbench_memory_limit_bytes Memory limit of the sampled process: --mem-limit or its cgroup's "
      "memory.max.\n# TYPE zkbench_memory_limit_bytes gauge\n# UNIT zkbench_memory_limit_bytes bytes\n");
    L("zkbench_memory_limit_bytes 1073741824\n");
    L("# HELP zkbench_rss_bytes Resident set size of the sampled process, by layer.\n"
      "# TYPE zkbench_rss_bytes gauge\n# UNIT zkbench_rss_bytes bytes\n");
    L("zkbench_rss_bytes{layer=\"rss\"} 1000\nzkbench_rss_bytes{layer=\"anon\"} 600\n"
      "zkbench_rss_bytes{layer=\"file\"} 400\n");
    L("# HELP zkbench_allocator_bytes jemalloc statistics of the sampled process.\n"
      "# TYPE zkbench_allocator_bytes gauge\n# UNIT zkbench_allocator_bytes bytes\n");
    L("zkbench_allocator_bytes{stat=\"allocated\"} 11\nzkbench_allocator_bytes{stat=\"active\"} 12\n"
      "zkbench_allocator_bytes{stat=\"resident\"} 13\nzkbench_allocator_bytes{stat=\"retained\"} 14\n"
      "zkbench_allocator_bytes{stat=\"dirty\"} 15\nzkbench_allocator_bytes{stat=\"muzzy\"} 16\n");
    L("# HELP zkbench_tracked_live_bytes Live bytes of the prover's tracked buffers, by kind.\n"
      "# TYPE zkbench_tracked_live_bytes gauge\n# UNIT zkbench_tracked_live_bytes bytes\n");
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        L("zkbench_tracked_live_bytes{kind=\"%s\"} %d\n", kinds[k], 100 + k);
    L("# HELP zkbench_gpu_used_bytes Device memory in use, by CUDA device; gpu all: the sum over the devices "
      "sampled.\n# TYPE zkbench_gpu_used_bytes gauge\n# UNIT zkbench_gpu_used_bytes bytes\n");
    L("zkbench_gpu_used_bytes{gpu=\"all\"} 77\nzkbench_gpu_used_bytes{gpu=\"1\"} 30\n"
      "zkbench_gpu_used_bytes{gpu=\"3\"} 47\n");
    L("# HELP zkbench_gpu_utilization_ratio NVML's utilisation of each CUDA device: the share of time a kernel "
      "ran.\n# TYPE zkbench_gpu_utilization_ratio gauge\n# UNIT zkbench_gpu_utilization_ratio ratio\n"
      "zkbench_gpu_utilization_ratio{gpu=\"1\"} 0.4\n");
    L("# HELP zkbench_partitions Partitions in flight, by pipeline state.\n# TYPE zkbench_partitions gauge\n");
    L("zkbench_partitions{state=\"admitted\"} 20\nzkbench_partitions{state=\"synthesizing\"} 21\n"
      "zkbench_partitions{state=\"waiting\"} 22\nzkbench_partitions{state=\"queued\"} 23\n"
      "zkbench_partitions{state=\"proving\"} 24\nzkbench_partitions{state=\"finishing\"} 25\n");
    L("# HELP zkbench_partitions_releasing Done partitions whose buffers wait for asynchronous release.\n"
      "# TYPE zkbench_partitions_releasing gauge\nzkbench_partitions_releasing 26\n");
    L("# HELP zkbench_proofs_requested Proofs the run was asked for.\n# TYPE zkbench_proofs_requested gauge\n"
      "zkbench_proofs_requested 5\n");
    L("# HELP zkbench_proofs_completed Proofs completed.\n# TYPE zkbench_proofs_completed counter\n"
      "zkbench_proofs_completed_total 2\n");
    L("# HELP zkbench_proof_duration_seconds Wall time of a proof: submission to completion (batch), the time "
      "between two marks (watch).\n"
      "# TYPE zkbench_proof_duration_seconds histogram\n# UNIT zkbench_proof_duration_seconds seconds\n");
    static const char *const le[] = {"0.1",  "0.25",  "0.5",   "1.0",    "2.5",    "5.0",    "10.0",   "30.0",
                                     "60.0", "120.0", "300.0", "600.0", "1800.0", "3600.0", "7200.0", "14400.0"};
    for (int i = 0; i < 16; i++)
        L("zkbench_proof_duration_seconds_bucket{le=\"%s\"} %d\n", le[i], i < 3 ? 1 : 2);
    L("zkbench_proof_duration_seconds_bucket{le=\"+Inf\"} 3\n");
    L("zkbench_proof_duration_seconds_sum 20001.05\nzkbench_proof_duration_seconds_count 3\n");
    L("# HELP zkbench_leak_rate_bytes_per_proof Growth per proof, fitted with the partitions in flight over the "
      "last 32 proofs.\n# TYPE zkbench_leak_rate_bytes_per_proof gauge\n"
      "# UNIT zkbench_leak_rate_bytes_per_proof bytes_per_proof\n");
    L("# HELP zkbench_verdict zkbench analyze's verdict of the run so far, and its headline in the same words; 1.\n"
      "# TYPE zkbench_verdict gauge\n"
      "zkbench_verdict{verdict=\"leak\",headline=\"leak: memory grows with every proof (L0 tracked buffers of "
      "kind 'aux' \\\"a\\\")\"} 1\n");
    L("# HELP zkbench_sampler_tick_seconds Cost of the sampler's latest tick.\n"
      "# TYPE zkbench_sampler_tick_seconds gauge\n# UNIT zkbench_sampler_tick_seconds seconds\n"
      "zkbench_sampler_tick_seconds 0.00025\n");
    L("# HELP zkbench_sampler_ticks Samples taken.\n# TYPE zkbench_sampler_ticks counter\n"
      "zkbench_sampler_ticks_total 1\n");
    L("# EOF\n");
#undef L
    bool ended = true;
    char *om = render(m, METRICS_OPENMETRICS, &ended);
    same_text(om, want, "OpenMetrics exposition");
    CHECK(!ended);

    /* the text format: no UNIT lines, no EOF; a counter's metadata names
     * NAME_total, the info family is the gauge NAME_info */
    char *tx = render(m, METRICS_TEXT, NULL);
    CHECK(!strstr(tx, "# UNIT") && !strstr(tx, "# EOF"));
    CHECK(strstr(tx, "# HELP zkbench_proofs_completed_total Proofs completed.\n"
                     "# TYPE zkbench_proofs_completed_total counter\nzkbench_proofs_completed_total 2\n") != NULL);
    CHECK(strstr(tx, "# TYPE zkbench_info gauge\nzkbench_info{") != NULL);
    CHECK(strstr(tx, "# TYPE zkbench_proof_duration_seconds histogram\nzkbench_proof_duration_seconds_bucket{le=\"0.1\"} 1\n") !=
          NULL);
    /* the same samples in both formats */
    size_t om_samples = 0, tx_samples = 0;
    for (const char *p = om; *p; p = strchr(p, '\n') + 1)
        om_samples += *p != '#';
    for (const char *p = tx; *p; p = strchr(p, '\n') + 1)
        tx_samples += *p != '#';
    if (!CHECK(om_samples == tx_samples && om_samples == 63))
        fprintf(stderr, "samples: %zu OpenMetrics, %zu text\n", om_samples, tx_samples);
    free(om);
    free(tx);

    metrics_set_running(m, false);
    om = render(m, METRICS_OPENMETRICS, &ended);
    CHECK(ended && strstr(om, "\nzkbench_running 0\n"));
    free(om);
    metrics_free(m);
}

/* Label values: backslash, double quote and line feed escaped; bytes that
 * are not UTF-8 replaced by U+FFFD; valid UTF-8 kept. Watch's families. */
static void test_escaping(void)
{
    const char cmd[] = "prover --name \"a\\b\"\nnext \xff\xc3\xa9 \xe2\x82";
    struct metrics_config cfg = {.version = "v", .commit = "c", .command = cmd};
    metrics_t *m = NULL;
    CHECK(metrics_new(&m, &cfg) == 0);
    char *t = render(m, METRICS_OPENMETRICS, NULL);
    const char *want = "zkbench_info{version=\"v\",commit=\"c\",circuit=\"\",pw=\"\","
                       "command=\"prover --name \\\"a\\\\b\\\"\\nnext \xef\xbf\xbd\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd\"} 1\n";
    if (!CHECK(strstr(t, want) != NULL))
        fprintf(stderr, "got:\n%s\n", t);
    /* before the first sample: no sampled family; never a heap family */
    CHECK(!strstr(t, "zkbench_rss_bytes") && !strstr(t, "zkbench_memory_limit_bytes"));
    free(t);
    sample_t x = {0};
    x.rss = 5;
    metrics_on_sample(m, &x);
    t = render(m, METRICS_OPENMETRICS, NULL);
    CHECK(strstr(t, "zkbench_rss_bytes{layer=\"rss\"} 5\n") != NULL);
    CHECK(!strstr(t, "allocator") && !strstr(t, "tracked") && !strstr(t, "partitions") && !strstr(t, "proof") &&
          !strstr(t, "gpu"));
    size_t len = strlen(t);
    CHECK(len > 6 && strcmp(t + len - 6, "# EOF\n") == 0);
    free(t);
    metrics_free(m);
}

/* Buckets: cumulative, each the count of durations <= its bound (naive
 * count), +Inf the total, sum the sum. */
static void test_histogram(void)
{
    static const double bound[16] = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 7200, 14400};
    struct metrics_config cfg = {.heap = true};
    metrics_t *m = NULL;
    CHECK(metrics_new(&m, &cfg) == 0);
    double d[500], sum = 0;
    for (int i = 0; i < 500; i++) {
        /* log-uniform over 0.01 s .. 10^5 s, and some exactly on bounds */
        d[i] = i % 10 == 0 ? bound[test_rand_below(16)] : rand_log();
        metrics_observe_proof(m, d[i]);
        sum += d[i];
    }
    char *t = render(m, METRICS_OPENMETRICS, NULL);
    const char *p = strstr(t, "zkbench_proof_duration_seconds_bucket");
    unsigned long long prev = 0;
    for (int b = 0; b <= 16; b++) {
        unsigned long long got = 0;
        char le[32];
        CHECK(p && sscanf(p, "zkbench_proof_duration_seconds_bucket{le=\"%31[^\"]\"} %llu", le, &got) == 2);
        unsigned long long naive = 0;
        for (int i = 0; i < 500; i++)
            naive += b == 16 || d[i] <= bound[b];
        if (!CHECK(got == naive && got >= prev))
            fprintf(stderr, "bucket %d (le %s): %llu, naive count %llu\n", b, le, got, naive);
        CHECK(b < 16 ? strtod(le, NULL) == bound[b] : strcmp(le, "+Inf") == 0);
        prev = got;
        p = p ? strchr(p, '\n') + 1 : NULL;
    }
    double got_sum = 0;
    unsigned long long count = 0;
    CHECK(p && sscanf(p, "zkbench_proof_duration_seconds_sum %lf\nzkbench_proof_duration_seconds_count %llu", &got_sum,
                      &count) == 2);
    CHECK(absd(got_sum - sum) <= 1e-8 * sum && count == 500);
    free(t);
    metrics_free(m);
}

/* A sample for the fit test: i partitions in flight, proofs_done p. */
struct fit_sample {
    double i, p, y[2];
};

/* Naive reference: g of y = b + f i + g p over xs[0..n), from centered sums
 * and Cramer's rule (the implementation keeps raw sums per interval and
 * eliminates); with i constant, the slope against p alone. */
static double naive_rate(const struct fit_sample *xs, size_t n, int layer)
{
    double mi = 0, mp = 0, my = 0;
    for (size_t k = 0; k < n; k++)
        mi += xs[k].i, mp += xs[k].p, my += xs[k].y[layer];
    mi /= (double)n, mp /= (double)n, my /= (double)n;
    double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0;
    for (size_t k = 0; k < n; k++) {
        double a = xs[k].i - mi, b = xs[k].p - mp, c = xs[k].y[layer] - my;
        s11 += a * a, s12 += a * b, s22 += b * b, s1y += a * c, s2y += b * c;
    }
    if (s11 == 0)
        return s2y / s22;
    return (s11 * s2y - s12 * s1y) / (s11 * s22 - s12 * s12);
}

/*
 * The rolling fit against planted samples: RSS is a base, plus 3 MiB per
 * partition in flight (drawn at random, as a pipeline's occupancy moves),
 * plus the planted growth per proof (1000 B for 40 proofs, then none), plus
 * jitter. After every completion the metric must equal the naive fit of the
 * samples of the last 32 intervals (the first interval left out), and find
 * the planted growth: 1000 while the window is in the leaking phase, 0 once
 * it has passed it.
 */
static void test_leak_fit(void)
{
    struct metrics_config cfg = {.heap = true};
    metrics_t *m = NULL;
    CHECK(metrics_new(&m, &cfg) == 0);
    enum { PROOFS = 90, MAX_TICKS = 40 };
    static struct fit_sample all[PROOFS][MAX_TICKS + 1];
    size_t ticks_of[PROOFS];
    static struct fit_sample win[METRICS_FIT_WINDOW * (MAX_TICKS + 1)];
    sample_t x = {0};
    double rate = 0, rate_a = 0, leaked = 0;
    for (int k = 0; k < PROOFS; k++) {
        size_t ticks = 5 + test_rand_below(MAX_TICKS - 5);
        ticks_of[k] = ticks + 1;
        for (size_t t = 0; t <= ticks; t++) {
            uint64_t p = (uint64_t)k + (t == ticks); /* the last sample sees the completion */
            if (t == ticks && k < 40)
                leaked += 1000;
            memset(x.occ, 0, sizeof x.occ);
            for (int st = 0; st <= SAMPLER_N_FINISH; st++)
                x.occ[st] = test_rand_below(2);
            uint64_t inflight = 0;
            for (int st = 0; st <= SAMPLER_N_FINISH; st++)
                inflight += x.occ[st];
            x.occ[SAMPLER_PROOFS_DONE] = p;
            x.rss = 5000000000ull + inflight * (3u << 20) + (uint64_t)leaked + test_rand_below(100);
            x.je_allocated = x.rss / 2;
            metrics_on_sample(m, &x);
            all[k][t] = (struct fit_sample){(double)inflight, (double)p, {(double)x.rss, (double)x.je_allocated}};
        }
        int done = k + 1, intervals = done - 1; /* interval 0 (to the first completion) is left out */
        if (intervals < METRICS_FIT_MIN) {
            CHECK(!metrics_leak_rate(m, 0, &rate));
            continue;
        }
        size_t n = 0;
        for (int kk = k - (intervals < METRICS_FIT_WINDOW ? intervals : METRICS_FIT_WINDOW) + 1; kk <= k; kk++)
            for (size_t t = 0; t < ticks_of[kk]; t++)
                win[n++] = all[kk][t];
        double want = naive_rate(win, n, 0), want_a = naive_rate(win, n, 1);
        CHECK(metrics_leak_rate(m, 0, &rate) && metrics_leak_rate(m, 1, &rate_a));
        if (!CHECK(absd(rate - want) < 1e-6 * absd(want) + 0.05 && absd(rate_a - want_a) < 1e-6 * absd(want_a) + 0.05))
            fprintf(stderr, "after %d proofs: rate %.4f / %.4f, naive %.4f / %.4f\n", done, rate, rate_a, want, want_a);
        /* the planted growth, once the window is all leaking or all flat */
        if (done >= 6 && done <= 40 && !CHECK(absd(rate - 1000) < 50))
            fprintf(stderr, "after %d proofs (leaking): %.1f B/proof, planted 1000\n", done, rate);
        if (done >= 41 + METRICS_FIT_WINDOW && !CHECK(absd(rate) < 50))
            fprintf(stderr, "after %d proofs (flat): %.1f B/proof, planted 0\n", done, rate);
    }
    char *t = render(m, METRICS_OPENMETRICS, NULL);
    CHECK(strstr(t, "zkbench_leak_rate_bytes_per_proof{layer=\"rss\"} ") != NULL);
    CHECK(strstr(t, "zkbench_leak_rate_bytes_per_proof{layer=\"allocated\"} ") != NULL);
    free(t);
    metrics_free(m);

    /* no occupancy (watch, or constant): the slope against proofs alone */
    CHECK(metrics_new(&m, &cfg) == 0);
    memset(x.occ, 0, sizeof x.occ);
    for (int k = 0; k <= 20; k++) {
        x.rss = (uint64_t)(5e9 + 1000.0 * k);
        x.je_allocated = x.rss;
        x.occ[SAMPLER_PROOFS_DONE] = (uint64_t)k;
        metrics_on_sample(m, &x);
        metrics_on_sample(m, &x);
    }
    CHECK(metrics_leak_rate(m, 0, &rate) && absd(rate - 1000) < 1e-6);
    metrics_free(m);
}

static void test_options(void)
{
    struct metrics_opts o;
    char err[512];
    metrics_opts_init(&o);
    CHECK(o.linger_s == METRICS_LINGER_DEFAULT_S && !o.listen && !o.file);
    const char *bad_linger[] = {"", "-1", "abc", "3601", "5s", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_linger / sizeof *bad_linger; i++)
        CHECK(metrics_opts_set(&o, METRICS_OPT_LINGER, bad_linger[i], err, sizeof err) == -EINVAL);
    CHECK(metrics_opts_set(&o, METRICS_OPT_LINGER, "0", err, sizeof err) == 1 && o.linger_s == 0);
    CHECK(metrics_opts_set(&o, METRICS_OPT_FILE, "", err, sizeof err) == -EINVAL);
    CHECK(metrics_opts_set(&o, 'x', "1", err, sizeof err) == 0);

    const char *bad[] = {"9100", "", ":", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", ":abc", "::1:9100",
                         "[::1]9100", "[]:9100", "1.2.3.4.5:9100", "127.0.0.1:123456"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int fd = -1;
        int rc = metrics_http_listen(&fd, bad[i], err, sizeof err);
        if (!CHECK(rc == -EINVAL && fd == -1 && strstr(err, "--listen")))
            fprintf(stderr, "'%s': %d (%s)\n", bad[i], rc, err);
    }
    /* ":0": the loopback address, a free port; then that port is in use */
    int fd = -1, fd2 = -1;
    CHECK(metrics_http_listen(&fd, ":0", err, sizeof err) == 0 && fd >= 0);
    char addr[300];
    metrics_http_describe(fd, addr, sizeof addr);
    CHECK(strncmp(addr, "127.0.0.1:", 10) == 0 && atoi(addr + 10) > 0);
    int rc = metrics_http_listen(&fd2, addr, err, sizeof err);
    if (!CHECK(rc == -EADDRINUSE && fd2 == -1 && strstr(err, "in use")))
        fprintf(stderr, "second bind of %s: %d (%s)\n", addr, rc, err);
    close(fd);
}

/* watch --mark: proofs completed from the marks, durations from their
 * cadence (the first mark's interval left out), a leak rate of RSS alone
 * once enough intervals are known; never a heap family. */
static void test_watch_marks(void)
{
    struct metrics_config cfg = {.version = "v", .commit = "c", .command = "prover", .marks = true};
    metrics_t *m = NULL;
    CHECK(metrics_new(&m, &cfg) == 0);
    /* marks at 1.0 s, 3.0 s, and two at 3.5 s; RSS grows 1000 a proof */
    static const struct {
        double t_ms;
        uint64_t done;
    } at[] = {{0, 0}, {100, 0}, {1000, 1}, {2000, 1}, {3000, 2}, {3500, 4}, {4000, 4}, {5000, 5}, {6000, 6}, {7000, 7}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        sample_t x = {0};
        x.t_ms = at[i].t_ms;
        x.occ[SAMPLER_PROOFS_DONE] = at[i].done;
        x.rss = 50000 + 1000 * at[i].done;
        metrics_on_sample(m, &x);
    }
    char *t = render(m, METRICS_OPENMETRICS, NULL);
    bool ok = CHECK(strstr(t, "\nzkbench_proofs_completed_total 7\n") != NULL);
    /* 2.0 s, 0.25 s twice, 1.5, 1, 1: seven marks, six durations */
    ok &= CHECK(strstr(t, "\nzkbench_proof_duration_seconds_count 6\n") != NULL);
    ok &= CHECK(strstr(t, "\nzkbench_proof_duration_seconds_sum 6\n") != NULL);
    ok &= CHECK(strstr(t, "zkbench_proof_duration_seconds_bucket{le=\"0.25\"} 2\n") != NULL);
    ok &= CHECK(strstr(t, "zkbench_proof_duration_seconds_bucket{le=\"1.0\"} 4\n") != NULL);
    ok &= CHECK(strstr(t, "zkbench_leak_rate_bytes_per_proof{layer=\"rss\"} 1000\n") != NULL);
    ok &= CHECK(!strstr(t, "layer=\"allocated\"") && !strstr(t, "allocator") && !strstr(t, "zkbench_partitions"));
    if (!ok)
        fprintf(stderr, "watch with marks:\n%s\n", t);
    free(t);
    metrics_free(m);
}

int main(void)
{
    test_init("metrics");
    test_known_state();
    test_escaping();
    test_watch_marks();
    test_histogram();
    test_leak_fit();
    test_options();
    return test_finish();
}
