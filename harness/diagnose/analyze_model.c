/*
 * The model of a batch run (docs/diagnosis.md, "Layers", "Baseline", "The
 * fit"): samples.csv as series per memory layer and occupancy count, the
 * baseline of each layer, and per layer the least-squares fit over
 * occupancy (footprints and the growth per proof g), the valley floors
 * between proof completions and the level after drain. The verdict rules
 * (analyze_rules.c) read what this builds.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_json.h"
#include "harness/diagnose/analyze_model.h"
#include "harness/diagnose/analyze_run.h"
#include "harness/run/run_csv.h"

/* Thresholds of the significance of growth: see analyze_rules.c. The
 * 1 MiB floor guards the layers where the allocator and the runtime add
 * noise; the tracked layer is the prover's own buffers, exact, where a
 * percent of its working set per proof that never comes back is a leak
 * (a 2^10 batch leaking 64 KiB of witness a proof, 17 % of its tracked
 * peak over 14 proofs, had been called healthy). */
#define LEAK_MIN_PER_PROOF (1.0 * MIB)
#define LEAK_MIN_TRACKED_SHARE 0.01
#define LEAK_SIGNIFICANCE 1.45 /* x the 95% half-width: about 99.5%, two-sided */
#define BASELINE_SAMPLES 5
#define DRAIN_SAMPLES 5

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

void analyze_model_free(analyze_model_t *model)
{
    if (!model)
        return;
    series_free(&model->S);
    free(model->tdone);
    memset(model, 0, sizeof *model);
}

int analyze_model_build(analyze_model_t *model, analyze_result_t *R, const analyze_run_t *run, json_t *J,
                        json_t *notes, char *err, size_t errlen)
{
    series_t S;
    const run_csv_t *sc = &run->samples;
    memset(model, 0, sizeof *model);
    if (series_build(&S, sc) < 0) {
        series_free(&S);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    const json_t *rj = run->run_json, *sum = json_object_get(rj, "summary");
    size_t n = S.n, i0 = first_active(&S);
    R->samples = n;

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
    R->proofs_done = (size_t)S.x[ANALYZE_X_PROOFS][n - 1];
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
        analyze_layer_t *L = &R->layer[l];
        char key[64];
        double v = NAN;
        if (l != ANALYZE_L_TRACKED && l != ANALYZE_L_OUTSIDE) {
            snprintf(key, sizeof key, "baseline_%s", analyze_layer_name(l));
            v = jnum_get(jsb, analyze_layer_name(l));
            if (!isfinite(v))
                v = jnum_get(sum, key);
        }
        if (l == ANALYZE_L_OUTSIDE)
            v = R->layer[ANALYZE_L_RSS].baseline - R->layer[ANALYZE_L_RESIDENT].baseline;
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
        qsort(tdone, np, sizeof *tdone, analyze_cmp_double);
    if (R->proofs_done < np)
        R->proofs_done = np;

    /* -- fits, floors, drain, per layer -- */
    size_t nf = n - b0, p = 1 + ANALYZE_NX;
    double *X = malloc(nf * p * sizeof *X), *fl = malloc((np + 1) * sizeof *fl), *fk = malloc((np + 1) * sizeof *fk);
    if (!X || !fl || !fk || !tdone) {
        free(X);
        free(fl);
        free(fk);
        free(tdone);
        series_free(&S);
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
        analyze_layer_t *L = &R->layer[l];
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
        if (!analyze_fit_line(&L->floor_slope, &L->floor_lo, &L->floor_hi, NULL, fk, fl, L->n_floors))
            L->floor_slope = L->floor_lo = L->floor_hi = NAN;
        json_t *jft = json_object();
        json_object_set_new(jft, "bytes_per_proof", jbytes(L->floor_slope));
        json_object_set_new(jft, "ci95", json_pack("[oo]", jbytes(L->floor_lo), jbytes(L->floor_hi)));
        json_object_set_new(o, "floor_trend", jft);
        /* significance (see the thresholds at the top) */
        double total = L->g * (double)(R->proofs_done ? R->proofs_done : 1);
        /* growth beyond chance: g above LEAK_SIGNIFICANCE times its 95%
         * half-width (four layers are tested, and noise alone gave one
         * healthy synthetic run in 20 a 95% interval above 0 somewhere) */
        double g_min = l == ANALYZE_L_TRACKED
                           ? fmin(LEAK_MIN_PER_PROOF, fmax(LEAK_MIN_TRACKED_SHARE * (L->peak - L->baseline), 4096))
                           : LEAK_MIN_PER_PROOF;
        bool ci = isfinite(L->g_lo) && L->g - LEAK_SIGNIFICANCE * (L->g - L->g_lo) > 0 && L->g >= g_min;
        bool floors_rise = isfinite(L->floor_lo) && L->floor_lo > 0 && L->floor_slope >= L->g / 3;
        bool drain_high = drained && L->after_drain - L->baseline >= fmax(total / 3, g_min);
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
    const analyze_layer_t *Lr = &R->layer[ANALYZE_L_RSS];
    R->baseline_rss = Lr->baseline;
    /* Peak RSS: the sampled maximum, or the high-water mark if it saw more. */
    R->peak_rss = Lr->peak;
    int chwm = run_csv_col(sc, "hwm");
    for (size_t i = 0; chwm >= 0 && i < n; i++)
        R->peak_rss = fmax(R->peak_rss, run_csv_num(sc, i, chwm));
    analyze_anon_peak(sc, &R->peak_anon, &R->file_at_peak);
    peak_work = R->peak_rss - R->baseline_rss;

    /* -- durations -- */
    double t_first = i0 < n ? S.t[i0] : S.t[0], t_last = np ? tdone[np - 1] : S.t[n - 1];
    if (drained && !np)
        t_last = S.t[drain_from];
    double active_s = fmax((t_last - t_first) / 1000.0, 1e-3);

    free(X);
    free(fl);
    free(fk);
    model->S = S;
    model->n = n;
    model->i0 = i0;
    model->nb = nb;
    model->b0 = b0;
    model->drain_from = drain_from;
    model->drained = drained;
    model->interrupted = interrupted;
    model->status = status;
    model->tdone = tdone;
    model->np = np;
    model->t_last = t_last;
    model->active_s = active_s;
    model->peak_work = peak_work;
    return 0;
}
