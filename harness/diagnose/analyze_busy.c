/*
 * How busy the prove kept the prover and the devices (docs/diagnosis.md,
 * "busy"): the union of the heavy stage rows of stages.csv, per device by
 * the lane rule of prover/backend_lane.h, and NVML's utilisation
 * (samples.csv gpu<d>_util) over the same span.
 */
#include "harness/diagnose/analyze_busy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze_run.h"
#include "harness/run/run_csv.h"
#include "prover/backend_lane.h"

static int cmp_interval(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The union of n intervals (start, end pairs, sorted by start in place):
 * *busy the time covered, *span from the first start to the last end. */
static void interval_union(double *iv, size_t n, double *busy, double *span)
{
    qsort(iv, n, 2 * sizeof *iv, cmp_interval);
    /* merged from the earliest start: the last merged interval holds the
     * latest end */
    double sum = 0, cur0 = iv[0], cur1 = iv[1];
    for (size_t i = 1; i < n; i++) {
        if (iv[2 * i] > cur1) {
            sum += cur1 - cur0;
            cur0 = iv[2 * i];
            cur1 = iv[2 * i + 1];
        } else {
            cur1 = fmax(cur1, iv[2 * i + 1]);
        }
    }
    *busy = sum + (cur1 - cur0);
    *span = cur1 - iv[0];
}

/* The heavy stage rows (h, msm_*) as intervals into iv (2 per row), with
 * the device of each row's worker in dev: prove worker i is the backend's
 * lane i, on the device backend_lane_device gives;
 * -1 where the worker is not a prove worker or there are no devices. */
static size_t heavy_rows(const run_csv_t *st, unsigned n_gpus, double *iv, int *dev)
{
    static const char *const heavy[] = {"h", "msm_h", "msm_l", "msm_a", "msm_b1", "msm_b2"};
    int cs = run_csv_col(st, "stage"), cw = run_csv_col(st, "worker"), c0 = run_csv_col(st, "t_start_ms"),
        c1 = run_csv_col(st, "t_end_ms");
    size_t n = 0;
    for (size_t i = 0; i < st->nrows; i++) {
        const char *name = run_csv_text(st, i, cs);
        bool is_heavy = false;
        for (size_t k = 0; k < sizeof heavy / sizeof heavy[0] && !is_heavy; k++)
            is_heavy = name && strcmp(name, heavy[k]) == 0;
        double a = run_csv_num(st, i, c0), b = run_csv_num(st, i, c1);
        if (!is_heavy || !isfinite(a) || !isfinite(b) || b < a)
            continue;
        const char *w = cw >= 0 ? run_csv_text(st, i, cw) : NULL;
        char *end;
        unsigned long k;
        dev[n] = -1;
        if (n_gpus && w && strncmp(w, "prove", 5) == 0 && w[5] >= '0' && w[5] <= '9' &&
            (k = strtoul(w + 5, &end, 10), *end == '\0'))
            dev[n] = (int)backend_lane_device((unsigned)k, n_gpus);
        iv[2 * n] = a;
        iv[2 * n + 1] = b;
        n++;
    }
    return n;
}

/* How busy the heavy prove stages kept the prover: the union of the rows
 * h, msm_h, msm_l, msm_a, msm_b1 and msm_b2 of stages.csv over the span from
 * the first of them to the last (each row from when its lane was held: the
 * waits for a lane are wait_lane rows, summed apart). On the GPU backend this is the share of
 * the work during which a device had H or an MSM to run; with several
 * devices (--gpus) each device's share follows from its workers' rows (a
 * device idle while another works is hidden in the union). Runs without
 * those rows (before they were written) get no section. */
void analyze_busy(analyze_result_t *R, const analyze_run_t *run, const json_t *cfg, json_t *J)
{
    const run_csv_t *st = &run->stages;
    R->prove_busy = NAN;
    if (run_csv_col(st, "stage") < 0 || run_csv_col(st, "t_start_ms") < 0 || run_csv_col(st, "t_end_ms") < 0 ||
        st->nrows == 0)
        return;
    const char *backend = json_string_value(json_object_get(cfg, "backend"));
    const json_t *gpus = json_object_get(cfg, "gpus");
    unsigned n_gpus = backend && strcmp(backend, "gpu") == 0 && json_is_array(gpus) && json_array_size(gpus) > 1 &&
                              json_array_size(gpus) <= 64
                          ? (unsigned)json_array_size(gpus)
                          : 0;
    double *iv = malloc(st->nrows * 2 * sizeof *iv), *sub = malloc(st->nrows * 2 * sizeof *sub);
    int *dev = malloc(st->nrows * sizeof *dev);
    size_t n = iv && sub && dev ? heavy_rows(st, n_gpus, iv, dev) : 0;
    double busy = 0, span = 0;
    json_t *devices = NULL;
    /* each device's rows first: the whole union sorts iv in place */
    for (unsigned d = 0; n && d < n_gpus; d++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (dev[i] == (int)d) {
                sub[2 * m] = iv[2 * i];
                sub[2 * m + 1] = iv[2 * i + 1];
                m++;
            }
        if (!devices)
            devices = json_array();
        if (m == 0) {
            json_array_append_new(devices, json_pack("{s:O,s:f,s:f,s:f,s:i}", "gpu", json_array_get(gpus, d),
                                                     "fraction", 0.0, "busy_s", 0.0, "span_s", 0.0, "stages", 0));
            continue;
        }
        interval_union(sub, m, &busy, &span);
        json_array_append_new(devices, json_pack("{s:O,s:f,s:f,s:f,s:i}", "gpu", json_array_get(gpus, d), "fraction",
                                                 span > 0 ? busy / span : 0.0, "busy_s", busy / 1000.0, "span_s",
                                                 span / 1000.0, "stages", (json_int_t)m));
    }
    double t_first = NAN;
    if (n) {
        interval_union(iv, n, &busy, &span);
        t_first = iv[0]; /* sorted by start */
    }
    free(iv);
    free(sub);
    free(dev);
    if (n == 0 || !(span > 0)) {
        json_decref(devices);
        return;
    }
    R->prove_busy = busy / span;
    json_t *pb = json_pack("{s:f,s:f,s:f,s:s,s:i}", "fraction", R->prove_busy, "busy_s", busy / 1000.0, "span_s",
                           span / 1000.0, "backend", backend ? backend : "unknown", "stages", (json_int_t)n);
    if (devices)
        json_object_set_new(pb, "devices", devices);
    json_object_set_new(pb, "what", json_string("prover busy: the union of the host-side stage rows (h, msm_*), "
                                               "each from when its lane was held; waits for a lane are the "
                                               "wait_lane rows (lane_wait_s)"));
    /* the waits for a lane, behind another proof's call on it */
    {
        int cs = run_csv_col(st, "stage"), c0 = run_csv_col(st, "t_start_ms"), c1 = run_csv_col(st, "t_end_ms");
        double wait = 0;
        json_int_t n_wait = 0;
        for (size_t i = 0; i < st->nrows; i++) {
            const char *name = run_csv_text(st, i, cs);
            double a = run_csv_num(st, i, c0), b = run_csv_num(st, i, c1);
            if (name && strcmp(name, "wait_lane") == 0 && isfinite(a) && isfinite(b) && b >= a)
                wait += b - a, n_wait++;
        }
        json_object_set_new(pb, "lane_wait_s", json_real(wait / 1000.0));
        json_object_set_new(pb, "lane_waits", json_integer(n_wait));
    }
    /* the device's own word: NVML's utilisation (samples.csv gpu<d>_util)
     * over the same span */
    const run_csv_t *sc = &run->samples;
    int ct = run_csv_col(sc, "t_ms");
    json_t *du = json_array();
    for (size_t j = 0; j < sc->ncols && ct >= 0; j++) {
        const char *name = sc->names[j];
        int d;
        char tail[8];
        if (sscanf(name, "gpu%d_%7s", &d, tail) != 2 || strcmp(tail, "util") != 0)
            continue;
        double sum = 0;
        size_t m = 0;
        for (size_t i = 0; i < sc->nrows; i++) {
            double t = run_csv_num(sc, i, ct), u = run_csv_num(sc, i, (int)j);
            if (isfinite(u) && t >= t_first && t <= t_first + span)
                sum += u, m++;
        }
        if (m)
            json_array_append_new(du, json_pack("{s:i,s:f,s:i}", "gpu", d, "fraction", sum / (double)m / 100.0,
                                                "samples", (json_int_t)m));
    }
    if (json_array_size(du))
        json_object_set_new(pb, "device_busy", du);
    else
        json_decref(du);
    json_object_set_new(J, "prove_busy", pb);
}
