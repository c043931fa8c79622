/*
 * The verdict rules of a batch run (see analyze.h and docs/diagnosis.md,
 * "Checks and thresholds"): on the model of the run (analyze_model.c), the
 * bytes never freed, leak, retention, memory held after last use, queue
 * pile-ups and capacity, each with its evidence, and one verdict picked in
 * a fixed priority order with the sentence that supports it.
 *
 * Thresholds (each also in docs/diagnosis.md); they are chosen so that the
 * noise of a sampled RSS (a few MiB, autocorrelated) never decides alone:
 *   leak          a leak layer (tracked, je_allocated, outside-heap, GPU) has
 *                 g above 1.45 times its 95% half-width (about a 99.5%
 *                 interval above 0: four layers are tested, and with 95%
 *                 one healthy noisy synthetic run in 20 had one layer's
 *                 interval above 0), g >= 1 MiB/proof (tracked: >= 1% of
 *                 its peak working set, 4 KiB .. 1 MiB), and a confirmation:
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
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_json.h"
#include "harness/diagnose/analyze_model.h"
#include "harness/diagnose/analyze_run.h"
#include "harness/diagnose/analyze_busy.h"
#include "harness/diagnose/analyze_rules.h"
#include "harness/diagnose/capacity.h"
#include "harness/run/run_csv.h"

/* Thresholds: see the comment at the top (the significance of growth,
 * LEAK_MIN_PER_PROOF and LEAK_SIGNIFICANCE, is judged in analyze_model.c). */
#define LEAK_NEVER_FREED_MIN (1.0 * MIB)
/* A growth rate from fewer completed proofs is no rate: the first proofs
 * also pay for lazy allocations (the CUDA runtime's, the allocator's
 * arenas) that look like growth (issue 25: clean 2- and 3-proof GPU
 * batches read as leaks, a 12-proof one did not). */
#define LEAK_MIN_PROOFS 5
#define PILEUP_MIN_SAMPLES 3
#define PILEUP_MIN_SHARE 0.05
#define HELD_MIN_SHARE 0.08
#define RETENTION_MIN_SHARE 0.25
#define RETENTION_MIN_BYTES (4.0 * MIB)
#define RETENTION_HEAP_SLACK 0.10

/* What the rules share while they run, in the verdict's priority order. */
typedef struct {
    const analyze_run_t *run;
    const analyze_opts_t *opts;
    const analyze_model_t *M;
    analyze_result_t *R;
    json_t *J, *notes; /* the sections so far; the notes (owned until the verdict) */
    const json_t *rj, *cfg, *sum, *machine; /* run.json and its parts (borrowed) */
    /* tracked buffers (owned by jleak and jh once those exist) */
    json_t *jnf, *jnf_res, *jheld;
    double held_total;
    size_t held_unknown, held_known, nf_inflight;
    /* each check: its outcome and its section of J (borrowed) */
    bool nf_leak, retention, held, pileup, capacity, oom_killed;
    json_t *jleak, *jret, *jh, *jp, *jc;
    double heap_back, area_tracked;
    int pw, depth;
    const char *ram_src;
} rules_t;

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

/* Tracked buffers: the bytes never freed by kind (the resident kinds apart,
 * and in an unfinished run the buffers of unfinished proofs), and the GiB*s
 * each kind was held after its last use. */
static void rules_buffers(rules_t *c)
{
    const analyze_run_t *run = c->run;
    analyze_result_t *R = c->R;
    const char *status = c->M->status;
    bool drained = c->M->drained, interrupted = c->M->interrupted;
    int ctd = run_csv_col(&run->proofs, "t_done_ms");
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
            R->never_freed_bytes += bytes;
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
    c->jnf = jnf;
    c->jnf_res = jnf_res;
    c->jheld = jheld;
    c->held_total = held_total;
    c->held_unknown = held_unknown;
    c->held_known = held_known;
    c->nf_inflight = nf_inflight;
}

/* Leak: the lowest leak layer whose growth per proof is significant and
 * confirmed, or tracked buffers never freed; names the layer and kind. */
static void rules_leak(rules_t *c)
{
    analyze_result_t *R = c->R;
    const run_csv_t *sc = &c->run->samples;
    size_t n = c->M->n, i0 = c->M->i0, nb = c->M->nb, nf_inflight = c->nf_inflight;
    json_t *J = c->J, *jnf = c->jnf, *jnf_res = c->jnf_res;
    json_t *jleak = json_object();
    static const int leak_layers[] = {ANALYZE_L_TRACKED, ANALYZE_L_HEAP, ANALYZE_L_OUTSIDE, ANALYZE_L_GPU};
    R->leak_rate = R->leak_lo = R->leak_hi = NAN;
    for (size_t k = 0; k < 4; k++) {
        const analyze_layer_t *L = &R->layer[leak_layers[k]];
        if (!L->fitted)
            continue;
        if (L->g_significant && R->leak_layer < 0)
            R->leak_layer = leak_layers[k];
        if (R->leak_layer < 0 && (!isfinite(R->leak_rate) || L->g > R->leak_rate)) {
            R->leak_rate = L->g;
            R->leak_lo = L->g_lo;
            R->leak_hi = L->g_hi;
        }
    }
    if (R->leak_layer >= 0) {
        const analyze_layer_t *L = &R->layer[R->leak_layer];
        R->leak_rate = L->g, R->leak_lo = L->g_lo, R->leak_hi = L->g_hi;
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
    bool nf_leak = R->never_freed_bytes >= LEAK_NEVER_FREED_MIN;
    if (R->leak_layer == ANALYZE_L_TRACKED || (nf_leak && R->leak_layer < 0)) {
        const char *kn = kind_named ? kind_named : (grown_kind[0] ? grown_kind : "?");
        snprintf(R->leak_where, sizeof R->leak_where, "L0 tracked buffers of kind '%s'", kn);
        if (R->leak_layer < 0)
            R->leak_layer = ANALYZE_L_TRACKED;
    } else if (R->leak_layer == ANALYZE_L_HEAP) {
        snprintf(R->leak_where, sizeof R->leak_where,
                 "L1 heap: untracked allocations (je_allocated grows, tracked buffers do not)");
    } else if (R->leak_layer == ANALYZE_L_OUTSIDE) {
        snprintf(R->leak_where, sizeof R->leak_where,
                 "L3 outside the heap: RSS grows, jemalloc does not (pinned memory, runtime, mappings)");
    } else if (R->leak_layer == ANALYZE_L_GPU) {
        snprintf(R->leak_where, sizeof R->leak_where, "GPU device memory (gpu_used grows)");
    }
    json_object_set_new(jleak, "detected", json_boolean(R->leak_layer >= 0));
    json_object_set_new(jleak, "where", R->leak_where[0] ? json_string(R->leak_where) : json_null());
    json_object_set_new(jleak, "layer", R->leak_layer >= 0 ? json_string(analyze_layer_name(R->leak_layer)) : json_null());
    json_object_set_new(jleak, "bytes_per_proof", jbytes(R->leak_rate));
    json_object_set_new(jleak, "ci95", json_pack("[oo]", jbytes(R->leak_lo), jbytes(R->leak_hi)));
    json_object_set_new(jleak, "proofs_done", json_integer((json_int_t)R->proofs_done));
    json_object_set_new(jleak, "never_freed", jnf);
    json_object_set_new(jleak, "never_freed_bytes", jbytes(R->never_freed_bytes));
    json_object_set_new(jleak, "never_freed_resident", jnf_res);
    json_object_set_new(jleak, "never_freed_in_flight", json_integer((json_int_t)nf_inflight));
    json_object_set_new(J, "leak", jleak);
    c->jleak = jleak;
    c->nf_leak = nf_leak;
}

/* Retention: after drain the heap is back near its baseline while RSS
 * keeps what it freed. */
static void rules_retention(rules_t *c)
{
    analyze_result_t *R = c->R;
    const run_csv_t *sc = &c->run->samples;
    const json_t *sum = c->sum;
    size_t n = c->M->n;
    bool drained = c->M->drained;
    double peak_work = c->M->peak_work;
    json_t *J = c->J;
    const analyze_layer_t *Lr = &R->layer[ANALYZE_L_RSS];
    const analyze_layer_t *Lh = &R->layer[ANALYZE_L_HEAP];
    double gap_b = Lr->baseline - Lh->baseline, gap_e = Lr->end - Lh->end;
    R->retained_bytes = gap_e - gap_b;
    R->retained_share = peak_work > 0 ? R->retained_bytes / peak_work : 0;
    double heap_back = Lh->end - Lh->baseline, heap_work = Lh->peak - Lh->baseline;
    bool heap_returned = heap_back <= fmax(RETENTION_MIN_BYTES, RETENTION_HEAP_SLACK * heap_work);
    bool retention = drained && heap_returned && R->retained_bytes >= RETENTION_MIN_BYTES &&
                     R->retained_share >= RETENTION_MIN_SHARE;
    int cdirty = run_csv_col(sc, "je_dirty"), cmuzzy = run_csv_col(sc, "je_muzzy");
    json_t *jret = json_object();
    json_object_set_new(jret, "detected", json_boolean(retention));
    json_object_set_new(jret, "rss_minus_allocated_baseline", jbytes(gap_b));
    json_object_set_new(jret, "rss_minus_allocated_end", jbytes(gap_e));
    json_object_set_new(jret, "retained_bytes", jbytes(R->retained_bytes));
    json_object_set_new(jret, "share_of_peak_working_set", jnum(R->retained_share));
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
    c->retention = retention;
    c->heap_back = heap_back;
    c->jret = jret;
}

/* Held too long: the GiB*s of buffers kept after their last use, as a
 * share of the tracked working set's area. */
static void rules_held(rules_t *c)
{
    analyze_result_t *R = c->R;
    const series_t S = c->M->S;
    size_t n = c->M->n, i0 = c->M->i0, held_known = c->held_known, held_unknown = c->held_unknown;
    double peak_work = c->M->peak_work, active_s = c->M->active_s, t_last = c->M->t_last;
    double held_total = c->held_total;
    json_t *J = c->J, *jheld = c->jheld;
    /* The share is of the tracked working set's area: the integral over the
     * active time of (tracked - B). Held memory is tracked memory, and the
     * untracked rest of RSS (runtime, small allocations) would dilute it.
     * Without live_<kind> columns the RSS working set stands in. */
    double area_work = peak_work / GIB * active_s, area_peak = R->peak_rss / GIB * active_s, area_tracked = 0;
    const double *ytr = S.layer[S.has_tracked ? ANALYZE_L_TRACKED : ANALYZE_L_RSS];
    double btr = R->layer[S.has_tracked ? ANALYZE_L_TRACKED : ANALYZE_L_RSS].baseline;
    for (size_t i = i0; i + 1 < n && S.t[i] < t_last; i++)
        area_tracked += fmax(0, ytr[i] - btr) / GIB * (S.t[i + 1] - S.t[i]) / 1000.0;
    R->held_gibs = held_total;
    R->held_share = area_tracked > 0 ? held_total / area_tracked : 0;
    bool held = held_known > 0 && R->held_share >= HELD_MIN_SHARE;
    json_t *jh = json_object();
    json_object_set_new(jh, "detected", json_boolean(held));
    json_object_set_new(jh, "gib_s_by_kind", jheld);
    json_object_set_new(jh, "gib_s", jnum(held_total));
    json_object_set_new(jh, "share_of_peak_x_duration", jnum(area_peak > 0 ? held_total / area_peak : 0));
    json_object_set_new(jh, "share_of_working_set_x_duration", jnum(area_work > 0 ? held_total / area_work : 0));
    json_object_set_new(jh, "working_set_gib_s", jnum(area_tracked));
    json_object_set_new(jh, "share_of_working_set_area", jnum(R->held_share));
    json_object_set_new(jh, "buffers_with_last_use", json_integer((json_int_t)held_known));
    json_object_set_new(jh, "buffers_last_use_unknown", json_integer((json_int_t)held_unknown));
    json_object_set_new(jh, "active_s", jnum(active_s));
    json_object_set_new(J, "held_after_last_use", jh);
    c->held = held;
    c->area_tracked = area_tracked;
    c->jh = jh;
}

/* Queue pile-up: more partitions synthesized or waiting than the
 * pipeline's bounds allow, for long enough. */
static void rules_pileup(rules_t *c)
{
    analyze_result_t *R = c->R;
    const series_t S = c->M->S;
    const json_t *cfg = c->cfg;
    size_t n = c->M->n;
    double active_s = c->M->active_s;
    json_t *J = c->J;
    const analyze_layer_t *Lr = &R->layer[ANALYZE_L_RSS];
    int pw = config_int(cfg, "pw"), gq = config_int(cfg, "gpu_queue"), gw = config_int(cfg, "gpu_workers");
    int depth = gq >= 0 ? gq : gw >= 0 ? gw : -1;
    json_t *jp = json_object();
    bool pileup = false;
    if (pw < 0) {
        json_object_set_new(jp, "why", json_string("run.json config has no pw: no bound to compare with"));
        double mx = 0;
        for (size_t i = 0; i < n; i++)
            mx = fmax(mx, S.x[ANALYZE_X_SYNTH][i]);
        R->pw = mx < (double)(1 << 20) ? (int)mx : 1 << 20; /* from the samples: bounded like a count */
    } else {
        R->pw = pw;
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
        R->pileup_s = best_s;
        R->pileup_excess = excess;
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
    c->pileup = pileup;
    c->pw = pw;
    c->depth = depth;
    c->jp = jp;
}

/* Capacity: the peak against RAM or the memory limit less the margin, and
 * the capacity model's predictions for other pw values. */
static void rules_capacity(rules_t *c)
{
    const analyze_run_t *run = c->run;
    const analyze_opts_t *opts = c->opts;
    analyze_result_t *R = c->R;
    const series_t S = c->M->S;
    const run_csv_t *sc = &run->samples;
    const json_t *rj = c->rj, *cfg = c->cfg, *machine = c->machine;
    size_t n = c->M->n;
    json_t *J = c->J;
    const analyze_layer_t *Lr = &R->layer[ANALYZE_L_RSS];
    json_t *jc = json_object();
    R->ram_bytes = opts && opts->ram_bytes ? (double)opts->ram_bytes : NAN;
    const char *ram_src = opts && opts->ram_from ? opts->ram_from : "--ram";
    if (!isfinite(R->ram_bytes)) {
        /* a capped run (batch --mem-limit) fits its cgroup, not the machine */
        R->ram_bytes = jnum_get(rj, "mem_limit");
        ram_src = "run.json mem_limit";
    }
    if (!isfinite(R->ram_bytes)) {
        R->ram_bytes = jnum_get(machine, "ram_bytes");
        if (!isfinite(R->ram_bytes))
            R->ram_bytes = jnum_get(machine, "ram");
        ram_src = "run.json machine";
    }
    R->margin = analyze_margin(opts, ram_src);
    R->footprint_per_partition = Lr->fitted && Lr->fit.kept[1 + ANALYZE_X_SYNTH] ? Lr->fit.beta[1 + ANALYZE_X_SYNTH] : NAN;
    R->footprint_se = Lr->fitted && Lr->fit.kept[1 + ANALYZE_X_SYNTH] ? Lr->fit.se[1 + ANALYZE_X_SYNTH] : NAN;
    bool capacity = false;
    json_object_set_new(jc, "pw", json_integer(R->pw));
    json_object_set_new(jc, "peak_rss", jbytes(R->peak_rss));
    json_object_set_new(jc, "footprint_per_partition", coef_json(R->footprint_per_partition, R->footprint_se));
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
    if (isfinite(R->ram_bytes)) {
        limit = R->ram_bytes * (1 - R->margin);
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
        capacity = R->peak_rss > limit;
        R->limit_rss = limit;
        json_object_set_new(jc, "ram_bytes", jbytes(R->ram_bytes));
        json_object_set_new(jc, "ram_from", json_string(ram_src));
        json_object_set_new(jc, "margin", jnum(R->margin));
        json_object_set_new(jc, "limit_bytes", jbytes(limit));
        json_object_set_new(jc, "limit_is_cgroup", json_boolean(cgroup));
    } else {
        json_object_set_new(jc, "ram_bytes", json_null());
        json_object_set_new(jc, "why_no_limit", json_string("no RAM size: pass --ram or --mem-limit, or record machine.ram_bytes"));
    }
    /* the model: exact bytes per partition and state, the untracked rest fitted */
    if (capacity_fit(&R->capacity, sc, run->buffers.nrows ? &run->buffers : NULL,
                     run->stages.nrows ? &run->stages : NULL, cfg, json_object_get(run->run_json, "allocator"),
                     R->baseline_rss) < 0) {
        R->capacity.ok = false;
        snprintf(R->capacity.why, sizeof R->capacity.why, "out of memory while fitting the model");
    }
    /* A run killed before its end (by the OOM killer under its cap, or
     * dead) never showed its own peak: its model would predict below a pw
     * it did not finish (issue 25: "the largest pw that fits is 0" for a
     * pw 4 run killed where pw 3 had completed). Its numbers come from
     * completed runs (sweep keeps their model), not from it. */
    const char *outcome0 = json_string_value(json_object_get(rj, "outcome")),
               *status0 = json_string_value(json_object_get(rj, "status"));
    bool killed = (outcome0 && (strcmp(outcome0, "oom-killed") == 0 || strcmp(outcome0, "killed") == 0)) ||
                  (status0 && (strcmp(status0, "oom-killed") == 0 || strcmp(status0, "killed") == 0 ||
                               strcmp(status0, "running") == 0));
    if (killed && R->capacity.ok) {
        R->capacity.ok = false;
        snprintf(R->capacity.why, sizeof R->capacity.why,
                 "the run was %s before its end, so its peak and its model are cut short; a model of runs that "
                 "completed gives it (zkbench sweep --pw ... under the same limit uses the completed runs')",
                 outcome0 && strcmp(outcome0, "oom-killed") == 0 ? "OOM-killed" : "killed");
    }
    /* the predictions reach twice the run's pw, at most 1024 */
    int pmax = R->pw > 0 ? (R->pw < 512 ? 2 * R->pw : 1024) : 8;
    json_t *model = capacity_json(&R->capacity, pmax, limit);
    if (R->capacity.ok && isfinite(limit))
        R->largest_pw = (int)json_integer_value(json_object_get(model, "max_pw"));
    json_object_set(jc, "predicted", json_object_get(model, "predicted"));
    json_object_set(jc, "max_pw", json_object_get(model, "max_pw"));
    json_object_set(jc, "bound_by", json_object_get(model, "bound_by"));
    json_object_set_new(jc, "largest_pw", R->largest_pw >= 0 ? json_integer(R->largest_pw) : json_null());
    if (!R->capacity.ok)
        json_object_set_new(jc, "why", json_string(R->capacity.why));
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
    c->capacity = capacity;
    c->oom_killed = oom_killed;
    c->ram_src = ram_src;
    c->jc = jc;
}

/* Seconds per proof: run.json's summary, else from proofs.csv. */
static void rules_timing(rules_t *c)
{
    const analyze_run_t *run = c->run;
    analyze_result_t *R = c->R;
    const json_t *sum = c->sum;
    size_t np = c->M->np;
    const double *tdone = c->M->tdone;
    R->s_per_proof = jnum_get(sum, "s_per_proof");
    if (!isfinite(R->s_per_proof) && np > 0) {
        int cts = run_csv_col(&run->proofs, "t_submit_ms");
        double t0 = INFINITY;
        for (size_t i = 0; i < run->proofs.nrows; i++)
            t0 = fmin(t0, run_csv_num(&run->proofs, i, cts));
        R->s_per_proof = (tdone[np - 1] - t0) / 1000.0 / (double)np;
    }
}

/* The verdict: the first check that holds, its sentence with the numbers,
 * and the whole analysis as JSON (R->json; takes J and the notes). */
static void rules_verdict(rules_t *c)
{
    analyze_result_t *R = c->R;
    const run_csv_t *sc = &c->run->samples;
    const json_t *rj = c->rj;
    size_t n = c->M->n;
    bool drained = c->M->drained, nf_leak = c->nf_leak, pileup = c->pileup, held = c->held,
         retention = c->retention, capacity = c->capacity, oom_killed = c->oom_killed;
    double active_s = c->M->active_s, held_total = c->held_total, area_tracked = c->area_tracked,
           heap_back = c->heap_back;
    int pw = c->pw, depth = c->depth;
    const char *ram_src = c->ram_src;
    json_t *J = c->J, *notes = c->notes, *jleak = c->jleak, *jp = c->jp, *jh = c->jh, *jret = c->jret,
           *jc = c->jc, *jheld = c->jheld;
    int cdirty = run_csv_col(sc, "je_dirty"), cmuzzy = run_csv_col(sc, "je_muzzy");
    char b1[32], b2[32], b3[32];
    const char *key;
    json_t *val;
    const analyze_layer_t *Ll = R->leak_layer >= 0 ? &R->layer[R->leak_layer] : NULL;
    json_t *ev = NULL;
    bool leak_few = Ll && !nf_leak && R->proofs_done < LEAK_MIN_PROOFS;
    if ((Ll && !leak_few) || nf_leak) {
        R->verdict = ANALYZE_LEAK;
        if (Ll && Ll->g_significant)
            snprintf(R->reason, sizeof R->reason,
                     "%s: %s grows %s per completed proof (95%% CI %s .. %s) over %zu proofs; after drain it is %s "
                     "above baseline; tracked buffers never freed: %s",
                     R->leak_where, analyze_layer_name(R->leak_layer), analyze_fmt_bytes(b1, sizeof b1, Ll->g),
                     analyze_fmt_bytes(b2, sizeof b2, Ll->g_lo), analyze_fmt_bytes(b3, sizeof b3, Ll->g_hi), R->proofs_done,
                     isfinite(Ll->after_drain) ? analyze_fmt_bytes((char[32]){0}, 32, Ll->after_drain - Ll->baseline) : "n/a (not drained)",
                     analyze_fmt_bytes((char[32]){0}, 32, R->never_freed_bytes));
        else
            snprintf(R->reason, sizeof R->reason, "%s: %s of tracked buffers were never freed (excluding params, "
                     "circuit and NTT tables)", R->leak_where, analyze_fmt_bytes(b1, sizeof b1, R->never_freed_bytes));
        ev = json_incref(jleak);
    } else if (pileup) {
        R->verdict = ANALYZE_QUEUE_PILEUP;
        snprintf(R->reason, sizeof R->reason,
                 "q_gpu + n_synth + n_blocked exceeded the pipeline bound %d (pw %d + queue depth %d) by up to %.0f partitions "
                 "for %.1f s (%.0f%% of the %.1f s active); each queued partition holds %s",
                 pw + (depth > 0 ? depth : 0), pw, depth > 0 ? depth : 0, R->pileup_excess, R->pileup_s,
                 100 * R->pileup_s / active_s, active_s,
                 analyze_fmt_bytes(b1, sizeof b1, json_number_value(json_object_get(jp, "f_queue_rss"))));
        ev = json_incref(jp);
    } else if (held) {
        R->verdict = ANALYZE_HELD_TOO_LONG;
        const char *top = NULL;
        double tv = 0;
        json_object_foreach(jheld, key, val) {
            if (json_number_value(val) > tv)
                tv = json_number_value(val), top = key;
        }
        snprintf(R->reason, sizeof R->reason,
                 "buffers stay allocated after their last use: %s, %.0f%% of the tracked working set's "
                 "%s over %.1f s active; most in kind '%s' (%s)",
                 analyze_fmt_area(b1, sizeof b1, held_total), 100 * R->held_share,
                 analyze_fmt_area(b2, sizeof b2, area_tracked), active_s, top ? top : "?",
                 analyze_fmt_area(b3, sizeof b3, tv));
        ev = json_incref(jh);
    } else if (retention) {
        R->verdict = ANALYZE_RETENTION;
        snprintf(R->reason, sizeof R->reason,
                 "after drain je_allocated is back to baseline (+%s) but RSS - je_allocated is %s above its "
                 "baseline gap (%.0f%% of the peak working set); je_dirty %s, je_muzzy %s at the end",
                 analyze_fmt_bytes(b1, sizeof b1, heap_back), analyze_fmt_bytes(b2, sizeof b2, R->retained_bytes),
                 100 * R->retained_share,
                 analyze_fmt_bytes(b3, sizeof b3, cdirty >= 0 ? run_csv_num(sc, n - 1, cdirty) : NAN),
                 analyze_fmt_bytes((char[32]){0}, 32, cmuzzy >= 0 ? run_csv_num(sc, n - 1, cmuzzy) : NAN));
        ev = json_incref(jret);
    } else if (capacity) {
        R->verdict = ANALYZE_CAPACITY;
        char fits[480];
        capacity_fits_text(fits, sizeof fits, &R->capacity, R->largest_pw);
        if (oom_killed)
            snprintf(R->reason, sizeof R->reason,
                     "no leak, retention or pile-up: the run was OOM-killed under its memory limit %s at peak RSS "
                     "%s (file-backed pages are not charged to the cgroup); %s",
                     analyze_fmt_bytes(b1, sizeof b1, jnum_get(rj, "mem_limit")), analyze_fmt_bytes(b2, sizeof b2, R->peak_rss), fits);
        else
        {
            char filepart[96] = "";
            double fb = jnum_get(jc, "file_backed_at_peak");
            if (isfinite(fb) && fb > 0)
                snprintf(filepart, sizeof filepart, ", plus %s of file-backed RSS the cgroup does not charge",
                         analyze_fmt_bytes((char[32]){0}, 32, fb));
            snprintf(R->reason, sizeof R->reason,
                     "no leak, retention or pile-up, but peak RSS %s is above %s (%s %s less a %.0f%% margin%s); %s",
                     analyze_fmt_bytes(b1, sizeof b1, R->peak_rss), analyze_fmt_bytes(b2, sizeof b2, R->limit_rss),
                     strcmp(ram_src, "run.json mem_limit") == 0 || strcmp(ram_src, "--mem-limit") == 0
                         ? "memory limit"
                         : "RAM",
                     analyze_fmt_bytes(b3, sizeof b3, R->ram_bytes), 100 * R->margin, filepart, fits);
        }
        ev = json_incref(jc);
    } else if (leak_few) {
        R->verdict = ANALYZE_INCONCLUSIVE;
        json_object_set_new(jleak, "detected", json_false());
        json_object_set_new(jleak, "too_few_proofs", json_true());
        snprintf(R->reason, sizeof R->reason,
                 "%s grows %s per completed proof (95%% CI %s .. %s), but over %zu proofs: a rate needs at least %d "
                 "(the first proofs also make lazy allocations, the CUDA runtime's and the allocator's, that look "
                 "like growth); no tracked buffer was left unfreed",
                 analyze_layer_name(R->leak_layer), analyze_fmt_bytes(b1, sizeof b1, Ll->g),
                 analyze_fmt_bytes(b2, sizeof b2, Ll->g_lo), analyze_fmt_bytes(b3, sizeof b3, Ll->g_hi),
                 R->proofs_done, LEAK_MIN_PROOFS);
        snprintf(R->decide, sizeof R->decide, "run >= %d proofs (%zu more) with the same settings", LEAK_MIN_PROOFS,
                 LEAK_MIN_PROOFS - R->proofs_done);
        snprintf(R->headline, sizeof R->headline, "inconclusive: %zu proof%s cannot show a growth rate",
                 R->proofs_done, R->proofs_done == 1 ? "" : "s");
        ev = json_incref(jleak);
    } else {
        R->verdict = ANALYZE_HEALTHY;
        char fits[480], grows[400] = "";
        capacity_fits_text(fits, sizeof fits, &R->capacity, R->largest_pw);
        /* a layer the table marks GROWS is explained here: only the
         * allocator's layers can grow without a leak layer growing */
        static const int alloc_layers[] = {ANALYZE_L_RESIDENT, ANALYZE_L_RSS};
        for (size_t k = 0; k < 2 && !grows[0]; k++) {
            const analyze_layer_t *L = &R->layer[alloc_layers[k]];
            if (L->fitted && L->g_significant)
                snprintf(grows, sizeof grows, "; %s grows %s per proof (95%% CI %s .. %s) while no leak layer does: "
                         "pages the allocator keeps between proofs (its decay returns them), not memory the program "
                         "holds; below the retention threshold", analyze_layer_name(alloc_layers[k]),
                         analyze_fmt_bytes(b1, sizeof b1, L->g), analyze_fmt_bytes(b2, sizeof b2, L->g_lo),
                         analyze_fmt_bytes((char[32]){0}, 32, L->g_hi));
        }
        snprintf(R->reason, sizeof R->reason,
                 "no growth per proof (largest leak-layer rate %s, CI %s .. %s), no retention, pile-up or long "
                 "holds; peak RSS %s, baseline %s; %s%s",
                 analyze_fmt_bytes(b3, sizeof b3, R->leak_rate), analyze_fmt_bytes((char[32]){0}, 32, R->leak_lo),
                 analyze_fmt_bytes((char[32]){0}, 32, R->leak_hi), analyze_fmt_bytes((char[32]){0}, 32, R->peak_rss),
                 analyze_fmt_bytes((char[32]){0}, 32, R->baseline_rss), fits, grows);
        ev = json_incref(jc);
    }
    json_t *checks = json_pack("{s:b,s:b,s:b,s:b,s:b}", "leak", R->verdict == ANALYZE_LEAK, "queue-pileup", pileup,
                               "held-too-long", held, "retention", retention, "capacity", capacity);
    json_t *head = json_object();
    json_object_set_new(head, "verdict", json_string(analyze_verdict_name(R->verdict)));
    json_object_set_new(head, "reason", json_string(R->reason));
    json_object_set_new(head, "evidence", ev);
    json_object_set_new(head, "checks", checks);
    json_object_set_new(head, "peak_rss", jbytes(R->peak_rss));
    json_object_set_new(head, "baseline_rss", jbytes(R->baseline_rss));
    json_object_set_new(head, "footprint_per_partition", coef_json(R->footprint_per_partition, R->footprint_se));
    json_object_set_new(head, "leak_bytes_per_proof", jbytes(R->leak_rate));
    json_object_set_new(head, "leak_ci95", json_pack("[oo]", jbytes(R->leak_lo), jbytes(R->leak_hi)));
    json_object_set_new(head, "s_per_proof", jnum(R->s_per_proof));
    json_object_set_new(head, "pw", json_integer(R->pw));
    json_object_set_new(head, "largest_pw", R->largest_pw >= 0 ? json_integer(R->largest_pw) : json_null());
    json_object_set_new(head, "proofs_done", json_integer((json_int_t)R->proofs_done));
    json_object_set_new(head, "samples", json_integer((json_int_t)n));
    json_object_set_new(head, "drained", json_boolean(drained));
    const char *backend = json_string_value(json_object_get(c->cfg, "backend"));
    json_object_set_new(head, "backend", json_string(backend ? backend : "unknown"));
    json_object_update(head, J); /* the sections after the headline */
    json_decref(J);
    c->J = NULL;
    json_object_set_new(head, "notes", notes);
    c->notes = NULL;
    R->json = head;
}

int analyze_batch_compute(analyze_result_t *ret, const analyze_run_t *run, const analyze_opts_t *opts, char *err,
                          size_t errlen)
{
    analyze_result_t R = {0};
    const run_csv_t *sc = &run->samples;
    if (sc->nrows == 0) {
        snprintf(err, errlen, "%s/samples.csv: no samples (empty run), expected at least one sampler tick", run->dir);
        return -EINVAL;
    }
    R.leak_layer = -1;
    R.largest_pw = -1;
    R.limit_rss = R.peak_anon = R.file_at_peak = NAN;
    analyze_model_t M;
    json_t *J = json_object(), *notes = json_deep_copy(run->notes);
    int rc = analyze_model_build(&M, &R, run, J, notes, err, errlen);
    if (rc < 0) {
        json_decref(J);
        json_decref(notes);
        return rc;
    }
    const json_t *rj = run->run_json;
    rules_t c = {.run = run, .opts = opts, .M = &M, .R = &R, .J = J, .notes = notes, .rj = rj,
                 .cfg = json_object_get(rj, "config"), .sum = json_object_get(rj, "summary"),
                 .machine = json_object_get(rj, "machine")};
    rules_buffers(&c);
    rules_leak(&c);
    rules_retention(&c);
    rules_held(&c);
    rules_pileup(&c);
    rules_capacity(&c);
    rules_timing(&c);
    analyze_busy(&R, run, c.cfg, c.J);
    rules_verdict(&c);
    analyze_model_free(&M);
    *ret = R;
    return 0;
}
