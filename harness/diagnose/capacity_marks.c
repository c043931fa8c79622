/* The capacity model from a watched program's partition states
 * (capacity_marks.h; the method: docs/diagnosis.md, "A watched prover's
 * states"). */
#define _GNU_SOURCE
#include "harness/diagnose/capacity_marks.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_names.h"

/* samples before the first state mark that show the baseline (ms) */
#define BASE_WINDOW_MS 1000.0
/* samples an occupancy needs to count in the fit */
#define MIN_AT_LEVEL 3
/* as capacity.c: refused above this half-width share, warned above this miss */
#define WEAK_SHARE 0.5
#define MISS_SHARE 0.10

struct cols {
    int t, rss, hwm, synth, blocked, queue, prove, finish, admitted;
};

static struct cols cols_of(const run_csv_t *sc)
{
    return (struct cols){run_csv_col(sc, "t_ms"),    run_csv_col(sc, "rss"),       run_csv_col(sc, "hwm"),
                         run_csv_col(sc, "n_synth"), run_csv_col(sc, "n_blocked"), run_csv_col(sc, "q_gpu"),
                         run_csv_col(sc, "n_gpu"),   run_csv_col(sc, "n_finish"),  run_csv_col(sc, "partitions_admitted")};
}

bool capacity_marks_present(const run_csv_t *sc)
{
    struct cols c = cols_of(sc);
    return c.synth >= 0 && c.blocked >= 0 && c.queue >= 0 && c.prove >= 0 && c.finish >= 0;
}

/* Row i's partitions per capacity state; false when a cell is empty. */
static bool row_states(const run_csv_t *sc, const struct cols *c, size_t i, double x[CAPACITY_NSTATES])
{
    x[CAPACITY_SYNTH] = run_csv_num(sc, i, c->synth);
    x[CAPACITY_HELD] = run_csv_num(sc, i, c->blocked) + run_csv_num(sc, i, c->queue);
    x[CAPACITY_PROVE] = run_csv_num(sc, i, c->prove);
    x[CAPACITY_FINISH] = run_csv_num(sc, i, c->finish);
    for (int s = 0; s < CAPACITY_NSTATES; s++)
        if (!isfinite(x[s]))
            return false;
    return isfinite(run_csv_num(sc, i, c->t)) && isfinite(run_csv_num(sc, i, c->rss));
}

/* One sample of the fit: its occupancy per state and its RSS. */
struct pt {
    double x[CAPACITY_NSTATES], rss;
};

static int cmp_pt(const void *a, const void *b)
{
    const struct pt *p = a, *q = b;
    for (int s = 0; s < CAPACITY_NSTATES; s++)
        if (p->x[s] != q->x[s])
            return p->x[s] < q->x[s] ? -1 : 1;
    return (p->rss > q->rss) - (p->rss < q->rss);
}

/* An occupancy seen in MIN_AT_LEVEL samples or more: the 90th percentile of
 * their RSS (what the partitions hold there, robust to one odd sample) and
 * the spread of the samples at the top (its 80th percentile and up). */
struct group {
    double x[CAPACITY_NSTATES], rss, sd;
    size_t n;
};

static size_t make_groups(struct group *g, const struct pt *v, size_t k)
{
    size_t ng = 0;
    for (size_t a = 0, b; a < k; a = b) {
        for (b = a + 1; b < k && memcmp(v[b].x, v[a].x, sizeof v[a].x) == 0; b++)
            ;
        size_t c = b - a;
        if (c < MIN_AT_LEVEL)
            continue;
        struct group *G = &g[ng++];
        memcpy(G->x, v[a].x, sizeof G->x);
        G->n = c;
        G->rss = v[a + (size_t)floor(0.9 * (double)(c - 1))].rss;
        size_t t0 = a + (size_t)floor(0.8 * (double)(c - 1)), nt = b - t0;
        double mean = 0, var = 0;
        for (size_t i = t0; i < b; i++)
            mean += v[i].rss / (double)nt;
        for (size_t i = t0; i < b; i++)
            var += (v[i].rss - mean) * (v[i].rss - mean) / (double)(nt > 1 ? nt - 1 : 1);
        G->sd = sqrt(var);
    }
    return ng;
}

int capacity_marks_fit(capacity_model_t *m, const run_csv_t *sc)
{
    memset(m, 0, sizeof *m);
    m->retention.freed_in_decay = INFINITY;
    m->retention.dirty_decay_ms = m->retention.muzzy_decay_ms = NAN;
    m->pw = -1;
    struct cols c = cols_of(sc);
    size_t n = sc->nrows, first = n, last = n;
    double x[CAPACITY_NSTATES], most[CAPACITY_NSTATES] = {0};
    for (size_t i = 0; i < n; i++) {
        if (!row_states(sc, &c, i, x))
            continue;
        double sum = 0;
        for (int s = 0; s < CAPACITY_NSTATES; s++)
            sum += x[s], most[s] = fmax(most[s], x[s]);
        if (sum > 0) {
            first = first == n ? i : first;
            last = i;
        }
        if (c.admitted >= 0 && isfinite(run_csv_num(sc, i, c.admitted)))
            m->partitions_measured = (size_t)fmax((double)m->partitions_measured, run_csv_num(sc, i, c.admitted));
    }
    m->pw = (int)most[CAPACITY_SYNTH];
    m->gpu_workers = (int)most[CAPACITY_PROVE];
    m->gpu_queue = (int)most[CAPACITY_HELD];
    m->finishing = (int)most[CAPACITY_FINISH];
    if (first == n) {
        snprintf(m->why, sizeof m->why,
                 "no sample fell while a marked partition was in a state (the marks' states are shorter than the "
                 "tick): lower --sample-ms");
        return 0;
    }
    if (m->pw < 1) {
        snprintf(m->why, sizeof m->why,
                 "the marks never showed a partition synthesizing ('synth start' ... 'synth end'), and pw is the "
                 "count of those: mark synthesis too");
        return 0;
    }
    double t_first = run_csv_num(sc, first, c.t);
    struct pt *v = malloc((n + 1) * sizeof *v);
    struct group *g = malloc((n + 1) * sizeof *g);
    double *X = malloc((n + 1) * (CAPACITY_NSTATES + 1) * sizeof *X), *y = malloc((n + 1) * sizeof *y);
    int rc = -ENOMEM;
    if (!v || !g || !X || !y)
        goto done;
    rc = 0;
    size_t k = 0;
    for (size_t i = 0; i <= last; i++) {
        if (!row_states(sc, &c, i, x) || run_csv_num(sc, i, c.t) < t_first - BASE_WINDOW_MS)
            continue;
        if (i < first) /* before the first mark: the baseline */
            m->load_peak = fmax(m->load_peak, fmax(run_csv_num(sc, i, c.rss),
                                                   c.hwm >= 0 && isfinite(run_csv_num(sc, i, c.hwm))
                                                       ? run_csv_num(sc, i, c.hwm) : 0));
        else
            m->measured_peak = fmax(m->measured_peak, run_csv_num(sc, i, c.rss));
        memcpy(v[k].x, x, sizeof x);
        v[k++].rss = run_csv_num(sc, i, c.rss);
    }
    m->fit_samples = k;
    qsort(v, k, sizeof *v, cmp_pt);
    size_t ng = make_groups(g, v, k), levels = 0, most_n = 0;
    double pooled = 0, most_at = -1;
    for (size_t i = 0; i < ng; i++) {
        bool seen = false;
        for (size_t j = 0; j < i; j++)
            seen = seen || g[j].x[CAPACITY_SYNTH] == g[i].x[CAPACITY_SYNTH];
        levels += !seen;
        if (g[i].n > most_n)
            most_n = g[i].n, most_at = g[i].x[CAPACITY_SYNTH];
        pooled += g[i].sd * g[i].sd / (double)ng;
        double *row = X + i * (CAPACITY_NSTATES + 1);
        row[0] = 1;
        for (int st = 0; st < CAPACITY_NSTATES; st++)
            row[1 + st] = g[i].x[st];
        y[i] = g[i].rss;
    }
    analyze_ols_t o;
    char b1[32], b2[32];
    if (levels < 2) {
        snprintf(m->why, sizeof m->why,
                 "a partition's bytes cannot be told from the baseline: %zu of the %zu samples fitted show %.0f "
                 "synthesizing, no other count %d; idle samples before the first 'synth start', or partitions "
                 "starting at different times, decide it",
                 most_n, k, most_at, MIN_AT_LEVEL);
        goto done;
    }
    if ((rc = analyze_ols(&o, X, y, ng, CAPACITY_NSTATES + 1)) < 0)
        goto done;
    if (!o.kept[0] || !o.kept[1 + CAPACITY_SYNTH]) {
        snprintf(m->why, sizeof m->why, "the synthesizing count moves with another state's in every sample: the "
                 "bytes of each cannot be told apart (marks whose states overlap differently decide it)");
        goto done;
    }
    m->baseline = o.beta[0];
    /* an exact fit (as many occupancies as states) has no interval of its own */
    double t95 = analyze_t95(o.dof >= 1 ? o.dof : 1), se[CAPACITY_NSTATES];
    for (int s = 0; s < CAPACITY_NSTATES; s++) {
        m->state_bytes[s] = o.kept[1 + s] ? o.beta[1 + s] : 0;
        se[s] = o.kept[1 + s] && o.dof >= 1 && isfinite(o.se[1 + s]) ? o.se[1 + s] : 0;
    }
    if (!(m->state_bytes[CAPACITY_SYNTH] > 0)) {
        snprintf(m->why, sizeof m->why, "RSS does not rise with the partitions synthesizing (fitted %s each, +- %s): "
                 "the marks do not frame what holds the memory",
                 analyze_fmt_bytes(b1, sizeof b1, m->state_bytes[CAPACITY_SYNTH]),
                 analyze_fmt_bytes(b2, sizeof b2, t95 * se[CAPACITY_SYNTH]));
        goto done;
    }
    for (int s = 0; s < CAPACITY_NSTATES; s++)
        if (m->state_bytes[s] < 0) {
            if (!m->warning[0])
                snprintf(m->warning, sizeof m->warning, "the fit gives %s partitions %s each (+- %s): taken as 0",
                         capacity_state_name((enum capacity_state)s), analyze_fmt_bytes(b1, sizeof b1, m->state_bytes[s]),
                         analyze_fmt_bytes(b2, sizeof b2, t95 * se[s]));
            m->state_bytes[s] = 0;
        }
    /* the sum over states at the run's own occupancy, and its interval,
     * which capacity_predict scales with the partitions */
    capacity_point_t p;
    capacity_predict(&p, m, m->pw);
    double var = 0;
    for (int s = 0; s < CAPACITY_NSTATES; s++)
        var += (p.n[s] * se[s]) * (p.n[s] * se[s]);
    m->tracked_run = p.peak - m->baseline;
    /* the fit's interval and the spread of the samples each peak is read from */
    m->untracked_sd = sqrt(0.25 * t95 * t95 * var + pooled);
    m->retention.partition_bytes = m->state_bytes[CAPACITY_SYNTH];
    if (!(m->tracked_run > 0)) {
        snprintf(m->why, sizeof m->why, "the partitions hold no bytes at the run's occupancy: nothing to scale");
        goto done;
    }
    double load = m->load_peak;
    m->load_peak = 0; /* the work's own peak, to check the model with */
    capacity_predict(&p, m, m->pw);
    m->load_peak = load;
    m->model_peak_at_run = p.peak;
    double added = p.peak - m->baseline, half = p.high - p.peak;
    if (half > WEAK_SHARE * added) {
        snprintf(m->why, sizeof m->why, "the model is too uncertain: at pw %d it adds %s over the baseline +- %s "
                 "(more samples in each state, a finer --sample-ms, decide it)",
                 m->pw, analyze_fmt_bytes(b1, sizeof b1, added), analyze_fmt_bytes(b2, sizeof b2, half));
        goto done;
    }
    m->ok = true;
    double miss = m->measured_peak > m->baseline ? (p.peak - m->measured_peak) / (m->measured_peak - m->baseline) : 0;
    if (fabs(miss) > MISS_SHARE && !m->warning[0])
        snprintf(m->warning, sizeof m->warning,
                 "at the run's own pw %d the model gives %s, the run peaked at %s (%+.0f%% of the working set): "
                 "RSS between the marks varies beyond the states",
                 m->pw, analyze_fmt_bytes(b1, sizeof b1, p.peak), analyze_fmt_bytes(b2, sizeof b2, m->measured_peak),
                 100 * miss);
done:
    free(v);
    free(g);
    free(X);
    free(y);
    return rc;
}
