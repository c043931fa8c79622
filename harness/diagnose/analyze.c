/*
 * The diagnosis of a run (see analyze.h and docs/diagnosis.md). Reads the
 * run's files once, then computes per layer: baseline, a least-squares fit
 * over occupancy (footprints and leak rate g), valley floors, the state after
 * drain; then retention, memory held after last use, queue pile-ups and
 * capacity, and picks one verdict in a fixed priority order.
 *
 * Thresholds (each also in docs/diagnosis.md); they are chosen so that the
 * noise of a sampled RSS (a few MiB, autocorrelated) never decides alone:
 *   leak          a leak layer (tracked, je_allocated, outside-heap, GPU) has
 *                 g above 1.45 times its 95% half-width (about a 99.5%
 *                 interval above 0: four layers are tested, and with 95%
 *                 one healthy noisy synthetic run in 20 had one layer's
 *                 interval above 0), g >= 1 MiB/proof, and a confirmation:
 *                 drained, the layer ends >= a third of g*proofs above B
 *                 (what comes back at the end was held, not lost: a slow
 *                 dealloc queue raises the floors too; a third, not half:
 *                 B and the drained level are medians of 5 samples that
 *                 autocorrelated noise moves together, and at half about 1
 *                 synthetic leak run in 200 under 64 MiB noise ended
 *                 below it); not drained, the valley
 *                 floors rise (their slope's CI above 0); or tracked buffers
 *                 never freed (not the resident kinds) >= 1 MiB.
 *   queue-pileup  q_gpu + n_synth + n_blocked > pw + queue depth for a stretch of >= 3
 *                 samples lasting >= 5% of the active time.
 *   held-too-long sum of bytes * (t_free - t_last_use) >= 8% of the
 *                 tracked working set's area, the integral of (tracked - B)
 *                 over the active time (clean runs: 1-3%; a real batch
 *                 with hold:aux:3000 on porep 2^14: 10%; the synthetic
 *                 held run: 42%).
 *   retention     drained, RSS - je_allocated grew by >= 25% of (peak - B)
 *                 and >= 4 MiB over its baseline gap, while je_allocated is
 *                 back within the larger of 4 MiB and 10% of its working set
 *                 (porep 2^14 on the CPU: no-purge retains 97% / 15-19 MiB,
 *                 --trim proof 7% / 0.9 MiB, no trim 7% / 0.9 MiB; 2^16:
 *                 no-purge 99% / 41 MiB, --trim proof 3% / 1.0 MiB).
 *   capacity      peak RSS above RAM * (1 - margin).
 *   healthy       none of the above.
 */
#include "harness/diagnose/analyze.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/diagnose/analyze_watch.h"
#include "harness/run/run_csv.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

/* Thresholds: see the comment at the top. */
#define LEAK_MIN_PER_PROOF (1.0 * MIB)
#define LEAK_SIGNIFICANCE 1.45 /* x the 95% half-width: about 99.5%, two-sided */
#define LEAK_NEVER_FREED_MIN (1.0 * MIB)
#define PILEUP_MIN_SAMPLES 3
#define PILEUP_MIN_SHARE 0.05
#define HELD_MIN_SHARE 0.08
#define RETENTION_MIN_SHARE 0.25
#define RETENTION_MIN_BYTES (4.0 * MIB)
#define RETENTION_HEAP_SLACK 0.10
#define BASELINE_SAMPLES 5
#define DRAIN_SAMPLES 5

struct analyze_run {
    char *dir;
    run_csv_t samples, buffers, stages, proofs, marks, sites;
    bool watch; /* a run of zkbench watch (analyze_watch.c) */
    json_t *run_json;
    json_t *notes; /* array of strings */
};

const char *analyze_verdict_name(analyze_verdict_t v)
{
    static const char *const names[] = {"leak", "queue-pileup", "held-too-long", "retention", "capacity", "healthy"};
    return (unsigned)v < 6 ? names[v] : "?";
}

const char *analyze_layer_name(int layer)
{
    static const char *const names[] = {"tracked", "je_allocated", "je_resident", "rss", "outside_heap", "gpu_used"};
    return layer >= 0 && layer < ANALYZE_NLAYERS ? names[layer] : "?";
}

const char *analyze_x_name(int x)
{
    static const char *const names[] = {"n_synth", "q_gpu", "n_gpu", "n_finish", "n_blocked", "proofs_done"};
    return x >= 0 && x < ANALYZE_NX ? names[x] : "?";
}

/* ---- statistics ---- */

double analyze_t95(double dof)
{
    static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                               2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (!(dof >= 1))
        return NAN;
    if (dof <= 30)
        return t[(int)floor(dof) - 1];
    return 1.96 + 2.4 / dof; /* within 0.005 of the exact quantile above 30 */
}

int analyze_ols(analyze_ols_t *ret, const double *x, const double *y, size_t n, size_t p)
{
    if (p == 0 || p > 8)
        return -EINVAL;
    analyze_ols_t o = {.n = n, .p = p};
    double *q = malloc(n * p * sizeof *q); /* column-major Q */
    double *e = malloc(n * sizeof *e);
    if (!q || !e) {
        free(q);
        free(e);
        return -ENOMEM;
    }
    double r[8][8] = {{0}};
    size_t kept[8], nk = 0;
    for (size_t j = 0; j < p; j++) {
        double *v = q + j * n, norm0 = 0, mean = 0, var = 0;
        for (size_t i = 0; i < n; i++) {
            v[i] = x[i * p + j];
            norm0 += v[i] * v[i];
            mean += v[i];
        }
        mean = n ? mean / (double)n : 0;
        for (size_t i = 0; i < n; i++)
            var += (v[i] - mean) * (v[i] - mean);
        norm0 = sqrt(norm0);
        bool is_intercept = j == 0 && var == 0 && norm0 > 0;
        if (norm0 == 0 || (!is_intercept && var <= 1e-12 * norm0 * norm0))
            continue; /* constant (or all zero): dropped */
        for (size_t kk = 0; kk < nk; kk++) {
            double *u = q + kept[kk] * n, d = 0;
            for (size_t i = 0; i < n; i++)
                d += u[i] * v[i];
            r[kk][nk] = d;
            for (size_t i = 0; i < n; i++)
                v[i] -= d * u[i];
        }
        double norm = 0;
        for (size_t i = 0; i < n; i++)
            norm += v[i] * v[i];
        norm = sqrt(norm);
        if (norm <= 1e-9 * norm0) {
            for (size_t kk = 0; kk < nk; kk++)
                r[kk][nk] = 0;
            continue; /* collinear with earlier columns: dropped */
        }
        for (size_t i = 0; i < n; i++)
            v[i] /= norm;
        r[nk][nk] = norm;
        kept[nk++] = j;
        o.kept[j] = true;
    }
    o.rank = nk;
    /* beta: R b = Q^T y */
    double qty[8], b[8] = {0};
    for (size_t kk = 0; kk < nk; kk++) {
        double *u = q + kept[kk] * n, d = 0;
        for (size_t i = 0; i < n; i++)
            d += u[i] * y[i];
        qty[kk] = d;
    }
    for (size_t kk = nk; kk-- > 0;) {
        double s = qty[kk];
        for (size_t l = kk + 1; l < nk; l++)
            s -= r[kk][l] * b[l];
        b[kk] = s / r[kk][kk];
    }
    for (size_t kk = 0; kk < nk; kk++)
        o.beta[kept[kk]] = b[kk];
    /* residuals */
    double ssr = 0, sst = 0, ymean = 0, lag = 0;
    for (size_t i = 0; i < n; i++)
        ymean += y[i];
    ymean = n ? ymean / (double)n : 0;
    for (size_t i = 0; i < n; i++) {
        double f = 0;
        for (size_t j = 0; j < p; j++)
            f += x[i * p + j] * o.beta[j];
        e[i] = y[i] - f;
        ssr += e[i] * e[i];
        sst += (y[i] - ymean) * (y[i] - ymean);
        if (i > 0)
            lag += e[i] * e[i - 1];
    }
    o.rho = ssr > 0 ? lag / ssr : 0;
    if (o.rho < 0)
        o.rho = 0;
    if (o.rho > 0.98)
        o.rho = 0.98;
    o.n_eff = (double)n * (1 - o.rho) / (1 + o.rho);
    o.r2 = sst > 0 ? 1 - ssr / sst : 1;
    double dof = (double)n - (double)nk;
    o.dof = o.n_eff - (double)nk;
    o.resid_sd = dof > 0 ? sqrt(ssr / dof) : NAN;
    /* covariance: sigma^2 R^-1 R^-T, inflated by (1+rho)/(1-rho) */
    double rinv[8][8] = {{0}};
    for (size_t kk = nk; kk-- > 0;) {
        rinv[kk][kk] = 1 / r[kk][kk];
        for (size_t l = kk + 1; l < nk; l++) {
            double s = 0;
            for (size_t m = kk + 1; m <= l; m++)
                s += r[kk][m] * rinv[m][l];
            rinv[kk][l] = -s / r[kk][kk];
        }
    }
    double infl = (1 + o.rho) / (1 - o.rho);
    for (size_t kk = 0; kk < nk; kk++) {
        double v = 0;
        for (size_t l = kk; l < nk; l++)
            v += rinv[kk][l] * rinv[kk][l];
        o.se[kept[kk]] = dof > 0 ? sqrt(v * ssr / dof * infl) : NAN;
    }
    free(q);
    free(e);
    *ret = o;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double analyze_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return v[n / 2];
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_double);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

/* Slope of y over x with intercept: slope, its 95% CI. Returns false when
 * there are fewer than 3 points or x is constant. */
static bool fit_line(double *slope, double *lo, double *hi, const double *xs, const double *ys, size_t n)
{
    if (n < 3)
        return false;
    double *x = malloc(2 * n * sizeof *x);
    if (!x)
        return false;
    for (size_t i = 0; i < n; i++) {
        x[2 * i] = 1;
        x[2 * i + 1] = xs[i];
    }
    analyze_ols_t o;
    int rc = analyze_ols(&o, x, ys, n, 2);
    free(x);
    if (rc < 0 || !o.kept[1])
        return false;
    double t = analyze_t95(o.dof >= 1 ? o.dof : 1);
    *slope = o.beta[1];
    *lo = o.beta[1] - t * o.se[1];
    *hi = o.beta[1] + t * o.se[1];
    if (!isfinite(*lo)) { /* a perfect fit through three points: no spread */
        *lo = *hi = *slope;
    }
    return true;
}

int analyze_trend(analyze_trend_t *ret, const double *t_ms, const double *y, size_t n, size_t n_windows)
{
    if (n < 3)
        return -EINVAL;
    analyze_trend_t tr = {0};
    double *ts = malloc(n * sizeof *ts);
    if (!ts)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        ts[i] = t_ms[i] / 1000.0;
    if (!fit_line(&tr.slope, &tr.slope_lo, &tr.slope_hi, ts, y, n)) {
        free(ts);
        return -EINVAL;
    }
    if (n_windows > 32)
        n_windows = 32;
    if (n_windows > n / 2)
        n_windows = n / 2;
    double wt[32];
    for (size_t w = 0; w < n_windows; w++) {
        size_t a = w * n / n_windows, b = (w + 1) * n / n_windows;
        double m = INFINITY, at = ts[a];
        for (size_t i = a; i < b; i++)
            if (y[i] < m) {
                m = y[i];
                at = ts[i];
            }
        tr.floors[w] = m;
        wt[w] = at;
    }
    tr.n_windows = n_windows;
    if (!fit_line(&tr.floor_slope, &tr.floor_lo, &tr.floor_hi, wt, tr.floors, n_windows))
        tr.floor_slope = tr.floor_lo = tr.floor_hi = NAN;
    size_t a = 2 * n / 3;
    if (!fit_line(&tr.last_third_slope, &tr.last_third_lo, &tr.last_third_hi, ts + a, y + a, n - a))
        tr.last_third_slope = tr.last_third_lo = tr.last_third_hi = NAN;
    /* Noise scale from successive differences (robust: median absolute
     * difference, 1.4826 / sqrt(2) turns it into a standard deviation). */
    double *d = malloc((n - 1) * sizeof *d);
    double noise = 0;
    if (d) {
        for (size_t i = 1; i < n; i++)
            d[i - 1] = fabs(y[i] - y[i - 1]);
        noise = 1.4826 / sqrt(2.0) * analyze_median(d, n - 1);
        free(d);
    }
    double rise = n_windows ? tr.floors[n_windows - 1] - tr.floors[0] : 0;
    double last_growth = isfinite(tr.last_third_slope) ? tr.last_third_slope * (ts[n - 1] - ts[a]) : 0;
    tr.noise = noise;
    tr.floor_rise = rise;
    /* growing: the line's slope is significant, or the valley floors rose
     * well above the noise; plateau: it grew, but the last third added less
     * than a tenth of the rise (a bounded cache, not a leak) */
    tr.growing = tr.slope_lo > 0 || (rise > 6 * noise && rise > 0 && tr.floor_slope > 0);
    tr.plateau = tr.growing && last_growth < fmax(3 * noise, 0.1 * rise);
    free(ts);
    *ret = tr;
    return 0;
}

bool analyze_parse_size(uint64_t *ret, const char *text)
{
    char *end;
    errno = 0;
    if (!text || !((*text >= '0' && *text <= '9') || *text == '.'))
        return false;
    double v = strtod(text, &end);
    if (errno || !isfinite(v) || v < 0)
        return false;
    double mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1024.0; break;
        case 'm': case 'M': mul = MIB; break;
        case 'g': case 'G': mul = GIB; break;
        case 't': case 'T': mul = GIB * 1024.0; break;
        case 'b': case 'B': mul = 1; break;
        default: return false;
        }
        end++;
        if (mul > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "ib") == 0 || strcmp(end, "B") == 0 ||
                        strcmp(end, "b") == 0))
            end += strlen(end);
        if (*end)
            return false;
    } else if (v != floor(v)) {
        return false; /* fractional bytes */
    }
    v *= mul;
    if (v >= 18446744073709551615.0 || v < 1)
        return false;
    *ret = (uint64_t)llround(v);
    return true;
}

/* ---- loading ---- */

static int note(analyze_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(analyze_run_t *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return json_array_append_new(r->notes, json_string(buf));
}

void analyze_run_free(analyze_run_t *r)
{
    if (!r)
        return;
    run_csv_free(&r->samples);
    run_csv_free(&r->buffers);
    run_csv_free(&r->stages);
    run_csv_free(&r->proofs);
    run_csv_free(&r->marks);
    run_csv_free(&r->sites);
    json_decref(r->run_json);
    json_decref(r->notes);
    free(r->dir);
    free(r);
}

const json_t *analyze_run_json(const analyze_run_t *run)
{
    return run->run_json;
}

const run_csv_t *analyze_run_csv(const analyze_run_t *run, const char *name)
{
    if (strcmp(name, "samples.csv") == 0)
        return &run->samples;
    if (strcmp(name, "buffers.csv") == 0)
        return &run->buffers;
    if (strcmp(name, "stages.csv") == 0)
        return &run->stages;
    if (strcmp(name, "proofs.csv") == 0)
        return &run->proofs;
    if (strcmp(name, "marks.csv") == 0)
        return &run->marks;
    if (strcmp(name, "sites.csv") == 0)
        return &run->sites;
    return NULL;
}

bool analyze_run_is_watch(const analyze_run_t *run)
{
    return run->watch;
}

const char *analyze_run_dir(const analyze_run_t *run)
{
    return run->dir;
}

const json_t *analyze_run_notes(const analyze_run_t *run)
{
    return run->notes;
}

/* Reads RUN_DIR/name; optional: a missing file leaves csv empty (no
 * columns, no rows) with a note. */
static int load_csv(analyze_run_t *r, run_csv_t *csv, const char *name, const run_csv_opts_t *o, bool optional,
                    char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    if (optional && access(path, F_OK) < 0 && errno == ENOENT)
        return 0;
    int rc = run_csv_read_opts(csv, path, o, err, errlen);
    if (rc < 0)
        return rc;
    if (csv->dropped_tail)
        note(r, "%s: dropped the partial last row (line %zu, no newline at the end) of an interrupted write", name,
             csv->tail_line);
    return 0;
}

/* Whether run.json and samples.csv describe a watch run: config.mode pid or
 * command, or (no batch config) no heap counters at all. */
static bool run_is_watch(const json_t *rj, const run_csv_t *s)
{
    const json_t *cfg = json_object_get(rj, "config");
    const char *mode = json_string_value(json_object_get(cfg, "mode"));
    if (mode && (strcmp(mode, "pid") == 0 || strcmp(mode, "command") == 0))
        return true;
    if (json_object_get(cfg, "pw"))
        return false;
    return run_csv_col(s, "je_allocated") < 0 && run_csv_col(s, "je_resident") < 0;
}

/* The largest plausible count (processes, proofs, partitions in a stage)
 * and value (bytes, milliseconds) in samples.csv; past them a file is
 * damaged. */
#define SAMPLE_COUNT_MAX ((double)(1 << 20))
#define SAMPLE_VALUE_MAX 1152921504606846976.0 /* 2^60 */

static bool sample_is_count(const char *name)
{
    size_t len = strlen(name);
    return strncmp(name, "n_", 2) == 0 || strncmp(name, "q_", 2) == 0 ||
           (len > 5 && strcmp(name + len - 5, "_done") == 0);
}

int analyze_run_load(analyze_run_t **ret, const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) < 0) {
        snprintf(err, errlen, "%s: %s, expected a run directory (zkbench batch --out)", dir, strerror(errno));
        return -ENOENT;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a directory, expected a run directory (zkbench batch --out)", dir);
        return -ENOTDIR;
    }
    analyze_run_t *r = calloc(1, sizeof *r);
    if (!r || !(r->dir = strdup(dir)) || !(r->notes = json_array())) {
        analyze_run_free(r);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    static const char *const s_req[] = {"t_ms", "rss", "je_allocated", "je_resident", "gpu_used", "n_synth",
                                        "q_gpu", "n_gpu", "n_finish", "proofs_done", NULL};
    static const char *const s_req_watch[] = {"t_ms", "rss", NULL};
    static const char *const b_req[] = {"id", "kind", "device", "proof", "partition", "bytes",
                                        "t_alloc_ms", "t_free_ms", NULL};
    static const char *const b_text[] = {"kind", "device", "site", NULL};
    static const char *const b_empty[] = {"t_free_ms", "t_last_use_ms", NULL};
    static const char *const bw_req[] = {"id", "kind", "bytes", "t_alloc_ms", "t_free_ms", NULL};
    static const char *const bw_empty[] = {"t_free_ms", "t_last_use_ms", "proof", "partition", NULL};
    static const char *const st_req[] = {"proof", "partition", "stage", "worker", "t_start_ms", "t_end_ms", NULL};
    static const char *const st_text[] = {"stage", "worker", NULL};
    static const char *const st_empty[] = {"t_end_ms", NULL};
    static const char *const p_req[] = {"proof", "t_submit_ms", "t_start_ms", "t_done_ms", "wall_ms", "verified",
                                        NULL};
    static const char *const p_empty[] = {"t_start_ms", "t_done_ms", "wall_ms", "verified", NULL};
    static const char *const m_req[] = {"t_ms", NULL};
    static const char *const m_text[] = {"source", "name", NULL};
    static const char *const m_empty[] = {"pid", NULL};
    static const char *const si_req[] = {"site", NULL};
    static const char *const si_text[] = {"site", "function", "file", "module", "frames", NULL};
    static const char *const si_empty[] = {"line", "n_allocs", "bytes_total", "n_small", "bytes_small",
                                           "never_freed_bytes", NULL};
    int rc;
    /* samples.csv first, leniently: whether heap columns are filled decides
     * (with run.json) how the rest is read */
    const run_csv_opts_t so = {.required = s_req_watch, .empty_cols_absent = true};
    if ((rc = load_csv(r, &r->samples, "samples.csv", &so, false, err, errlen)) < 0)
        goto fail;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_error_t je;
    r->run_json = json_load_file(path, 0, &je);
    if (!r->run_json) {
        if (access(path, F_OK) < 0)
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        else
            snprintf(err, errlen, "%s:%d: %s, expected a JSON object", path, je.line, je.text);
        rc = -EINVAL;
        goto fail;
    }
    if (!json_is_object(r->run_json)) {
        snprintf(err, errlen, "%s: expected a JSON object at the top", path);
        rc = -EINVAL;
        goto fail;
    }
    const run_csv_t *s = &r->samples;
    r->watch = run_is_watch(r->run_json, s);
    if (!r->watch) {
        /* a batch fills every column: the strict rules of a batch run */
        for (const char *const *q = s_req; *q; q++) {
            bool in_header = false;
            for (size_t j = 0; j < s->ncols && !in_header; j++)
                in_header = strcmp(s->names[j], *q) == 0;
            if (!in_header) {
                snprintf(err, errlen, "%s/samples.csv:1: header lacks column '%s' (is this a zkbench run file?)",
                         dir, *q);
                rc = -EINVAL;
                goto fail;
            }
        }
        for (size_t j = 0; j < s->ncols; j++)
            if (run_csv_absent(s, j)) {
                snprintf(err, errlen, "%s/samples.csv:%zu: column %s is empty, expected a number", dir,
                         s->first_line, s->names[j]);
                rc = -EINVAL;
                goto fail;
            }
        const run_csv_opts_t bo = {.required = b_req, .text_cols = b_text, .empty_ok = b_empty},
                             sto = {.required = st_req, .text_cols = st_text, .empty_ok = st_empty},
                             po = {.required = p_req, .empty_ok = p_empty};
        if ((rc = load_csv(r, &r->buffers, "buffers.csv", &bo, false, err, errlen)) < 0 ||
            (rc = load_csv(r, &r->stages, "stages.csv", &sto, false, err, errlen)) < 0 ||
            (rc = load_csv(r, &r->proofs, "proofs.csv", &po, false, err, errlen)) < 0)
            goto fail;
    } else {
        /* a watch writes what it can: buffers and sites with --trace, marks
         * with --mark or the API; kinds are site labels or user tags */
        const run_csv_opts_t bo = {.required = bw_req, .text_cols = b_text, .empty_ok = bw_empty},
                             mo = {.required = m_req, .text_cols = m_text, .empty_ok = m_empty},
                             sio = {.required = si_req, .text_cols = si_text, .empty_ok = si_empty};
        if ((rc = load_csv(r, &r->buffers, "buffers.csv", &bo, true, err, errlen)) < 0 ||
            (rc = load_csv(r, &r->marks, "marks.csv", &mo, true, err, errlen)) < 0 ||
            (rc = load_csv(r, &r->sites, "sites.csv", &sio, true, err, errlen)) < 0)
            goto fail;
        const run_csv_t *m = &r->marks;
        int mt = run_csv_col(m, "t_ms");
        for (size_t i = 0; i < m->nrows; i++)
            if (run_csv_num(m, i, mt) < 0) {
                snprintf(err, errlen, "%s/marks.csv: row %zu: t_ms is %.3f, expected a time since the run's start",
                         dir, i + 1, run_csv_num(m, i, mt));
                rc = -EINVAL;
                goto fail;
            }
    }
    /* samples: time must not go backwards and bytes must not be negative. */
    int tcol = run_csv_col(s, "t_ms");
    for (size_t i = 0; i < s->nrows; i++) {
        if (i > 0 && run_csv_num(s, i, tcol) < run_csv_num(s, i - 1, tcol)) {
            snprintf(err, errlen, "%s/samples.csv: row %zu: t_ms %.3f is before the previous row's %.3f, expected "
                     "increasing times", dir, i + 1, run_csv_num(s, i, tcol), run_csv_num(s, i - 1, tcol));
            rc = -EINVAL;
            goto fail;
        }
        for (size_t j = 0; j < s->ncols; j++) {
            double v = s->num[i * s->ncols + j];
            const char *name = s->names[j];
            if (v < 0) {
                snprintf(err, errlen, "%s/samples.csv: row %zu: %s is %.0f, expected a non-negative value", dir,
                         i + 1, name, v);
                rc = -EINVAL;
                goto fail;
            }
            /* bounds that keep every later conversion to an integer
             * defined: a count (n_*, q_*, *_done) past 2^20 or any value
             * past 2^60 (bytes, ms) is damage, not a measurement */
            double lim = sample_is_count(name) ? SAMPLE_COUNT_MAX : SAMPLE_VALUE_MAX;
            if (v > lim) { /* NaN passes: a column empty in every row is absent */
                snprintf(err, errlen, "%s/samples.csv: row %zu: %s is %g, expected at most %.0f", dir, i + 1,
                         name, v, lim);
                rc = -EINVAL;
                goto fail;
            }
        }
    }
    const run_csv_t *b = &r->buffers;
    int bc = run_csv_col(b, "bytes");
    for (size_t i = 0; i < b->nrows; i++)
        if (!(run_csv_num(b, i, bc) >= 0 && run_csv_num(b, i, bc) <= SAMPLE_VALUE_MAX)) {
            snprintf(err, errlen, "%s/buffers.csv: row %zu: bytes is %g, expected an integer in 0..2^60", dir,
                     i + 1, run_csv_num(b, i, bc));
            rc = -EINVAL;
            goto fail;
        }
    /* proof and partition numbers (negative: untagged) are combined into
     * one index by the capacity model: past 2^31 and 2^20 a file is damaged */
    const run_csv_t *tagged[] = {&r->buffers, &r->stages};
    const char *tagged_name[] = {"buffers.csv", "stages.csv"};
    for (int f = 0; f < 2; f++)
        for (int which = 0; which < 2; which++) {
            const char *col = which ? "partition" : "proof";
            double lim = which ? SAMPLE_COUNT_MAX : 2147483648.0;
            int cc = run_csv_col(tagged[f], col);
            for (size_t i = 0; cc >= 0 && i < tagged[f]->nrows; i++)
                if (run_csv_num(tagged[f], i, cc) > lim) {
                    snprintf(err, errlen, "%s/%s: row %zu: %s is %g, expected at most %.0f", dir, tagged_name[f],
                             i + 1, col, run_csv_num(tagged[f], i, cc), lim);
                    rc = -EINVAL;
                    goto fail;
                }
        }
    *ret = r;
    return 0;
fail:
    analyze_run_free(r);
    return rc;
}

/* ---- run.json helpers ---- */

static double jnum_get(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v)) { /* sizes recorded as text, e.g. "755G" */
        uint64_t sz;
        if (analyze_parse_size(&sz, json_string_value(v)))
            return (double)sz;
    }
    return NAN;
}

static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jbytes(double v)
{
    return isfinite(v) ? json_integer((json_int_t)llround(v)) : json_null();
}

/* ---- the analysis ---- */

typedef struct {
    size_t n;
    double *t;                   /* ms */
    double *layer[ANALYZE_NLAYERS];
    double *x[ANALYZE_NX];
    double *occ_sum;             /* q_gpu + n_synth + n_blocked */
    bool *idle, *started;
    bool has_tracked, has_gpu;
} series_t;

static void series_free(series_t *s)
{
    free(s->t);
    for (int l = 0; l < ANALYZE_NLAYERS; l++)
        free(s->layer[l]);
    for (int x = 0; x < ANALYZE_NX; x++)
        free(s->x[x]);
    free(s->occ_sum);
    free(s->idle);
    free(s->started);
}

static int series_build(series_t *s, const run_csv_t *c)
{
    size_t n = c->nrows;
    memset(s, 0, sizeof *s);
    s->n = n;
    s->t = malloc(n * sizeof(double));
    s->occ_sum = malloc(n * sizeof(double));
    s->idle = malloc(n * sizeof(bool));
    s->started = malloc(n * sizeof(bool));
    bool ok = s->t && s->occ_sum && s->idle && s->started;
    for (int l = 0; l < ANALYZE_NLAYERS; l++)
        ok = ok && (s->layer[l] = calloc(n, sizeof(double)));
    for (int x = 0; x < ANALYZE_NX; x++)
        ok = ok && (s->x[x] = calloc(n, sizeof(double)));
    if (!ok)
        return -ENOMEM;
    int ct = run_csv_col(c, "t_ms"), crss = run_csv_col(c, "rss"), cal = run_csv_col(c, "je_allocated"),
        cres = run_csv_col(c, "je_resident"), cgpu = run_csv_col(c, "gpu_used"),
        cq_synth = run_csv_col(c, "q_synth"), cpd = run_csv_col(c, "partitions_done"),
        cdl = run_csv_col(c, "n_dealloc");
    int cx[ANALYZE_NX];
    for (int x = 0; x < ANALYZE_NX; x++)
        cx[x] = run_csv_col(c, analyze_x_name(x));
    int live[64], nlive = 0;
    for (size_t j = 0; j < c->ncols && nlive < 64; j++)
        if (strncmp(c->names[j], "live_", 5) == 0 && strncmp(c->names[j], "live_gpu_", 9) != 0)
            live[nlive++] = (int)j;
    s->has_tracked = nlive > 0;
    for (size_t i = 0; i < n; i++) {
        s->t[i] = run_csv_num(c, i, ct);
        double tr = 0;
        for (int k = 0; k < nlive; k++)
            tr += run_csv_num(c, i, live[k]);
        s->layer[ANALYZE_L_TRACKED][i] = tr;
        s->layer[ANALYZE_L_HEAP][i] = run_csv_num(c, i, cal);
        s->layer[ANALYZE_L_RESIDENT][i] = run_csv_num(c, i, cres);
        s->layer[ANALYZE_L_RSS][i] = run_csv_num(c, i, crss);
        s->layer[ANALYZE_L_OUTSIDE][i] = run_csv_num(c, i, crss) - run_csv_num(c, i, cres);
        s->layer[ANALYZE_L_GPU][i] = run_csv_num(c, i, cgpu);
        if (s->layer[ANALYZE_L_GPU][i] > 0)
            s->has_gpu = true;
        /* idle: nothing in the pipeline (waiting, in a stage, or being released) */
        bool idle = true;
        for (int x = 0; x < ANALYZE_NX; x++) {
            s->x[x][i] = cx[x] >= 0 ? run_csv_num(c, i, cx[x]) : 0;
            if (x != ANALYZE_X_PROOFS && s->x[x][i] != 0)
                idle = false;
        }
        if ((cq_synth >= 0 && run_csv_num(c, i, cq_synth) != 0) || (cdl >= 0 && run_csv_num(c, i, cdl) != 0))
            idle = false;
        s->idle[i] = idle;
        /* started: work has begun (or was done before this sample) */
        s->started[i] = !idle || s->x[ANALYZE_X_PROOFS][i] != 0 || (cpd >= 0 && run_csv_num(c, i, cpd) != 0);
        s->occ_sum[i] = s->x[ANALYZE_X_QUEUE][i] + s->x[ANALYZE_X_SYNTH][i] + s->x[ANALYZE_X_BLOCKED][i];
    }
    return 0;
}

/* Index of the first sample with work in the pipeline (n when none). */
static size_t first_active(const series_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->started[i])
            return i;
    return s->n;
}

static bool kind_is_resident(const char *kind, double proof)
{
    if (strcmp(kind, "params") == 0 || strcmp(kind, "circuit") == 0 || strcmp(kind, "gpu_params") == 0 ||
        strcmp(kind, "gpu_circuit") == 0)
        return true;
    return (strcmp(kind, "ntt") == 0 || strcmp(kind, "gpu_ntt") == 0) && proof == -1;
}

/* Adds v to obj[key] (a number), creating it. */
static void json_add(json_t *obj, const char *key, double v)
{
    json_t *o = json_object_get(obj, key);
    double cur = json_is_number(o) ? json_number_value(o) : 0;
    json_object_set_new(obj, key, json_real(cur + v));
}

static void json_add_count(json_t *obj, const char *kind, double bytes)
{
    json_t *k = json_object_get(obj, kind);
    if (!k) {
        k = json_object();
        json_object_set_new(obj, kind, k);
        json_object_set_new(k, "count", json_integer(0));
        json_object_set_new(k, "bytes", json_integer(0));
    }
    json_object_set_new(k, "count", json_integer(json_integer_value(json_object_get(k, "count")) + 1));
    json_object_set_new(k, "bytes",
                        json_integer(json_integer_value(json_object_get(k, "bytes")) + (json_int_t)llround(bytes)));
}

/* A count from run.json's config: -1 when absent, or when it is no
 * plausible count (negative, fractional, past 2^20: a damaged file). */
static int config_int(const json_t *cfg, const char *key)
{
    double v = jnum_get(cfg, key);
    return isfinite(v) && v >= 0 && v <= (double)(1 << 20) && v == floor(v) ? (int)v : -1;
}

static json_t *coef_json(double v, double se)
{
    json_t *o = json_object();
    json_object_set_new(o, "value", jbytes(v));
    json_object_set_new(o, "se", jbytes(se));
    return o;
}

char *analyze_fmt_bytes(char *buf, size_t len, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(buf, len, "n/a");
    else if (a < 0.5)
        snprintf(buf, len, "0 B"); /* not "-0 B" */
    else if (a >= GIB)
        snprintf(buf, len, "%.2f GiB", v / GIB);
    else if (a >= MIB)
        snprintf(buf, len, "%.1f MiB", v / MIB);
    else if (a >= 1024)
        snprintf(buf, len, "%.1f KiB", v / 1024);
    else
        snprintf(buf, len, "%.0f B", v);
    return buf;
}

/* What the capacity model says about other pw values, in one clause. */
static void capacity_fits_text(char *out, size_t cap, const analyze_result_t *R)
{
    const capacity_model_t *m = &R->capacity;
    char b1[32], b2[32], b3[32], bound[400];
    if (!m->ok) {
        snprintf(out, cap, "the largest pw that fits cannot be given: %s", m->why);
        return;
    }
    capacity_bound_text(bound, sizeof bound, m, 4096);
    int n = snprintf(out, cap, "a partition holds %s synthesizing, %s waiting, %s proving, %s finishing, plus "
                     "%.0f%% untracked; %s",
                     analyze_fmt_bytes(b1, sizeof b1, m->state_bytes[CAPACITY_SYNTH]),
                     analyze_fmt_bytes(b2, sizeof b2, m->state_bytes[CAPACITY_HELD]),
                     analyze_fmt_bytes(b3, sizeof b3, m->state_bytes[CAPACITY_PROVE]),
                     analyze_fmt_bytes((char[32]){0}, 32, m->state_bytes[CAPACITY_FINISH]),
                     100 * m->untracked_share, bound);
    if (n > 0 && (size_t)n < cap && R->largest_pw >= 0)
        snprintf(out + n, cap - (size_t)n, "; the largest pw that fits is %d", R->largest_pw);
}

int analyze_compute(analyze_result_t *ret, const analyze_run_t *run, const analyze_opts_t *opts, char *err,
                    size_t errlen)
{
    analyze_result_t R = {0};
    series_t S;
    const run_csv_t *sc = &run->samples;
    if (run->watch && sc->nrows > 0)
        return analyze_watch_compute(ret, run, opts, err, errlen);
    if (sc->nrows == 0) {
        snprintf(err, errlen, "%s/samples.csv: no samples (empty run), expected at least one sampler tick", run->dir);
        return -EINVAL;
    }
    if (series_build(&S, sc) < 0) {
        series_free(&S);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    json_t *J = json_object(), *notes = json_deep_copy(run->notes);
    const json_t *rj = run->run_json, *cfg = json_object_get(rj, "config"), *sum = json_object_get(rj, "summary"),
                 *machine = json_object_get(rj, "machine");
    size_t n = S.n, i0 = first_active(&S);
    char b1[32], b2[32], b3[32];
    R.samples = n;
    R.leak_layer = -1;
    R.largest_pw = -1;
    R.limit_rss = NAN;

    /* -- run status: did it complete, did it drain? -- */
    const char *status = json_string_value(json_object_get(rj, "status"));
    bool interrupted = json_is_true(json_object_get(rj, "interrupted")) ||
                       (status && strcmp(status, "complete") != 0 && strcmp(status, "running") != 0);
    size_t drain_from = n;
    while (drain_from > i0 && S.idle[drain_from - 1])
        drain_from--;
    bool drained = i0 < n && drain_from < n && drain_from > i0;
    size_t nd = drained ? n - drain_from : 0;
    size_t d0 = drained ? n - (nd < DRAIN_SAMPLES ? nd : DRAIN_SAMPLES) : n;
    R.proofs_done = (size_t)S.x[ANALYZE_X_PROOFS][n - 1];
    if (i0 == n)
        json_array_append_new(notes, json_string("samples.csv: no sample shows work in the pipeline (all "
                                                 "occupancy columns are 0): nothing was proved"));
    if (!drained)
        json_array_append_new(notes, json_string("the run did not drain (the last samples still show work): "
                                                 "'after drain' values are the last samples'"));

    /* -- baseline -- */
    size_t nb = i0 < BASELINE_SAMPLES ? i0 : BASELINE_SAMPLES, b0 = i0 - nb;
    /* run.json's baseline: "baseline" at the top (zkbench batch), or in the
     * summary as an object or as baseline_<layer> keys. Its "tracked" counts
     * device kinds too, so the tracked layer (host kinds) comes from samples. */
    json_t *jbase = json_object(), *jsb = json_object_get(rj, "baseline");
    if (!json_is_object(jsb))
        jsb = json_is_object(sum) ? json_object_get(sum, "baseline") : NULL;
    for (int l = 0; l < ANALYZE_NLAYERS; l++) {
        analyze_layer_t *L = &R.layer[l];
        char key[64];
        double v = NAN;
        if (l != ANALYZE_L_TRACKED && l != ANALYZE_L_OUTSIDE) {
            snprintf(key, sizeof key, "baseline_%s", analyze_layer_name(l));
            v = jnum_get(jsb, analyze_layer_name(l));
            if (!isfinite(v))
                v = jnum_get(sum, key);
        }
        if (l == ANALYZE_L_OUTSIDE)
            v = R.layer[ANALYZE_L_RSS].baseline - R.layer[ANALYZE_L_RESIDENT].baseline;
        const char *src = l == ANALYZE_L_OUTSIDE ? "rss - je_resident" : "run.json";
        if (!isfinite(v)) {
            src = nb ? "median of the last idle samples before the first partition" : "first sample";
            v = nb ? analyze_median(S.layer[l] + b0, nb) : S.layer[l][0];
        }
        L->baseline = v;
        json_t *o = json_object();
        json_object_set_new(o, "bytes", jbytes(v));
        json_object_set_new(o, "source", json_string(src));
        json_object_set_new(jbase, analyze_layer_name(l), o);
    }
    if (nb == 0 && i0 < n)
        json_array_append_new(notes, json_string("samples.csv: no idle sample before the first partition: the "
                                                 "baseline is taken from the first sample (or run.json)"));
    json_object_set_new(J, "baseline", jbase);

    /* -- proof completion times -- */
    size_t np = 0;
    double *tdone = malloc((run->proofs.nrows + 1) * sizeof *tdone);
    int ctd = run_csv_col(&run->proofs, "t_done_ms");
    for (size_t i = 0; tdone && i < run->proofs.nrows; i++) {
        double t = run_csv_num(&run->proofs, i, ctd);
        if (isfinite(t))
            tdone[np++] = t;
    }
    if (tdone)
        qsort(tdone, np, sizeof *tdone, cmp_double);
    if (R.proofs_done < np)
        R.proofs_done = np;

    /* -- fits, floors, drain, per layer -- */
    size_t nf = n - b0, p = 1 + ANALYZE_NX;
    double *X = malloc(nf * p * sizeof *X), *fl = malloc((np + 1) * sizeof *fl), *fk = malloc((np + 1) * sizeof *fk);
    if (!X || !fl || !fk || !tdone) {
        free(X);
        free(fl);
        free(fk);
        free(tdone);
        series_free(&S);
        json_decref(J);
        json_decref(notes);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; i < nf; i++) {
        X[i * p] = 1;
        for (int x = 0; x < ANALYZE_NX; x++)
            X[i * p + 1 + (size_t)x] = S.x[x][b0 + i];
    }
    double peak_work = 0; /* peak RSS - B */
    json_t *jlayers = json_object();
    for (int l = 0; l < ANALYZE_NLAYERS; l++) {
        analyze_layer_t *L = &R.layer[l];
        double *y = S.layer[l];
        L->peak = -INFINITY;
        for (size_t i = 0; i < n; i++)
            L->peak = fmax(L->peak, y[i]);
        L->end = analyze_median(y + d0 - (d0 == n ? (n < DRAIN_SAMPLES ? n : DRAIN_SAMPLES) : 0),
                        d0 == n ? (n < DRAIN_SAMPLES ? n : DRAIN_SAMPLES) : n - d0);
        L->after_drain = drained ? L->end : NAN;
        L->g = L->g_lo = L->g_hi = L->floor_slope = L->floor_lo = L->floor_hi = NAN;
        json_t *o = json_object();
        json_object_set_new(jlayers, analyze_layer_name(l), o);
        json_object_set_new(o, "baseline", jbytes(L->baseline));
        json_object_set_new(o, "peak", jbytes(L->peak));
        json_object_set_new(o, "end", jbytes(L->end));
        json_object_set_new(o, "after_drain", jbytes(L->after_drain));
        json_object_set_new(o, "after_drain_minus_baseline", jbytes(L->after_drain - L->baseline));
        if ((l == ANALYZE_L_TRACKED && !S.has_tracked) || (l == ANALYZE_L_GPU && !S.has_gpu)) {
            json_object_set_new(o, "fitted", json_false());
            json_object_set_new(o, "why", json_string(l == ANALYZE_L_GPU ? "gpu_used is 0 throughout (no GPU)"
                                                                         : "samples.csv has no live_<kind> columns"));
            continue;
        }
        if (i0 == n || nf < p + 2) {
            json_object_set_new(o, "fitted", json_false());
            json_object_set_new(o, "why", json_string("too few samples with work to fit"));
            continue;
        }
        if (analyze_ols(&L->fit, X, y + b0, nf, p) < 0)
            continue;
        L->fitted = true;
        const analyze_ols_t *F = &L->fit;
        double t95 = analyze_t95(F->dof >= 1 ? F->dof : 1);
        json_t *jf = json_object(), *dropped = json_array();
        json_object_set_new(o, "fitted", json_true());
        json_object_set_new(o, "fit", jf);
        json_object_set_new(jf, "intercept", coef_json(F->beta[0], F->se[0]));
        static const char *const fname[ANALYZE_NX] = {"f_synth", "f_queue", "f_gpu", "f_finish", "f_blocked", "g"};
        for (int x = 0; x < ANALYZE_NX; x++) {
            if (F->kept[1 + x])
                json_object_set_new(jf, fname[x], coef_json(F->beta[1 + x], F->se[1 + x]));
            else {
                json_object_set_new(jf, fname[x], json_null());
                char why[96];
                double lo = INFINITY, hi = -INFINITY;
                for (size_t i = b0; i < n; i++)
                    lo = fmin(lo, S.x[x][i]), hi = fmax(hi, S.x[x][i]);
                snprintf(why, sizeof why, "%s: %s", analyze_x_name(x),
                         lo == hi ? "constant over the fitted samples" : "collinear with the other columns");
                json_array_append_new(dropped, json_string(why));
            }
        }
        json_object_set_new(jf, "dropped", dropped);
        json_object_set_new(jf, "samples", json_integer((json_int_t)nf));
        json_object_set_new(jf, "r2", jnum(F->r2));
        json_object_set_new(jf, "resid_sd", jbytes(F->resid_sd));
        json_object_set_new(jf, "lag1_autocorrelation", jnum(F->rho));
        json_object_set_new(jf, "effective_samples", jnum(F->n_eff));
        /* leak rate */
        if (F->kept[1 + ANALYZE_X_PROOFS]) {
            L->g = F->beta[1 + ANALYZE_X_PROOFS];
            L->g_lo = L->g - t95 * F->se[1 + ANALYZE_X_PROOFS];
            L->g_hi = L->g + t95 * F->se[1 + ANALYZE_X_PROOFS];
        }
        /* valley floors: minimum between consecutive proof completions */
        L->n_floors = 0;
        size_t si = 0; /* samples and completions are both in time order */
        for (size_t k = 1; k < np; k++) {
            double m = INFINITY;
            while (si < n && S.t[si] <= tdone[k - 1])
                si++;
            for (; si < n && S.t[si] <= tdone[k]; si++)
                m = fmin(m, y[si]);
            if (isfinite(m)) {
                fk[L->n_floors] = (double)(k + 1);
                fl[L->n_floors++] = m;
            }
        }
        json_t *jfl = json_array();
        for (size_t k = 0; k < L->n_floors; k++)
            json_array_append_new(jfl, jbytes(fl[k]));
        json_object_set_new(o, "valley_floors", jfl);
        if (!fit_line(&L->floor_slope, &L->floor_lo, &L->floor_hi, fk, fl, L->n_floors))
            L->floor_slope = L->floor_lo = L->floor_hi = NAN;
        json_t *jft = json_object();
        json_object_set_new(jft, "bytes_per_proof", jbytes(L->floor_slope));
        json_object_set_new(jft, "ci95", json_pack("[oo]", jbytes(L->floor_lo), jbytes(L->floor_hi)));
        json_object_set_new(o, "floor_trend", jft);
        /* significance (see the thresholds at the top) */
        double total = L->g * (double)(R.proofs_done ? R.proofs_done : 1);
        /* growth beyond chance: g above LEAK_SIGNIFICANCE times its 95%
         * half-width (four layers are tested, and noise alone gave one
         * healthy synthetic run in 20 a 95% interval above 0 somewhere) */
        bool ci = isfinite(L->g_lo) && L->g - LEAK_SIGNIFICANCE * (L->g - L->g_lo) > 0 &&
                  L->g >= LEAK_MIN_PER_PROOF;
        bool floors_rise = isfinite(L->floor_lo) && L->floor_lo > 0 && L->floor_slope >= L->g / 3;
        bool drain_high = drained && L->after_drain - L->baseline >= fmax(total / 3, LEAK_MIN_PER_PROOF);
        /* A drained run is decisive: memory that comes back at the end was
         * held (a dealloc queue, pending handles), not lost, however the
         * floors rose meanwhile. Without a drain (killed, interrupted), the
         * rising floors must do. */
        bool confirm = drained ? drain_high
                               : floors_rise || (L->n_floors < 3 && total >= 3 * F->resid_sd);
        L->g_significant = ci && confirm;
        json_t *jg = json_object();
        json_object_set_new(jg, "bytes_per_proof", jbytes(L->g));
        json_object_set_new(jg, "ci95", json_pack("[oo]", jbytes(L->g_lo), jbytes(L->g_hi)));
        json_object_set_new(jg, "ci_excludes_zero", json_boolean(isfinite(L->g_lo) && L->g_lo > 0));
        json_object_set_new(jg, "floors_rise", json_boolean(floors_rise));
        json_object_set_new(jg, "after_drain_high", json_boolean(drain_high));
        json_object_set_new(jg, "significant", json_boolean(L->g_significant));
        json_object_set_new(o, "growth", jg);
    }
    json_object_set_new(J, "layers", jlayers);
    const analyze_layer_t *Lr = &R.layer[ANALYZE_L_RSS];
    R.baseline_rss = Lr->baseline;
    /* Peak RSS: the sampled maximum, or the high-water mark if it saw more. */
    R.peak_rss = Lr->peak;
    int chwm = run_csv_col(sc, "hwm");
    for (size_t i = 0; chwm >= 0 && i < n; i++)
        R.peak_rss = fmax(R.peak_rss, run_csv_num(sc, i, chwm));
    peak_work = R.peak_rss - R.baseline_rss;

    /* -- tracked buffers: never freed, held after last use -- */
    const run_csv_t *bc = &run->buffers;
    int ck = run_csv_col(bc, "kind"), cpr = run_csv_col(bc, "proof"), cb = run_csv_col(bc, "bytes"),
        cta = run_csv_col(bc, "t_alloc_ms"), ctf = run_csv_col(bc, "t_free_ms"),
        ctl = run_csv_col(bc, "t_last_use_ms");
    json_t *jnf = json_object(), *jnf_res = json_object(), *jheld = json_object();
    double held_total = 0;
    size_t held_unknown = 0, held_known = 0, nf_inflight = 0;
    bool complete = (status && strcmp(status, "complete") == 0) || (drained && !interrupted);
    for (size_t i = 0; i < bc->nrows; i++) {
        const char *kind = run_csv_text(bc, i, ck);
        double proof = run_csv_num(bc, i, cpr), bytes = run_csv_num(bc, i, cb), tf = run_csv_num(bc, i, ctf),
               tl = run_csv_num(bc, i, ctl);
        if (!isfinite(tf)) {
            if (kind_is_resident(kind, proof)) {
                json_add_count(jnf_res, kind, bytes);
                continue;
            }
            /* In an interrupted run, buffers of unfinished proofs are in flight, not leaked. */
            bool proof_done = false;
            for (size_t k = 0; k < run->proofs.nrows && proof >= 0; k++)
                if (run_csv_num(&run->proofs, k, run_csv_col(&run->proofs, "proof")) == proof &&
                    isfinite(run_csv_num(&run->proofs, k, ctd)))
                    proof_done = true;
            if (!complete && !proof_done) {
                nf_inflight++;
                continue;
            }
            json_add_count(jnf, kind, bytes);
            R.never_freed_bytes += bytes;
            continue;
        }
        if (isfinite(tl)) {
            double h = bytes * fmax(0, tf - fmax(tl, run_csv_num(bc, i, cta))) / 1000.0 / GIB;
            json_add(jheld, kind, h);
            held_total += h;
            held_known++;
        } else {
            held_unknown++;
        }
    }

    /* -- durations -- */
    double t_first = i0 < n ? S.t[i0] : S.t[0], t_last = np ? tdone[np - 1] : S.t[n - 1];
    if (drained && !np)
        t_last = S.t[drain_from];
    double active_s = fmax((t_last - t_first) / 1000.0, 1e-3);

    /* -- leak -- */
    json_t *jleak = json_object();
    static const int leak_layers[] = {ANALYZE_L_TRACKED, ANALYZE_L_HEAP, ANALYZE_L_OUTSIDE, ANALYZE_L_GPU};
    R.leak_rate = R.leak_lo = R.leak_hi = NAN;
    for (size_t k = 0; k < 4; k++) {
        const analyze_layer_t *L = &R.layer[leak_layers[k]];
        if (!L->fitted)
            continue;
        if (L->g_significant && R.leak_layer < 0)
            R.leak_layer = leak_layers[k];
        if (R.leak_layer < 0 && (!isfinite(R.leak_rate) || L->g > R.leak_rate)) {
            R.leak_rate = L->g;
            R.leak_lo = L->g_lo;
            R.leak_hi = L->g_hi;
        }
    }
    if (R.leak_layer >= 0) {
        const analyze_layer_t *L = &R.layer[R.leak_layer];
        R.leak_rate = L->g, R.leak_lo = L->g_lo, R.leak_hi = L->g_hi;
    }
    /* which kind: the largest never-freed kind, else the live_<kind> that grew most */
    const char *kind_named = NULL;
    double kind_bytes = 0;
    const char *key;
    json_t *val;
    json_object_foreach(jnf, key, val) {
        double bts = (double)json_integer_value(json_object_get(val, "bytes"));
        if (bts > kind_bytes)
            kind_bytes = bts, kind_named = key;
    }
    char grown_kind[64] = "";
    if (!kind_named) {
        double best = 0;
        for (size_t j = 0; j < sc->ncols; j++) {
            if (strncmp(sc->names[j], "live_", 5) != 0)
                continue;
            double base = nb ? run_csv_num(sc, i0 - 1, (int)j) : run_csv_num(sc, 0, (int)j);
            double end = run_csv_num(sc, n - 1, (int)j);
            if (end - base > best)
                best = end - base, snprintf(grown_kind, sizeof grown_kind, "%s", sc->names[j] + 5);
        }
    }
    bool nf_leak = R.never_freed_bytes >= LEAK_NEVER_FREED_MIN;
    if (R.leak_layer == ANALYZE_L_TRACKED || (nf_leak && R.leak_layer < 0)) {
        const char *kn = kind_named ? kind_named : (grown_kind[0] ? grown_kind : "?");
        snprintf(R.leak_where, sizeof R.leak_where, "L0 tracked buffers of kind '%s'", kn);
        if (R.leak_layer < 0)
            R.leak_layer = ANALYZE_L_TRACKED;
    } else if (R.leak_layer == ANALYZE_L_HEAP) {
        snprintf(R.leak_where, sizeof R.leak_where,
                 "L1 heap: untracked allocations (je_allocated grows, tracked buffers do not)");
    } else if (R.leak_layer == ANALYZE_L_OUTSIDE) {
        snprintf(R.leak_where, sizeof R.leak_where,
                 "L3 outside the heap: RSS grows, jemalloc does not (pinned memory, runtime, mappings)");
    } else if (R.leak_layer == ANALYZE_L_GPU) {
        snprintf(R.leak_where, sizeof R.leak_where, "GPU device memory (gpu_used grows)");
    }
    json_object_set_new(jleak, "detected", json_boolean(R.leak_layer >= 0));
    json_object_set_new(jleak, "where", R.leak_where[0] ? json_string(R.leak_where) : json_null());
    json_object_set_new(jleak, "layer", R.leak_layer >= 0 ? json_string(analyze_layer_name(R.leak_layer)) : json_null());
    json_object_set_new(jleak, "bytes_per_proof", jbytes(R.leak_rate));
    json_object_set_new(jleak, "ci95", json_pack("[oo]", jbytes(R.leak_lo), jbytes(R.leak_hi)));
    json_object_set_new(jleak, "proofs_done", json_integer((json_int_t)R.proofs_done));
    json_object_set_new(jleak, "never_freed", jnf);
    json_object_set_new(jleak, "never_freed_bytes", jbytes(R.never_freed_bytes));
    json_object_set_new(jleak, "never_freed_resident", jnf_res);
    json_object_set_new(jleak, "never_freed_in_flight", json_integer((json_int_t)nf_inflight));
    json_object_set_new(J, "leak", jleak);

    /* -- retention -- */
    const analyze_layer_t *Lh = &R.layer[ANALYZE_L_HEAP];
    double gap_b = Lr->baseline - Lh->baseline, gap_e = Lr->end - Lh->end;
    R.retained_bytes = gap_e - gap_b;
    R.retained_share = peak_work > 0 ? R.retained_bytes / peak_work : 0;
    double heap_back = Lh->end - Lh->baseline, heap_work = Lh->peak - Lh->baseline;
    bool heap_returned = heap_back <= fmax(RETENTION_MIN_BYTES, RETENTION_HEAP_SLACK * heap_work);
    bool retention = drained && heap_returned && R.retained_bytes >= RETENTION_MIN_BYTES &&
                     R.retained_share >= RETENTION_MIN_SHARE;
    int cdirty = run_csv_col(sc, "je_dirty"), cmuzzy = run_csv_col(sc, "je_muzzy");
    json_t *jret = json_object();
    json_object_set_new(jret, "detected", json_boolean(retention));
    json_object_set_new(jret, "rss_minus_allocated_baseline", jbytes(gap_b));
    json_object_set_new(jret, "rss_minus_allocated_end", jbytes(gap_e));
    json_object_set_new(jret, "retained_bytes", jbytes(R.retained_bytes));
    json_object_set_new(jret, "share_of_peak_working_set", jnum(R.retained_share));
    json_object_set_new(jret, "je_allocated_end_minus_baseline", jbytes(heap_back));
    json_object_set_new(jret, "je_allocated_returned", json_boolean(heap_returned));
    json_object_set_new(jret, "je_dirty_end", jbytes(cdirty >= 0 ? run_csv_num(sc, n - 1, cdirty) : NAN));
    json_object_set_new(jret, "je_muzzy_end", jbytes(cmuzzy >= 0 ? run_csv_num(sc, n - 1, cmuzzy) : NAN));
    json_object_set_new(jret, "drained", json_boolean(drained));
    /* a `--trim` run records what an explicit purge returned */
    double purge = jnum_get(sum, "purge_returned_bytes");
    if (!isfinite(purge))
        purge = jnum_get(sum, "purge_returned");
    json_object_set_new(jret, "purge_returned_bytes", jbytes(purge));
    json_object_set_new(J, "retention", jret);

    /* -- held after last use -- */
    /* The share is of the tracked working set's area: the integral over the
     * active time of (tracked - B). Held memory is tracked memory, and the
     * untracked rest of RSS (runtime, small allocations) would dilute it.
     * Without live_<kind> columns the RSS working set stands in. */
    double area_work = peak_work / GIB * active_s, area_peak = R.peak_rss / GIB * active_s, area_tracked = 0;
    const double *ytr = S.layer[S.has_tracked ? ANALYZE_L_TRACKED : ANALYZE_L_RSS];
    double btr = R.layer[S.has_tracked ? ANALYZE_L_TRACKED : ANALYZE_L_RSS].baseline;
    for (size_t i = i0; i + 1 < n && S.t[i] < t_last; i++)
        area_tracked += fmax(0, ytr[i] - btr) / GIB * (S.t[i + 1] - S.t[i]) / 1000.0;
    R.held_gibs = held_total;
    R.held_share = area_tracked > 0 ? held_total / area_tracked : 0;
    bool held = held_known > 0 && R.held_share >= HELD_MIN_SHARE;
    json_t *jh = json_object();
    json_object_set_new(jh, "detected", json_boolean(held));
    json_object_set_new(jh, "gib_s_by_kind", jheld);
    json_object_set_new(jh, "gib_s", jnum(held_total));
    json_object_set_new(jh, "share_of_peak_x_duration", jnum(area_peak > 0 ? held_total / area_peak : 0));
    json_object_set_new(jh, "share_of_working_set_x_duration", jnum(area_work > 0 ? held_total / area_work : 0));
    json_object_set_new(jh, "working_set_gib_s", jnum(area_tracked));
    json_object_set_new(jh, "share_of_working_set_area", jnum(R.held_share));
    json_object_set_new(jh, "buffers_with_last_use", json_integer((json_int_t)held_known));
    json_object_set_new(jh, "buffers_last_use_unknown", json_integer((json_int_t)held_unknown));
    json_object_set_new(jh, "active_s", jnum(active_s));
    json_object_set_new(J, "held_after_last_use", jh);

    /* -- queue pile-up -- */
    int pw = config_int(cfg, "pw"), gq = config_int(cfg, "gpu_queue"), gw = config_int(cfg, "gpu_workers");
    int depth = gq >= 0 ? gq : gw >= 0 ? gw : -1;
    json_t *jp = json_object();
    bool pileup = false;
    if (pw < 0) {
        json_object_set_new(jp, "why", json_string("run.json config has no pw: no bound to compare with"));
        double mx = 0;
        for (size_t i = 0; i < n; i++)
            mx = fmax(mx, S.x[ANALYZE_X_SYNTH][i]);
        R.pw = mx < (double)(1 << 20) ? (int)mx : 1 << 20; /* from the samples: bounded like a count */
    } else {
        R.pw = pw;
        int bound = pw + (depth > 0 ? depth : 0);
        size_t best_len = 0, cur = 0, above = 0;
        double best_s = 0, cur_start = 0, excess = 0;
        for (size_t i = 0; i < n; i++) {
            if (S.occ_sum[i] > bound) {
                above++;
                excess = fmax(excess, S.occ_sum[i] - bound);
                if (cur == 0)
                    cur_start = i > 0 ? S.t[i - 1] : S.t[i];
                cur++;
                double len = (S.t[i] - cur_start) / 1000.0;
                if (cur > best_len || len > best_s)
                    best_len = cur > best_len ? cur : best_len, best_s = fmax(best_s, len);
            } else {
                cur = 0;
            }
        }
        R.pileup_s = best_s;
        R.pileup_excess = excess;
        pileup = best_len >= PILEUP_MIN_SAMPLES && best_s >= PILEUP_MIN_SHARE * active_s;
        double fq = Lr->fitted && Lr->fit.kept[1 + ANALYZE_X_QUEUE] ? Lr->fit.beta[1 + ANALYZE_X_QUEUE] : NAN;
        json_object_set_new(jp, "bound", json_integer(bound));
        json_object_set_new(jp, "bound_from", json_string(gq >= 0 ? "pw + gpu_queue" : gw >= 0 ? "pw + gpu_workers" : "pw"));
        json_object_set_new(jp, "samples_above", json_integer((json_int_t)above));
        json_object_set_new(jp, "longest_stretch_s", jnum(best_s));
        json_object_set_new(jp, "longest_stretch_samples", json_integer((json_int_t)best_len));
        json_object_set_new(jp, "max_excess_partitions", jnum(excess));
        json_object_set_new(jp, "f_queue_rss", jbytes(fq));
        json_object_set_new(jp, "excess_memory", jbytes(fq * excess));
    }
    json_object_set_new(jp, "detected", json_boolean(pileup));
    json_object_set_new(J, "queue_pileup", jp);

    /* -- capacity -- */
    json_t *jc = json_object();
    R.ram_bytes = opts && opts->ram_bytes ? (double)opts->ram_bytes : NAN;
    const char *ram_src = opts && opts->ram_from ? opts->ram_from : "--ram";
    if (!isfinite(R.ram_bytes)) {
        /* a capped run (batch --mem-limit) fits its cgroup, not the machine */
        R.ram_bytes = jnum_get(rj, "mem_limit");
        ram_src = "run.json mem_limit";
    }
    if (!isfinite(R.ram_bytes)) {
        R.ram_bytes = jnum_get(machine, "ram_bytes");
        if (!isfinite(R.ram_bytes))
            R.ram_bytes = jnum_get(machine, "ram");
        ram_src = "run.json machine";
    }
    R.margin = opts ? opts->margin : 0.10;
    R.footprint_per_partition = Lr->fitted && Lr->fit.kept[1 + ANALYZE_X_SYNTH] ? Lr->fit.beta[1 + ANALYZE_X_SYNTH] : NAN;
    R.footprint_se = Lr->fitted && Lr->fit.kept[1 + ANALYZE_X_SYNTH] ? Lr->fit.se[1 + ANALYZE_X_SYNTH] : NAN;
    bool capacity = false;
    json_object_set_new(jc, "pw", json_integer(R.pw));
    json_object_set_new(jc, "peak_rss", jbytes(R.peak_rss));
    json_object_set_new(jc, "footprint_per_partition", coef_json(R.footprint_per_partition, R.footprint_se));
    if (Lr->fitted) {
        /* the model at the peak sample: B + sum f*n + g*proofs, vs what was measured */
        size_t ip = 0;
        for (size_t i = 0; i < n; i++)
            if (S.layer[ANALYZE_L_RSS][i] > S.layer[ANALYZE_L_RSS][ip])
                ip = i;
        double m = Lr->fit.beta[0];
        for (int x = 0; x < ANALYZE_NX; x++)
            m += Lr->fit.beta[1 + x] * S.x[x][ip];
        json_t *jm = json_object();
        json_object_set_new(jm, "at_t_ms", jnum(S.t[ip]));
        json_object_set_new(jm, "model_peak", jbytes(m));
        json_object_set_new(jm, "measured", jbytes(S.layer[ANALYZE_L_RSS][ip]));
        json_object_set_new(jm, "within_2_resid_sd", json_boolean(fabs(m - S.layer[ANALYZE_L_RSS][ip]) <= 2 * Lr->fit.resid_sd));
        json_object_set_new(jc, "model_at_peak", jm);
    }
    double limit = NAN;
    if (isfinite(R.ram_bytes)) {
        limit = R.ram_bytes * (1 - R.margin);
        /* A cgroup charges anonymous memory; file-backed pages (the mapped
         * parameters, libraries) are shared and reclaimable, and usually
         * charged to whoever read them first. So RSS may pass a cgroup's cap
         * by its file-backed part: compare RSS with the cap plus that part. */
        bool cgroup = strcmp(ram_src, "--mem-limit") == 0 || strcmp(ram_src, "run.json mem_limit") == 0;
        int cfile = run_csv_col(sc, "rss_file");
        double file = 0;
        if (cgroup && cfile >= 0) {
            size_t ip = 0;
            for (size_t i = 0; i < n; i++)
                if (S.layer[ANALYZE_L_RSS][i] > S.layer[ANALYZE_L_RSS][ip])
                    ip = i;
            file = run_csv_num(sc, ip, cfile);
            file = isfinite(file) ? file : 0;
            limit += file;
            json_object_set_new(jc, "file_backed_at_peak", jbytes(file));
        }
        capacity = R.peak_rss > limit;
        R.limit_rss = limit;
        json_object_set_new(jc, "ram_bytes", jbytes(R.ram_bytes));
        json_object_set_new(jc, "ram_from", json_string(ram_src));
        json_object_set_new(jc, "margin", jnum(R.margin));
        json_object_set_new(jc, "limit_bytes", jbytes(limit));
        json_object_set_new(jc, "limit_is_cgroup", json_boolean(cgroup));
    } else {
        json_object_set_new(jc, "ram_bytes", json_null());
        json_object_set_new(jc, "why_no_limit", json_string("no RAM size: pass --ram or --mem-limit, or record machine.ram_bytes"));
    }
    /* the model: exact bytes per partition and state, the untracked rest fitted */
    if (capacity_fit(&R.capacity, sc, run->buffers.nrows ? &run->buffers : NULL,
                     run->stages.nrows ? &run->stages : NULL, cfg, R.baseline_rss) < 0) {
        R.capacity.ok = false;
        snprintf(R.capacity.why, sizeof R.capacity.why, "out of memory while fitting the model");
    }
    /* the predictions reach twice the run's pw, at most 1024 */
    int pmax = R.pw > 0 ? (R.pw < 512 ? 2 * R.pw : 1024) : 8;
    json_t *model = capacity_json(&R.capacity, pmax, limit);
    if (R.capacity.ok && isfinite(limit))
        R.largest_pw = (int)json_integer_value(json_object_get(model, "max_pw"));
    json_object_set(jc, "predicted", json_object_get(model, "predicted"));
    json_object_set(jc, "max_pw", json_object_get(model, "max_pw"));
    json_object_set(jc, "bound_by", json_object_get(model, "bound_by"));
    json_object_set_new(jc, "largest_pw", R.largest_pw >= 0 ? json_integer(R.largest_pw) : json_null());
    if (!R.capacity.ok)
        json_object_set_new(jc, "why", json_string(R.capacity.why));
    else if (!isfinite(limit))
        json_object_set_new(jc, "why", json_string("no RAM size: pass --ram or --mem-limit, or record machine.ram_bytes"));
    json_object_set_new(jc, "model", model);
    /* the kernel's word beats the margin: a run OOM-killed under its cap ran
     * out of capacity, whatever RSS the last sample caught */
    const char *outcome = json_string_value(json_object_get(rj, "outcome"));
    bool oom_killed = outcome && strcmp(outcome, "oom-killed") == 0;
    if (oom_killed)
        capacity = true;
    json_object_set_new(jc, "oom_killed", json_boolean(oom_killed));
    json_object_set_new(jc, "detected", json_boolean(capacity));
    json_object_set_new(J, "capacity", jc);

    /* -- timing -- */
    R.s_per_proof = jnum_get(sum, "s_per_proof");
    if (!isfinite(R.s_per_proof) && np > 0) {
        int cts = run_csv_col(&run->proofs, "t_submit_ms");
        double t0 = INFINITY;
        for (size_t i = 0; i < run->proofs.nrows; i++)
            t0 = fmin(t0, run_csv_num(&run->proofs, i, cts));
        R.s_per_proof = (tdone[np - 1] - t0) / 1000.0 / (double)np;
    }

    /* -- verdict, in priority order -- */
    const analyze_layer_t *Ll = R.leak_layer >= 0 ? &R.layer[R.leak_layer] : NULL;
    json_t *ev = NULL;
    if (Ll || nf_leak) {
        R.verdict = ANALYZE_LEAK;
        if (Ll && Ll->g_significant)
            snprintf(R.reason, sizeof R.reason,
                     "%s: %s grows %s per completed proof (95%% CI %s .. %s) over %zu proofs; after drain it is %s "
                     "above baseline; tracked buffers never freed: %s",
                     R.leak_where, analyze_layer_name(R.leak_layer), analyze_fmt_bytes(b1, sizeof b1, Ll->g),
                     analyze_fmt_bytes(b2, sizeof b2, Ll->g_lo), analyze_fmt_bytes(b3, sizeof b3, Ll->g_hi), R.proofs_done,
                     isfinite(Ll->after_drain) ? analyze_fmt_bytes((char[32]){0}, 32, Ll->after_drain - Ll->baseline) : "n/a (not drained)",
                     analyze_fmt_bytes((char[32]){0}, 32, R.never_freed_bytes));
        else
            snprintf(R.reason, sizeof R.reason, "%s: %s of tracked buffers were never freed (excluding params, "
                     "circuit and NTT tables)", R.leak_where, analyze_fmt_bytes(b1, sizeof b1, R.never_freed_bytes));
        ev = json_incref(jleak);
    } else if (pileup) {
        R.verdict = ANALYZE_QUEUE_PILEUP;
        snprintf(R.reason, sizeof R.reason,
                 "q_gpu + n_synth + n_blocked exceeded the pipeline bound %d (pw %d + queue depth %d) by up to %.0f partitions "
                 "for %.1f s (%.0f%% of the %.1f s active); each queued partition holds %s",
                 pw + (depth > 0 ? depth : 0), pw, depth > 0 ? depth : 0, R.pileup_excess, R.pileup_s,
                 100 * R.pileup_s / active_s, active_s,
                 analyze_fmt_bytes(b1, sizeof b1, json_number_value(json_object_get(jp, "f_queue_rss"))));
        ev = json_incref(jp);
    } else if (held) {
        R.verdict = ANALYZE_HELD_TOO_LONG;
        const char *top = NULL;
        double tv = 0;
        json_object_foreach(jheld, key, val) {
            if (json_number_value(val) > tv)
                tv = json_number_value(val), top = key;
        }
        snprintf(R.reason, sizeof R.reason,
                 "buffers stay allocated after their last use: %.2f GiB*s, %.0f%% of the tracked working set's "
                 "%.2f GiB*s over %.1f s active; most in kind '%s' (%.2f GiB*s)",
                 held_total, 100 * R.held_share, area_tracked, active_s, top ? top : "?", tv);
        ev = json_incref(jh);
    } else if (retention) {
        R.verdict = ANALYZE_RETENTION;
        snprintf(R.reason, sizeof R.reason,
                 "after drain je_allocated is back to baseline (+%s) but RSS - je_allocated is %s above its "
                 "baseline gap (%.0f%% of the peak working set); je_dirty %s, je_muzzy %s at the end",
                 analyze_fmt_bytes(b1, sizeof b1, heap_back), analyze_fmt_bytes(b2, sizeof b2, R.retained_bytes),
                 100 * R.retained_share,
                 analyze_fmt_bytes(b3, sizeof b3, cdirty >= 0 ? run_csv_num(sc, n - 1, cdirty) : NAN),
                 analyze_fmt_bytes((char[32]){0}, 32, cmuzzy >= 0 ? run_csv_num(sc, n - 1, cmuzzy) : NAN));
        ev = json_incref(jret);
    } else if (capacity) {
        R.verdict = ANALYZE_CAPACITY;
        char fits[480];
        capacity_fits_text(fits, sizeof fits, &R);
        if (oom_killed)
            snprintf(R.reason, sizeof R.reason,
                     "no leak, retention or pile-up: the run was OOM-killed under its memory limit %s at peak RSS "
                     "%s (file-backed pages are not charged to the cgroup); %s",
                     analyze_fmt_bytes(b1, sizeof b1, jnum_get(rj, "mem_limit")), analyze_fmt_bytes(b2, sizeof b2, R.peak_rss), fits);
        else
        {
            char filepart[96] = "";
            double fb = jnum_get(jc, "file_backed_at_peak");
            if (isfinite(fb) && fb > 0)
                snprintf(filepart, sizeof filepart, ", plus %s of file-backed RSS the cgroup does not charge",
                         analyze_fmt_bytes((char[32]){0}, 32, fb));
            snprintf(R.reason, sizeof R.reason,
                     "no leak, retention or pile-up, but peak RSS %s is above %s (%s %s less a %.0f%% margin%s); %s",
                     analyze_fmt_bytes(b1, sizeof b1, R.peak_rss), analyze_fmt_bytes(b2, sizeof b2, R.limit_rss),
                     strcmp(ram_src, "run.json mem_limit") == 0 || strcmp(ram_src, "--mem-limit") == 0
                         ? "memory limit"
                         : "RAM",
                     analyze_fmt_bytes(b3, sizeof b3, R.ram_bytes), 100 * R.margin, filepart, fits);
        }
        ev = json_incref(jc);
    } else {
        R.verdict = ANALYZE_HEALTHY;
        char fits[480];
        capacity_fits_text(fits, sizeof fits, &R);
        snprintf(R.reason, sizeof R.reason,
                 "no growth per proof (largest leak-layer rate %s, CI %s .. %s), no retention, pile-up or long "
                 "holds; peak RSS %s, baseline %s; %s",
                 analyze_fmt_bytes(b3, sizeof b3, R.leak_rate), analyze_fmt_bytes((char[32]){0}, 32, R.leak_lo),
                 analyze_fmt_bytes((char[32]){0}, 32, R.leak_hi), analyze_fmt_bytes((char[32]){0}, 32, R.peak_rss),
                 analyze_fmt_bytes((char[32]){0}, 32, R.baseline_rss), fits);
        ev = json_incref(jc);
    }
    json_t *checks = json_pack("{s:b,s:b,s:b,s:b,s:b}", "leak", R.leak_layer >= 0 || nf_leak, "queue-pileup", pileup,
                               "held-too-long", held, "retention", retention, "capacity", capacity);
    json_t *head = json_object();
    json_object_set_new(head, "verdict", json_string(analyze_verdict_name(R.verdict)));
    json_object_set_new(head, "reason", json_string(R.reason));
    json_object_set_new(head, "evidence", ev);
    json_object_set_new(head, "checks", checks);
    json_object_set_new(head, "peak_rss", jbytes(R.peak_rss));
    json_object_set_new(head, "baseline_rss", jbytes(R.baseline_rss));
    json_object_set_new(head, "footprint_per_partition", coef_json(R.footprint_per_partition, R.footprint_se));
    json_object_set_new(head, "leak_bytes_per_proof", jbytes(R.leak_rate));
    json_object_set_new(head, "leak_ci95", json_pack("[oo]", jbytes(R.leak_lo), jbytes(R.leak_hi)));
    json_object_set_new(head, "s_per_proof", jnum(R.s_per_proof));
    json_object_set_new(head, "pw", json_integer(R.pw));
    json_object_set_new(head, "largest_pw", R.largest_pw >= 0 ? json_integer(R.largest_pw) : json_null());
    json_object_set_new(head, "proofs_done", json_integer((json_int_t)R.proofs_done));
    json_object_set_new(head, "samples", json_integer((json_int_t)n));
    json_object_set_new(head, "drained", json_boolean(drained));
    json_object_update(head, J); /* the sections after the headline */
    json_decref(J);
    json_object_set_new(head, "notes", notes);
    R.json = head;
    free(X);
    free(fl);
    free(fk);
    free(tdone);
    series_free(&S);
    *ret = R;
    return 0;
}

void analyze_result_clear(analyze_result_t *r)
{
    if (!r)
        return;
    json_decref(r->json);
    memset(r, 0, sizeof *r);
}

double analyze_predict_peak(const analyze_result_t *r, int pw)
{
    if (!r->capacity.ok)
        return NAN;
    capacity_point_t c;
    capacity_predict(&c, &r->capacity, pw);
    return c.peak;
}

int analyze_write_verdict(const char *dir, const analyze_result_t *r, char *err, size_t errlen)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    snprintf(path, sizeof path, "%s/run.json", dir);
    snprintf(tmp, sizeof tmp, "%s/.run.json.XXXXXX", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je); /* fresh: the batch may have updated it */
    if (!json_is_object(root)) {
        json_decref(root);
        snprintf(err, errlen, "%s: cannot re-read it to add the verdict: %s", path, je.text);
        return -EINVAL;
    }
    static const char *const keys[] = {"verdict", "reason", "evidence", "checks", "peak_rss", "baseline_rss",
                                       "footprint_per_partition", "leak_bytes_per_proof", "leak_ci95",
                                       "s_per_proof", "pw", "largest_pw", "proofs_done", "drained",
                                       "headline", "growth", "never_freed_bytes", "run_kind"};
    json_t *v = json_object();
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        json_t *x = json_object_get(r->json, keys[k]);
        if (x)
            json_object_set(v, keys[k], x);
    }
    time_t now = time(NULL);
    struct tm tm;
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    json_object_set_new(v, "analyzed_at", json_string(when));
    json_object_set_new(v, "ram_bytes", jbytes(r->ram_bytes));
    json_object_set_new(v, "margin", jnum(r->margin));
    json_object_set_new(root, "verdict", v);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        json_decref(root);
        snprintf(err, errlen, "cannot write into %s: %s", dir, strerror(e));
        return -e;
    }
    int rc = json_dumpfd(root, fd, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (rc == 0 && write(fd, "\n", 1) != 1)
        rc = -1;
    if (rc == 0 && fsync(fd) < 0)
        rc = -1;
    int e = errno;
    fchmod(fd, 0644);
    close(fd);
    json_decref(root);
    if (rc < 0 || rename(tmp, path) < 0) {
        e = errno ? errno : EIO;
        unlink(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -e;
    }
    return 0;
}
