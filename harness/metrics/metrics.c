/* The sampler's metrics and their exposition; see metrics.h. Formats:
 * OpenMetrics 1.0 (https://github.com/OpenObservability/OpenMetrics,
 * specification/OpenMetrics.md) and Prometheus's text format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/). */
#include "harness/metrics/metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover/mem.h"

/* From 0.1 s (a small circuit) to four hours (a slow host's 32 GiB proof). */
static const double bucket_le[METRICS_DURATION_BUCKETS] = {0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
                                                           60, 120, 300, 600, 1800, 3600, 7200, 14400};
static const char *const bucket_text[METRICS_DURATION_BUCKETS] = {
    "0.1", "0.25", "0.5", "1.0", "2.5", "5.0", "10.0", "30.0",
    "60.0", "120.0", "300.0", "600.0", "1800.0", "3600.0", "7200.0", "14400.0"};

/* The occupancy counters as partition states (DESIGN.md, "Data flow"), in
 * enum sampler_occ order; the six sum to the partitions in flight. */
static const char *const state_name[SAMPLER_N_FINISH + 1] = {"admitted", "synthesizing", "waiting",
                                                             "queued",   "proving",      "finishing"};

enum { LAYER_RSS, LAYER_ALLOCATED, LAYERS };
static const char *const layer_name[LAYERS] = {"rss", "allocated"};

/* Least-squares sums of the samples of one proof interval: x = (1, i, p)
 * with i the partitions in flight and p proofs_done since the first sample;
 * y a layer less its first value. */
struct fit_block {
    double n, si, sp, sii, sip, spp;
    double sy[LAYERS], syi[LAYERS], syp[LAYERS];
};

struct metrics {
    pthread_mutex_t lock;
    char *version, *commit, *circuit, *command;
    unsigned pw, proofs_requested;
    bool heap, marks, gpu;
    double t_last_mark_ms; /* watch: the sample that last saw proofs_done rise; NAN before */
    /* the CUDA device of the sample's gpu.used[i] (metrics_set_gpu); none
     * given: i, as NVML numbers them for watch */
    int gpu_id[NVML_GPU_MAX];
    unsigned n_gpu_id;
    uint64_t mem_limit;

    bool running, have_sample;
    sample_t latest;
    uint64_t ticks;

    uint64_t buckets[METRICS_DURATION_BUCKETS]; /* not cumulative; summed when rendered */
    uint64_t n_proofs;
    double sum_s;

    /* the rolling fit (fit_update): sums per proof interval, the last
     * METRICS_FIT_WINDOW intervals in a ring */
    bool have_p;
    uint64_t p0, p_last, closed;
    double y0[LAYERS];
    struct fit_block cur, ring[METRICS_FIT_WINDOW];
    size_t n_fit, head;
    bool rate_ok;
    double rate[LAYERS];

    /* analyze's verdict of the run so far (metrics_set_verdict); "": none
     * yet. Arrays, not pointers: metrics_render copies the struct. */
    char verdict[32], headline[METRICS_HEADLINE_MAX];
};

static char *dup_or_null(const char *s, bool *oom)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *oom = true;
    return d;
}

int metrics_new(metrics_t **ret, const struct metrics_config *cfg)
{
    metrics_t *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    bool oom = false;
    m->version = dup_or_null(cfg->version ? cfg->version : "", &oom);
    m->commit = dup_or_null(cfg->commit ? cfg->commit : "", &oom);
    m->circuit = dup_or_null(cfg->circuit, &oom);
    m->command = dup_or_null(cfg->command, &oom);
    if (oom) {
        metrics_free(m);
        return -ENOMEM;
    }
    m->pw = cfg->pw;
    m->proofs_requested = cfg->proofs_requested;
    m->heap = cfg->heap;
    m->marks = cfg->marks;
    m->t_last_mark_ms = NAN;
    m->gpu = cfg->gpu;
    m->mem_limit = cfg->mem_limit;
    m->running = true;
    pthread_mutex_init(&m->lock, NULL);
    *ret = m;
    return 0;
}

void metrics_free(metrics_t *m)
{
    if (!m)
        return;
    pthread_mutex_destroy(&m->lock);
    free(m->version);
    free(m->commit);
    free(m->circuit);
    free(m->command);
    free(m);
}

/* Solves the 3x3 system a x = b (Gaussian elimination, partial pivoting);
 * false when singular. */
static bool solve3(double a[3][3], double b[3], double x[3])
{
    for (int c = 0; c < 3; c++) {
        int piv = c;
        for (int r = c + 1; r < 3; r++)
            if ((a[r][c] < 0 ? -a[r][c] : a[r][c]) > (a[piv][c] < 0 ? -a[piv][c] : a[piv][c]))
                piv = r;
        if (a[piv][c] == 0)
            return false;
        for (int k = 0; k < 3; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int r = c + 1; r < 3; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int r = 2; r >= 0; r--) {
        double v = b[r];
        for (int k = r + 1; k < 3; k++)
            v -= a[r][k] * x[k];
        x[r] = v / a[r][r];
    }
    return true;
}

/*
 * Growth per proof over the window: the least-squares fit of every sample
 * of the last METRICS_FIT_WINDOW proof intervals, y = b + f i + g p (the
 * layer against the partitions in flight and proofs_done, DESIGN.md's
 * leak fit with the states pooled); g is the rate. Fitting the work in
 * flight out keeps a pipeline that never drains from reading as growth.
 * Without occupancy (or with it constant) y = b + g p.
 */
static void fit_update(metrics_t *m)
{
    m->rate_ok = false;
    if (m->n_fit < METRICS_FIT_MIN)
        return;
    struct fit_block w = {0};
    for (size_t j = 0; j < m->n_fit; j++) {
        const struct fit_block *k = &m->ring[j];
        w.n += k->n, w.si += k->si, w.sp += k->sp, w.sii += k->sii, w.sip += k->sip, w.spp += k->spp;
        for (int l = 0; l < LAYERS; l++)
            w.sy[l] += k->sy[l], w.syi[l] += k->syi[l], w.syp[l] += k->syp[l];
    }
    double var_i = w.n * w.sii - w.si * w.si, var_p = w.n * w.spp - w.sp * w.sp;
    if (!(var_p > 0))
        return;
    for (int l = 0; l < LAYERS; l++) {
        double g;
        double a[3][3] = {{w.n, w.si, w.sp}, {w.si, w.sii, w.sip}, {w.sp, w.sip, w.spp}};
        double b[3] = {w.sy[l], w.syi[l], w.syp[l]}, x[3];
        if (var_i > 1e-9 * w.n * w.n && solve3(a, b, x))
            g = x[2];
        else
            g = (w.n * w.syp[l] - w.sp * w.sy[l]) / var_p;
        m->rate[l] = g;
    }
    m->rate_ok = true;
}

/* The interval that ended with a completion: into the window. The first
 * one (from the start to the first completion) is left out: it holds the
 * warm-up (caches, arenas growing) that later intervals do not repeat. */
static void fit_close(metrics_t *m)
{
    if (m->closed++ > 0) {
        m->ring[m->head] = m->cur;
        m->head = (m->head + 1) % METRICS_FIT_WINDOW;
        if (m->n_fit < METRICS_FIT_WINDOW)
            m->n_fit++;
        fit_update(m);
    }
    memset(&m->cur, 0, sizeof m->cur);
}

/* One proof's duration into the histogram; under m->lock. */
static void observe_locked(metrics_t *m, double seconds)
{
    for (int i = 0; i < METRICS_DURATION_BUCKETS; i++)
        if (seconds <= bucket_le[i]) {
            m->buckets[i]++;
            break;
        }
    m->n_proofs++;
    m->sum_s += seconds;
}

void metrics_on_sample(void *ctx, const sample_t *x)
{
    metrics_t *m = ctx;
    if (!m)
        return;
    const uint64_t v[LAYERS] = {x->rss, x->je_allocated};
    uint64_t p = x->occ[SAMPLER_PROOFS_DONE], inflight = 0;
    for (int i = 0; i <= SAMPLER_N_FINISH; i++)
        inflight += x->occ[i];
    pthread_mutex_lock(&m->lock);
    m->latest = *x;
    m->have_sample = true;
    m->ticks++;
    if (!m->have_p) {
        m->have_p = true;
        m->p0 = m->p_last = p;
        for (int l = 0; l < LAYERS; l++)
            m->y0[l] = (double)v[l];
    }
    /* the sample that sees a completion closes that interval */
    struct fit_block *k = &m->cur;
    double di = (double)inflight, dp = (double)(p - m->p0);
    k->n += 1, k->si += di, k->sp += dp, k->sii += di * di, k->sip += di * dp, k->spp += dp * dp;
    for (int l = 0; l < LAYERS; l++) {
        double y = (double)v[l] - m->y0[l];
        k->sy[l] += y, k->syi[l] += y * di, k->syp[l] += y * dp;
    }
    if (p > m->p_last) {
        /* watch: a proof's duration is the time between marks, the first
         * mark's left out (it starts at the watch, not at a proof); a batch
         * observes each proof's own wall time (metrics_observe_proof) */
        if (!m->heap && isfinite(m->t_last_mark_ms)) {
            double each_s = (x->t_ms - m->t_last_mark_ms) / 1e3 / (double)(p - m->p_last);
            for (uint64_t q = m->p_last; q < p && each_s >= 0; q++)
                observe_locked(m, each_s);
        }
        m->t_last_mark_ms = x->t_ms;
        m->p_last = p;
        fit_close(m);
    }
    pthread_mutex_unlock(&m->lock);
}

void metrics_observe_proof(metrics_t *m, double seconds)
{
    if (!m || !(seconds >= 0))
        return;
    pthread_mutex_lock(&m->lock);
    observe_locked(m, seconds);
    pthread_mutex_unlock(&m->lock);
}

void metrics_set_running(metrics_t *m, bool running)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    m->running = running;
    pthread_mutex_unlock(&m->lock);
}

void metrics_set_gpu(metrics_t *m, bool gpu, const int *ids, unsigned n_ids)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->lock);
    m->gpu = gpu;
    m->n_gpu_id = ids && n_ids <= NVML_GPU_MAX ? n_ids : 0;
    for (unsigned i = 0; i < m->n_gpu_id; i++)
        m->gpu_id[i] = ids[i];
    pthread_mutex_unlock(&m->lock);
}

void metrics_set_verdict(metrics_t *m, const char *verdict, const char *headline)
{
    if (!m || !verdict || !headline)
        return;
    pthread_mutex_lock(&m->lock);
    snprintf(m->verdict, sizeof m->verdict, "%s", verdict);
    snprintf(m->headline, sizeof m->headline, "%s", headline);
    pthread_mutex_unlock(&m->lock);
}

bool metrics_leak_rate(metrics_t *m, int layer, double *bytes_per_proof)
{
    if (layer < 0 || layer >= LAYERS)
        return false;
    pthread_mutex_lock(&m->lock);
    bool ok = m->rate_ok;
    if (ok)
        *bytes_per_proof = m->rate[layer];
    pthread_mutex_unlock(&m->lock);
    return ok;
}

const char *metrics_content_type(enum metrics_format fmt)
{
    return fmt == METRICS_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                      : "text/plain; version=0.0.4; charset=utf-8";
}

/* ---- rendering -------------------------------------------------------------- */

struct sbuf {
    char *p;
    size_t len, cap;
    bool oom;
};

static void sb_grow(struct sbuf *b, size_t need)
{
    if (b->oom || b->len + need + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + need + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return;
    }
    b->p = p;
    b->cap = cap;
}

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
    sb_grow(b, n);
    if (b->oom)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void sb_printf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sb_put(b, tmp, (size_t)n);
        return;
    }
    sb_grow(b, (size_t)n);
    if (b->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0)
        n = 2, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0)
        n = 3, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0)
        n = 4, cp = c & 0x07;
    else
        return 0;
    if (n > left)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* A label value between quotes: backslash, double quote and line feed
 * escaped (both formats); bytes that are not UTF-8 become U+FFFD. */
static void sb_label_value(struct sbuf *b, const char *v)
{
    const unsigned char *s = (const unsigned char *)v;
    size_t left = strlen(v);
    sb_put(b, "\"", 1);
    while (left) {
        size_t n = utf8_len(s, left);
        if (n == 0) {
            sb_put(b, "\xef\xbf\xbd", 3);
            n = 1;
        } else if (*s == '\\') {
            sb_put(b, "\\\\", 2);
        } else if (*s == '"') {
            sb_put(b, "\\\"", 2);
        } else if (*s == '\n') {
            sb_put(b, "\\n", 2);
        } else {
            sb_put(b, (const char *)s, n);
        }
        s += n;
        left -= n;
    }
    sb_put(b, "\"", 1);
}

static void sb_double(struct sbuf *b, double v)
{
    if (isnan(v))
        sb_put(b, "NaN", 3);
    else if (isinf(v))
        sb_printf(b, "%sInf", v > 0 ? "+" : "-");
    else
        sb_printf(b, "%.9g", v);
}

/*
 * The metadata of a family. name is the family's name in OpenMetrics; a
 * counter's samples add _total, which in the text format is part of the
 * name the TYPE and HELP lines give. An info family's sample adds _info;
 * the text format has no info type and calls it a gauge named NAME_info.
 * unit: NULL or the suffix the name ends with (OpenMetrics only).
 */
static void family(struct sbuf *b, enum metrics_format fmt, const char *name, const char *type, const char *unit,
                   const char *help)
{
    if (fmt == METRICS_OPENMETRICS) {
        sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
        if (unit)
            sb_printf(b, "# UNIT %s %s\n", name, unit);
        return;
    }
    const char *suffix = strcmp(type, "counter") == 0 ? "_total" : strcmp(type, "info") == 0 ? "_info" : "";
    const char *ttype = strcmp(type, "info") == 0 ? "gauge" : type;
    sb_printf(b, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, suffix, help, name, suffix, ttype);
}

/* NAME{LABEL="VALUE"} V, with the value an unsigned integer. */
static void sample_u64(struct sbuf *b, const char *name, const char *label, const char *value, uint64_t v)
{
    sb_put(b, name, strlen(name));
    if (label) {
        sb_printf(b, "{%s=", label);
        sb_label_value(b, value);
        sb_put(b, "}", 1);
    }
    sb_printf(b, " %" PRIu64 "\n", v);
}

static void render(const metrics_t *m, enum metrics_format fmt, struct sbuf *b)
{
    const sample_t *x = &m->latest;
    char pw[16] = "";
    if (m->pw)
        snprintf(pw, sizeof pw, "%u", m->pw);

    family(b, fmt, "zkbench", "info", NULL, "The zkbench run: version, commit, and what runs.");
    sb_put(b, "zkbench_info{version=", 21);
    sb_label_value(b, m->version);
    sb_put(b, ",commit=", 8);
    sb_label_value(b, m->commit);
    sb_put(b, ",circuit=", 9);
    sb_label_value(b, m->circuit ? m->circuit : "");
    sb_put(b, ",pw=", 4);
    sb_label_value(b, pw);
    sb_put(b, ",command=", 9);
    sb_label_value(b, m->command ? m->command : "");
    sb_put(b, "} 1\n", 4);

    family(b, fmt, "zkbench_running", "gauge", NULL, "1 while the work runs, 0 once it has ended.");
    sample_u64(b, "zkbench_running", NULL, NULL, m->running);

    if (m->mem_limit) {
        family(b, fmt, "zkbench_memory_limit_bytes", "gauge", "bytes",
               "Memory limit of the sampled process: --mem-limit or its cgroup's memory.max.");
        sample_u64(b, "zkbench_memory_limit_bytes", NULL, NULL, m->mem_limit);
    }

    if (m->have_sample) {
        family(b, fmt, "zkbench_rss_bytes", "gauge", "bytes", "Resident set size of the sampled process, by layer.");
        sample_u64(b, "zkbench_rss_bytes", "layer", "rss", x->rss);
        sample_u64(b, "zkbench_rss_bytes", "layer", "anon", x->rss_anon);
        sample_u64(b, "zkbench_rss_bytes", "layer", "file", x->rss_file);
    }
    if (m->have_sample && m->heap) {
        family(b, fmt, "zkbench_allocator_bytes", "gauge", "bytes", "jemalloc statistics of the sampled process.");
        sample_u64(b, "zkbench_allocator_bytes", "stat", "allocated", x->je_allocated);
        sample_u64(b, "zkbench_allocator_bytes", "stat", "active", x->je_active);
        sample_u64(b, "zkbench_allocator_bytes", "stat", "resident", x->je_resident);
        sample_u64(b, "zkbench_allocator_bytes", "stat", "retained", x->je_retained);
        sample_u64(b, "zkbench_allocator_bytes", "stat", "dirty", x->je_dirty);
        sample_u64(b, "zkbench_allocator_bytes", "stat", "muzzy", x->je_muzzy);

        family(b, fmt, "zkbench_tracked_live_bytes", "gauge", "bytes",
               "Live bytes of the prover's tracked buffers, by kind.");
        for (int k = 0; k < MEM_KIND_COUNT; k++)
            sample_u64(b, "zkbench_tracked_live_bytes", "kind", mem_kind_name((enum mem_kind)k), x->live[k]);
    }
    if (m->have_sample && m->gpu) {
        family(b, fmt, "zkbench_gpu_used_bytes", "gauge", "bytes",
               "Device memory in use, by CUDA device; gpu all: the sum over the devices sampled.");
        sample_u64(b, "zkbench_gpu_used_bytes", "gpu", "all", x->gpu_used);
        unsigned nd = x->gpu_ok && x->gpu.n <= NVML_GPU_MAX ? x->gpu.n : 0;
        char id[16];
        for (unsigned i = 0; i < nd; i++) {
            snprintf(id, sizeof id, "%d", i < m->n_gpu_id ? m->gpu_id[i] : (int)i);
            sample_u64(b, "zkbench_gpu_used_bytes", "gpu", id, x->gpu.used[i]);
        }
        bool any_util = false;
        for (unsigned i = 0; i < nd; i++)
            any_util |= x->gpu.util[i] >= 0;
        if (any_util) {
            family(b, fmt, "zkbench_gpu_utilization_ratio", "gauge", "ratio",
                   "NVML's utilisation of each CUDA device: the share of time a kernel ran.");
            for (unsigned i = 0; i < nd; i++) {
                if (x->gpu.util[i] < 0)
                    continue;
                snprintf(id, sizeof id, "%d", i < m->n_gpu_id ? m->gpu_id[i] : (int)i);
                sb_printf(b, "zkbench_gpu_utilization_ratio{gpu=");
                sb_label_value(b, id);
                sb_put(b, "} ", 2);
                sb_double(b, x->gpu.util[i] / 100.0);
                sb_put(b, "\n", 1);
            }
        }
    }
    if (m->have_sample && m->heap) {
        family(b, fmt, "zkbench_partitions", "gauge", NULL, "Partitions in flight, by pipeline state.");
        for (int i = 0; i <= SAMPLER_N_FINISH; i++)
            sample_u64(b, "zkbench_partitions", "state", state_name[i], x->occ[i]);
        family(b, fmt, "zkbench_partitions_releasing", "gauge", NULL,
               "Done partitions whose buffers wait for asynchronous release.");
        sample_u64(b, "zkbench_partitions_releasing", NULL, NULL, x->occ[SAMPLER_N_DEALLOC]);
    }
    if (m->heap || m->marks) {
        if (m->proofs_requested) {
            family(b, fmt, "zkbench_proofs_requested", "gauge", NULL, "Proofs the run was asked for.");
            sample_u64(b, "zkbench_proofs_requested", NULL, NULL, m->proofs_requested);
        }
        family(b, fmt, "zkbench_proofs_completed", "counter", NULL, "Proofs completed.");
        sample_u64(b, "zkbench_proofs_completed_total", NULL, NULL,
                   m->have_sample ? x->occ[SAMPLER_PROOFS_DONE] : 0);

        family(b, fmt, "zkbench_proof_duration_seconds", "histogram", "seconds",
               "Wall time of a proof: submission to completion (batch), the time between two marks (watch).");
        uint64_t cum = 0;
        for (int i = 0; i < METRICS_DURATION_BUCKETS; i++) {
            cum += m->buckets[i];
            sample_u64(b, "zkbench_proof_duration_seconds_bucket", "le", bucket_text[i], cum);
        }
        sample_u64(b, "zkbench_proof_duration_seconds_bucket", "le", "+Inf", m->n_proofs);
        sb_put(b, "zkbench_proof_duration_seconds_sum ", 35);
        sb_double(b, m->sum_s);
        sb_put(b, "\n", 1);
        sample_u64(b, "zkbench_proof_duration_seconds_count", NULL, NULL, m->n_proofs);

        family(b, fmt, "zkbench_leak_rate_bytes_per_proof", "gauge", "bytes_per_proof",
               "Growth per proof, fitted with the partitions in flight over the last 32 proofs.");
        /* a watched program's heap is not jemalloc's here: RSS alone */
        for (int l = 0; m->rate_ok && l < (m->heap ? LAYERS : LAYER_ALLOCATED); l++) {
            sb_put(b, "zkbench_leak_rate_bytes_per_proof{layer=", 40);
            sb_label_value(b, layer_name[l]);
            sb_put(b, "} ", 2);
            sb_double(b, m->rate[l]);
            sb_put(b, "\n", 1);
        }
    }
    if (m->verdict[0]) {
        family(b, fmt, "zkbench_verdict", "gauge", NULL,
               "zkbench analyze's verdict of the run so far, and its headline in the same words; 1.");
        sb_put(b, "zkbench_verdict{verdict=", 24);
        sb_label_value(b, m->verdict);
        sb_put(b, ",headline=", 10);
        sb_label_value(b, m->headline);
        sb_put(b, "} 1\n", 4);
    }
    if (m->have_sample) {
        family(b, fmt, "zkbench_sampler_tick_seconds", "gauge", "seconds", "Cost of the sampler's latest tick.");
        sb_put(b, "zkbench_sampler_tick_seconds ", 29);
        sb_double(b, x->tick_us * 1e-6);
        sb_put(b, "\n", 1);
    }
    family(b, fmt, "zkbench_sampler_ticks", "counter", NULL, "Samples taken.");
    sample_u64(b, "zkbench_sampler_ticks_total", NULL, NULL, m->ticks);
    if (fmt == METRICS_OPENMETRICS)
        sb_put(b, "# EOF\n", 6);
}

int metrics_render(metrics_t *m, enum metrics_format fmt, char **text, size_t *len, bool *ended)
{
    /* a copy (about 1 KiB) under the lock, the text outside it: the
     * sampler's tick never waits for a scrape's formatting */
    metrics_t snap;
    pthread_mutex_lock(&m->lock);
    snap = *m;
    pthread_mutex_unlock(&m->lock);
    struct sbuf b = {0};
    render(&snap, fmt, &b);
    if (b.oom) {
        free(b.p);
        return -ENOMEM;
    }
    *text = b.p;
    *len = b.len;
    if (ended)
        *ended = !snap.running;
    return 0;
}
