/*
 * `zkbench check RUN_DIR --baseline FILE`: the CI regression gate. The run
 * is analyzed (analyze.h) and compared with the limits of a baseline file:
 * peak RSS, footprint per partition, leak rate, the verdict, and s/proof as
 * a ratio to a reference run on the same machine (skipped on another).
 * `--write-baseline FILE` makes such a file from a good run (batch or watch).
 * A limit a run cannot be checked for (a footprint on a watch run) is
 * reported as skipped; a baseline none of whose limits could be checked is
 * an error. A run that did not complete (run.json status or outcome other
 * than complete: killed, interrupted, still running) fails the gate, as
 * does a baseline of another circuit or shape; --allow-incomplete checks
 * an incomplete run anyway. Exit 0: within limits; 1: a limit exceeded, an
 * incomplete run or another circuit (report on stdout, one line on
 * stderr); 2: bad arguments, run or baseline file.
 *
 * Baseline file (JSON, format "zkbench-baseline-1"; docs/diagnosis.md):
 *   limits.peak_rss                {value (bytes), tolerance (fraction), slack (bytes)}
 *   limits.footprint_per_partition {value, tolerance, slack}: the limit is
 *                                  value * (1 + tolerance) + slack
 *   limits.leak_bytes_per_proof    {max (bytes)}: the run fails when the
 *                                  lower end of its 95% CI is above max
 *   limits.growth_bytes_per_s      {max (bytes/s)}: a watch run without proof
 *                                  boundaries, like leak_bytes_per_proof
 *   limits.never_freed_bytes       {max (bytes)}: tracked (batch) or traced
 *                                  (watch --trace) bytes never freed
 *   limits.s_per_proof_ratio       {max}: run s/proof / reference s/proof
 *   limits.verdicts                [allowed verdict names]
 *   reference.machine, reference.s_per_proof: where the timing came from
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/diagnose/analyze.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/out_file.h"
#include "harness/run/run_csv.h"

#define BASELINE_FORMAT "zkbench-baseline-1"

/* Default tolerances of --write-baseline. */
#define TOL_PEAK 0.10
#define PEAK_SLACK (4 << 20) /* bytes: RSS noise of small runs */
#define TOL_FOOTPRINT 0.15
#define LEAK_FLOOR (1.0 * MIB)
#define LEAK_SHARE_OF_FOOTPRINT 0.02
#define TIME_RATIO 1.25
#define FOOTPRINT_SLACK (1.0 * MIB) /* plus 4 standard errors of the baseline's fit */
#define NEVER_FREED_SLACK (1.0 * MIB)

enum { OPT_BASELINE = 'b', OPT_WRITE = 'w', OPT_RAM = 'r', OPT_ALLOW_INCOMPLETE = 'I' };

static const cli_opt_t check_opts[] = {
    {"baseline", OPT_BASELINE, "FILE", "the baseline to compare RUN_DIR with"},
    {"write-baseline", OPT_WRITE, "FILE", "make FILE from RUN_DIR (a good, complete run) instead"},
    {"ram", OPT_RAM, "SIZE", "the memory the analysis fits pw into (as analyze --ram)"},
    {"allow-incomplete", OPT_ALLOW_INCOMPLETE, NULL, "check a run that did not complete (killed, interrupted,\n"
                                                     "still running) as far as it goes, instead of failing it"},
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_check = {
    .name = "check",
    .summary = "regression gate of a run against a baseline (CI)",
    .synopsis = "zkbench check RUN_DIR --baseline FILE\n"
                "zkbench check RUN_DIR --write-baseline FILE",
    .about = "Regression gate: analyzes RUN_DIR and compares peak RSS, footprint per\n"
             "partition, leak rate, verdict and s/proof (as a ratio to the reference run,\n"
             "only on the same machine) with the limits in FILE; warns (stderr) when the\n"
             "run's settings (circuit, partitions, pw, count, backend, threads, ...)\n"
             "differ from the baseline's. --write-baseline makes FILE from a good run\n"
             "with default tolerances (peak +10% + 4 MiB, footprint +15% + 4 se + 1 MiB,\n"
             "leak <= max(1 MiB, 2% of the footprint), s/proof x1.25). From a watch run:\n"
             "peak RSS, growth per proof (or per second), never-freed traced bytes and the\n"
             "verdict; limits a run cannot be checked for are skipped. A run that did not\n"
             "complete (run.json status or outcome not complete: killed, interrupted or\n"
             "still running) fails, unless --allow-incomplete; so does a baseline of\n"
             "another circuit or shape (circuit, partitions, constraints, domain).\n"
             "Format: docs/diagnosis.md.\n",
    .opts = check_opts,
    .epilog = "exit: 0 within limits (or baseline written); 1 a limit exceeded, a run that did\n"
              "not complete, or a baseline of another circuit or shape; 2 bad arguments, run\n"
              "or baseline file (or an unwritable --write-baseline FILE).\n",
};

static const char *fb(char *buf, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(buf, 24, "n/a");
    else if (a >= GIB)
        snprintf(buf, 24, "%.3f GiB", v / GIB);
    else if (a >= MIB)
        snprintf(buf, 24, "%.2f MiB", v / MIB);
    else if (a >= 1024)
        snprintf(buf, 24, "%.1f KiB", v / 1024);
    else
        snprintf(buf, 24, "%.0f B", v);
    return buf;
}

static double num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}


/* Writes baseline b (and releases it) into of (begun before the analysis,
 * so an unwritable FILE is refused first): -1 after one line on stderr. */
static int baseline_save(json_t *b, struct out_file *of)
{
    char err[4400];
    int rc = json_dump_file(b, of->tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    int e = errno ? errno : EIO;
    json_decref(b);
    if (rc < 0) {
        out_file_abort(of);
        cli_error(1, "check: cannot write the baseline %s: %s", of->shown, strerror(e));
        return -1;
    }
    if (out_file_commit(of, err, sizeof err) < 0) {
        cli_error(1, "check: %s", err);
        return -1;
    }
    return 0;
}

/* The machine fields that decide whether timings compare. */
static const char *const machine_keys[] = {"cpu", "cores", "gpu", "gpus", NULL};

static json_t *machine_of(const json_t *m)
{
    json_t *o = json_object();
    for (const char *const *k = machine_keys; *k; k++) {
        json_t *v = json_object_get(m, *k);
        if (v)
            json_object_set(o, *k, v);
    }
    return o;
}

static int write_baseline_watch(const char *dir, struct out_file *of, const analyze_result_t *r,
                                const json_t *run_json, bool has_buffers);

/* A figure for a baseline: never negative (a growth fitted below zero is
 * no growth), an integer of bytes, null when not finite. */
static json_t *baseline_bytes(double v)
{
    return isfinite(v) ? json_integer((json_int_t)llround(fmax(v, 0))) : json_null();
}

static int write_baseline(const char *dir, struct out_file *of, const analyze_result_t *r, const json_t *run_json,
                          bool has_buffers)
{
    const char *path = of->shown;
    if (r->verdict != ANALYZE_HEALTHY && r->verdict != ANALYZE_CAPACITY)
        return cli_error(2, "check: %s: the run's verdict is %s (%s); a baseline must come from a healthy run", dir,
                         analyze_verdict_name(r->verdict), r->reason);
    if (r->watch)
        return write_baseline_watch(dir, of, r, run_json, has_buffers);
    if (!isfinite(r->peak_rss) || !isfinite(r->footprint_per_partition))
        return cli_error(2, "check: %s: no footprint per partition could be fitted, so no baseline can be made", dir);
    double leak_max = fmax(LEAK_FLOOR, LEAK_SHARE_OF_FOOTPRINT * r->footprint_per_partition);
    if (isfinite(r->leak_hi))
        leak_max = fmax(leak_max, r->leak_hi);
    time_t now = time(NULL);
    struct tm tm;
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    json_t *b = json_pack("{s:s,s:s,s:s,s:s,s:O?,s:O?,s:O?}", "format", BASELINE_FORMAT, "zkbench_version",
                          ZKB_PROJECT_VERSION, "created", when, "source_run", dir, "commit",
                          json_object_get(json_object_get(run_json, "versions"), "commit"), "config",
                          json_object_get(run_json, "config"), "circuit_shape",
                          json_object_get(run_json, "circuit_shape"));
    json_t *ref = json_object();
    json_object_set_new(ref, "machine", machine_of(json_object_get(run_json, "machine")));
    json_object_set_new(ref, "s_per_proof", isfinite(r->s_per_proof) ? json_real(fmax(r->s_per_proof, 0)) : json_null());
    json_object_set_new(ref, "peak_rss", baseline_bytes(r->peak_rss));
    json_object_set_new(ref, "footprint_per_partition", baseline_bytes(r->footprint_per_partition));
    json_object_set_new(ref, "leak_bytes_per_proof", baseline_bytes(r->leak_rate));
    json_object_set_new(ref, "verdict", json_string(analyze_verdict_name(r->verdict)));
    json_object_set_new(b, "reference", ref);
    json_t *lim = json_object();
    json_object_set_new(lim, "peak_rss", json_pack("{s:I,s:f,s:I}", "value", (json_int_t)llround(r->peak_rss),
                                                   "tolerance", TOL_PEAK, "slack", (json_int_t)PEAK_SLACK));
    /* a footprint lost in the noise (small circuits) gets the fit's
     * uncertainty as slack, so that another run of the same build passes */
    double fp = fmax(r->footprint_per_partition, 0);
    double slack = FOOTPRINT_SLACK + (isfinite(r->footprint_se) ? 4 * r->footprint_se : 0);
    json_object_set_new(lim, "footprint_per_partition",
                        json_pack("{s:I,s:f,s:I}", "value", (json_int_t)llround(fp), "tolerance", TOL_FOOTPRINT,
                                  "slack", (json_int_t)llround(slack)));
    json_object_set_new(lim, "leak_bytes_per_proof", json_pack("{s:I}", "max", (json_int_t)llround(leak_max)));
    json_object_set_new(lim, "s_per_proof_ratio", json_pack("{s:f}", "max", TIME_RATIO));
    json_object_set_new(lim, "verdicts", json_pack("[ss]", "healthy", "capacity"));
    json_object_set_new(b, "limits", lim);
    if (baseline_save(b, of) < 0)
        return 1;
    char a[24], c[24], d[24], e[24];
    printf("baseline %s written from %s: peak RSS %s (+%.0f%%), footprint per partition %s (+%.0f%%), leak <= %s "
           "per proof, s/proof %s x%.2f\n",
           path, dir, fb(a, r->peak_rss), 100 * TOL_PEAK, fb(c, fp), 100 * TOL_FOOTPRINT,
           fb(d, leak_max), isfinite(r->s_per_proof) ? (snprintf(e, sizeof e, "%.3f", r->s_per_proof), e) : "n/a",
           TIME_RATIO);
    return 0;
}

/* A baseline from a watch run: the limits a foreign process can be held
 * to (peak RSS, growth per proof or per second, never-freed traced bytes,
 * the verdict, s/proof between marks); no footprint per partition. */
static int write_baseline_watch(const char *dir, struct out_file *of, const analyze_result_t *r,
                                const json_t *run_json, bool has_buffers)
{
    const char *path = of->shown;
    if (!isfinite(r->peak_rss))
        return cli_error(2, "check: %s: no peak RSS, so no baseline can be made", dir);
    time_t now = time(NULL);
    struct tm tm;
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    json_t *b = json_pack("{s:s,s:s,s:s,s:s,s:s,s:O?}", "format", BASELINE_FORMAT, "zkbench_version",
                          ZKB_PROJECT_VERSION, "created", when, "source_run", dir, "run_kind", "watch", "config", json_object_get(run_json, "config"));
    double growth_max = fmax(LEAK_FLOOR, isfinite(r->leak_hi) ? r->leak_hi : 0);
    json_t *ref = json_object();
    json_object_set_new(ref, "machine", machine_of(json_object_get(run_json, "machine")));
    json_object_set_new(ref, "s_per_proof", isfinite(r->s_per_proof) ? json_real(fmax(r->s_per_proof, 0)) : json_null());
    json_object_set_new(ref, "peak_rss", baseline_bytes(r->peak_rss));
    json_object_set_new(ref, r->per_proof ? "leak_bytes_per_proof" : "growth_bytes_per_s", baseline_bytes(r->leak_rate));
    json_object_set_new(ref, "verdict", json_string(analyze_verdict_name(r->verdict)));
    json_object_set_new(b, "reference", ref);
    json_t *lim = json_object();
    json_object_set_new(lim, "peak_rss", json_pack("{s:I,s:f,s:I}", "value", (json_int_t)llround(r->peak_rss),
                                                   "tolerance", TOL_PEAK, "slack", (json_int_t)PEAK_SLACK));
    json_object_set_new(lim, r->per_proof ? "leak_bytes_per_proof" : "growth_bytes_per_s",
                        json_pack("{s:I}", "max", (json_int_t)llround(growth_max)));
    double nf_max = 0;
    if (has_buffers) {
        nf_max = fmax(r->never_freed_bytes, 0) * (1 + TOL_PEAK) + NEVER_FREED_SLACK;
        json_object_set_new(lim, "never_freed_bytes", json_pack("{s:I}", "max", (json_int_t)llround(nf_max)));
    }
    if (r->per_proof && isfinite(r->s_per_proof))
        json_object_set_new(lim, "s_per_proof_ratio", json_pack("{s:f}", "max", TIME_RATIO));
    json_object_set_new(lim, "verdicts", json_pack("[ss]", "healthy", "capacity"));
    json_object_set_new(b, "limits", lim);
    if (baseline_save(b, of) < 0)
        return 1;
    char a[24], c[24], d[24];
    printf("baseline %s written from the watch run %s: peak RSS %s (+%.0f%%), growth <= %s per %s%s%s\n", path, dir,
           fb(a, r->peak_rss), 100 * TOL_PEAK, fb(c, growth_max), r->per_proof ? "proof" : "second",
           has_buffers ? ", never freed <= " : "", has_buffers ? fb(d, nf_max) : "");
    return 0;
}

/* The settings of run.json's config that change what a run measures. The
 * circuit is compared as resolved ("2^14" and "16384" are one circuit). */
static const char *const setting_keys[] = {"circuit", "partitions", "pw", "concurrency", "count", "backend",
                                           "threads", "gpu_workers", "gpu_queue", "finish_workers", "split",
                                           "dealloc", "trim", "inject", "params_load", "mem_limit", "mode",
                                           "command", NULL};

/* One line on stderr naming every setting that run and baseline both
 * record with different values: their limits may not apply to each other. */
static void warn_settings(const char *dir, const char *path, const json_t *run_cfg, const json_t *base_cfg)
{
    if (!json_is_object(run_cfg) || !json_is_object(base_cfg))
        return;
    char line[2048] = "";
    size_t len = 0;
    for (const char *const *k = setting_keys; *k; k++) {
        const char *key = *k;
        if (strcmp(key, "circuit") == 0 && json_object_get(run_cfg, "circuit_resolved") &&
            json_object_get(base_cfg, "circuit_resolved"))
            key = "circuit_resolved";
        const json_t *rv = json_object_get(run_cfg, key), *bv = json_object_get(base_cfg, key);
        if (!rv || !bv || json_equal((json_t *)rv, (json_t *)bv))
            continue;
        char *rs = json_dumps(rv, JSON_ENCODE_ANY | JSON_COMPACT), *bs = json_dumps(bv, JSON_ENCODE_ANY | JSON_COMPACT);
        if (len < sizeof line)
            len += (size_t)snprintf(line + len, sizeof line - len, "%s%s %s (baseline %s)", len ? ", " : "", *k,
                                    rs ? rs : "?", bs ? bs : "?");
        free(rs);
        free(bs);
    }
    if (len)
        cli_warn("check: %s and the baseline %s differ in settings: %s; the limits may not apply", dir, path, line);
}

/* A JSON value as compact text (the caller frees). */
static char *json_text(const json_t *v)
{
    return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* One difference "KEY RUN (baseline BASE)" into out; false when equal. */
static bool differs(char *out, size_t cap, const char *key, const json_t *rv, const json_t *bv)
{
    if (!rv || !bv || json_equal((json_t *)rv, (json_t *)bv))
        return false;
    char *rs = json_text(rv), *bs = json_text(bv);
    snprintf(out, cap, "%s %s (baseline %s)", key, rs ? rs : "?", bs ? bs : "?");
    free(rs);
    free(bs);
    return true;
}

/*
 * Whether baseline b was made from a run of another circuit or shape than
 * run_json's, whose limits cannot apply (a 2^10 run against a 2^12
 * baseline): a watch baseline for a batch run or the reverse, other
 * partitions per proof, another circuit_shape (constraints, inputs,
 * variables, domain, densities) when both record one, else another
 * circuit (as resolved when both record that). The first difference goes
 * to out. What neither records is not compared.
 */
static bool baseline_of_other_circuit(char *out, size_t cap, const json_t *run_json, bool run_watch, const json_t *b)
{
    /* a baseline says what it came from by run_kind (watch) or a batch's
     * config (pw); a hand-made one that says neither is not compared */
    const char *bkind = json_string_value(json_object_get(b, "run_kind"));
    bool b_watch = bkind && strcmp(bkind, "watch") == 0,
         b_batch = !bkind && json_object_get(json_object_get(b, "config"), "pw");
    if ((b_watch && !run_watch) || (b_batch && run_watch)) {
        snprintf(out, cap, "the baseline is of a %s run, this is a %s run", b_watch ? "watch" : "batch",
                 run_watch ? "watch" : "batch");
        return true;
    }
    if (run_watch)
        return false; /* a watched command: settings are warned about, not refused */
    const json_t *rc = json_object_get(run_json, "config"), *bc = json_object_get(b, "config");
    if (differs(out, cap, "partitions", json_object_get(rc, "partitions"), json_object_get(bc, "partitions")))
        return true;
    const json_t *rs = json_object_get(run_json, "circuit_shape"), *bs = json_object_get(b, "circuit_shape");
    if (json_is_object(rs) && json_is_object(bs)) {
        static const char *const keys[] = {"constraints", "inputs", "variables", "domain", "a_density", "b_density",
                                           NULL};
        for (const char *const *k = keys; *k; k++)
            if (differs(out, cap, *k, json_object_get(rs, *k), json_object_get(bs, *k)))
                return true;
        return false;
    }
    const char *key = json_object_get(rc, "circuit_resolved") && json_object_get(bc, "circuit_resolved")
                          ? "circuit_resolved"
                          : "circuit";
    return differs(out, cap, "circuit", json_object_get(rc, key), json_object_get(bc, key));
}

/* The last sample's t_ms in DIR/samples.csv (its last whole line), NAN
 * when there is none: how far a run that did not finish got. Reads only
 * the file's end. */
static double last_sample_ms(const char *dir)
{
    char path[4200], buf[8192];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NAN;
    double t = NAN;
    if (fseeko(f, 0, SEEK_END) == 0) {
        off_t size = ftello(f), from = size > (off_t)sizeof buf - 1 ? size - (off_t)sizeof buf + 1 : 0;
        size_t n = fseeko(f, from, SEEK_SET) == 0 ? fread(buf, 1, sizeof buf - 1, f) : 0;
        buf[n] = 0;
        /* the last line that ends with a newline and starts with a number */
        char *end = n ? strrchr(buf, '\n') : NULL;
        while (end && end > buf) {
            *end = 0;
            char *start = strrchr(buf, '\n');
            start = start ? start + 1 : (from == 0 ? buf : NULL);
            if (!start)
                break;
            char *stop;
            double v = strtod(start, &stop);
            if (stop != start && *stop == ',' && isfinite(v)) {
                t = v;
                break;
            }
            end = start > buf ? start - 1 : NULL;
        }
    }
    fclose(f);
    return t;
}

/*
 * Why DIR's run did not complete, into out (false when it did): run.json's
 * status, or its outcome (a watch records how the command ended there),
 * is anything but "complete": "running" (killed, or still going: no end
 * record), "interrupted", "failed", "killed", "oom-killed"; or neither is
 * recorded.
 */
static bool run_incomplete(char *out, size_t cap, const char *dir, const json_t *rj)
{
    const char *status = json_string_value(json_object_get(rj, "status")),
               *outcome = json_string_value(json_object_get(rj, "outcome"));
    if (status && strcmp(status, "complete") == 0 && (!outcome || strcmp(outcome, "complete") == 0))
        return false;
    if (!status && !outcome) {
        snprintf(out, cap, "run.json records no status, so it cannot say the run completed");
        return true;
    }
    const char *what = status && strcmp(status, "complete") != 0 ? status : outcome;
    bool is_status = what == status;
    double t = last_sample_ms(dir);
    char at[64] = "";
    if (isfinite(t))
        snprintf(at, sizeof at, "; its last sample at %.1f s", t / 1e3);
    if (strcmp(what, "running") == 0)
        snprintf(out, cap, "%s running: no end record, so the process died (or is still running)%s",
                 is_status ? "status" : "outcome", at);
    else
        snprintf(out, cap, "%s %.40s%s", is_status ? "status" : "outcome", what, at);
    return true;
}

/* Reads a limit {value, tolerance, slack (optional, bytes)}: the limit is
 * value * (1 + tolerance) + slack. False when absent or malformed. */
static bool limit_pair(const json_t *lim, const char *key, double *value, double *tol, double *slack)
{
    const json_t *o = json_object_get(lim, key);
    if (!o)
        return false;
    *value = num(o, "value");
    *tol = num(o, "tolerance");
    *slack = json_object_get(o, "slack") ? num(o, "slack") : 0;
    return isfinite(*value) && *value >= 0 && isfinite(*tol) && *tol >= 0 && isfinite(*slack) && *slack >= 0;
}

static int check(const char *dir, const char *path, const analyze_result_t *r, const json_t *run_json,
                 bool has_buffers)
{
    json_error_t je;
    json_t *b = json_load_file(path, 0, &je);
    if (!b) {
        if (access(path, F_OK) < 0)
            return cli_error(2, "check: cannot read the baseline %s: %s", path, strerror(errno));
        return cli_error(2, "check: %s:%d: %s, expected a baseline JSON object", path, je.line, je.text);
    }
    const char *fmt = json_string_value(json_object_get(b, "format"));
    const json_t *lim = json_object_get(b, "limits"), *ref = json_object_get(b, "reference");
    if (!fmt || strcmp(fmt, BASELINE_FORMAT) != 0 || !json_is_object(lim)) {
        json_decref(b);
        return cli_error(2, "check: %s: not a zkbench baseline (expected \"format\": \"%s\" and a \"limits\" object)",
                         path, BASELINE_FORMAT);
    }
    /* A baseline that checks nothing would turn the gate off silently. */
    static const char *const known[] = {"peak_rss", "footprint_per_partition", "leak_bytes_per_proof",
                                        "growth_bytes_per_s", "never_freed_bytes", "s_per_proof_ratio", "verdicts",
                                        NULL};
    if (json_object_size(lim) == 0) {
        json_decref(b);
        return cli_error(2, "check: %s: \"limits\" is empty, expected at least one of peak_rss, "
                         "footprint_per_partition, leak_bytes_per_proof, growth_bytes_per_s, never_freed_bytes, "
                         "s_per_proof_ratio, verdicts", path);
    }
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)lim, key, val) {
        const char *const *k = known;
        while (*k && strcmp(*k, key) != 0)
            k++;
        if (!*k) {
            int rc = cli_error(2, "check: %s: unknown limit '%s', expected one of peak_rss, footprint_per_partition, "
                               "leak_bytes_per_proof, growth_bytes_per_s, never_freed_bytes, s_per_proof_ratio, "
                               "verdicts", path, key);
            json_decref(b);
            return rc;
        }
    }
    double pv, pt, ps, fv, ft, fs;
    bool has_peak = limit_pair(lim, "peak_rss", &pv, &pt, &ps),
         has_fp = limit_pair(lim, "footprint_per_partition", &fv, &ft, &fs);
    const json_t *jl = json_object_get(lim, "leak_bytes_per_proof"), *jt = json_object_get(lim, "s_per_proof_ratio"),
                 *jv = json_object_get(lim, "verdicts"), *jgs = json_object_get(lim, "growth_bytes_per_s"),
                 *jnf = json_object_get(lim, "never_freed_bytes");
    double leak_max = num(jl, "max"), tmax = num(jt, "max"), gs_max = num(jgs, "max"), nf_max = num(jnf, "max");
    if ((json_object_get(lim, "peak_rss") && !has_peak) || (json_object_get(lim, "footprint_per_partition") && !has_fp) ||
        (jl && !(isfinite(leak_max) && leak_max >= 0)) || (jt && !(isfinite(tmax) && tmax > 0)) ||
        (jv && !json_is_array(jv)) || (jgs && !(isfinite(gs_max) && gs_max >= 0)) ||
        (jnf && !(isfinite(nf_max) && nf_max >= 0))) {
        json_decref(b);
        return cli_error(2, "check: %s: a limit is malformed (expected {\"value\": bytes, \"tolerance\": fraction}, "
                         "{\"max\": number} or a list of verdicts, none of them negative)", path);
    }
    char a[24], c[24], d[24], e[24], f_[24];
    int failed = 0, checked = 0, skipped = 0;
    char names[256] = "";
#define RESULT(ok, name, ...)                                                                                          \
    do {                                                                                                               \
        checked++;                                                                                                     \
        if (!(ok)) {                                                                                                   \
            failed++;                                                                                                  \
            size_t nl_ = strlen(names);                                                                                \
            snprintf(names + nl_, sizeof names - nl_, "%s%s", nl_ ? ", " : "", name);                                  \
        }                                                                                                              \
        printf("  %-4s %-24s ", (ok) ? "ok" : "FAIL", name);                                                           \
        printf(__VA_ARGS__);                                                                                           \
        putchar('\n');                                                                                                 \
    } while (0)
#define SKIP(name, ...)                                                                                                \
    do {                                                                                                               \
        skipped++;                                                                                                     \
        printf("  %-4s %-24s cannot be checked on this run: ", "skip", name);                                          \
        printf(__VA_ARGS__);                                                                                           \
        putchar('\n');                                                                                                 \
    } while (0)
    const char *bver = json_string_value(json_object_get(b, "zkbench_version"));
    /* baselines of every 0.x version share the format: an older one (0.1.0,
     * or none recorded) is read the same way */
    printf("check %s against %s (written by zkbench %s)\n", dir, path, bver ? bver : "0.1.0 or older");
    warn_settings(dir, path, json_object_get(run_json, "config"), json_object_get(b, "config"));
    char other[1024];
    if (baseline_of_other_circuit(other, sizeof other, run_json, r->watch, b)) {
        json_decref(b);
        return cli_error(1, "check: the baseline %s is of another circuit or shape than %s: %s; its limits do not "
                         "apply (make one from a run of this circuit with --write-baseline)", path, dir, other);
    }
    if (has_peak) {
        double lim_v = pv * (1 + pt) + ps;
        RESULT(r->peak_rss <= lim_v, "peak RSS", "%s, limit %s (baseline %s + %.0f%%%s%s)", fb(a, r->peak_rss),
               fb(c, lim_v), fb(d, pv), 100 * pt, ps > 0 ? " + " : "", ps > 0 ? fb(e, ps) : "");
    }
    if (has_fp && r->watch) {
        SKIP("footprint per partition", "a watch run has no pipeline to fit per-partition footprints");
    } else if (has_fp) {
        double lim_v = fv * (1 + ft) + fs;
        bool ok = isfinite(r->footprint_per_partition) && r->footprint_per_partition <= lim_v;
        /* one buffer per value: a reused one printed the last value twice */
        RESULT(ok, "footprint per partition", "%s +- %s, limit %s (baseline %s + %.0f%% + %s slack)%s",
               fb(a, r->footprint_per_partition), fb(d, r->footprint_se), fb(c, lim_v), fb(e, fv), 100 * ft,
               fb(f_, fs), isfinite(r->footprint_per_partition) ? "" : "; not fitted in this run");
    }
    if (jl && r->watch && !r->per_proof) {
        SKIP("leak per proof", "no proof boundaries (marks.csv, proofs_done): growth is per second here");
    } else if (jl) {
        bool ok = !(isfinite(r->leak_lo) && r->leak_lo > leak_max) && r->verdict != ANALYZE_LEAK;
        RESULT(ok, "leak per proof", "%s (95%% CI %s .. %s), limit %s%s", fb(a, r->leak_rate), fb(c, r->leak_lo),
               fb(d, r->leak_hi), fb(e, leak_max), r->verdict == ANALYZE_LEAK ? "; analyze finds a leak" : "");
    }
    if (jgs && !(r->watch && !r->per_proof)) {
        SKIP("growth per second", "%s", r->watch ? "growth is per proof in this run (it has proof boundaries)"
                                                 : "a batch run's growth is per proof");
    } else if (jgs) {
        bool ok = !(isfinite(r->leak_lo) && r->leak_lo > gs_max) && r->verdict != ANALYZE_LEAK;
        RESULT(ok, "growth per second", "%s (95%% CI %s .. %s), limit %s%s", fb(a, r->leak_rate), fb(c, r->leak_lo),
               fb(d, r->leak_hi), fb(e, gs_max), r->verdict == ANALYZE_LEAK ? "; analyze finds a leak" : "");
    }
    if (jnf && !has_buffers) {
        SKIP("never freed", "no buffers.csv (record one with watch --trace)");
    } else if (jnf) {
        RESULT(r->never_freed_bytes <= nf_max, "never freed", "%s, limit %s", fb(a, r->never_freed_bytes),
               fb(c, nf_max));
    }
    if (jv) {
        bool ok = false;
        size_t i;
        json_t *v;
        json_array_foreach(jv, i, v) {
            if (json_is_string(v) && strcmp(json_string_value(v), analyze_verdict_name(r->verdict)) == 0)
                ok = true;
        }
        RESULT(ok, "verdict", "%s%s%s", analyze_verdict_name(r->verdict), ok ? "" : ": ", ok ? "" : r->reason);
    }
    if (jt) {
        json_t *m_run = machine_of(json_object_get(run_json, "machine"));
        const json_t *m_ref = json_object_get(ref, "machine");
        double s_ref = num(ref, "s_per_proof");
        if (json_object_size(m_run) == 0) {
            printf("  %-4s %-24s skipped: the run records no machine\n", "skip", "s/proof");
        } else if (!json_is_object(m_ref) || !json_equal(m_run, (json_t *)m_ref)) {
            char *s1 = json_dumps(m_ref, JSON_COMPACT), *s2 = json_dumps(m_run, JSON_COMPACT);
            printf("  %-4s %-24s skipped: the machine differs (baseline %s, this run %s)\n", "skip", "s/proof",
                   s1 ? s1 : "none", s2 ? s2 : "none");
            free(s1);
            free(s2);
        } else if (!isfinite(s_ref) || !isfinite(r->s_per_proof) || s_ref <= 0) {
            printf("  %-4s %-24s skipped: no s/proof in the %s\n", "skip", "s/proof",
                   isfinite(r->s_per_proof) ? "baseline" : "run");
        } else {
            double ratio = r->s_per_proof / s_ref;
            RESULT(ratio <= tmax, "s/proof", "%.3f s = %.2f x the reference %.3f s, limit x%.2f", r->s_per_proof, ratio,
                   s_ref, tmax);
        }
        json_decref(m_run);
    }
#undef RESULT
#undef SKIP
    json_decref(b);
    if (checked == 0) /* a gate that checked nothing is no gate */
        return cli_error(2, "check: %s: none of its limits could be checked on %s (%d skipped)", path, dir,
                         skipped);
    if (failed) {
        printf("FAIL  %d of %d limits exceeded\n", failed, checked);
        return cli_error(1, "check: %s exceeds the baseline %s: %s", dir, path, names);
    }
    printf("pass  %d limits checked\n", checked);
    return 0;
}

int cmd_check(int argc, char **argv)
{
    const char *base = NULL, *write = NULL;
    bool allow_incomplete = false;
    analyze_opts_t o = {.ram_bytes = 0, .margin = -1}; /* the default: analyze_margin */
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_check, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        switch (c) {
        case OPT_BASELINE: base = a.val; break;
        case OPT_WRITE: write = a.val; break;
        case OPT_ALLOW_INCOMPLETE: allow_incomplete = true; break;
        case OPT_RAM:
            if (!analyze_parse_size(&o.ram_bytes, a.val))
                return cli_error(2, "check: --ram must be a size like 755GiB, 128G or 64000000000, got '%s'", a.val);
            break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 1, 1, "RUN_DIR"))
        return 2;
    if (!base == !write)
        return cli_error(2, "check: give exactly one of --baseline FILE and --write-baseline FILE");
    const char *dir = argv[a.ind];
    char err[4400];
    /* the baseline's file first: an unwritable one is refused before any work */
    struct out_file of = {0};
    if (write && out_file_begin(&of, write, err, sizeof err) < 0)
        return cli_error(2, "check: --write-baseline: %s", err);
    /* a run that did not complete fails the gate before its numbers are read:
     * what it left may be too little to analyze, and never passes */
    char why[600], rjpath[4200];
    snprintf(rjpath, sizeof rjpath, "%s/run.json", dir);
    json_t *rj = json_load_file(rjpath, 0, NULL); /* unreadable: the analysis says why */
    if (json_is_object(rj) && run_incomplete(why, sizeof why, dir, rj)) {
        json_decref(rj);
        if (!allow_incomplete) {
            out_file_abort(&of);
            if (write)
                return cli_error(2, "check: %s did not complete (%s): a baseline must come from a complete run "
                                 "(--allow-incomplete makes one anyway)", dir, why);
            return cli_error(1, "check: %s did not complete (%s); the gate fails it (--allow-incomplete checks it "
                             "as far as it goes)", dir, why);
        }
        printf("note  %s did not complete (%s): checked as far as it goes (--allow-incomplete)\n", dir, why);
    } else {
        json_decref(rj);
    }
    analyze_run_t *run = NULL;
    analyze_result_t r;
    run_csv_set_warn(cli_warn_csv);
    if (analyze_run_open(&run, &r, dir, &o, err, sizeof err) < 0) {
        out_file_abort(&of);
        return cli_error(2, "check: %s", err);
    }
    bool has_buffers = analyze_run_csv(run, "buffers.csv")->ncols > 0;
    int status = write ? write_baseline(dir, &of, &r, analyze_run_json(run), has_buffers)
                       : check(dir, base, &r, analyze_run_json(run), has_buffers);
    out_file_abort(&of);
    analyze_result_clear(&r);
    analyze_run_free(run);
    return status;
}
