/*
 * The verdict engine: analyze_compute picks the rules of the run's kind
 * (a batch: analyze_rules.c; a watch: analyze_watch.c), and the run's
 * status and the verdict's words (analyze_verdict_words) that every
 * command prints from it. The top of harness/diagnose/ below the text.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_rules.h"
#include "harness/diagnose/analyze_run.h"
#include "harness/diagnose/analyze_watch.h"
#include "harness/diagnose/analyze_whatif.h"
#include "harness/run/proc_stat.h"
#include "harness/diagnose/capacity.h"

/* What each verdict means, in the words of the question it answers. */
static const char *verdict_gloss(analyze_verdict_t v)
{
    switch (v) {
    case ANALYZE_LEAK: return "memory grows with every proof";
    case ANALYZE_QUEUE_PILEUP: return "synthesized partitions pile up beyond the pipeline's bounds";
    case ANALYZE_HELD_TOO_LONG: return "buffers stay allocated long after their last use";
    case ANALYZE_RETENTION: return "freed memory stays with the allocator after the work";
    case ANALYZE_CAPACITY: return "no leak: the work needs more memory than the limit leaves";
    case ANALYZE_INCONCLUSIVE: return "the data cannot decide";
    case ANALYZE_HEALTHY: break;
    }
    return "no leak, retention, queue pile-up or long holds";
}

/* Whether the process that wrote run.json ("writer") still runs: 1 yes,
 * 0 no (gone, its pid reused, or an earlier boot's), -1 not recorded. */
static int writer_alive(const json_t *w)
{
    const json_t *jp = json_object_get(w, "pid"), *jt = json_object_get(w, "start_ticks");
    const char *boot = json_string_value(json_object_get(w, "boot_id"));
    if (!json_is_integer(jp) || json_integer_value(jp) <= 0)
        return -1;
    char now[64];
    proc_stat_boot_id(now, sizeof now);
    if (boot && boot[0] && now[0] && strcmp(boot, now) != 0)
        return 0;
    unsigned long long st = proc_stat_start_ticks((pid_t)(long)json_integer_value(jp));
    if (st == 0)
        return 0;
    return !json_is_integer(jt) || json_integer_value(jt) == 0 || (unsigned long long)json_integer_value(jt) == st;
}

/* The run's status in one line, and what it does to the verdict: a run
 * that did not complete never reads "healthy" (issue 26): the rules saw
 * part of a run, and its end is what would have shown the rest. */
static void engine_status(analyze_result_t *R, const analyze_run_t *run)
{
    const json_t *rj = run->run_json;
    const char *status = json_string_value(json_object_get(rj, "status")),
               *outcome = json_string_value(json_object_get(rj, "outcome"));
    const run_csv_t *sc = &run->samples;
    int ct = run_csv_col(sc, "t_ms");
    double t_end = sc->nrows && ct >= 0 ? run_csv_num(sc, sc->nrows - 1, ct) / 1000.0 : NAN;
    char at[64] = "";
    if (isfinite(t_end))
        snprintf(at, sizeof at, " at %.1f s", t_end);
    bool complete = status && strcmp(status, "complete") == 0 && (!outcome || strcmp(outcome, "complete") == 0);
    if (complete || (!status && !outcome))
        return; /* no status at all: a run of an old zkbench or a synthetic one; nothing to lead with */
    const char *what = status && strcmp(status, "complete") != 0 ? status : outcome;
    bool still = false;
    if (strcmp(what, "running") == 0) {
        int alive = writer_alive(json_object_get(rj, "writer"));
        if (alive == 1) {
            still = R->live = true;
            snprintf(R->status_line, sizeof R->status_line,
                     "still running: its process is alive; what follows covers its first %zu samples (to%s)",
                     sc->nrows, at);
        } else if (alive == 0) {
            R->dead = true;
            snprintf(R->status_line, sizeof R->status_line, "incomplete: the process died%s (no end record) after "
                     "%zu proofs", at, R->proofs_done);
        } else {
            snprintf(R->status_line, sizeof R->status_line, "incomplete: no end record: the process died%s after %zu "
                     "proofs, or is still running (run.json names no process to ask)", at, R->proofs_done);
        }
    } else {
        snprintf(R->status_line, sizeof R->status_line, "incomplete: %s %.40s%s after %zu proofs",
                 what == status ? "status" : "outcome", what, at, R->proofs_done);
    }
    bool user_stop = strcmp(what, "interrupted") == 0;
    if (R->verdict != ANALYZE_HEALTHY || user_stop)
        return; /* a leak, a pile-up or a kill under the cap is seen in what was recorded */
    char old[sizeof R->reason];
    snprintf(old, sizeof old, "%s", R->reason);
    R->verdict = ANALYZE_INCONCLUSIVE;
    snprintf(R->reason, sizeof R->reason, "nothing in the %zu proofs recorded points to a fault, but the run %s, so "
             "what it would have done next is unknown; over what was recorded: %.1100s", R->proofs_done,
             still ? "has not ended" : "did not end", old);
    if (still)
        snprintf(R->decide, sizeof R->decide, "analyze it again once it has ended");
    else
        snprintf(R->decide, sizeof R->decide, "run it again to the end (what killed it is not in its files: dmesg "
                 "and the exit status say)");
    snprintf(R->headline, sizeof R->headline, "inconclusive: the run %s%s", still ? "is still running" : "did not "
             "complete", still ? "" : at);
}

/* The capacity model's answer in one line; the same numbers as analyze's
 * capacity block, so that no command says "any pw fits" where another says
 * "the largest pw that fits is 5". */
static void engine_capacity_line(analyze_result_t *R)
{
    char a[32];
    const json_t *jc = json_object_get(R->json, "capacity");
    const char *bound = json_string_value(json_object_get(jc, "bound_by"));
    const char *from = json_string_value(json_object_get(jc, "ram_from"));
    const char *what = from && strstr(from, "mem") ? "the memory limit" : "RAM";
    if (!R->capacity.ok)
        snprintf(R->capacity_line, sizeof R->capacity_line, "the largest pw that fits cannot be given: %.560s",
                 R->capacity.why);
    else if (!isfinite(R->ram_bytes))
        snprintf(R->capacity_line, sizeof R->capacity_line, "no limit to fit: pass --ram or --mem-limit");
    else if (R->largest_pw >= 0 && bound && strcmp(bound, "in-flight") == 0)
        snprintf(R->capacity_line, sizeof R->capacity_line, "any pw fits %s %s less %.0f%%: pw above %d adds no "
                 "memory (the proofs in flight bound it); this run: pw %d", what,
                 analyze_fmt_bytes(a, sizeof a, R->ram_bytes), 100 * R->margin, R->largest_pw, R->pw);
    else if (R->largest_pw > 0)
        snprintf(R->capacity_line, sizeof R->capacity_line, "the largest pw that fits %s %s less %.0f%% is %d; this "
                 "run: pw %d", what, analyze_fmt_bytes(a, sizeof a, R->ram_bytes), 100 * R->margin, R->largest_pw,
                 R->pw);
    else
        snprintf(R->capacity_line, sizeof R->capacity_line, "no pw fits %s %s less %.0f%% by the model; this run: "
                 "pw %d", what, analyze_fmt_bytes(a, sizeof a, R->ram_bytes), 100 * R->margin, R->pw);
}

int analyze_compute(analyze_result_t *ret, const analyze_run_t *run, const analyze_opts_t *opts, char *err,
                    size_t errlen)
{
    int rc = run->watch && run->samples.nrows > 0 ? analyze_watch_compute(ret, run, opts, err, errlen)
                                                   : analyze_batch_compute(ret, run, opts, err, errlen);
    if (rc < 0)
        return rc;
    analyze_result_t *R = ret;
    engine_status(R, run);
    if (!R->headline[0]) {
        if (R->verdict == ANALYZE_LEAK && R->leak_where[0])
            snprintf(R->headline, sizeof R->headline, "leak: %s (%.200s)", verdict_gloss(R->verdict), R->leak_where);
        else
            snprintf(R->headline, sizeof R->headline, "%s: %s", analyze_verdict_name(R->verdict),
                     verdict_gloss(R->verdict));
    }
    /* a watch run whose program marked its partitions' states has the
     * model too (capacity_marks.h) */
    if (R->watch && json_object_get(json_object_get(R->json, "capacity"), "model"))
        engine_capacity_line(R);
    if (!R->watch) {
        engine_capacity_line(R);
        if ((rc = analyze_whatif(R, run)) < 0) {
            snprintf(err, errlen, "out of memory");
            return rc;
        }
    }
    /* the words into the JSON too, so that a reader of run.json sees them */
    json_object_set_new(R->json, "verdict", json_string(analyze_verdict_name(R->verdict)));
    json_object_set_new(R->json, "headline", json_string(R->headline));
    json_object_set_new(R->json, "reason", json_string(R->reason));
    json_object_set_new(R->json, "status_line", R->status_line[0] ? json_string(R->status_line) : json_null());
    json_object_set_new(R->json, "decide", R->decide[0] ? json_string(R->decide) : json_null());
    json_object_set_new(R->json, "dead", json_boolean(R->dead));
    json_object_set_new(R->json, "live", json_boolean(R->live));
    json_object_set_new(R->json, "sampling_line", R->sampling_line[0] ? json_string(R->sampling_line) : json_null());
    json_object_set_new(R->json, "capacity_line", R->capacity_line[0] ? json_string(R->capacity_line) : json_null());
    json_object_set_new(R->json, "what_if_line", R->whatif_line[0] ? json_string(R->whatif_line) : json_null());
    return 0;
}

size_t analyze_verdict_lines(analyze_line_t lines[ANALYZE_LINES_MAX], const analyze_result_t *r)
{
    size_t n = 0;
    if (r->status_line[0])
        lines[n++] = (analyze_line_t){"status", r->status_line};
    lines[n++] = (analyze_line_t){"verdict", r->headline};
    lines[n++] = (analyze_line_t){"", r->reason};
    if (r->decide[0])
        lines[n++] = (analyze_line_t){"decide", r->decide};
    if (r->sampling_line[0])
        lines[n++] = (analyze_line_t){"sampling", r->sampling_line};
    if (r->capacity_line[0])
        lines[n++] = (analyze_line_t){"capacity", r->capacity_line};
    if (r->whatif_line[0])
        lines[n++] = (analyze_line_t){"what-if", r->whatif_line};
    return n;
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

int analyze_run_open(analyze_run_t **run, analyze_result_t *ret, const char *dir, const analyze_opts_t *opts,
                     char *err, size_t errlen)
{
    int rc = analyze_run_load(run, dir, err, errlen);
    if (rc < 0)
        return rc;
    if ((rc = analyze_compute(ret, *run, opts, err, errlen)) < 0) {
        analyze_run_free(*run);
        *run = NULL;
    }
    return rc;
}
