/* The capacity model: fitting and prediction (capacity.h, docs/diagnosis.md);
 * its words and JSON are capacity_report.c. */
#define _GNU_SOURCE
#include "harness/diagnose/capacity.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze_names.h"


/* The model is refused when its 95% half-width at the run's own pw is
 * above this share of what the partitions add over the baseline. */
#define WEAK_SHARE 0.5
/* A warning when the model misses the run's own peak by more than this. */
#define MISS_SHARE 0.10

const char *capacity_state_name(enum capacity_state s)
{
    static const char *const names[CAPACITY_NSTATES] = {"synthesizing", "waiting", "proving", "finishing"};
    return (unsigned)s < CAPACITY_NSTATES ? names[s] : "?";
}

/* A count from run.json's config, or dflt when absent or no plausible
 * count (negative, fractional, past 2^20: a damaged file). */
static int cfg_int(const json_t *cfg, const char *key, int dflt)
{
    const json_t *v = json_object_get(cfg, key);
    double x = json_is_number(v) ? json_number_value(v) : -1;
    return x >= 0 && x <= (double)(1 << 20) && x == floor(x) ? (int)x : dflt;
}

/* ---- per-partition bytes by state, from buffers.csv and stages.csv ---- */

struct buf {
    long key;
    double bytes, t_alloc, t_free;
};

struct stage_times {
    long key;
    double synth0, synth1, prove0, prove1, finish1; /* NAN until seen */
};

static int cmp_buf(const void *a, const void *b)
{
    const struct buf *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_stage(const void *a, const void *b)
{
    const struct stage_times *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* Largest sum of live bytes over [a, b) among bufs[0..k): it is reached at
 * a or at an allocation inside the interval (one made at b belongs to the
 * next state). */
static double peak_in(const struct buf *bufs, size_t k, double a, double b)
{
    double best = 0;
    for (size_t c = 0; c <= k; c++) {
        double t = c == k ? a : bufs[c].t_alloc;
        if (t < a || (t >= b && c != k))
            continue;
        double live = 0;
        for (size_t j = 0; j < k; j++)
            if (bufs[j].t_alloc <= t && t < bufs[j].t_free)
                live += bufs[j].bytes;
        best = fmax(best, live);
    }
    return best;
}

/* Host buffers tagged with a partition, sorted by partition; a buffer of
 * kind early_kind (NULL: none) taken as freed at its last use, where it
 * has one (what-if: the kind freed there). */
static int load_bufs(struct buf **ret, size_t *n, const run_csv_t *bc, long parts, const char *early_kind)
{
    int ck = run_csv_col(bc, "proof"), cp = run_csv_col(bc, "partition"), cb = run_csv_col(bc, "bytes"),
        ca = run_csv_col(bc, "t_alloc_ms"), cf = run_csv_col(bc, "t_free_ms"), cd = run_csv_col(bc, "device"),
        cu = run_csv_col(bc, "t_last_use_ms"), cn = run_csv_col(bc, "kind");
    struct buf *b = malloc((bc->nrows + 1) * sizeof *b);
    if (!b)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < bc->nrows; i++) {
        double proof = run_csv_num(bc, i, ck), part = run_csv_num(bc, i, cp);
        if (!(proof >= 0) || !(part >= 0) || strcmp(run_csv_text(bc, i, cd), "host") != 0)
            continue;
        double tf = run_csv_num(bc, i, cf);
        if (early_kind && cu >= 0 && cn >= 0 && strcmp(run_csv_text(bc, i, cn), early_kind) == 0) {
            double tu = run_csv_num(bc, i, cu);
            if (isfinite(tu) && !(tu >= tf))
                tf = tu;
        }
        b[k++] = (struct buf){(long)proof * parts + (long)part, run_csv_num(bc, i, cb), run_csv_num(bc, i, ca),
                              isfinite(tf) ? tf : INFINITY};
    }
    qsort(b, k, sizeof *b, cmp_buf);
    *ret = b;
    *n = k;
    return 0;
}

static int load_stages(struct stage_times **ret, size_t *n, const run_csv_t *sc, long parts)
{
    int ck = run_csv_col(sc, "proof"), cp = run_csv_col(sc, "partition"), cs = run_csv_col(sc, "stage"),
        c0 = run_csv_col(sc, "t_start_ms"), c1 = run_csv_col(sc, "t_end_ms");
    struct stage_times *s = malloc((sc->nrows + 1) * sizeof *s);
    if (!s)
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < sc->nrows; i++) {
        double proof = run_csv_num(sc, i, ck), part = run_csv_num(sc, i, cp);
        if (!(proof >= 0) || !(part >= 0))
            continue;
        s[k++] = (struct stage_times){(long)proof * parts + (long)part, NAN, NAN, NAN, NAN, NAN};
        const char *st = run_csv_text(sc, i, cs);
        double t0 = run_csv_num(sc, i, c0), t1 = run_csv_num(sc, i, c1);
        struct stage_times *x = &s[k - 1];
        if (strcmp(st, "synth") == 0)
            x->synth0 = t0, x->synth1 = t1;
        else if (strcmp(st, "prove") == 0)
            x->prove0 = t0, x->prove1 = t1;
        else if (strcmp(st, "finish") == 0)
            x->finish1 = t1;
        else
            k--;
    }
    qsort(s, k, sizeof *s, cmp_stage);
    /* one record per partition: merge the rows of each key */
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m > 0 && s[m - 1].key == s[i].key) {
            struct stage_times *d = &s[m - 1];
            if (isfinite(s[i].synth0))
                d->synth0 = s[i].synth0, d->synth1 = s[i].synth1;
            if (isfinite(s[i].prove0))
                d->prove0 = s[i].prove0, d->prove1 = s[i].prove1;
            if (isfinite(s[i].finish1))
                d->finish1 = s[i].finish1;
        } else {
            s[m++] = s[i];
        }
    }
    *ret = s;
    *n = m;
    return 0;
}

static void measure_states(capacity_model_t *m, const struct buf *b, size_t nb, const struct stage_times *st,
                           size_t ns)
{
    size_t j = 0;
    for (size_t i = 0; i < ns; i++) {
        const struct stage_times *x = &st[i];
        if (!isfinite(x->synth1) || !isfinite(x->prove1) || !isfinite(x->finish1))
            continue; /* a partition that did not go all the way */
        while (j < nb && b[j].key < x->key)
            j++;
        size_t k = j;
        while (k < nb && b[k].key == x->key)
            k++;
        const struct buf *pb = b + j;
        size_t cnt = k - j;
        double f[CAPACITY_NSTATES] = {
            peak_in(pb, cnt, x->synth0, x->synth1),
            peak_in(pb, cnt, x->synth1, x->prove0),
            peak_in(pb, cnt, x->prove0, x->prove1),
            peak_in(pb, cnt, x->prove1, x->finish1),
        };
        for (int s = 0; s < CAPACITY_NSTATES; s++)
            m->state_bytes[s] = fmax(m->state_bytes[s], f[s]);
        m->partitions_measured++;
    }
}

/* ---- the untracked remainder ---- */

struct event {
    double t, delta;
};

static int cmp_event(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

/* By time, and at equal times the ends (negative deltas) first. */
static int cmp_event_ends_first(const void *a, const void *b)
{
    const struct event *x = a, *y = b;
    int by_t = cmp_event(a, b);
    return by_t ? by_t : (x->delta > y->delta) - (x->delta < y->delta);
}

/* The most partitions finishing at once (between the end of their prove
 * stage and the end of their finish), from the stage rows: exact, where
 * the samples' n_finish misses a finish shorter than their interval.
 * An end and a start at the same time do not overlap. */
static int finishing_overlap(int *ret, const struct stage_times *st, size_t ns)
{
    struct event *ev = malloc((2 * ns + 1) * sizeof *ev);
    if (!ev)
        return -ENOMEM;
    size_t ne = 0;
    for (size_t i = 0; i < ns; i++)
        if (isfinite(st[i].prove1) && isfinite(st[i].finish1) && st[i].finish1 > st[i].prove1) {
            ev[ne++] = (struct event){st[i].prove1, 1};
            ev[ne++] = (struct event){st[i].finish1, -1};
        }
    qsort(ev, ne, sizeof *ev, cmp_event_ends_first);
    int live = 0, most = 0;
    for (size_t i = 0; i < ne; i++) {
        live += ev[i].delta > 0 ? 1 : -1;
        most = live > most ? live : most;
    }
    free(ev);
    *ret = most;
    return 0;
}

/* Bytes of partition-tagged buffers live at each sample time (t sorted). */
static int tagged_live(double *out, const double *t, size_t n, const struct buf *b, size_t nb)
{
    struct event *ev = malloc((2 * nb + 1) * sizeof *ev);
    if (!ev)
        return -ENOMEM;
    size_t ne = 0;
    for (size_t i = 0; i < nb; i++) {
        ev[ne++] = (struct event){b[i].t_alloc, b[i].bytes};
        if (isfinite(b[i].t_free))
            ev[ne++] = (struct event){b[i].t_free, -b[i].bytes};
    }
    qsort(ev, ne, sizeof *ev, cmp_event);
    double live = 0;
    size_t e = 0;
    for (size_t i = 0; i < n; i++) {
        while (e < ne && ev[e].t <= t[i])
            live += ev[e++].delta;
        out[i] = live;
    }
    free(ev);
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Column c of row i, or NAN without the column. */
static double col_num(const run_csv_t *sc, size_t i, int c)
{
    return c >= 0 ? run_csv_num(sc, i, c) : NAN;
}

/* The 90th percentile of v[0..k) (k > 0), sorting v, and the spread. */
static double p90_sd(double *v, size_t k, double *sd)
{
    double mean = 0, var = 0;
    for (size_t i = 0; i < k; i++)
        mean += v[i] / (double)k;
    for (size_t i = 0; i < k; i++)
        var += (v[i] - mean) * (v[i] - mean) / (double)(k > 1 ? k - 1 : 1);
    if (sd)
        *sd = sqrt(var);
    qsort(v, k, sizeof *v, cmp_dbl);
    return v[(size_t)floor(0.9 * (double)(k - 1))];
}

/* The residual RSS - B - (partition bytes live) at the samples where the
 * partition bytes are within 10% of their largest value, the retention
 * (je_dirty + je_muzzy) at the same samples, and the rest: the residual
 * less the retention. */
static int fit_untracked(capacity_model_t *m, const run_csv_t *sc, const struct buf *b, size_t nb)
{
    size_t n = sc->nrows;
    int ct = run_csv_col(sc, "t_ms"), crss = run_csv_col(sc, "rss"), cfin = run_csv_col(sc, "n_finish"),
        cdirty = run_csv_col(sc, "je_dirty"), cmuzzy = run_csv_col(sc, "je_muzzy"),
        carena = run_csv_col(sc, "je_arena_freed_max"), ccount = run_csv_col(sc, "je_arenas_freed");
    double *t = malloc((n + 1) * sizeof *t), *p = malloc((n + 1) * sizeof *p), *y = malloc((n + 1) * sizeof *y),
           *ret = malloc((n + 1) * sizeof *ret), *arena = malloc((n + 1) * sizeof *arena),
           *count = malloc((n + 1) * sizeof *count), *rest = malloc((n + 1) * sizeof *rest);
    int rc = -ENOMEM;
    if (!t || !p || !y || !ret || !arena || !count || !rest)
        goto done;
    for (size_t i = 0; i < n; i++) {
        t[i] = run_csv_num(sc, i, ct);
        if (cfin >= 0)
            m->finishing = (int)fmax(m->finishing, run_csv_num(sc, i, cfin));
    }
    if ((rc = tagged_live(p, t, n, b, nb)) < 0)
        goto done;
    double pmax = 0;
    for (size_t i = 0; i < n; i++)
        pmax = fmax(pmax, p[i]);
    m->tracked_peak = pmax;
    /* the retention only where every sample has it (a watch, or files from
     * before the columns, have none: R = 0 and the rest is the residual) */
    bool has_ret = cdirty >= 0, has_arena = carena >= 0, has_count = ccount >= 0;
    size_t k = 0;
    for (size_t i = 0; i < n && pmax > 0; i++) {
        if (p[i] < 0.9 * pmax)
            continue;
        y[k] = run_csv_num(sc, i, crss) - m->baseline - p[i];
        double muzzy = col_num(sc, i, cmuzzy);
        ret[k] = col_num(sc, i, cdirty) + (isfinite(muzzy) ? muzzy : 0);
        arena[k] = col_num(sc, i, carena);
        count[k] = col_num(sc, i, ccount);
        has_ret = has_ret && isfinite(ret[k]);
        has_arena = has_arena && isfinite(arena[k]);
        has_count = has_count && isfinite(count[k]);
        k++;
    }
    m->fit_samples = k;
    if (k == 0)
        goto done;
    for (size_t i = 0; i < k; i++)
        rest[i] = y[i] - (has_ret ? ret[i] : 0);
    if ((rc = capacity_retention_measure(&m->retention, has_ret ? ret : NULL, has_arena ? arena : NULL,
                                         has_count ? count : NULL, k)) < 0)
        goto done;
    m->untracked = p90_sd(y, k, &m->untracked_sd);
    m->rest = p90_sd(rest, k, NULL);
done:
    free(t);
    free(p);
    free(y);
    free(ret);
    free(arena);
    free(count);
    free(rest);
    return rc;
}

/* The most partition bytes freed within one period the allocator keeps
 * freed pages for (dirty then muzzy decay; -1: never returned, the whole
 * run; unknown: no bound). */
static int freed_in_decay(capacity_model_t *m, const struct buf *b, size_t nb)
{
    const capacity_retention_t *r = &m->retention;
    m->retention.freed_in_decay = INFINITY;
    if (!isfinite(r->dirty_decay_ms) || !isfinite(r->muzzy_decay_ms))
        return 0;
    struct event *ev = malloc((nb + 1) * sizeof *ev);
    double *t = malloc((nb + 1) * sizeof *t), *bytes = malloc((nb + 1) * sizeof *bytes);
    if (!ev || !t || !bytes) {
        free(ev);
        free(t);
        free(bytes);
        return -ENOMEM;
    }
    size_t ne = 0;
    for (size_t i = 0; i < nb; i++)
        if (isfinite(b[i].t_free))
            ev[ne++] = (struct event){b[i].t_free, b[i].bytes};
    qsort(ev, ne, sizeof *ev, cmp_event);
    for (size_t i = 0; i < ne; i++)
        t[i] = ev[i].t, bytes[i] = ev[i].delta;
    bool never = r->dirty_decay_ms < 0 || r->muzzy_decay_ms < 0;
    m->retention.freed_in_decay =
        capacity_retention_window(t, bytes, ne, never ? -1 : r->dirty_decay_ms + r->muzzy_decay_ms);
    free(ev);
    free(t);
    free(bytes);
    return 0;
}

/* ---- prediction ---- */

/* Bytes a synthesis slot holds: a slot holds a partition while
 * synthesizing and while blocked, counted in whichever state holds more. */
static double slot_bytes(const capacity_model_t *m)
{
    const double *F = m->state_bytes;
    return F[CAPACITY_SYNTH] > F[CAPACITY_HELD] ? F[CAPACITY_SYNTH] : F[CAPACITY_HELD];
}

/* Partitions proving, queued, in the synthesis slots pw fills and
 * finishing, each up to its own bound. Where the proofs in flight bound
 * them all (concurrency x partitions), the states that hold the most fill
 * first: the peak is the worst arrangement the pipeline allows, as a
 * proof's partitions can all be before finishing at once (at
 * --concurrency 1 and pw 2 a run peaked with 2 blocked, 1 queued, 1
 * proving and none finishing). Returns the slots. */
static long occupancy(const capacity_model_t *m, int pw, long *proving, long *queued, long *finishing)
{
    long avail = m->concurrency > 0 && m->partitions > 0 ? (long)m->concurrency * m->partitions : 1L << 30;
    const double *F = m->state_bytes;
    long slots = 0;
    struct fill {
        long cap;
        double bytes;
        long *n;
    } st[4] = {{m->gpu_workers, F[CAPACITY_PROVE], proving},
               {m->gpu_queue, F[CAPACITY_HELD], queued},
               {pw, slot_bytes(m), &slots},
               {m->finishing, F[CAPACITY_FINISH], finishing}};
    /* by bytes held, most first; ties keep the pipeline's order */
    for (int i = 1; i < 4; i++)
        for (int j = i; j > 0 && st[j].bytes > st[j - 1].bytes; j--) {
            struct fill t = st[j];
            st[j] = st[j - 1];
            st[j - 1] = t;
        }
    for (int i = 0; i < 4; i++) {
        long cap = st[i].cap > 0 ? st[i].cap : 0;
        *st[i].n = cap < avail ? cap : avail;
        avail -= *st[i].n;
    }
    return slots;
}

void capacity_predict(capacity_point_t *out, const capacity_model_t *m, int pw)
{
    memset(out, 0, sizeof *out);
    out->pw = pw;
    long proving, queued, finishing, fit_proving, fit_queued, fit_finishing;
    long slots = occupancy(m, pw, &proving, &queued, &finishing);
    long fit_slots = occupancy(m, m->pw, &fit_proving, &fit_queued, &fit_finishing);
    out->bound = slots < pw;
    const double *F = m->state_bytes;
    bool slot_synth = F[CAPACITY_SYNTH] > F[CAPACITY_HELD];
    out->n[CAPACITY_SYNTH] = slot_synth ? (int)slots : 0;
    out->n[CAPACITY_HELD] = (int)(queued + (slot_synth ? 0 : slots));
    out->n[CAPACITY_PROVE] = (int)proving;
    out->n[CAPACITY_FINISH] = (int)finishing;
    double tracked = 0;
    for (int s = 0; s < CAPACITY_NSTATES; s++)
        tracked += out->n[s] * F[s];
    /* the residual's spread, scaled with the partitions as the residual is */
    double scale = m->tracked_run > 0 ? tracked / m->tracked_run : 1;
    double half = 2 * m->untracked_sd * scale;
    /* the synthesis workers that hold a partition at once allocate from
     * their own arenas (capacity_retention.h) */
    out->retention = capacity_retention_at(&m->retention, (int)fit_slots, (int)slots,
                                           (int)(slots + queued + proving + finishing), (int)(slots + queued));
    out->peak = m->baseline + (1 + m->rest_share) * tracked + out->retention;
    out->low = out->peak - half;
    out->high = out->peak + half;
    if (m->load_peak > out->peak) { /* loading peaked higher than this pw works */
        out->peak = out->low = out->high = m->load_peak;
        out->load = true;
    }
}

int capacity_max_pw(const capacity_model_t *m, double limit, int pw_max)
{
    int best = 0;
    for (int w = 1; w <= pw_max; w++) {
        capacity_point_t c;
        capacity_predict(&c, m, w);
        if (c.peak > limit)
            break;
        if (c.bound) {
            /* from here on every pw has the same peak; bound at pw 1
             * (nothing more in flight), pw 1 itself fits: not 0 */
            if (best == 0)
                best = w;
            break;
        }
        best = w;
    }
    return best;
}

int capacity_saturation_pw(const capacity_model_t *m, int pw_max)
{
    for (int w = 1; w <= pw_max; w++) {
        capacity_point_t c;
        capacity_predict(&c, m, w);
        if (c.bound)
            return w - 1 > 0 ? w - 1 : 1;
    }
    return 0;
}

/* ---- fitting ---- */

/* The peak while partitions were in the pipeline, and the high-water mark
 * before the first one: loading parameters can peak above the work (a heap
 * decode holds the mapped file and the copy at once), and that peak does
 * not move with pw. */
static void measure_peaks(capacity_model_t *m, const run_csv_t *sc)
{
    int crss = run_csv_col(sc, "rss"), chwm = run_csv_col(sc, "hwm"), cadm = run_csv_col(sc, "partitions_admitted"),
        cq = run_csv_col(sc, "q_synth"), cs = run_csv_col(sc, "n_synth");
    double hwm_before = NAN, hwm_last = NAN;
    bool working = false;
    m->measured_peak = 0;
    for (size_t i = 0; i < sc->nrows; i++) {
        double adm = cadm >= 0 ? run_csv_num(sc, i, cadm) : run_csv_num(sc, i, cq) + run_csv_num(sc, i, cs);
        double hwm = chwm >= 0 ? run_csv_num(sc, i, chwm) : NAN;
        working = working || adm > 0;
        if (!working)
            hwm_before = hwm;
        else
            m->measured_peak = fmax(m->measured_peak, run_csv_num(sc, i, crss));
        hwm_last = hwm;
    }
    if (!isfinite(hwm_before) && sc->nrows > 0 && chwm >= 0)
        hwm_before = run_csv_num(sc, 0, chwm); /* work from the first sample: its mark predates it */
    m->load_peak = isfinite(hwm_before) ? hwm_before : 0;
    /* the mark rose during the work: a peak between two samples */
    if (isfinite(hwm_last) && hwm_last > m->load_peak)
        m->measured_peak = fmax(m->measured_peak, hwm_last);
}

int capacity_fit(capacity_model_t *m, const run_csv_t *samples, const run_csv_t *buffers, const run_csv_t *stages,
                 const json_t *config, const json_t *allocator, double baseline_rss)
{
    memset(m, 0, sizeof *m);
    capacity_retention_settings(&m->retention, allocator);
    m->retention.freed_in_decay = INFINITY;
    m->pw = cfg_int(config, "pw", -1);
    m->gpu_workers = cfg_int(config, "gpu_workers", 1);
    /* gpu_workers is per device: --gpus gives the devices */
    const json_t *gpus = json_object_get(config, "gpus");
    if (json_is_array(gpus) && json_array_size(gpus) > 1)
        m->gpu_workers *= (int)json_array_size(gpus);
    m->gpu_queue = cfg_int(config, "gpu_queue", m->gpu_workers);
    m->concurrency = cfg_int(config, "concurrency", 0);
    m->partitions = cfg_int(config, "partitions", 0);
    m->baseline = baseline_rss;
    measure_peaks(m, samples);
    double measured_peak = m->measured_peak;
    if (m->pw < 1) {
        snprintf(m->why, sizeof m->why, "run.json has no pipeline config (pw): not a zkbench batch run");
        return 0;
    }
    if (!buffers || !stages || buffers->nrows == 0 || stages->nrows == 0) {
        snprintf(m->why, sizeof m->why, "no buffers.csv or stages.csv rows: the bytes per partition are unknown");
        return 0;
    }
    long parts = m->partitions > 0 ? m->partitions : 1024;
    struct buf *b = NULL;
    struct stage_times *st = NULL;
    size_t nb = 0, ns = 0;
    int rc;
    if ((rc = load_bufs(&b, &nb, buffers, parts, NULL)) < 0 || (rc = load_stages(&st, &ns, stages, parts)) < 0) {
        free(b);
        free(st);
        return rc;
    }
    measure_states(m, b, nb, st, ns);
    int finishing = 0;
    rc = fit_untracked(m, samples, b, nb);
    if (rc == 0)
        rc = freed_in_decay(m, b, nb);
    if (rc == 0)
        rc = finishing_overlap(&finishing, st, ns);
    free(b);
    free(st);
    if (rc < 0)
        return rc;
    if (finishing > m->finishing)
        m->finishing = finishing;

    char b1[32], b2[32];
    if (m->partitions_measured == 0) {
        snprintf(m->why, sizeof m->why,
                 "no partition went through synthesis, proving and finish: the bytes per partition are unknown");
        return 0;
    }
    if (m->fit_samples < 5) {
        snprintf(m->why, sizeof m->why,
                 "%zu samples near the largest partition bytes: too few to measure what RSS holds beyond the "
                 "tracked buffers (need 5; lower --sample-ms or run longer)", m->fit_samples);
        return 0;
    }
    m->retention.partition_bytes = fmax(m->state_bytes[CAPACITY_SYNTH], m->state_bytes[CAPACITY_HELD]);
    capacity_model_t bare = *m;
    bare.rest_share = 0;
    bare.untracked_sd = 0;
    bare.load_peak = 0;
    bare.retention.measured = false;
    capacity_point_t c;
    capacity_predict(&c, &bare, m->pw);
    m->tracked_run = c.peak - m->baseline;
    if (!(m->tracked_run > 0)) {
        snprintf(m->why, sizeof m->why, "the partitions hold no tracked bytes at the run's pw: nothing to scale");
        return 0;
    }
    m->untracked_share = m->untracked / m->tracked_run;
    m->rest_share = m->rest / m->tracked_run;
    if (m->untracked_share <= -1) {
        snprintf(m->why, sizeof m->why,
                 "RSS at the peak is %s below the baseline plus the partitions' %s: the baseline held memory the "
                 "run reused, and the model does not describe this run",
                 analyze_fmt_bytes(b1, sizeof b1, -m->untracked), analyze_fmt_bytes(b2, sizeof b2, m->tracked_run));
        return 0;
    }
    if (m->rest_share <= -1) {
        snprintf(m->why, sizeof m->why,
                 "RSS at the peak is below the baseline plus the partitions' %s plus the %s of freed pages the "
                 "allocator kept: the baseline held memory the run reused, and the model does not describe this run",
                 analyze_fmt_bytes(b1, sizeof b1, m->tracked_run), analyze_fmt_bytes(b2, sizeof b2, m->retention.bytes));
        return 0;
    }
    capacity_model_t no_load = *m;
    no_load.load_peak = 0;
    capacity_predict(&c, &no_load, m->pw); /* the work's own peak, to check the model with */
    m->model_peak_at_run = c.peak;
    double added = c.peak - m->baseline, half = c.high - c.peak;
    if (!(added > 0) || half > WEAK_SHARE * added) {
        snprintf(m->why, sizeof m->why,
                 "the model is too uncertain: at pw %d it adds %s over the baseline +- %s (RSS beyond the tracked "
                 "buffers varies by %s near the peak)",
                 m->pw, analyze_fmt_bytes(b1, sizeof b1, added), analyze_fmt_bytes(b2, sizeof b2, half),
                 analyze_fmt_bytes((char[32]){0}, 32, m->untracked_sd));
        return 0;
    }
    m->ok = true;
    if (m->untracked_share > 1)
        snprintf(m->warning, sizeof m->warning,
                 "RSS beyond the tracked buffers (%s near the peak) is more than the partitions hold: it is scaled "
                 "with them, but much of it may be fixed (a runtime, pinned staging), so predictions far from pw %d "
                 "are rough",
                 analyze_fmt_bytes(b1, sizeof b1, m->untracked), m->pw);
    double miss = isfinite(measured_peak) && measured_peak > m->baseline
                      ? (c.peak - measured_peak) / (measured_peak - m->baseline) : 0;
    if (fabs(miss) > MISS_SHARE && !m->warning[0])
        snprintf(m->warning, sizeof m->warning,
                 "at the run's own pw %d the model gives %s, the run peaked at %s (%+.0f%% of the working set): "
                 "the pipeline was not saturated at its peak, or the peak was brief",
                 m->pw, analyze_fmt_bytes(b1, sizeof b1, c.peak), analyze_fmt_bytes(b2, sizeof b2, measured_peak), 100 * miss);
    return 0;
}

int capacity_state_bytes_freed_at_last_use(double out[CAPACITY_NSTATES], const capacity_model_t *m,
                                            const run_csv_t *buffers, const run_csv_t *stages, const char *kind)
{
    capacity_model_t scratch;
    memset(&scratch, 0, sizeof scratch);
    long parts = m->partitions > 0 ? m->partitions : 1024;
    struct buf *b = NULL;
    struct stage_times *st = NULL;
    size_t nb = 0, ns = 0;
    int rc;
    if ((rc = load_bufs(&b, &nb, buffers, parts, kind)) == 0 && (rc = load_stages(&st, &ns, stages, parts)) == 0)
        measure_states(&scratch, b, nb, st, ns);
    free(b);
    free(st);
    if (rc < 0)
        return rc;
    memcpy(out, scratch.state_bytes, sizeof scratch.state_bytes);
    return 0;
}
