/*
 * The capacity model of a batch run (DESIGN.md, "Capacity"; the method is
 * in docs/diagnosis.md, "Capacity and other pw values"):
 *
 *   peak(pw) = B + (1 + k) * sum over states s of N_s(pw) * F_s + R(pw)
 *
 * B is the baseline RSS. F_s, the bytes one partition holds in state s
 * (synthesizing, waiting, proving, finishing), comes exactly from the
 * tracked buffers tagged with that partition (buffers.csv) over the
 * partition's stage intervals (stages.csv): the largest over partitions.
 * N_s(pw) is the occupancy at the peak that the pipeline's bounds allow: pw
 * synthesis slots, the prover queue's depth, the prover workers, the
 * most partitions finishing at once, and no more partitions than the proofs in
 * flight hold. RSS beyond the tracked partition bytes, the residual RSS - B
 * - (partition bytes live) over the samples where the partitions hold the
 * most (their 90th percentile, with its spread as the interval), is split
 * in two: R, the freed pages jemalloc keeps (je_dirty + je_muzzy), which
 * follows the arenas synthesis workers free into (capacity_retention.h),
 * and the rest (allocator overhead, untracked scratch), k as a share of
 * the partition bytes, which scales with them.
 *
 * Functions return 0 or a negative errno and never print; a model that
 * cannot give numbers says why in `why`.
 */
#ifndef ZKB_CAPACITY_H
#define ZKB_CAPACITY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "harness/diagnose/capacity_retention.h"
#include "harness/run/run_csv.h"

/* States that hold memory, in pipeline order. */
enum capacity_state {
    CAPACITY_SYNTH,  /* n_synth: witness and a, b, c being made */
    CAPACITY_HELD,   /* n_blocked + q_gpu: synthesized, waiting for a prover */
    CAPACITY_PROVE,  /* n_gpu: prove_start */
    CAPACITY_FINISH, /* n_finish: the pending b_g2 copy until finish */
    CAPACITY_NSTATES
};

/* "synthesizing", "waiting", "proving", "finishing". */
const char *capacity_state_name(enum capacity_state s);

typedef struct {
    /* pipeline bounds, from run.json's config */
    int pw, gpu_queue, gpu_workers, concurrency, partitions;
    int finishing;                         /* most partitions finishing at once (stage rows, samples) */
    /* exact per-partition bytes by state (tracked, host) */
    double state_bytes[CAPACITY_NSTATES];
    size_t partitions_measured;
    /* the untracked remainder near the peak */
    double baseline;                       /* B: baseline RSS */
    double untracked, untracked_sd;        /* residual at the run's peak, and its spread */
    double untracked_share;                /* untracked / partition bytes at the run's pw */
    double rest, rest_share;               /* the residual less the retention near the peak; k = its share */
    capacity_retention_t retention;        /* R: freed pages the allocator keeps */
    double tracked_peak;                   /* largest partition bytes live at once in the run */
    double tracked_run;                    /* sum N_s(pw) F_s at the run's own pw */
    size_t fit_samples;                    /* samples near the peak the residual comes from */
    /* the run itself: the peak while partitions were in the pipeline, the
     * high-water mark before the first one (loading the parameters), and
     * the model's own prediction at its pw */
    double measured_peak, load_peak, model_peak_at_run;
    bool ok;                               /* numbers can be given */
    char why[320];                         /* when !ok: what is missing or weak */
    char warning[320];                     /* when ok: a caveat worth printing ("" if none) */
} capacity_model_t;

/* Fits the model from a run's files. samples, buffers and stages as loaded
 * by analyze; config is run.json's "config", allocator its "allocator"
 * (NULL: unknown settings, retention unbounded by them); baseline_rss as
 * analyze found it. Returns 0 (m->ok tells whether numbers can be given)
 * or -ENOMEM. */
int capacity_fit(capacity_model_t *m, const run_csv_t *samples, const run_csv_t *buffers, const run_csv_t *stages,
                 const json_t *config, const json_t *allocator, double baseline_rss);

typedef struct {
    int pw;
    int n[CAPACITY_NSTATES];   /* occupancy at the peak */
    double peak, low, high;    /* predicted peak RSS and its 95% interval */
    double retention;          /* R(pw), in peak */
    bool bound;                /* pw no longer adds memory: in-flight proofs hold the rest back */
    bool load;                 /* the load peak (before any partition) is the peak at this pw */
} capacity_point_t;

/* The predicted peak at pw (m->ok required): the model, or the load peak
 * when that is higher (it does not depend on pw). */
void capacity_predict(capacity_point_t *out, const capacity_model_t *m, int pw);

/* The largest pw in 1..pw_max whose predicted peak stays within limit; 0
 * when not even pw 1 fits. When occupancy saturates first (more pw adds no
 * memory), the last pw that still added memory: capacity_predict(result +
 * 1).bound tells that case apart. */
int capacity_max_pw(const capacity_model_t *m, double limit, int pw_max);

/* Smallest pw from which more synthesis workers add no memory, or 0 when
 * every pw up to pw_max adds memory. */
int capacity_saturation_pw(const capacity_model_t *m, int pw_max);

/* A sentence that says what bounds occupancy as pw grows, e.g. "pw above 6
 * adds no memory: at most 2 proofs x 4 partitions are in flight, and the
 * prover queue (depth 1), 1 prover worker and 0 finishing hold the rest":
 * the occupancy the model gives at that pw. */
void capacity_bound_text(char *out, size_t cap, const capacity_model_t *m, int pw_max);
/* What the model says about other pw values, in one clause: the bytes a
 * partition holds per state, the untracked share (or, when RSS stayed below
 * the baseline plus the partitions, the baseline memory the run reused),
 * the bound, and largest_pw when >= 0; or why no number can be given. */
void capacity_fits_text(char *out, size_t cap, const capacity_model_t *m, int largest_pw);

/* What-if: the bytes a partition holds per state (as capacity_fit measures
 * them for m) had every buffer of kind `kind` been freed at its last use
 * (buffers.csv t_last_use_ms; one without stays as it was). 0 or -ENOMEM. */
int capacity_state_bytes_freed_at_last_use(double out[CAPACITY_NSTATES], const capacity_model_t *m,
                                            const run_csv_t *buffers, const run_csv_t *stages, const char *kind);

/* The model as JSON: state bytes, the fit, predicted[] for pw 1..pw_max
 * (extended past the saturation pw and the largest that fits, up to 64),
 * max_pw for limit (NAN: no limit) and bound_by. New reference. */
json_t *capacity_json(const capacity_model_t *m, int pw_max, double limit);

#endif
