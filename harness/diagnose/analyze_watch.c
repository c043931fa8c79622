/*
 * The diagnosis of a watch run (analyze_watch.h; the rules are explained in
 * docs/diagnosis.md, "Watch runs"). A foreign process has no heap counters
 * and no pipeline: what it has is its RSS split into anonymous and
 * file-backed pages, maybe a cgroup and GPU memory, proof boundaries (the
 * marks of --mark or the API, or the proofs_done column), and with --trace
 * every large allocation by call site. Per layer the valley floors (the
 * lowest value of each proof cycle, or of each time window without
 * boundaries) are fitted against the proof number:
 *   leak     the floors of the last two thirds rise (slope above 1.45 times
 *            its 95% half-width, and by >= 1 MiB and 4 noise over those
 *            floors) and still rise in the last third (at >= a third of
 *            that slope): a leak keeps growing to the end;
 *   bounded  the floors rose but stopped (a cache that reached its bound):
 *            never a leak; healthy, or capacity when the peak passes the
 *            limit;
 *   capacity peak RSS above the limit (--ram, --mem-limit, the run's cap)
 *            less the margin, or the run was OOM-killed;
 *   healthy  none of the above.
 * Traced sites get the same floor rule on their exact live bytes, so a
 * leaking site is named by function and a cache site is not (a site freed
 * only at exit still leaked while the program ran).
 */
#include "harness/diagnose/analyze_watch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze_json.h"
#include "harness/diagnose/analyze_sites.h"
#include "harness/diagnose/capacity_marks.h"
#include "harness/diagnose/watch_floors.h"
#include "harness/diagnose/watch_sampling.h"
#include "harness/run/mark_states.h"
#include "harness/run/run_csv.h"

#define WATCH_WINDOWS 16
#define WATCH_TOP_SITES 5
#define WATCH_MIN_MARKS 5        /* fewer proof boundaries: time windows */

/* ---- proof cycles ---- */

/* The intervals whose floors are fitted: between consecutive proof
 * boundaries (x: the proof number at the interval's end), or time windows
 * (x: the window's middle in seconds). */
typedef struct {
    size_t m;
    double *a, *b, *x; /* interval (a, b] in ms; boundaries: (a, b]; windows: [a, b] */
    bool per_proof;
    const char *source;  /* "marks.csv", "proofs_done" or "time windows" */
    char detail[160];
    double *marks;       /* boundary times, sorted (per_proof) */
    size_t n_marks;
} cycles_t;

static void cycles_free(cycles_t *c)
{
    free(c->a);
    free(c->b);
    free(c->x);
    free(c->marks);
}

/* An API mark that names a partition state ("synth start 7"), or tries
 * to: the occupancy columns count it (mark_states.h), not the proofs. */
static bool state_mark(const run_csv_t *m, size_t i, int cs, int cn)
{
    mark_state_mark_t x;
    return strcmp(run_csv_text(m, i, cs), "api") == 0 && mark_state_parse(&x, run_csv_text(m, i, cn)) != 0;
}

/* The boundary marks of marks.csv: the "output" source (--mark) when it has
 * any, else the most frequent (source, name) pair (API marks name phases;
 * the most frequent is taken as once per proof), state marks left out. */
static size_t pick_marks(double *out, const run_csv_t *m, char *detail, size_t dlen)
{
    int ct = run_csv_col(m, "t_ms"), cs = run_csv_col(m, "source"), cn = run_csv_col(m, "name");
    size_t best = 0, best_i = 0, n_out = 0;
    for (size_t i = 0; i < m->nrows; i++)
        if (strcmp(run_csv_text(m, i, cs), "output") == 0)
            n_out++;
    if (n_out > 0) {
        size_t k = 0;
        for (size_t i = 0; i < m->nrows; i++)
            if (strcmp(run_csv_text(m, i, cs), "output") == 0)
                out[k++] = run_csv_num(m, i, ct);
        snprintf(detail, dlen, "%zu output marks (--mark)", k);
        return k;
    }
    for (size_t i = 0; i < m->nrows; i++) {
        size_t c = 0;
        if (state_mark(m, i, cs, cn))
            continue;
        for (size_t j = 0; j < m->nrows; j++)
            c += strcmp(run_csv_text(m, i, cs), run_csv_text(m, j, cs)) == 0 &&
                 strcmp(run_csv_text(m, i, cn), run_csv_text(m, j, cn)) == 0;
        if (c > best)
            best = c, best_i = i;
    }
    size_t k = 0;
    if (best == 0) {
        snprintf(detail, dlen, "no marks but partition states");
        return 0;
    }
    for (size_t j = 0; j < m->nrows; j++)
        if (strcmp(run_csv_text(m, best_i, cs), run_csv_text(m, j, cs)) == 0 &&
            strcmp(run_csv_text(m, best_i, cn), run_csv_text(m, j, cn)) == 0)
            out[k++] = run_csv_num(m, j, ct);
    snprintf(detail, dlen, "%zu marks '%.60s' (source %.20s)", k, run_csv_text(m, best_i, cn),
             run_csv_text(m, best_i, cs));
    return k;
}

/* From samples.csv's rows i0.. (t, n: their times) and marks.csv. */
static int cycles_build(cycles_t *c, const run_csv_t *s, size_t i0, const double *t, size_t n,
                        const run_csv_t *marks, json_t *notes)
{
    memset(c, 0, sizeof *c);
    size_t cap = (marks->nrows > n ? marks->nrows : n) + WATCH_WINDOWS + 2;
    double *bt = malloc(cap * sizeof *bt);
    c->a = malloc(cap * sizeof *c->a);
    c->b = malloc(cap * sizeof *c->b);
    c->x = malloc(cap * sizeof *c->x);
    if (!bt || !c->a || !c->b || !c->x) {
        free(bt);
        return -ENOMEM;
    }
    size_t nb = 0;
    if (marks->nrows > 0) {
        nb = pick_marks(bt, marks, c->detail, sizeof c->detail);
        c->source = "marks.csv";
    }
    int cpd = run_csv_col(s, "proofs_done");
    if (nb < WATCH_MIN_MARKS && cpd >= 0) {
        /* the time each proof count was first seen */
        size_t k = 0; /* rows left out before i0 (a tick change) keep their count */
        double prev = i0 && isfinite(run_csv_num(s, i0 - 1, cpd)) ? run_csv_num(s, i0 - 1, cpd) : 0;
        for (size_t i = 0; i < n; i++) {
            double v = run_csv_num(s, i0 + i, cpd);
            while (isfinite(v) && v > prev && k + 1 < cap) {
                bt[k++] = t[i];
                prev += 1;
            }
        }
        if (k >= WATCH_MIN_MARKS) {
            nb = k;
            c->source = "proofs_done";
            snprintf(c->detail, sizeof c->detail, "%zu proofs counted in samples.csv proofs_done", k);
        }
    }
    if (nb >= WATCH_MIN_MARKS) {
        qsort(bt, nb, sizeof *bt, analyze_cmp_double); /* marks may come unsorted */
        c->per_proof = true;
        c->marks = bt;
        c->n_marks = nb;
        for (size_t k = 1; k < nb; k++) {
            c->a[c->m] = bt[k - 1];
            c->b[c->m] = bt[k];
            c->x[c->m++] = (double)(k + 1);
        }
        return 0;
    }
    if (nb > 0) {
        char msg[256];
        snprintf(msg, sizeof msg, "%s: only %zu proof boundaries (at least %d needed): growth is per second, over "
                 "time windows", c->source, nb, WATCH_MIN_MARKS);
        json_array_append_new(notes, json_string(msg));
    }
    free(bt);
    c->source = "time windows";
    size_t w = n >= 4 * WATCH_WINDOWS ? WATCH_WINDOWS : n / 4;
    /* the first window holds the start (the program loading), the last its
     * exit (freeing everything): both left out when there are enough others */
    size_t w0 = w >= 6 ? 1 : 0, w1 = w >= 6 ? w - 1 : w;
    for (size_t k = w0; k < w1; k++) {
        size_t j0 = k * n / w, j1 = (k + 1) * n / w - 1;
        c->a[c->m] = t[j0];
        c->b[c->m] = t[j1];
        c->x[c->m++] = (t[j0] + t[j1]) / 2000.0;
    }
    snprintf(c->detail, sizeof c->detail, "%zu windows of %zu samples (no proof boundaries: growth per second)", c->m,
             w ? n / w : 0);
    return 0;
}

/* ---- layers ---- */

enum { WL_TRACKED, WL_ANON, WL_FILE, WL_RSS, WL_CG_ANON, WL_CG_CURRENT, WL_GPU, WL_COUNT };

static const char *const wl_name[WL_COUNT] = {"tracked", "rss_anon", "rss_file", "rss", "cg_anon", "cg_current",
                                              "gpu_used"};
static const char *const wl_what[WL_COUNT] = {"traced allocations", "anonymous memory", "file-backed mappings",
                                              "resident memory", "the cgroup's anonymous memory",
                                              "the cgroup's charge", "GPU memory"};
/* cg_current counts page cache, which grows with any file I/O and is
 * reclaimed: reported, never the leak's layer */
static const bool wl_candidate[WL_COUNT] = {true, true, true, true, true, false, true};

typedef struct {
    bool present;
    double *y;
    double *floors;
    watch_growth_t G;
    double peak, end, base;
    double swing; /* median over the intervals of (highest - lowest sample): the cycle's amplitude */
} wlayer_t;

/* Whether "bounded" (growth that stopped) is shown: the rise stands out of
 * the floors' scatter, and the tick resolves the cycle's valleys (the
 * verdict panel: leaks sampled coarsely read as caches). */
static bool watch_bound_shown(const watch_growth_t *G, const watch_sampling_t *S)
{
    return G->rise >= WATCH_NOISE_FACTOR * G->g_sd && !S->coarse;
}

/* Whether the floors of the representative layer leave the question open:
 * too few to fit, or an interval that admits growth as large as a leak
 * (issue 25: a 2 MiB-a-cycle leak watched at a tick coarser than its cycle
 * read "healthy" over 5 windows, CI -87 .. 91 MiB/s). Then R's verdict is
 * inconclusive, with why in R->reason (to be completed by the caller) and
 * what would decide in R->decide. */
static bool watch_undecided(analyze_result_t *R, const watch_growth_t *G, double swing, const cycles_t *C,
                            const double *t, size_t n, const watch_sampling_t *S, const char *layer, const char *unit)
{
    char b1[32], b2[32];
    double tick = S->tick_ms;
    double dur = n >= 2 ? (t[n - 1] - t[0]) / 1000.0 : 0;
    /* without proof boundaries the windows need >= 4 samples each over
     * WATCH_WINDOWS windows before "no growth" or "bounded" can be said */
    bool few = !G->fitted || (!C->per_proof && n < 4 * WATCH_WINDOWS);
    bool admits = G->fitted && isfinite(G->g_hi) && G->g_hi * G->span_late >= WATCH_MIN_GROWTH;
    /* the interval admits growth beyond the floors' own noise */
    bool wide = admits && G->g_hi * G->span_late >= WATCH_NOISE_FACTOR * G->g_sd;
    /* a tick coarser than a tenth of the cycle (marked, or found in the
     * signal) misses the valleys: the "floors" are wherever the samples fell */
    bool coarse = admits && S->coarse;
    /* the floors of the last third sit above the first ones, and still
     * rise, without proof either way */
    bool rising = G->fitted && G->rise >= fmax(WATCH_MIN_GROWTH, 2 * G->noise);
    /* floors that scatter by a quarter of the cycle's swing are not the
     * valleys: the intervals were too short to hold one (the verdict
     * panel: a sawtooth leak at 2 samples a cycle read "no growth") */
    bool unresolved = admits && swing >= WATCH_MIN_GROWTH && G->noise >= 0.25 * swing;
    /* the last third's floors rise beyond chance, whatever the whole fit
     * says (the verdict panel: an aliased slow leak, its early floors taken
     * inside the work) */
    bool tail_rises = G->fitted && isfinite(G->tail_lo) && G->tail_lo > 0 &&
                      G->tail * G->span_tail >= WATCH_MIN_GROWTH;
    if (!few && !wide && !coarse && !rising && !unresolved && !tail_rises)
        return false;
    R->verdict = ANALYZE_INCONCLUSIVE;
    if (few && !G->fitted)
        snprintf(R->reason, sizeof R->reason, "no growth can be measured: %zu samples gave %zu %s (at least %d are "
                 "needed)", n, C->m, C->per_proof ? "proof cycles" : "time windows", WATCH_MIN_FLOORS);
    else if (few)
        snprintf(R->reason, sizeof R->reason, "%zu samples without proof boundaries are too few to rule growth out "
                 "(at least %d: %d windows of 4)", n, 4 * WATCH_WINDOWS, WATCH_WINDOWS);
    else
        snprintf(R->reason, sizeof R->reason, "the valley floors of %s do not prove growth, but their interval (%s .. "
                 "%s per %s over %zu %s) admits growth as large as a leak's", layer,
                 analyze_fmt_bytes(b1, sizeof b1, G->g_lo), analyze_fmt_bytes(b2, sizeof b2, G->g_hi), unit, G->m,
                 C->per_proof ? "proof cycles" : "time windows");
    if (S->coarse) {
        snprintf(R->decide, sizeof R->decide, "--sample-ms %d: the cycle is %.3g s%s and the tick %.3g s (%.1f "
                 "samples a cycle; about %d are needed)", S->suggest_ms, S->period_ms / 1000,
                 strcmp(S->source, "signal") == 0 ? " (found in the signal)" : "", tick / 1000, S->samples_per_cycle,
                 WATCH_SAMPLES_PER_CYCLE);
    } else if (C->per_proof) {
        snprintf(R->decide, sizeof R->decide, "watch at least %zu proof cycles (this run: %zu)",
                 C->m < 8 ? (size_t)12 : 2 * C->m, C->m);
    } else if (n < 4 * WATCH_WINDOWS && tick > 0) {
        int ms = dur > 0 ? (int)floor(dur * 1000 / (4 * WATCH_WINDOWS)) : 1;
        snprintf(R->decide, sizeof R->decide, "at least %d samples (this run: %zu): --sample-ms %d over a run as "
                 "long as this one (%.1f s), or a longer run; or mark the proofs with --mark (growth per proof)",
                 4 * WATCH_WINDOWS, n, ms > 1 ? ms : 1, dur);
    } else {
        snprintf(R->decide, sizeof R->decide, "a longer run (about 4x, %.0f s), or proof boundaries (--mark): growth "
                 "per proof needs no window", 4 * dur);
    }
    snprintf(R->headline, sizeof R->headline, "inconclusive: %s", few ? "too few samples to measure growth"
                                                                      : "growth is neither shown nor ruled out");
    return true;
}

/* ---- the analysis ---- */

/* The per-state capacity model of a program that marked its partitions'
 * states (capacity_marks.h), into R and the capacity block jc, as a batch
 * run's (analyze_rules.c): predictions, the largest pw under the limit,
 * or why not; what the marks left uncounted is a note. 0 or -ENOMEM. */
static int watch_states_model(analyze_result_t *R, const run_csv_t *sc, json_t *jc, const json_t *rj, bool killed,
                              json_t *notes)
{
    if (capacity_marks_fit(&R->capacity, sc) < 0)
        return -ENOMEM;
    capacity_model_t *m = &R->capacity;
    if (killed && m->ok) { /* as a batch's: its peak was cut short */
        m->ok = false;
        snprintf(m->why, sizeof m->why, "the run was OOM-killed before its end, so its peak and its model are cut "
                 "short; a run that completes (zkbench sweep --pw ... -- CMD) gives it");
    }
    R->pw = m->pw;
    R->footprint_per_partition = m->ok ? m->state_bytes[CAPACITY_SYNTH] : NAN;
    int pmax = R->pw > 0 ? (R->pw < 512 ? 2 * R->pw : 1024) : 8;
    json_t *model = capacity_json(m, pmax, R->limit_rss);
    if (!model)
        return -ENOMEM;
    if (m->ok && isfinite(R->limit_rss))
        R->largest_pw = (int)json_integer_value(json_object_get(model, "max_pw"));
    json_object_set_new(jc, "pw", json_integer(R->pw));
    json_object_set(jc, "predicted", json_object_get(model, "predicted"));
    json_object_set(jc, "max_pw", json_object_get(model, "max_pw"));
    json_object_set(jc, "bound_by", json_object_get(model, "bound_by"));
    json_object_set_new(jc, "largest_pw", R->largest_pw >= 0 ? json_integer(R->largest_pw) : json_null());
    json_object_set_new(jc, "model_from", json_string("partition states marked by the program (samples.csv "
                                                      "occupancy), bytes per state fitted from RSS"));
    if (!m->ok)
        json_object_set_new(jc, "why", json_string(m->why));
    json_object_set_new(jc, "model", model);
    const char *problems = json_string_value(json_object_get(json_object_get(rj, "mark_states"), "problems"));
    if (problems) {
        char msg[800];
        snprintf(msg, sizeof msg, "partition states (marks.csv): %s", problems);
        json_array_append_new(notes, json_string(msg));
    }
    return 0;
}

int analyze_watch_compute(analyze_result_t *ret, const analyze_run_t *run, const analyze_opts_t *opts, char *err,
                          size_t errlen)
{
    analyze_result_t R = {0};
    const run_csv_t *sc = analyze_run_csv(run, "samples.csv"), *bc = analyze_run_csv(run, "buffers.csv"),
                    *mc = analyze_run_csv(run, "marks.csv"), *sic = analyze_run_csv(run, "sites.csv");
    const json_t *rj = analyze_run_json(run), *cfg = json_object_get(rj, "config");
    size_t n = sc->nrows;
    int rc = -ENOMEM;
    char b1[32], b2[32], b3[32], b4[32];
    double *t = malloc(n * sizeof *t);
    wlayer_t L[WL_COUNT] = {{0}};
    analyze_sites_t SS = {0};
    watch_growth_t *SG = NULL; /* per site of SS */
    cycles_t C = {0};
    json_t *J = json_object(), *notes = json_deep_copy(analyze_run_notes(run));
    if (!t || !J || !notes)
        goto oom;
    R.watch = true;
    R.leak_layer = -1;
    R.largest_pw = -1;
    R.pw = -1;
    R.limit_rss = R.peak_anon = R.file_at_peak = NAN;
    R.prove_busy = NAN;
    R.footprint_per_partition = R.footprint_se = NAN;
    for (int l = 0; l < ANALYZE_NLAYERS; l++) {
        analyze_layer_t *A = &R.layer[l];
        A->baseline = A->peak = A->end = A->after_drain = NAN;
        A->g = A->g_lo = A->g_hi = A->floor_slope = A->floor_lo = A->floor_hi = NAN;
    }
    int ct = run_csv_col(sc, "t_ms");
    for (size_t i = 0; i < n; i++)
        t[i] = run_csv_num(sc, i, ct);
    /* after a tick change (--sample-ms auto) the rows from the last one on:
     * one tick, the one that fits the cycle (watch_sampling.h) */
    size_t i0 = watch_sampling_start(rj, t, n);
    memmove(t, t + i0, (n - i0) * sizeof *t);
    n -= i0;
    R.samples = n;

    /* -- layers from samples.csv -- */
    static const char *const col_of[WL_COUNT] = {NULL, "rss_anon", "rss_file", "rss", "cg_anon", "cg_current",
                                                 NULL};
    for (int l = 0; l < WL_COUNT; l++) {
        if (!col_of[l])
            continue;
        int c = run_csv_col(sc, col_of[l]);
        if (c < 0)
            continue;
        bool all = true;
        for (size_t i = 0; i < n && all; i++)
            all = isfinite(run_csv_num(sc, i0 + i, c));
        if (!all)
            continue; /* empty in some rows: an optional column (empty_ok) never filled in full */
        if (!(L[l].y = malloc(n * sizeof(double))))
            goto oom;
        for (size_t i = 0; i < n; i++)
            L[l].y[i] = run_csv_num(sc, i0 + i, c);
        L[l].present = true;
    }
    /* GPU: the process's own memory on every device (gpu<i>_used), else the
     * device-wide gpu_used when it is ever above 0 */
    {
        int cg[64], ncg = 0;
        for (size_t j = 0; j < sc->ncols && ncg < 64; j++) {
            const char *nm = sc->names[j];
            size_t len = strlen(nm);
            if (strncmp(nm, "gpu", 3) == 0 && nm[3] >= '0' && nm[3] <= '9' && len > 8 &&
                strcmp(nm + len - 5, "_used") == 0 && !strstr(nm, "device") && !run_csv_absent(sc, j))
                cg[ncg++] = (int)j;
        }
        int cgu = run_csv_col(sc, "gpu_used");
        bool any = false;
        if (!(L[WL_GPU].y = calloc(n ? n : 1, sizeof(double))))
            goto oom;
        for (size_t i = 0; i < n; i++) {
            double v = 0;
            if (ncg)
                for (int k = 0; k < ncg; k++)
                    v += isfinite(run_csv_num(sc, i0 + i, cg[k])) ? run_csv_num(sc, i0 + i, cg[k]) : 0;
            else
                v = cgu >= 0 && isfinite(run_csv_num(sc, i0 + i, cgu)) ? run_csv_num(sc, i0 + i, cgu) : 0;
            L[WL_GPU].y[i] = v;
            any = any || v > 0;
        }
        L[WL_GPU].present = any;
    }

    /* -- traced buffers by site; the L0 of the run -- */
    if (analyze_sites_load(&SS, bc, sic, t, n) < 0)
        goto oom;
    R.never_freed_bytes = SS.never_freed;
    if (SS.tracked) {
        L[WL_TRACKED].y = SS.tracked; /* borrowed: freed with SS */
        L[WL_TRACKED].present = true;
    }
    if (SS.n && !(SG = calloc(SS.n, sizeof *SG)))
        goto oom;
    for (size_t s = 0; s < SS.n; s++)
        watch_growth_of(&SG[s], NULL, NULL, 0); /* no numbers until fitted */

    /* -- proof cycles and floors -- */
    if ((rc = cycles_build(&C, sc, i0, t, n, mc, notes)) < 0)
        goto oom;
    rc = -ENOMEM;
    R.per_proof = C.per_proof;
    R.proofs_done = C.per_proof ? C.n_marks : 0;
    const char *unit = C.per_proof ? "proof" : "s";
    for (int l = 0; l < WL_COUNT; l++) {
        wlayer_t *W = &L[l];
        if (!W->present)
            continue;
        if (!(W->floors = malloc((C.m + 1) * sizeof(double))))
            goto oom;
        W->peak = -INFINITY;
        for (size_t i = 0; i < n; i++)
            W->peak = fmax(W->peak, W->y[i]);
        size_t ne = n < 5 ? n : 5;
        W->end = analyze_median(W->y + n - ne, ne);
        /* floors: the lowest sample in each interval; an interval with no
         * sample (marks faster than the sampler) has none */
        double *fx = malloc((C.m + 1) * sizeof *fx);
        if (!fx)
            goto oom;
        double *sw = malloc((C.m + 1) * sizeof *sw);
        if (!sw) {
            free(fx);
            goto oom;
        }
        size_t m = 0, i = 0;
        for (size_t k = 0; k < C.m; k++) {
            double mn = INFINITY, mx = -INFINITY;
            while (i < n && (C.per_proof ? t[i] <= C.a[k] : t[i] < C.a[k]))
                i++;
            for (size_t j = i; j < n && t[j] <= C.b[k]; j++)
                mn = fmin(mn, W->y[j]), mx = fmax(mx, W->y[j]);
            if (isfinite(mn)) {
                fx[m] = C.x[k];
                sw[m] = mx - mn;
                W->floors[m++] = mn;
            }
        }
        W->swing = m ? analyze_median(sw, m) : 0;
        free(sw);
        watch_growth_of(&W->G, fx, W->floors, m);
        W->base = m ? W->floors[0] : W->y[0];
        free(fx);
    }
    if (C.m < WATCH_MIN_FLOORS) {
        char msg[200];
        snprintf(msg, sizeof msg, "only %zu %s to take floors from (%zu samples): too short to measure growth", C.m,
                 C.per_proof ? "proof cycles" : "time windows", n);
        json_array_append_new(notes, json_string(msg));
    }
    if (C.m > 0 && analyze_sites_floors(&SS, C.a, C.b, C.m) < 0)
        goto oom;
    for (size_t s = 0; s < SS.n; s++)
        if (SS.v[s].floors)
            watch_growth_of(&SG[s], C.x, SS.v[s].floors, C.m);

    /* -- whether the tick fits the cycle: the marks' period, else the signal's -- */
    watch_sampling_t SP;
    const wlayer_t *Ws = L[WL_ANON].present ? &L[WL_ANON] : &L[WL_RSS];
    if (watch_sampling_assess(&SP, rj, t, Ws->y, Ws->present ? n : 0, i0, C.marks, C.per_proof ? C.n_marks : 0,
                              WATCH_MIN_GROWTH) < 0)
        goto oom;
    watch_sampling_line(R.sampling_line, sizeof R.sampling_line, &SP);
    if (i0) {
        char msg[200];
        snprintf(msg, sizeof msg, "%zu samples before the last tick change (t = %.1f s, --sample-ms auto) left out: "
                 "the analysis uses one tick, %.3g ms", i0, SP.from_ms / 1000, SP.tick_ms);
        json_array_append_new(notes, json_string(msg));
    }

    /* -- the leak: the first candidate layer whose floors keep rising -- */
    int leak_l = -1;
    /* sampled layers without proof boundaries: a rate over fewer than
     * WATCH_WINDOWS windows of 4 samples is no rate (the verdict panel: a
     * plateau read as a leak over 37 samples); traced sites are exact */
    bool enough = C.per_proof || n >= 4 * WATCH_WINDOWS;
    for (int l = 0; l < WL_COUNT && enough; l++)
        if (L[l].present && wl_candidate[l] && L[l].G.leak) {
            leak_l = l;
            break;
        }
    /* the site that leaks most (exact live bytes: the same floor rule) */
    const analyze_site_t *leak_site = NULL;
    const watch_growth_t *LG = NULL;
    for (size_t s = 0; s < SS.n; s++)
        if (SG[s].leak && (!leak_site || SG[s].g > LG->g))
            leak_site = &SS.v[s], LG = &SG[s];
    /* the layer whose numbers are reported: the leaking one, else anon
     * memory (or RSS) */
    int rep = leak_l >= 0 ? leak_l : L[WL_ANON].present ? WL_ANON : WL_RSS;
    if (leak_l < 0 && leak_site && L[WL_TRACKED].present)
        rep = WL_TRACKED;
    const watch_growth_t *G = &L[rep].G;
    R.leak_rate = G->g;
    R.leak_lo = G->g_lo;
    R.leak_hi = G->g_hi;
    if (leak_site && (leak_l < 0 || leak_l == WL_TRACKED)) {
        R.leak_rate = LG->g;
        R.leak_lo = LG->g_lo;
        R.leak_hi = LG->g_hi;
    }
    bool leak = leak_l >= 0 || leak_site;
    /* map onto the batch layers, for check and the report */
    static const int to_batch[WL_COUNT] = {ANALYZE_L_TRACKED, -1, -1, ANALYZE_L_RSS, -1, -1, ANALYZE_L_GPU};
    for (int l = 0; l < WL_COUNT; l++) {
        int b = to_batch[l];
        if (b < 0 || !L[l].present)
            continue;
        analyze_layer_t *A = &R.layer[b];
        A->baseline = L[l].base;
        A->peak = L[l].peak;
        A->end = L[l].end;
        A->g = L[l].G.g, A->g_lo = L[l].G.g_lo, A->g_hi = L[l].G.g_hi;
        A->floor_slope = L[l].G.all, A->floor_lo = L[l].G.all_lo, A->floor_hi = L[l].G.all_hi;
        A->n_floors = L[l].G.m;
        A->g_significant = L[l].G.leak;
        A->fitted = L[l].G.fitted;
    }
    if (leak)
        R.leak_layer = leak_l >= 0 && to_batch[leak_l] >= 0 ? to_batch[leak_l]
                       : leak_l < 0                         ? ANALYZE_L_TRACKED
                                                            : ANALYZE_L_RSS;

    /* -- peak, capacity -- */
    R.baseline_rss = L[WL_RSS].base;
    R.peak_rss = L[WL_RSS].peak;
    int chwm = run_csv_col(sc, "hwm"), crss = run_csv_col(sc, "rss");
    for (size_t i = 0; i < sc->nrows; i++) /* the peak of the whole run, rows left out too */
        for (int c = 0; c < 2; c++)
            if ((c ? chwm : crss) >= 0 && isfinite(run_csv_num(sc, i, c ? chwm : crss)))
                R.peak_rss = fmax(R.peak_rss, run_csv_num(sc, i, c ? chwm : crss));
    analyze_anon_peak(sc, &R.peak_anon, &R.file_at_peak);
    R.ram_bytes = opts && opts->ram_bytes ? (double)opts->ram_bytes : NAN;
    const char *ram_src = opts && opts->ram_from ? opts->ram_from : "--ram";
    if (!isfinite(R.ram_bytes) && isfinite(jnum_get(cfg, "mem_limit")))
        R.ram_bytes = jnum_get(cfg, "mem_limit"), ram_src = "run.json config.mem_limit";
    if (!isfinite(R.ram_bytes) && isfinite(jnum_get(rj, "mem_limit")))
        R.ram_bytes = jnum_get(rj, "mem_limit"), ram_src = "run.json mem_limit";
    if (!isfinite(R.ram_bytes) && isfinite(jnum_get(json_object_get(rj, "machine"), "ram_bytes")))
        R.ram_bytes = jnum_get(json_object_get(rj, "machine"), "ram_bytes"), ram_src = "run.json machine";
    R.margin = analyze_margin(opts, ram_src);
    const char *outcome = json_string_value(json_object_get(rj, "outcome"));
    bool oom_killed = outcome && strcmp(outcome, "oom-killed") == 0;
    bool capacity = oom_killed;
    json_t *jc = json_object();
    json_object_set_new(jc, "peak_rss", jbytes(R.peak_rss));
    if (isfinite(R.ram_bytes)) {
        R.limit_rss = R.ram_bytes * (1 - R.margin);
        capacity = capacity || R.peak_rss > R.limit_rss;
        json_object_set_new(jc, "ram_bytes", jbytes(R.ram_bytes));
        json_object_set_new(jc, "ram_from", json_string(ram_src));
        json_object_set_new(jc, "margin", jnum(R.margin));
        json_object_set_new(jc, "limit_bytes", jbytes(R.limit_rss));
    } else {
        json_object_set_new(jc, "ram_bytes", json_null());
        json_object_set_new(jc, "why_no_limit", json_string("no RAM size or memory limit: pass --ram or --mem-limit"));
    }
    json_object_set_new(jc, "oom_killed", json_boolean(oom_killed));
    json_object_set_new(jc, "detected", json_boolean(capacity && !leak));
    if (capacity_marks_present(sc) && watch_states_model(&R, sc, jc, rj, oom_killed, notes) < 0)
        goto oom;

    /* -- timing: the median proof cycle -- */
    R.s_per_proof = NAN;
    if (C.per_proof && C.n_marks >= 2) {
        double *d = malloc(C.n_marks * sizeof *d);
        if (!d)
            goto oom;
        for (size_t k = 1; k < C.n_marks; k++)
            d[k - 1] = (C.marks[k] - C.marks[k - 1]) / 1000.0;
        R.s_per_proof = analyze_median(d, C.n_marks - 1);
        free(d);
    }

    /* -- verdict and its sentence -- */
    const watch_growth_t *Gr = &L[rep].G;
    char site_part[800] = "", floors_part[200] = "";
    if (Gr->m > 0)
        snprintf(floors_part, sizeof floors_part, "valley floors of %s %s -> %s over %zu %s", wl_name[rep],
                 analyze_fmt_bytes(b1, sizeof b1, Gr->first), analyze_fmt_bytes(b2, sizeof b2, Gr->last), Gr->m,
                 C.per_proof ? "proof cycles" : "time windows");
    if (leak) {
        R.verdict = ANALYZE_LEAK;
        if (leak_site) {
            snprintf(R.leak_where, sizeof R.leak_where, "site %.60s%s%.80s%s", leak_site->function,
                     leak_site->where[0] ? " (" : "", leak_site->where, leak_site->where[0] ? ")" : "");
            /* freed only at exit still grew without bound while it ran */
            snprintf(R.headline, sizeof R.headline, "leak: %s per %s, %s at %.100s%s%.100s%s",
                     analyze_fmt_bytes(b1, sizeof b1, LG->g), unit,
                     leak_site->never_freed > 0 ? "never freed" : "kept until the end", leak_site->function,
                     leak_site->where[0] ? " (" : "", leak_site->where, leak_site->where[0] ? ")" : "");
        } else {
            snprintf(R.leak_where, sizeof R.leak_where, "%s: %s", wl_name[leak_l], wl_what[leak_l]);
            snprintf(R.headline, sizeof R.headline, "leak: %s per %s in %s (%s)",
                     analyze_fmt_bytes(b1, sizeof b1, L[leak_l].G.g), unit, wl_what[leak_l], wl_name[leak_l]);
        }
        const watch_growth_t *Gl = leak_l >= 0 ? &L[leak_l].G : LG;
        if (leak_site)
            snprintf(site_part, sizeof site_part, "; site %s (%s) holds %s never freed, its live bytes grow %s per %s "
                     "(95%% CI %s .. %s)", leak_site->function, leak_site->label,
                     analyze_fmt_bytes(b1, sizeof b1, leak_site->never_freed),
                     analyze_fmt_bytes(b2, sizeof b2, LG->g), unit,
                     analyze_fmt_bytes(b3, sizeof b3, LG->g_lo),
                     analyze_fmt_bytes(b4, sizeof b4, LG->g_hi));
        else if (SS.n > 0)
            snprintf(site_part, sizeof site_part, "; no traced site grows (the leak is in allocations below "
                     "--trace-min or outside the traced calls)");
        snprintf(R.reason, sizeof R.reason,
                 "%s grows %s per %s (95%% CI %s .. %s) and still grows in the last third (%s per %s); %s%s",
                 leak_l >= 0 ? wl_name[leak_l] : "tracked", analyze_fmt_bytes(b1, sizeof b1, Gl->g), unit,
                 analyze_fmt_bytes(b2, sizeof b2, Gl->g_lo), analyze_fmt_bytes(b3, sizeof b3, Gl->g_hi),
                 analyze_fmt_bytes(b4, sizeof b4, Gl->tail), unit, floors_part, site_part);
    } else {
        char why[600];
        const watch_growth_t *Gb = NULL;
        int lb = -1;
        for (int l = 0; l < WL_COUNT && !Gb; l++)
            if (L[l].present && wl_candidate[l] && L[l].G.bounded && watch_bound_shown(&L[l].G, &SP) &&
                (C.per_proof || n >= 4 * WATCH_WINDOWS))
                Gb = &L[l].G, lb = l;
        if (Gb)
            snprintf(why, sizeof why, "bounded: %s grew %s, then stopped (reached 90%% of it at %s %.*f; last third "
                     "%s per %s): a cache that reached its bound, not a leak", wl_name[lb],
                     analyze_fmt_bytes(b1, sizeof b1, Gb->rise), C.per_proof ? "proof" : "t =", C.per_proof ? 0 : 1,
                     Gb->bound_at, analyze_fmt_bytes(b2, sizeof b2, Gb->tail), unit);
        else if (Gr->fitted)
            snprintf(why, sizeof why, "no growth: over the last two thirds the valley floors of %s change %s per %s "
                     "(95%% CI %s .. %s); %s", wl_name[rep], analyze_fmt_bytes(b1, sizeof b1, Gr->g + 0.0), unit,
                     analyze_fmt_bytes(b2, sizeof b2, Gr->g_lo + 0.0), analyze_fmt_bytes(b3, sizeof b3, Gr->g_hi + 0.0),
                     floors_part);
        else
            snprintf(why, sizeof why, "no growth could be measured: %zu samples, %zu %s (at least %d needed)", n, C.m,
                     C.per_proof ? "proof cycles" : "time windows", WATCH_MIN_FLOORS);
        if (capacity) {
            R.verdict = ANALYZE_CAPACITY;
            if (oom_killed)
                snprintf(R.reason, sizeof R.reason, "no leak; the process was OOM-killed under its memory limit %s "
                         "at peak RSS %s; %s", analyze_fmt_bytes(b1, sizeof b1, R.ram_bytes),
                         analyze_fmt_bytes(b2, sizeof b2, R.peak_rss), why);
            else
                snprintf(R.reason, sizeof R.reason, "no leak, but peak RSS %s is above %s (%s %s less a %.0f%% "
                         "margin); %s", analyze_fmt_bytes(b1, sizeof b1, R.peak_rss),
                         analyze_fmt_bytes(b2, sizeof b2, R.limit_rss), ram_src,
                         analyze_fmt_bytes(b3, sizeof b3, R.ram_bytes), 100 * R.margin, why);
            snprintf(R.headline, sizeof R.headline, "capacity: peak RSS %s above %s",
                     analyze_fmt_bytes(b1, sizeof b1, R.peak_rss), analyze_fmt_bytes(b2, sizeof b2, R.limit_rss));
        } else if (!Gb && watch_undecided(&R, Gr, L[rep].swing, &C, t, n, &SP, wl_name[rep], unit)) {
            char reason[sizeof R.reason];
            snprintf(reason, sizeof reason, "%.900s%s%s; peak RSS %s", R.reason, floors_part[0] ? "; " : "",
                     floors_part, analyze_fmt_bytes(b1, sizeof b1, R.peak_rss));
            snprintf(R.reason, sizeof R.reason, "%s", reason);
        } else {
            R.verdict = ANALYZE_HEALTHY;
            snprintf(R.reason, sizeof R.reason, "%s; peak RSS %s", why, analyze_fmt_bytes(b1, sizeof b1, R.peak_rss));
            snprintf(R.headline, sizeof R.headline, "healthy: %s", Gb ? "bounded growth (a cache), no leak" : "no growth");
        }
    }

    /* -- JSON -- */
    json_t *jb = json_object();
    json_object_set_new(jb, "source", json_string(C.source));
    json_object_set_new(jb, "detail", json_string(C.detail));
    json_object_set_new(jb, "unit", json_string(unit));
    json_object_set_new(jb, "count", json_integer((json_int_t)(C.per_proof ? C.n_marks : 0)));
    json_object_set_new(jb, "intervals", json_integer((json_int_t)C.m));
    if (mc->nrows > 0) {
        json_t *names = json_object();
        int cs = run_csv_col(mc, "source"), cn = run_csv_col(mc, "name");
        for (size_t i = 0; i < mc->nrows; i++) {
            char key[200];
            snprintf(key, sizeof key, "%s:%s", run_csv_text(mc, i, cs), run_csv_text(mc, i, cn));
            json_t *v = json_object_get(names, key);
            json_object_set_new(names, key, json_integer(v ? json_integer_value(v) + 1 : 1));
        }
        json_object_set_new(jb, "marks", names);
    }
    json_t *jl = json_object();
    for (int l = 0; l < WL_COUNT; l++) {
        if (!L[l].present)
            continue;
        json_t *o = json_object(), *fl = json_array();
        json_object_set_new(o, "what", json_string(wl_what[l]));
        json_object_set_new(o, "may_name_a_leak", json_boolean(wl_candidate[l]));
        json_object_set_new(o, "baseline", jbytes(L[l].base));
        json_object_set_new(o, "peak", jbytes(L[l].peak));
        json_object_set_new(o, "end", jbytes(L[l].end));
        for (size_t k = 0; k < L[l].G.m; k++)
            json_array_append_new(fl, jbytes(L[l].floors[k]));
        json_object_set_new(o, "valley_floors", fl);
        json_object_set_new(o, "growth", watch_growth_json(&L[l].G, C.per_proof));
        json_object_set_new(jl, wl_name[l], o);
    }
    /* after the last boundary: what the process kept once its work ended */
    if (C.per_proof && C.n_marks > 0) {
        double last = C.marks[C.n_marks - 1], mn = INFINITY;
        for (size_t i = 0; i < n; i++)
            if (t[i] > last)
                mn = fmin(mn, L[WL_RSS].y[i]);
        json_object_set_new(jb, "rss_after_last_boundary", jbytes(isfinite(mn) ? mn : NAN));
    }
    json_t *jsites = json_array();
    size_t shown = 0;
    for (size_t s = 0; s < SS.n; s++) {
        const analyze_site_t *S = &SS.v[s];
        const watch_growth_t *SGs = &SG[s];
        if (shown >= WATCH_TOP_SITES && S != leak_site)
            continue;
        shown++;
        json_t *o = json_object();
        json_object_set_new(o, "site", json_string(S->key));
        json_object_set_new(o, "label", json_string(S->label));
        json_object_set_new(o, "function", json_string(S->function));
        json_object_set_new(o, "where", json_string(S->where));
        json_object_set_new(o, "buffers", json_integer((json_int_t)S->n));
        json_object_set_new(o, "bytes_total", jbytes(S->bytes_total));
        json_object_set_new(o, "never_freed_bytes", jbytes(S->never_freed));
        json_object_set_new(o, "never_freed_buffers", json_integer((json_int_t)S->n_never));
        json_object_set_new(o, "never_freed_small_bytes", jbytes(S->small_never_freed));
        json_object_set_new(o, "held_gib_s", jnum(S->in_buffers ? S->held_gibs : NAN));
        json_object_set_new(o, "growth_unit", json_string(unit));
        json_object_set_new(o, C.per_proof ? "growth_per_proof" : "growth_per_s", jnum(SGs->g));
        if (!C.per_proof)
            json_object_set_new(o, "growth_per_proof", json_null());
        json_object_set_new(o, "growth_lo", jnum(SGs->g_lo));
        json_object_set_new(o, "growth_hi", jnum(SGs->g_hi));
        json_object_set_new(o, "growth_last_third", jnum(SGs->tail));
        json_object_set_new(o, "leak", json_boolean(SGs->leak));
        json_object_set_new(o, "bounded", json_boolean(SGs->bounded));
        json_array_append_new(jsites, o);
    }
    json_t *jleak = json_object();
    json_object_set_new(jleak, "detected", json_boolean(leak));
    json_object_set_new(jleak, "where", R.leak_where[0] ? json_string(R.leak_where) : json_null());
    json_object_set_new(jleak, "layer", leak_l >= 0 ? json_string(wl_name[leak_l])
                                        : leak_site  ? json_string("tracked")
                                                     : json_null());
    json_object_set_new(jleak, "site", leak_site ? json_string(leak_site->key) : json_null());
    json_object_set_new(jleak, "function", leak_site ? json_string(leak_site->function) : json_null());
    json_object_set_new(jleak, "unit", json_string(unit));
    json_object_set_new(jleak, C.per_proof ? "bytes_per_proof" : "bytes_per_s", jbytes(R.leak_rate));
    json_object_set_new(jleak, "ci95", json_pack("[oo]", jbytes(R.leak_lo), jbytes(R.leak_hi)));
    json_object_set_new(jleak, "proofs_done", json_integer((json_int_t)R.proofs_done));
    json_object_set_new(jleak, "never_freed_bytes", jbytes(R.never_freed_bytes));

    json_t *head = json_object();
    json_object_set_new(head, "verdict", json_string(analyze_verdict_name(R.verdict)));
    json_object_set_new(head, "headline", json_string(R.headline));
    json_object_set_new(head, "reason", json_string(R.reason));
    json_object_set_new(head, "evidence", json_deep_copy(leak ? jleak : capacity ? jc : json_object_get(jl, wl_name[rep])));
    json_object_set_new(head, "checks", json_pack("{s:b,s:b,s:b,s:b,s:b}", "leak", leak, "queue-pileup", 0,
                                                  "held-too-long", 0, "retention", 0, "capacity", capacity));
    json_object_set_new(head, "run_kind", json_string("watch"));
    json_object_set_new(head, "peak_rss", jbytes(R.peak_rss));
    json_object_set_new(head, "baseline_rss", jbytes(R.baseline_rss));
    json_object_set_new(head, "footprint_per_partition",
                        isfinite(R.footprint_per_partition) ? jbytes(R.footprint_per_partition) : json_null());
    json_object_set_new(head, "leak_bytes_per_proof", C.per_proof ? jbytes(R.leak_rate) : json_null());
    json_object_set_new(head, "leak_ci95", C.per_proof ? json_pack("[oo]", jbytes(R.leak_lo), jbytes(R.leak_hi))
                                                       : json_pack("[nn]"));
    json_object_set_new(head, "growth", json_pack("{s:s,s:s,s:o,s:[oo]}", "unit", unit, "layer",
                                                  leak_l >= 0 ? wl_name[leak_l] : leak_site ? "tracked" : wl_name[rep],
                                                  "bytes_per_unit", jbytes(R.leak_rate), "ci95", jbytes(R.leak_lo),
                                                  jbytes(R.leak_hi)));
    json_object_set_new(head, "never_freed_bytes", jbytes(R.never_freed_bytes));
    json_object_set_new(head, "s_per_proof", jnum(R.s_per_proof));
    json_object_set_new(head, "proofs_done", json_integer((json_int_t)R.proofs_done));
    json_object_set_new(head, "samples", json_integer((json_int_t)n));
    json_object_set_new(head, "boundaries", jb);
    json_object_set_new(head, "sampling", watch_sampling_json(&SP));
    json_object_set_new(head, "layers", jl);
    json_object_set_new(head, "leak", jleak);
    json_object_set_new(head, "sites", jsites);
    json_object_set_new(head, "capacity", jc);
    json_object_set_new(head, "notes", notes);
    notes = NULL;
    json_decref(J);
    J = NULL;
    R.json = head;
    *ret = R;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
    rc = -ENOMEM;
done:
    json_decref(J);
    json_decref(notes);
    free(t);
    for (int l = 0; l < WL_COUNT; l++) {
        if (l != WL_TRACKED)
            free(L[l].y);
        free(L[l].floors);
    }
    analyze_sites_free(&SS);
    free(SG);
    cycles_free(&C);
    return rc;
}
