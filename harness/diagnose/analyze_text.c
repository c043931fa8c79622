/*
 * The diagnosis in words: the report `zkbench analyze` prints (the verdict
 * and its sentence, the memory layers side by side, footprints, retention,
 * held memory, never-freed buffers, the queue bound, capacity with the
 * predicted peaks, timing and notes; for a watch run its layers' floors and
 * the traced sites), the byte formatter of the verdict's sentences and the
 * capacity model's clause in them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_json.h"
#include "harness/diagnose/analyze_text.h"
#include "harness/diagnose/analyze_whatif.h"
#include "harness/diagnose/capacity.h"

static const char *fb(char *buf, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(buf, 24, "-");
    else if (a < 0.5)
        snprintf(buf, 24, "0 B");
    else if (a >= GIB)
        snprintf(buf, 24, "%.2f GiB", v / GIB);
    else if (a >= MIB)
        snprintf(buf, 24, "%.1f MiB", v / MIB);
    else if (a >= 1024)
        snprintf(buf, 24, "%.1f KiB", v / 1024);
    else
        snprintf(buf, 24, "%.0f B", v);
    return buf;
}

static double jv(const json_t *o, const char *path)
{
    char key[64];
    const char *p = path;
    while (o && *p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        snprintf(key, sizeof key, "%.*s", (int)len, p);
        o = json_object_get(o, key);
        p += len + (dot ? 1 : 0);
    }
    return json_is_number(o) ? json_number_value(o) : NAN;
}

/* Element i of the array o[key], or NAN. */
static double jv_at(const json_t *o, const char *key, size_t i)
{
    const json_t *v = json_array_get(json_object_get(o, key), i);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The report of a watch run: its layers with their valley floors, the
 * proof boundaries, the traced sites. */
/* The engine's lines (analyze_verdict_lines), as every command prints them. */
static void text_verdict(FILE *f, const analyze_result_t *r, bool with_capacity)
{
    analyze_line_t lines[ANALYZE_LINES_MAX];
    size_t n = analyze_verdict_lines(lines, r);
    for (size_t i = 0; i < n; i++)
        if (with_capacity || strcmp(lines[i].key, "capacity") != 0)
            fprintf(f, "%-12s %s\n", lines[i].key, lines[i].text);
    fputc('\n', f);
}

/* A watch run whose program marked its partitions' states: the per-state
 * model (capacity_marks.h) and its predictions. */
static void text_watch_states(FILE *f, const analyze_result_t *r)
{
    const json_t *jc = json_object_get(r->json, "capacity"), *val;
    if (!json_object_get(jc, "model"))
        return;
    const capacity_model_t *m = &r->capacity;
    char a[24], b[24], c[24], d[24], e[24];
    if (!m->ok) {
        fprintf(f, "\ncapacity     no prediction from the marked states: %s\n", m->why);
        return;
    }
    fprintf(f, "\ncapacity     bytes per partition (fitted from RSS at each marked occupancy): synthesizing %s, "
               "waiting %s, proving %s, finishing %s; baseline %s (%zu samples, %zu partitions)\n",
            fb(a, m->state_bytes[CAPACITY_SYNTH]), fb(b, m->state_bytes[CAPACITY_HELD]),
            fb(c, m->state_bytes[CAPACITY_PROVE]), fb(d, m->state_bytes[CAPACITY_FINISH]), fb(e, m->baseline),
            m->fit_samples, m->partitions_measured);
    if (m->warning[0])
        fprintf(f, "             WARNING: %s\n", m->warning);
    fprintf(f, "             predicted peak RSS (95%% interval):\n");
    size_t i;
    json_array_foreach(json_object_get(jc, "predicted"), i, val) {
        long long w = (long long)json_integer_value(json_object_get(val, "pw"));
        char mark[64] = "";
        if (w == r->pw)
            snprintf(mark, sizeof mark, "  <- this run (measured %s)", fb(d, m->measured_peak));
        fprintf(f, "               pw %3lld  %11s  (%s .. %s)%s%s\n", w, fb(a, jv(val, "peak_rss")),
                fb(b, jv(val, "low")), fb(c, jv(val, "high")), mark,
                w == r->largest_pw ? "  <- largest that fits" : "");
    }
}

static void text_watch(FILE *f, const char *dir, const analyze_result_t *r)
{
    char a[24], b[24], c[24], d[24], e[24], lo[24], hi[24];
    const json_t *J = r->json, *jb = json_object_get(J, "boundaries");
    const char *unit = r->per_proof ? "proof" : "s";
    fprintf(f, "run          %s: watch, %zu samples, boundaries: %s\n", dir, r->samples,
            json_string_value(json_object_get(jb, "detail")));
    text_verdict(f, r, true);
    fprintf(f, "%-12s %11s %11s %11s %11s %13s  %s\n", "layer", "first floor", "last floor", "peak", "end",
            r->per_proof ? "per proof" : "per second", "95% CI (last two thirds)");
    const char *key;
    json_t *val;
    json_object_foreach(json_object_get(J, "layers"), key, val) {
        const json_t *g = json_object_get(val, "growth"), *fl = json_object_get(val, "valley_floors");
        size_t nf = json_array_size(fl);
        const char *mark = json_is_true(json_object_get(g, "leak"))      ? "  LEAK"
                           : json_is_true(json_object_get(g, "bounded")) ? "  bounded"
                                                                         : "";
        fprintf(f, "%-12s %11s %11s %11s %11s %13s  %s .. %s%s\n", key,
                fb(a, nf ? (double)json_integer_value(json_array_get(fl, 0)) : NAN),
                fb(b, nf ? (double)json_integer_value(json_array_get(fl, nf - 1)) : NAN), fb(c, jv(val, "peak")),
                fb(d, jv(val, "end")), fb(e, jv(g, r->per_proof ? "bytes_per_proof" : "bytes_per_s")),
                fb(lo, jv_at(g, "ci95", 0)), fb(hi, jv_at(g, "ci95", 1)), mark);
    }
    size_t i;
    const json_t *js = json_object_get(J, "sites");
    if (json_array_size(js) > 0) {
        fprintf(f, "\nsites        top by never-freed bytes (--trace)\n");
        fprintf(f, "  %-28s %-22s %11s %10s %12s  %s\n", "function", "where", "never freed", "held GiB*s",
                r->per_proof ? "per proof" : "per second", "95% CI");
        json_array_foreach(js, i, val) {
            char held[24] = "-";
            if (isfinite(jv(val, "held_gib_s")))
                snprintf(held, sizeof held, "%.3f", jv(val, "held_gib_s"));
            /* never cut (two sites may share 28 characters); a stack site's
             * callers that tell it apart follow its function */
            const char *lab = json_string_value(json_object_get(val, "label")), *via = lab ? strstr(lab, "<-") : NULL;
            char fn[600];
            snprintf(fn, sizeof fn, "%s%s", json_string_value(json_object_get(val, "function")), via ? via : "");
            fprintf(f, "  %-28s %-22s %11s %10s %12s  %s .. %s%s\n", fn,
                    json_string_value(json_object_get(val, "where")), fb(a, jv(val, "never_freed_bytes")),
                    held, fb(b, jv(val, r->per_proof ? "growth_per_proof" : "growth_per_s")),
                    fb(c, jv(val, "growth_lo")), fb(d, jv(val, "growth_hi")),
                    json_is_true(json_object_get(val, "leak"))      ? "  LEAK"
                    : json_is_true(json_object_get(val, "bounded")) ? "  bounded"
                                                                    : "");
        }
    }
    text_watch_states(f, r);
    fprintf(f, "\npeak RSS     %s; never freed (traced) %s", fb(a, r->peak_rss), fb(b, r->never_freed_bytes));
    if (isfinite(r->s_per_proof))
        fprintf(f, "; %.3f s per proof", r->s_per_proof);
    fprintf(f, "; growth in bytes per %s\n", unit);
    json_array_foreach(json_object_get(J, "notes"), i, val) fprintf(f, "note         %s\n", json_string_value(val));
}

static void text_batch(FILE *f, const char *dir, const analyze_result_t *r)
{
    char a[24], b[24], c[24], d[24], e[24], g[24];
    const json_t *J = r->json;
    fprintf(f, "run          %s: %zu samples, %zu proofs, pw %d, %s\n", dir, r->samples, r->proofs_done, r->pw,
           json_is_true(json_object_get(J, "drained")) ? "drained" : "not drained");
    text_verdict(f, r, false);

    fprintf(f, "%-22s %11s %11s %11s %11s %12s  %s\n", "layer", "baseline", "peak", "end", "end - B",
            "per proof", "95% CI (per proof)");
    static const char *const label[] = {"L0 tracked", "L1 je_allocated", "L2 je_resident", "L3 rss",
                                        "L3-L2 outside heap", "GPU gpu_used"};
    for (int l = 0; l < ANALYZE_NLAYERS; l++) {
        const analyze_layer_t *L = &r->layer[l];
        char ci[64] = "";
        if (L->fitted && isfinite(L->g_lo))
            snprintf(ci, sizeof ci, "%s .. %s%s", fb(e, L->g_lo), fb(g, L->g_hi), L->g_significant ? "  GROWS" : "");
        fprintf(f, "%-22s %11s %11s %11s %11s %12s  %s\n", label[l], fb(a, L->baseline), fb(b, L->peak),
                fb(c, L->end), fb(d, L->end - L->baseline), L->fitted ? fb(e, L->g) : "-", ci);
    }
    const analyze_layer_t *T = &r->layer[ANALYZE_L_TRACKED], *H = &r->layer[ANALYZE_L_HEAP],
                          *S = &r->layer[ANALYZE_L_RESIDENT], *R = &r->layer[ANALYZE_L_RSS];
    fprintf(f, "ratios       at peak: allocated/tracked %.3f  resident/allocated %.3f  rss/resident %.3f\n",
            T->peak > 0 ? H->peak / T->peak : NAN, H->peak > 0 ? S->peak / H->peak : NAN,
            S->peak > 0 ? R->peak / S->peak : NAN);
    fprintf(f, "             at end:  allocated/tracked %.3f  resident/allocated %.3f  rss/resident %.3f\n\n",
            T->end > 0 ? H->end / T->end : NAN, H->end > 0 ? S->end / H->end : NAN,
            S->end > 0 ? R->end / S->end : NAN);

    if (R->fitted) {
        const analyze_ols_t *F = &R->fit;
        /* the prover's words on a CPU run: no GPU there (issue 25) */
        const char *be = json_string_value(json_object_get(J, "backend"));
        bool gpu = be && strcmp(be, "gpu") == 0;
        const char *const fl[] = {"synthesis",  gpu ? "GPU queue" : "prover queue", gpu ? "on GPU" : "proving",
                                  "finish",     "blocked",                         "per proof (g)"};
        fprintf(f, "footprints   rss = B + sum f*n (least squares over %zu samples, R^2 %.4f, residual sd %s)\n", F->n,
                F->r2, fb(a, F->resid_sd));
        fprintf(f, "             B (intercept) %s +- %s (measured %s)\n", fb(a, F->beta[0]), fb(b, F->se[0]),
                fb(c, R->baseline));
        for (int x = 0; x < ANALYZE_NX; x++) {
            if (F->kept[1 + x] && F->beta[1 + x] < 0 && x != ANALYZE_X_PROOFS)
                /* a slot cannot hold less than nothing: what the fit finds
                 * below B is memory of the baseline the slot reused */
                fprintf(f, "             %-14s %11s (fit %s +- %s: baseline memory reused)\n", fl[x], "none",
                        fb(a, F->beta[1 + x]), fb(b, F->se[1 + x]));
            else if (F->kept[1 + x])
                fprintf(f, "             %-14s %11s +- %s\n", fl[x], fb(a, F->beta[1 + x]), fb(b, F->se[1 + x]));
            else
                fprintf(f, "             %-14s dropped (%s constant or collinear)\n", fl[x], analyze_x_name(x));
        }
        fputc('\n', f);
    }

    const json_t *jr = json_object_get(J, "retention");
    fprintf(f, "retention    rss - allocated: baseline %s, end %s, retained %s (%.0f%% of peak working set)\n",
            fb(a, jv(jr, "rss_minus_allocated_baseline")), fb(b, jv(jr, "rss_minus_allocated_end")),
            fb(c, r->retained_bytes), 100 * r->retained_share);
    fprintf(f, "             je_dirty %s, je_muzzy %s at the end; purge returned %s\n", fb(a, jv(jr, "je_dirty_end")),
            fb(b, jv(jr, "je_muzzy_end")), fb(c, jv(jr, "purge_returned_bytes")));

    const json_t *jh = json_object_get(J, "held_after_last_use");
    fprintf(f, "held         %s after last use = %.1f%% of the tracked working set's %s over "
               "%.1f s active (%.1f%% of peak x duration); %lld buffers without a last use\n",
            analyze_fmt_area(a, sizeof a, r->held_gibs), 100 * r->held_share,
            analyze_fmt_area(b, sizeof b, jv(jh, "working_set_gib_s")), jv(jh, "active_s"),
            100 * jv(jh, "share_of_peak_x_duration"),
            (long long)json_integer_value(json_object_get(jh, "buffers_last_use_unknown")));
    const char *key;
    json_t *val;
    json_object_foreach(json_object_get(jh, "gib_s_by_kind"), key, val) {
        if (json_number_value(val) > 0.001 * fmax(r->held_gibs, 1e-9))
            fprintf(f, "               %-10s %12s\n", key, analyze_fmt_area(a, sizeof a, json_number_value(val)));
    }
    const json_t *jl = json_object_get(J, "leak");
    fprintf(f, "never freed  %s in tracked buffers (not counting resident params/circuit/NTT tables)\n",
            fb(a, r->never_freed_bytes));
    json_object_foreach(json_object_get(jl, "never_freed"), key, val) {
        fprintf(f, "               %-10s %6lld buffers %11s\n", key,
                (long long)json_integer_value(json_object_get(val, "count")),
                fb(a, (double)json_integer_value(json_object_get(val, "bytes"))));
    }
    const json_t *jp = json_object_get(J, "queue_pileup");
    if (json_object_get(jp, "bound"))
        fprintf(f, "queue        bound q_gpu + n_synth + n_blocked <= %lld (%s): %lld samples above, up to +%.0f, longest "
                   "%.1f s\n",
                (long long)json_integer_value(json_object_get(jp, "bound")),
                json_string_value(json_object_get(jp, "bound_from")),
                (long long)json_integer_value(json_object_get(jp, "samples_above")), r->pileup_excess, r->pileup_s);
    else
        fprintf(f, "queue        %s\n", json_string_value(json_object_get(jp, "why")));

    const json_t *jc = json_object_get(J, "capacity");
    const capacity_model_t *m = &r->capacity;
    if (isfinite(r->ram_bytes))
        fprintf(f, "capacity     %s\n             %s %s (%s), margin %.0f%%: limit %s; peak RSS %s\n",
                r->capacity_line, strstr(json_string_value(json_object_get(jc, "ram_from")), "mem") ? "memory limit" : "RAM",
                fb(a, r->ram_bytes), json_string_value(json_object_get(jc, "ram_from")), 100 * r->margin,
                fb(b, r->limit_rss), fb(c, r->peak_rss));
    else
        fprintf(f, "capacity     %s\n             peak RSS %s\n", r->capacity_line, fb(a, r->peak_rss));
    if (!m->ok) {
        fprintf(f, "             WARNING: no prediction: %s\n", m->why);
    } else {
        fprintf(f, "             bytes per partition (tracked, exact): synthesizing %s, waiting %s, proving %s, "
                   "finishing %s (%zu partitions)\n",
                fb(a, m->state_bytes[CAPACITY_SYNTH]), fb(b, m->state_bytes[CAPACITY_HELD]),
                fb(c, m->state_bytes[CAPACITY_PROVE]), fb(d, m->state_bytes[CAPACITY_FINISH]),
                m->partitions_measured);
        if (m->untracked < 0)
            fprintf(f, "             untracked near the peak: none; RSS stayed %s below baseline plus the "
                       "partitions' %s: baseline memory the run reused (sd %s over %zu samples)\n",
                    fb(a, -m->untracked), fb(b, m->tracked_run), fb(c, m->untracked_sd), m->fit_samples);
        else
            fprintf(f, "             untracked near the peak: %s (%.0f%% of the partitions' %s; sd %s over %zu "
                       "samples)\n",
                    fb(a, m->untracked), 100 * m->untracked_share, fb(b, m->tracked_run), fb(c, m->untracked_sd),
                    m->fit_samples);
        fprintf(f, "             %s\n", json_string_value(json_object_get(json_object_get(jc, "model"), "bound_text")));
        if (m->warning[0])
            fprintf(f, "             WARNING: %s\n", m->warning);
        fprintf(f, "             predicted peak RSS (95%% interval):\n");
        size_t i;
        char mark[64];
        json_array_foreach(json_object_get(jc, "predicted"), i, val) {
            long long w = (long long)json_integer_value(json_object_get(val, "pw"));
            fprintf(f, "               pw %3lld  %11s  (%s .. %s)%s%s%s\n", w, fb(a, jv(val, "peak_rss")),
                    fb(b, jv(val, "low")), fb(c, jv(val, "high")),
                    w == r->pw ? (snprintf(mark, sizeof mark, "  <- this run (measured %s)", fb(d, r->peak_rss)), mark) : "",
                    w == r->largest_pw ? (strcmp(json_string_value(json_object_get(jc, "bound_by")) ?
                                                 json_string_value(json_object_get(jc, "bound_by")) : "", "in-flight") == 0
                                              ? "  <- from here on pw adds no memory"
                                              : "  <- largest that fits")
                                       : "",
                    json_is_true(json_object_get(val, "load_peak"))
                        ? "  (the parameter load's peak, before any partition)"
                        : json_is_true(json_object_get(val, "bound")) ? "  (no more memory: in-flight bound)" : "");
        }
    }
    analyze_whatif_text(f, r);
    if (isfinite(r->s_per_proof))
        fprintf(f, "timing       %.3f s per proof\n", r->s_per_proof);
    const json_t *busy = json_object_get(J, "prove_busy");
    bool gpu_run = busy && strcmp(json_string_value(json_object_get(busy, "backend")), "gpu") == 0;
    if (busy && isfinite(r->prove_busy)) {
        char waits[96] = "";
        if (gpu_run && json_is_integer(json_object_get(busy, "lane_waits"))) {
            double w = jv(busy, "lane_wait_s");
            snprintf(waits, sizeof waits, w < 0.1 ? "; waits for a lane %.1f ms in %lld wait_lane rows"
                                                  : "; waits for a lane %.1f s in %lld wait_lane rows",
                     w < 0.1 ? 1e3 * w : w, (long long)json_integer_value(json_object_get(busy, "lane_waits")));
        }
        fprintf(f, "busy         prover busy %.0f%% of the work: H or an MSM running %.1f of %.1f s (host-side "
                   "stage rows%s%s)\n",
                100 * r->prove_busy, jv(busy, "busy_s"), jv(busy, "span_s"),
                gpu_run ? ", each from when its lane was held: not the device's own figure" : "", waits);
    }
    const json_t *dbusy = busy ? json_object_get(busy, "device_busy") : NULL;
    if (json_array_size(dbusy)) {
        size_t k;
        const json_t *dv;
        fprintf(f, "busy         device busy (NVML utilisation over the same span):");
        json_array_foreach(dbusy, k, dv) fprintf(f, "%s GPU %lld %.0f%% (%lld samples)", k ? "," : "",
                                                 (long long)json_integer_value(json_object_get(dv, "gpu")),
                                                 100 * jv(dv, "fraction"),
                                                 (long long)json_integer_value(json_object_get(dv, "samples")));
        fprintf(f, "\n");
    } else if (gpu_run && isfinite(r->prove_busy)) {
        fprintf(f, "busy         device busy: not measured (samples.csv has no gpu<d>_util: NVML absent)\n");
    }
    const json_t *devices = busy && isfinite(r->prove_busy) ? json_object_get(busy, "devices") : NULL;
    if (json_array_size(devices)) {
        /* the union above counts a moment once, whichever device worked */
        size_t k;
        const json_t *dv;
        fprintf(f, "busy         prover busy per GPU:");
        json_array_foreach(devices, k, dv) fprintf(f, "%s GPU %lld %.0f%% (%.1f of %.1f s)", k ? "," : "",
                                                   (long long)json_integer_value(json_object_get(dv, "gpu")),
                                                   100 * jv(dv, "fraction"), jv(dv, "busy_s"), jv(dv, "span_s"));
        fprintf(f, "\n");
    }
    const json_t *notes = json_object_get(J, "notes");
    size_t i;
    json_array_foreach(notes, i, val) fprintf(f, "note         %s\n", json_string_value(val));
}

void analyze_text_write(FILE *f, const char *dir, const analyze_result_t *r)
{
    if (r->watch)
        text_watch(f, dir, r);
    else
        text_batch(f, dir, r);
}
