/*
 * `zkbench sweep --pw 2,4,8 [--concurrency J[,J...]] [--ram SIZE | --mem-limit
 * SIZE [--verify]] [--out DIR] [batch options]`: one batch per pw value, each
 * in a process of its own (peak RSS and the allocator's state are per
 * process; with --mem-limit each runs capped in a memory cgroup), each
 * analyzed; then the capacity table — pw, s/proof, measured peak, the peak
 * the model of the first completed run predicts with its interval — in
 * sweep.csv and sweep.md, the model's curve in sweep-model.csv, the largest
 * pw that fits, and the sweep plot. --verify then runs the predicted largest
 * pw and the next one under the cap and says whether they completed and
 * were killed as predicted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/capacity.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/sweep_command.h"
#include "harness/cli/sweep_table.h"
#include "harness/run/memcap.h"
#include "harness/run/run_files.h"
#include "harness/run/units.h"

#define SWEEP_MAX 32

static bool parse_list(unsigned *out, size_t *n, const char *name, const char *text)
{
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return cli_error(2, "sweep: --%s is too long", name), false;
    strcpy(buf, text);
    *n = 0;
    /* strsep, not strtok: an empty value ("1,,2", "2,", "") is an error */
    for (char *rest = buf, *tok; (tok = strsep(&rest, ",")) != NULL;) {
        uint64_t v;
        if (!*tok)
            return cli_error(2, "sweep: --%s has an empty value in '%s'", name, text), false;
        if (*n == SWEEP_MAX)
            return cli_error(2, "sweep: --%s takes at most %d values", name, SWEEP_MAX), false;
        if (!cli_parse_u64(&v, "sweep", name, tok))
            return false;
        if (v == 0 || v > 4096)
            return cli_error(2, "sweep: --%s values must be 1..4096, got %s", name, tok), false;
        for (size_t k = 0; k < *n && strcmp(name, "pw") == 0; k++)
            if (out[k] == v)
                return cli_error(2, "sweep: --pw lists %s twice", tok), false;
        out[(*n)++] = (unsigned)v;
    }
    if (*n == 0)
        return cli_error(2, "sweep: --%s needs at least one value", name), false;
    return true;
}

enum { OPT_PW = 'p', OPT_CONC = 'j', OPT_RAM = 'r', OPT_MEM_LIMIT = 'M', OPT_VERIFY = 'v', OPT_MARGIN = 'm',
       OPT_OUT = 'o', OPT_FORCE = 'F', OPT_MARK = 'k', OPT_TRACE = 'T' };

static const cli_opt_t sweep_opts[] = {
    {"pw", OPT_PW, "LIST", "pw values (partitions synthesized in parallel), one batch each\n"
                           "(e.g. 2,4,8; at most 1024)"},
    {"concurrency", OPT_CONC, "J|LIST", "proofs in flight: one value, or one per pw value (default 1)"},
    {"ram", OPT_RAM, "SIZE", "the RAM the largest pw must fit (less --margin)"},
    {"mem-limit", OPT_MEM_LIMIT, "SIZE", "run every batch capped in a memory cgroup of SIZE, and fit\n"
                                         "the largest pw into it"},
    {"verify", OPT_VERIFY, NULL, "with --mem-limit: then run the predicted largest pw and the next\n"
                                 "one capped, and say whether the first completed and the second\n"
                                 "was OOM-killed as predicted (exit 1 when not)"},
    {"margin", OPT_MARGIN, "PCT", "percent of --ram kept free (default 10; --mem-limit: 0)"},
    {"out", OPT_OUT, "DIR", "output folder (default results/runs/sweep-<UTC timestamp.ms>-<pid>);\n"
                            "one that holds a sweep or a run already is refused, unless --force"},
    {"force", OPT_FORCE, NULL, "replace the sweep in --out (and the batches in its pw-N folders)"},
    {"mark", OPT_MARK, "REGEX", "with -- CMD: passed to each watch (the command's proof lines)"},
    {"trace", OPT_TRACE, NULL, "with -- CMD: each watch traces the command's allocations"},
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_sweep = {
    .name = "sweep",
    .summary = "batches over pw values: capacity table and plot",
    .synopsis = "zkbench sweep --pw LIST [--concurrency J|LIST] [--ram SIZE | --mem-limit SIZE [--verify]]\n"
                "              [--margin PCT] [--out DIR [--force]] [batch options...]\n"
                "zkbench sweep --pw LIST [--ram SIZE | --mem-limit SIZE [--verify]] [--margin PCT]\n"
                "              [--out DIR [--force]] [--mark REGEX] [--trace] [--sample-ms MS] -- CMD ARGS...",
    .about = "Runs one batch per pw value (in its own process), analyzes each, and writes\n"
             "the capacity table (pw, s/proof, peak, predicted peak and its interval) to\n"
             "DIR/sweep.csv and DIR/sweep.md and prints it, the model's curve to\n"
             "DIR/sweep-model.csv, the largest pw that fits --ram or --mem-limit, and\n"
             "plots it. A field with no value (a failed point's peak, no --ram) is left\n"
             "empty in sweep.csv. Batch options are checked before anything is written.\n"
             "With -- CMD ARGS..., any prover: each pw value is a zkbench watch of CMD, {pw}\n"
             "in its arguments replaced by the value; the completed runs' peaks are fitted\n"
             "as peak = B + F x pw (with a 95% interval from three pw values) and the\n"
             "largest pw that fits is given (the same tables; s_per_proof empty). With\n"
             "--trace, each traced site's bytes at each run's peak are fitted the same\n"
             "way: DIR/sweep-sites.csv, and the sites that grow with pw are named.\n",
    .opts = sweep_opts,
    .forward = &cli_cmd_batch,
    .stop_at_operand = true,
    .epilog = "exit: 0 every point done (an OOM kill under --mem-limit is a result, not a\n"
              "failure); 1 a point failed (named, with its log; the others still run and\n"
              "the table is written) or --verify did not go as predicted; 2 bad arguments.\n",
};

/* One batch in a process of its own: its exit code (3: OOM-killed). */
static int run_batch(char **fwd, int n_fwd, unsigned pw, const char *conc, const char *mem_limit,
                     const char *run_dir, const char *log, bool force)
{
    char pw_s[16];
    snprintf(pw_s, sizeof pw_s, "%u", pw);
    char *args[64 + 16];
    int a = 0;
    args[a++] = "zkbench";
    args[a++] = "batch";
    for (int i = 0; i < n_fwd && a < 64; i++)
        args[a++] = fwd[i];
    args[a++] = "--pw";
    args[a++] = pw_s;
    args[a++] = "--concurrency";
    args[a++] = (char *)conc;
    if (mem_limit) {
        args[a++] = "--mem-limit";
        args[a++] = (char *)mem_limit;
    }
    /* sweep analyzes every point itself: no per-point verdict, figures
     * and report */
    args[a++] = "--no-analyze";
    if (force)
        args[a++] = "--force";
    args[a++] = "--out"; /* last: tests find a point's batch by it */
    args[a++] = (char *)run_dir;
    args[a] = NULL;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        FILE *lf = freopen(log, "w", stdout);
        (void)lf;
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}



static void predict_row(struct sweep_row *row, const analyze_result_t *model)
{
    row->predicted = row->low = row->high = row->predicted_anon = NAN;
    if (model && model->capacity.ok) {
        capacity_point_t c;
        capacity_predict(&c, &model->capacity, (int)row->pw);
        row->predicted = c.peak, row->low = c.low, row->high = c.high;
        /* the file-backed pages (the mapped key) do not grow with pw */
        if (isfinite(model->file_at_peak))
            row->predicted_anon = c.peak - model->file_at_peak;
    }
}

/* The batch model's curve (sweep_predict_fn): the capacity model of the
 * first completed run. */
static bool predict_capacity(const void *model, unsigned pw, double *peak, double *low, double *high)
{
    const analyze_result_t *m = model;
    if (!m->capacity.ok)
        return false;
    capacity_point_t c;
    capacity_predict(&c, &m->capacity, (int)pw);
    *peak = c.peak, *low = c.low, *high = c.high;
    return true;
}

int cmd_sweep(int argc, char **argv)
{
    unsigned pw[SWEEP_MAX], conc[SWEEP_MAX];
    size_t n_pw = 0, n_conc = 0;
    uint64_t ram = 0, mem_limit = 0;
    const char *mem_limit_text = NULL;
    double margin = NAN;
    bool verify = false, force = false, trace = false;
    const char *out = NULL, *mark = NULL;
    char **fwd = calloc((size_t)argc + 16, sizeof *fwd);
    int n_fwd = 0;
    if (!fwd)
        return cli_error(1, "sweep: out of memory");
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_sweep, argc, argv);
    int key;
    while ((key = cli_next(&a)) > 0) {
        const char *v = a.val;
        switch (key) {
        case OPT_VERIFY: verify = true; break;
        case OPT_FORCE: force = true; break;
        case OPT_PW:
            if (!parse_list(pw, &n_pw, "pw", v))
                return free(fwd), 2;
            break;
        case OPT_CONC:
            if (!parse_list(conc, &n_conc, "concurrency", v))
                return free(fwd), 2;
            break;
        case OPT_RAM:
            if (!analyze_parse_size(&ram, v) || ram == 0)
                return free(fwd), cli_error(2, "sweep: --ram must be a size like 128G, got '%s'", v);
            break;
        case OPT_MEM_LIMIT:
            if (!analyze_parse_size(&mem_limit, v) || mem_limit == 0)
                return free(fwd), cli_error(2, "sweep: --mem-limit must be a size like 2G, got '%s'", v);
            mem_limit_text = v;
            break;
        case OPT_MARGIN: {
            char *end;
            double pct = *v ? strtod(v, &end) : -1;
            if (!*v || *end || pct < 0 || pct >= 100)
                return free(fwd), cli_error(2, "sweep: --margin must be a percentage 0..99, got '%s'", v);
            margin = pct / 100;
            break;
        }
        case OPT_OUT: out = v; break;
        case OPT_MARK: mark = v; break;
        case OPT_TRACE: trace = true; break;
        case CLI_KEY_FORWARD: /* as typed, for every batch */
            for (int t = 0; t < a.ntok; t++)
                fwd[n_fwd++] = a.tok[t];
            break;
        }
    }
    if (key == CLI_EXIT)
        return free(fwd), a.status;
    char **cmd = a.ind < argc ? argv + a.ind : NULL;
    if (!cmd && (mark || trace))
        return free(fwd), cli_error(2, "sweep: --%s is for a sweep of a command (-- CMD ARGS...)", mark ? "mark" : "trace");
    for (size_t k = 0; k < n_pw; k++)
        if (pw[k] > 1024) /* batch's own bound, checked before anything runs */
            return free(fwd), cli_error(2, "sweep: --pw values must be 1..1024, got %u", pw[k]);
    if (n_pw == 0)
        return free(fwd), cli_error(2, "sweep: --pw LIST is required (e.g. --pw 2,4,8)");
    if (n_conc > 1 && n_conc != n_pw)
        return free(fwd), cli_error(2, "sweep: --concurrency takes one value or one per pw value (%zu)", n_pw);
    if (ram && mem_limit)
        return free(fwd), cli_error(2, "sweep: give one of --ram and --mem-limit");
    if (verify && !mem_limit)
        return free(fwd), cli_error(2, "sweep: --verify needs --mem-limit (the cap under which the kill is checked)");
    if (!isfinite(margin))
        margin = mem_limit ? 0.0 : 0.10; /* a cgroup's limit is exact; RAM is shared with others */
    if (mem_limit) {
        /* a cap this machine cannot make fails here, once, not in every point */
        memcap_t *probe = NULL;
        char err[512] = "";
        if (memcap_new(&probe, mem_limit, err, sizeof err) < 0)
            return free(fwd), cli_error(2, "sweep: --mem-limit: %s", err);
        memcap_free(probe);
    }
    if (cmd) {
        /* any prover: batch's options but --sample-ms mean nothing to it */
        const char *sample_ms = NULL;
        for (int i = 0; i < n_fwd; i++) {
            bool eq = strncmp(fwd[i], "--sample-ms=", 12) == 0;
            if (strcmp(fwd[i], "--sample-ms") == 0 && i + 1 < n_fwd)
                sample_ms = fwd[++i];
            else if (eq)
                sample_ms = fwd[i] + 12;
            else {
                int rc = cli_error(2, "sweep: %s is a batch option; a sweep of a command takes --pw, --ram, "
                                      "--mem-limit, --verify, --margin, --out, --force, --mark, --trace and "
                                      "--sample-ms", fwd[i]);
                free(fwd);
                return rc;
            }
        }
        if (n_conc)
            return free(fwd), cli_error(2, "sweep: --concurrency is a batch's; a command's pw is in its arguments "
                                           "({pw})");
        bool has_pw = false;
        for (char **c = cmd; *c && !has_pw; c++)
            has_pw = strstr(*c, "{pw}") != NULL;
        if (!has_pw)
            return free(fwd), cli_error(2, "sweep: no {pw} in the command's arguments: every point would run the "
                                           "same command");
        struct sweep_command_opts so = {.pw = pw, .n_pw = n_pw, .ram = ram, .mem_limit = mem_limit,
                                        .mem_limit_text = mem_limit_text, .margin = margin, .verify = verify,
                                        .force = force, .out = out, .cmd = cmd, .mark = mark,
                                        .sample_ms = sample_ms, .trace = trace};
        free(fwd);
        return sweep_command(&so);
    }
    uint64_t limit = mem_limit ? mem_limit : ram;
    const char *limit_from = mem_limit ? "--mem-limit" : "--ram";

    /* the options each batch gets, checked as batch checks them, before
     * any file is written */
    {
        char *args[64 + 16];
        int na = 0;
        char conc_s[16];
        snprintf(conc_s, sizeof conc_s, "%u", n_conc ? conc[0] : 1);
        args[na++] = "batch";
        for (int i = 0; i < n_fwd && na < 64; i++)
            args[na++] = fwd[i];
        if (n_fwd > 64 - 2)
            return free(fwd), cli_error(2, "sweep: too many batch options (%d)", n_fwd);
        args[na++] = "--concurrency";
        args[na++] = conc_s;
        args[na] = NULL;
        int rc = cmd_batch_check(na, args);
        if (rc >= 0)
            return free(fwd), rc;
    }

    char dir[4096], err[4400];
    if (run_dir_create(dir, sizeof dir, out, "sweep-", force, err, sizeof err) < 0)
        return free(fwd), cli_error(2, "sweep: %s", err);

    struct sweep_row row[SWEEP_MAX + 2];
    size_t n_rows = 0;
    analyze_result_t model;
    bool have_model = false;
    unsigned pw_top = 0;
    /* a point that fails is named at the end; the others still run */
    char failed[2048] = "";
    size_t failed_len = 0, n_failed = 0;
    for (size_t k = 0; k < n_pw; k++) {
        char run_dir[4200], conc_s[16], log[4300];
        snprintf(run_dir, sizeof run_dir, "%s/pw-%u", dir, pw[k]);
        snprintf(log, sizeof log, "%s/pw-%u.log", dir, pw[k]);
        snprintf(conc_s, sizeof conc_s, "%u", n_conc ? conc[n_conc > 1 ? k : 0] : 1);
        printf("sweep: pw %u, concurrency %s -> %s\n", pw[k], conc_s, run_dir);
        int code = run_batch(fwd, n_fwd, pw[k], conc_s, mem_limit_text, run_dir, log, force);
        struct sweep_row *r = &row[n_rows++];
        memset(r, 0, sizeof *r);
        r->pw = pw[k];
        r->conc = (unsigned)atoi(conc_s);
        r->s_per_proof = r->peak = r->footprint = r->peak_anon = r->predicted_anon = NAN;
        snprintf(r->outcome, sizeof r->outcome, "failed");
        snprintf(r->verdict, sizeof r->verdict, "-");
        pw_top = pw[k] > pw_top ? pw[k] : pw_top;
        /* an OOM kill (3) under --mem-limit is what a capacity sweep measures */
        bool ok = code == 0 || code == 3;
        /* the model: the first run that completed */
        bool take = code == 0 && !have_model;
        if (sweep_analyze_point(r, take ? &model : NULL, run_dir, limit, margin, limit_from) < 0) {
            ok = false;
        } else if (take) {
            if (model.capacity.ok)
                have_model = true;
            else
                analyze_result_clear(&model);
        }
        if (!ok && strcmp(r->outcome, "complete") == 0)
            snprintf(r->outcome, sizeof r->outcome, "failed");
        if (!ok) {
            /* the batch failed, or it ran and its files could not be analyzed
             * (analyze_row said why) */
            bool ran = code == 0 || code == 3;
            n_failed++;
            if (failed_len < sizeof failed && ran)
                failed_len += (size_t)snprintf(failed + failed_len, sizeof failed - failed_len,
                                               "%spw %u (not analyzed; see %s)", failed_len ? ", " : "", pw[k], run_dir);
            else if (failed_len < sizeof failed)
                failed_len += (size_t)snprintf(failed + failed_len, sizeof failed - failed_len,
                                               "%spw %u (exit %d; see %s)", failed_len ? ", " : "", pw[k], code, log);
            if (!ran)
                cli_error(0, "sweep: the batch with pw %u failed (exit %d; see %s)", pw[k], code, log);
        }
        char b1[32], sp[32] = "-";
        if (isfinite(r->s_per_proof))
            snprintf(sp, sizeof sp, "%.2f", r->s_per_proof);
        printf("sweep: pw %u: %s, %s s/proof, peak %s, verdict %s\n", pw[k], r->outcome, sp,
               isfinite(r->peak) ? fmt_bytes(b1, r->peak) : "-", r->headline[0] ? r->headline : r->verdict);
    }
    for (size_t k = 0; k < n_rows; k++)
        predict_row(&row[k], have_model ? &model : NULL);

    int max_pw = -1;
    if (have_model && limit) {
        /* model.limit_rss: the limit less the margin, plus the file-backed
         * RSS a cgroup does not charge (analyze_compute) */
        max_pw = capacity_max_pw(&model.capacity, model.limit_rss, 4096);
        printf("sweep: model of the pw %u run: %s\n", model.pw, model.capacity.warning[0] ? model.capacity.warning : "fits its own peak");
        /* a prediction below a pw that completed under the same limit is
         * contradicted by a measurement: no number then */
        for (size_t k = 0; k < n_rows && max_pw >= 0; k++)
            if ((int)row[k].pw > max_pw && strcmp(row[k].outcome, "complete") == 0) {
                printf("sweep: no prediction: the model's largest pw %d is below pw %u, which completed under this "
                       "limit, so the model is wrong here (its untracked share; see zkbench analyze of the pw %u "
                       "run)\n", max_pw, row[k].pw, model.pw);
                max_pw = -1;
            }
    } else if (!have_model) {
        printf("sweep: no prediction: %s\n", n_rows ? "no completed run gave a capacity model (see its analyze)" : "no run");
    }

    /* --verify: the predicted largest pw completes, the next one is killed */
    bool verified = true;
    char verdict_line[1024] = "";
    if (verify && max_pw >= 0) {
        unsigned cand[2] = {(unsigned)(max_pw > 0 ? max_pw : 1), (unsigned)(max_pw > 0 ? max_pw + 1 : 1)};
        size_t nc = max_pw > 0 ? 2 : 1;
        capacity_point_t next;
        capacity_predict(&next, &model.capacity, (int)cand[nc - 1]);
        int len = snprintf(verdict_line, sizeof verdict_line, "predicted max pw %d", max_pw);
        for (size_t c = 0; c < nc && n_rows < SWEEP_MAX + 2; c++) {
            char run_dir[4200], log[4300], conc_s[16];
            snprintf(run_dir, sizeof run_dir, "%s/verify-pw-%u", dir, cand[c]);
            snprintf(log, sizeof log, "%s/verify-pw-%u.log", dir, cand[c]);
            snprintf(conc_s, sizeof conc_s, "%u", n_conc ? conc[0] : 1);
            printf("sweep: verify pw %u under --mem-limit %s -> %s\n", cand[c], mem_limit_text, run_dir);
            int code = run_batch(fwd, n_fwd, cand[c], conc_s, mem_limit_text, run_dir, log, force);
            struct sweep_row *r = &row[n_rows];
            memset(r, 0, sizeof *r);
            r->s_per_proof = r->peak = r->footprint = r->peak_anon = r->predicted_anon = NAN;
            r->pw = cand[c];
            r->conc = (unsigned)atoi(conc_s);
            if ((code != 0 && code != 3) || sweep_analyze_point(r, NULL, run_dir, limit, margin, limit_from) < 0) {
                free(fwd);
                analyze_result_clear(&model);
                return cli_error(1, "sweep: the verify batch with pw %u failed (exit %d; see %s)", cand[c], code,
                                 log);
            }
            predict_row(r, &model);
            n_rows++;
            bool killed = code == 3, want_kill = max_pw > 0 ? c == 1 : true;
            /* pw max + 1 may fit after all when more pw adds nothing */
            if (c == 1 && next.bound)
                want_kill = false;
            bool as_predicted = killed == want_kill;
            verified = verified && as_predicted;
            char b1[32], b2[32];
            if (killed)
                len += snprintf(verdict_line + len, sizeof verdict_line - (size_t)len, "; pw %u OOM-killed at %s%s",
                                cand[c], analyze_fmt_bytes(b1, sizeof b1, r->peak),
                                as_predicted ? " as predicted" : " (predicted to fit: NOT as predicted)");
            else if (isfinite(r->peak_anon) && isfinite(r->predicted_anon) && r->peak_anon > 0) {
                /* the cap charges anonymous memory in full; file-backed pages
                 * it reclaims, so RSS under the cap is no measure of fit */
                char b3[32], b4[32], b5[32], evicted[160] = "";
                double gone = model.file_at_peak - (r->peak - r->peak_anon);
                if (gone > 0.05 * model.file_at_peak && gone > 64.0 * 1024 * 1024)
                    snprintf(evicted, sizeof evicted, "; the cap reclaimed %s of the model run's %s of file-backed "
                             "pages, RSS %s", analyze_fmt_bytes(b3, sizeof b3, gone),
                             analyze_fmt_bytes(b4, sizeof b4, model.file_at_peak),
                             analyze_fmt_bytes(b5, sizeof b5, r->peak));
                len += snprintf(verdict_line + len, sizeof verdict_line - (size_t)len,
                                "; pw %u completed, anonymous peak %s (predicted %s, error %.0f%%%s)%s", cand[c],
                                analyze_fmt_bytes(b1, sizeof b1, r->peak_anon),
                                analyze_fmt_bytes(b2, sizeof b2, r->predicted_anon),
                                100 * fabs(r->predicted_anon - r->peak_anon) / r->peak_anon, evicted,
                                as_predicted ? "" : " (predicted to be killed: NOT as predicted)");
            } else
                len += snprintf(verdict_line + len, sizeof verdict_line - (size_t)len,
                                "; pw %u completed, peak %s (predicted %s, error %.0f%%)%s", cand[c],
                                analyze_fmt_bytes(b1, sizeof b1, r->peak), analyze_fmt_bytes(b2, sizeof b2, r->predicted),
                                100 * fabs(r->predicted - r->peak) / r->peak,
                                as_predicted ? "" : " (predicted to be killed: NOT as predicted)");
            pw_top = cand[c] > pw_top ? cand[c] : pw_top;
        }
    } else if (verify) {
        snprintf(verdict_line, sizeof verdict_line, "no prediction to verify: no completed run gave a capacity model");
        verified = false;
    }
    free(fwd);

    if (!sweep_write_tables(dir, row, n_rows, have_model ? predict_capacity : NULL, &model, ram, mem_limit,
                      pw_top * 2 > (unsigned)max_pw + 1 ? pw_top * 2 : (unsigned)max_pw + 1)) {
        if (have_model)
            analyze_result_clear(&model);
        return cli_error(1, "sweep: cannot write the capacity table in %s: %s", dir, strerror(errno));
    }
    if (limit && max_pw >= 0) {
        char bound[480];
        capacity_bound_text(bound, sizeof bound, &model.capacity, 4096);
        char b1[32];
        printf("sweep: largest pw that fits %s (%s) with a %.0f%% margin: %d; %s\n",
               analyze_fmt_bytes(b1, sizeof b1, (double)limit), mem_limit ? "--mem-limit" : "--ram", margin * 100, max_pw, bound);
        /* under a cap, a pw whose RSS passes it fits only while the cgroup
         * reclaims file-backed pages (the mapped key), read again later */
        capacity_point_t at;
        double room = (double)limit * (1 - margin);
        if (mem_limit && max_pw > 0 && max_pw < 4096 && isfinite(model.file_at_peak)) {
            capacity_predict(&at, &model.capacity, max_pw);
            if (at.peak > room) {
                char b2[32], b3[32];
                printf("sweep: pw %d fits only as the cgroup reclaims up to %s of the %s of file-backed pages (the "
                       "mapped parameters): they are read again from disk, so its s/proof may rise\n",
                       max_pw, analyze_fmt_bytes(b2, sizeof b2, fmin(at.peak - room, model.file_at_peak)),
                       analyze_fmt_bytes(b3, sizeof b3, model.file_at_peak));
            }
        }
    }
    if (have_model)
        analyze_result_clear(&model);

    sweep_plot_and_print(dir, row, n_rows, ram, mem_limit);
    int status = 0;
    if (verify) {
        printf("%s\n", verdict_line);
        if (!verified)
            status = cli_error(1, "sweep: --verify: the capped runs did not go as predicted");
    }
    if (n_failed)
        status = cli_error(1, "sweep: %zu of %zu point(s) failed: %s", n_failed, n_pw, failed);
    return status;
}
