/*
 * `zkbench watch`: the sampler on any process. With --pid it samples that
 * process until it exits (or SIGINT); with `-- CMD ARGS...` it starts the
 * command, samples it until it ends and exits with its status. It writes the
 * same samples.csv as a batch (the process and GPU columns; the heap,
 * tracked and pipeline columns stay empty) and run.json, then reports what
 * needs no prover internals: the RSS trend with its confidence interval,
 * valley floors, and whether growth stops (a bounded cache is not a leak).
 * With --mem-limit the command runs in a capped memory cgroup (memcap.h)
 * while watch stays outside it: an OOM kill of the command is recorded in
 * run.json (outcome oom-killed, the cgroup's memory events) and exits 3.
 * The process's descendants are read too (proc_tree.h), a service's cgroup
 * with --cgroup (cgroup_stat.h), per-process GPU memory with --gpu
 * (nvml_gpu.h), and log lines as proof marks with --mark (watch_mark.h);
 * docs/watch.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/run_clock.h"
#include "harness/run/run_csv.h"
#include "harness/diagnose/analyze.h"
#include "harness/run/cgroup_stat.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/say_verdict.h"
#include "harness/cli/watch_autotick.h"
#include "harness/cli/watch_metrics.h"
#include "harness/cli/watch_states.h"
#include "harness/run/console.h"
#include "harness/run/memcap.h"
#include "harness/metrics/metrics_export.h"
#include "harness/run/nvml_gpu.h"
#include "harness/run/proc_tree.h"
#include "harness/run/run_files.h"
#include "harness/run/run_outcome.h"
#include "harness/run/sampler.h"
#include "harness/trace/trace_collect.h"
#include "harness/trace/trace_env.h"
#include "harness/run/units.h"
#include "harness/run/watch_mark.h"
#include "harness/run/watch_proc.h"
#include "kernels/kernels.h"

/* lock-free atomics: the signal may land on any thread (the sampler's) */
static atomic_int watch_stop;
/* set by SIGINT/SIGTERM and never cleared: run.json's interrupted, however
 * the watched command then ended (it may be gone before the loop sees
 * watch_stop) */
static atomic_int watch_signalled;
/* the signals received: the first (run.json's stop.signal), the latest
 * (passed on), and how many */
static atomic_int watch_first_sig, watch_last_sig, watch_n_sig;
/* the dispositions watch found, which a command it starts gets back */
static struct sigaction watch_old_int, watch_old_term;

static void on_signal(int sig)
{
    int none = 0;
    atomic_compare_exchange_strong(&watch_first_sig, &none, sig);
    atomic_store(&watch_last_sig, sig);
    atomic_fetch_add(&watch_n_sig, 1);
    watch_stop = 1;
    watch_signalled = 1;
}

/* "SIGTERM" for signal number sig. */
static void sig_name(char out[16], int sig)
{
    const char *n = sigabbrev_np(sig);
    snprintf(out, 16, "SIG%s", n ? n : "?");
}

enum {
    OPT_PID = 'p', OPT_OUT = 'o', OPT_SAMPLE_MS = 'm', OPT_SMAPS = 's', OPT_GPU = 'g', OPT_MEM_LIMIT = 'M',
    OPT_FORCE = 'F', OPT_NO_CHILDREN = 'C', OPT_CGROUP = 'c', OPT_MARK = 'k', OPT_TRACE = 'T', OPT_TRACE_MIN = 'N',
    OPT_QUIET = 'Q', OPT_KILL_AFTER = 'K', OPT_MARK_FILE = 'L', OPT_THIN_AFTER = 'A', OPT_THIN_INTERVAL = 'I',
};

static const cli_opt_t watch_opts[] = {
    {"pid", OPT_PID, "PID", "the process to watch, until it exits (or Ctrl-C)"},
    {"smaps", OPT_SMAPS, NULL, "add smaps_rollup's Pss, Anonymous and Swap, summed over the watched\n"
                               "processes (Pss counts a page they share once; the rss sum counts it\n"
                               "in each)"},
    {"no-children", OPT_NO_CHILDREN, NULL, "the process alone, not its descendants"},
    {"cgroup", OPT_CGROUP, "PATH", "also a memory cgroup (a folder under /sys/fs/cgroup, or a path\n"
                                   "such as system.slice/prover.service): its usage, peak, anon,\n"
                                   "file, shmem and OOM kills (cg_*), and its processes"},
    {"gpu", OPT_GPU, NULL, "per-process GPU memory through NVML (libnvidia-ml.so.1, loaded\n"
                           "at run time; no CUDA context): gpu_used is the watched processes'"},
    {"mark", OPT_MARK, "REGEX", "count the command's output lines matching REGEX (POSIX extended)\n"
                                "as proofs_done; each match is a row of DIR/marks.csv; the output\n"
                                "still reaches the terminal"},
    {"mark-file", OPT_MARK_FILE, "PATH", "match --mark against the lines a log file gets while watch runs\n"
                                         "(followed from its end; rotated or truncated, from the new start)\n"
                                         "instead of the command's output: marks for --pid and --cgroup"},
    {"out", OPT_OUT, "DIR", "output folder (default results/runs/watch-<UTC timestamp.ms>-<pid>);\n"
                            "one that holds a run already is refused, unless --force replaces it"},
    {"force", OPT_FORCE, NULL, "replace the run in --out"},
    {"sample-ms", OPT_SAMPLE_MS, "MS", "sampler period, 1..60000 ms (default 100); auto: from 100, lowered as\n"
                                       "the run goes so a memory cycle (from --mark, else the signal) gets\n"
                                       "about 12 samples, down to 1 ms (one line on stderr each time)"},
    {"mem-limit", OPT_MEM_LIMIT, "SIZE", "run the command in a memory cgroup capped at SIZE (512M, 1.5G;\n"
                                         "swap off); an OOM kill of it exits 3 (needs root or a delegated cgroup)"},
    {"trace", OPT_TRACE, NULL, "trace the command's allocations (LD_PRELOAD; CUDA too): DIR/buffers.csv\n"
                               "(one row per allocation >= --trace-min, site last), DIR/sites.csv (by call\n"
                               "stack: never-freed bytes, small allocations counted and sampled), marks.csv\n"
                               "rows for zkbench_mark() (harness/trace/zkbench_trace.h); marks \"synth start\",\n"
                               "\"synth end\" (prove, finish, ... [ID]) fill samples.csv's n_synth, n_gpu, ...\n"
                               "for analyze's per-state model; not with --pid; `zkbench trace collect DIR`"},
    {"trace-min", OPT_TRACE_MIN, "SIZE", "allocations recorded one by one from this size (default 1M)"},
    {"kill-after", OPT_KILL_AFTER, "S", "a SIGINT or SIGTERM to watch is passed on to the command's process\n"
                                        "group; S seconds later (default 10; 0: never) what is left of it\n"
                                        "gets SIGKILL"},
    {"thin-after", OPT_THIN_AFTER, "S", "after S seconds (default 3600; 0: never) keep every sample only\n"
                                        "around proof marks; elsewhere per --thin-interval the lowest and\n"
                                        "highest RSS and the last (every floor and peak stays on disk)"},
    {"thin-interval", OPT_THIN_INTERVAL, "S", "the interval of --thin-after, seconds (default 10)"},
    {"quiet", OPT_QUIET, NULL, "print only errors and the final verdict line"},
    CLI_OPTS_METRICS,
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_watch = {
    .name = "watch",
    .summary = "the sampler on any process (--pid PID or -- CMD ARGS)",
    .synopsis = "zkbench watch [OPTIONS] --pid PID\n"
                "zkbench watch [OPTIONS] [--mark REGEX] [--mem-limit SIZE] [--trace] -- CMD ARGS...\n"
                "zkbench watch [OPTIONS] --cgroup PATH                  (until Ctrl-C)",
    .about = "Samples a process tree's memory (RSS, RssAnon, RssFile summed over the process\n"
             "and its descendants, VmHWM; with --smaps their smaps_rollup Pss/Anonymous/\n"
             "Swap summed, shared pages once; with --gpu its GPU memory through NVML) into\n"
             "DIR/samples.csv, one row per process into DIR/procs.csv, until it exits, then\n"
             "prints zkbench analyze's verdict on DIR, word for word (valley floors: the\n"
             "minimum between two marks or windows; rising floors mean growth that stays;\n"
             "\"inconclusive\" says what would decide; \"sampling\" warns of a tick coarser\n"
             "than a tenth of the memory cycle, which --sample-ms auto fits), and writes it\n"
             "into DIR/run.json.\n"
             "samples.csv ends with the columns n_procs, cg_current, cg_peak, cg_anon, cg_file,\n"
             "cg_shmem, cg_oom_kill and, with --gpu, gpu<i>_used, gpu<i>_device_used per device.\n",
    .opts = watch_opts,
    .epilog = "exit: with a command, the command's own status (128+S when signal S killed it);\n"
              "3 when it was OOM-killed under --mem-limit; otherwise 0; 1 a run file could not\n"
              "be written; 2 bad arguments, a command that cannot be run or a --pid without\n"
              "memory to watch (nothing is written then).\n",
    .stop_at_operand = true,
};

/* Reads samples.csv's t_ms and rss columns back (what the sampler wrote),
 * in bounded memory: a watch of weeks keeps about 2^17 rows, its RSS peaks
 * and valleys among them (run_csv.h). */
static int read_series(const char *path, double **t, double **y, size_t *n)
{
    static const char *const req[] = {"t_ms", "rss", NULL}, *const ext[] = {"rss", NULL};
    const run_csv_opts_t o = {.required = req, .empty_cols_absent = true, .sparse_ok = true, .max_rows = (size_t)1 << 17,
                              .extreme_cols = ext};
    run_csv_t c;
    char err[512];
    *n = 0;
    *t = *y = NULL;
    int rc = run_csv_read_opts(&c, path, &o, err, sizeof err);
    if (rc < 0)
        return rc;
    int ct = run_csv_col(&c, "t_ms"), cr = run_csv_col(&c, "rss");
    *t = malloc((c.nrows + 1) * sizeof **t);
    *y = malloc((c.nrows + 1) * sizeof **y);
    if (!*t || !*y) {
        free(*t);
        free(*y);
        *t = *y = NULL;
        run_csv_free(&c);
        return -ENOMEM;
    }
    for (size_t i = 0; i < c.nrows; i++) {
        (*t)[*n] = run_csv_num(&c, i, ct);
        (*y)[*n] = run_csv_num(&c, i, cr);
        *n += isfinite((*t)[*n]) && isfinite((*y)[*n]);
    }
    run_csv_free(&c);
    return 0;
}

/* What to watch and how (the options, checked). */
struct watch_opts {
    pid_t pid;        /* --pid, or 0 */
    char **cmd;       /* -- CMD ARGS..., or NULL */
    const char *out;
    uint64_t period, mem_limit;
    watch_autotick_t *autotick; /* --sample-ms auto, or NULL */
    bool smaps, gpu, force;
    bool children;         /* --no-children clears it */
    cgroup_stat_t *cg;     /* --cgroup, or NULL */
    watch_mark_t *mark;    /* --mark, or NULL */
    const char *mark_re;
    const char *mark_file; /* --mark-file, or NULL */
    bool trace;            /* --trace */
    bool quiet;            /* --quiet: errors and the final verdict line only */
    uint64_t trace_min;    /* --trace-min */
    double kill_after;     /* --kill-after S: SIGKILL S s after a signal was passed on; 0: never */
    double thin_after, thin_interval; /* --thin-after, --thin-interval: seconds */
    bool out_existed;      /* --out named a folder that was there (kept on a refusal) */
    metrics_t *metrics;    /* fed by the sampler; NULL: none */
    metrics_export_t *mx;  /* zkbench_verdict of the run folder once it exists; NULL: none */
};

/* Starts cmd (inside cap when given) in a process group of its own
 * (watch_proc.h) and returns its pid in *ret, or the exit status after one
 * error line. The child enters the cgroup before exec; a failure of either
 * comes back through a close-on-exec pipe. *terminal: whether the command's
 * group was given the terminal (watch_proc_take_terminal at the end). */
static int watch_start(pid_t *ret, bool *terminal, char **cmd, const memcap_t *cap, const watch_mark_t *mark)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return cli_error(1, "watch: pipe: %s", strerror(errno));
    /* decided before the fork, so parent and child agree */
    bool tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pipefd[0]);
        close(pipefd[1]);
        return cli_error(1, "watch: fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(pipefd[0]);
        sigaction(SIGINT, &watch_old_int, NULL);
        sigaction(SIGTERM, &watch_old_term, NULL);
        if (mark)
            watch_mark_child(mark);
        int what[2] = {2, watch_proc_child_setup(parent, tty)}; /* {stage, -errno}: 2 the group, 0 the cgroup, 1 exec */
        if (what[1] == 0) {
            what[0] = 0;
            what[1] = cap ? memcap_enter(cap, 0) : 0;
        }
        if (what[1] == 0) {
            execvp(cmd[0], cmd);
            what[0] = 1;
            what[1] = -errno;
        }
        (void)!write(pipefd[1], what, sizeof what);
        _exit(127);
    }
    close(pipefd[1]);
    (void)setpgid(pid, pid); /* the child does it too: whichever runs first */
    *terminal = tty && watch_proc_give_terminal(pid);
    int what[2];
    ssize_t got = read(pipefd[0], what, sizeof what);
    close(pipefd[0]);
    if (got == (ssize_t)sizeof what) {
        waitpid(pid, NULL, 0);
        if (*terminal)
            watch_proc_take_terminal();
        *terminal = false;
        if (what[0] == 0)
            return cli_error(2, "watch: --mem-limit: cannot move the command into %s/cgroup.procs: %s",
                             memcap_path(cap), strerror(-what[1]));
        if (what[0] == 2)
            return cli_error(1, "watch: cannot set up the command's process group: %s", strerror(-what[1]));
        return cli_error(2, "watch: cannot run %s: %s", cmd[0], strerror(-what[1]));
    }
    *ret = pid;
    return 0;
}

/* What watch made in dir, removed when it refuses to go on (exit 2). */
static void watch_discard(const char *dir, const struct watch_opts *w)
{
    run_dir_discard(dir, !w->out_existed);
}

/* The files and readers of the tree, cgroup, GPU and mark columns, made
 * in dir: procs.csv (*procs), marks.csv with --mark, NVML with --gpu
 * (*nvml, NULL where there is none: said once). 0 or an exit status after
 * one error line. */
static int watch_outputs_open(const struct watch_opts *w, const char *dir, FILE **procs, nvml_gpu_t **nvml)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/procs.csv", dir);
    if (!(*procs = fopen(path, "we")))
        return cli_error(2, "watch: cannot write %s: %s", path, strerror(errno));
    proc_tree_write_header(*procs);
    int rc;
    snprintf(path, sizeof path, "%s/marks.csv", dir);
    if (w->mark && (rc = watch_mark_open(w->mark, path)) < 0) {
        fclose(*procs);
        return cli_error(2, "watch: cannot write %s: %s", path, strerror(-rc));
    }
    char err[256];
    *nvml = NULL;
    if (w->gpu && nvml_gpu_open(nvml, err, sizeof err) < 0)
        cli_error(0, "watch: no NVML (%s): GPU memory not recorded", err);
    return 0;
}

static void watch_outputs_close(FILE *procs, nvml_gpu_t *nvml)
{
    if (procs)
        fclose(procs);
    nvml_gpu_close(nvml);
}

/* run.json: the tree, cgroup and mark options, the cgroup's events before
 * and after (null: unreadable), and the marks counted. */
static void watch_json_add(json_t *root, const struct watch_opts *w, const struct cgroup_stat_events *before,
                           const struct cgroup_stat_events *after, uint64_t marks)
{
    json_t *config = json_object_get(root, "config");
    json_object_set_new(config, "children", json_boolean(w->children));
    json_object_set_new(config, "cgroup", w->cg ? json_string(cgroup_stat_path(w->cg)) : json_null());
    json_object_set_new(config, "mark", w->mark_re ? json_string(w->mark_re) : json_null());
    json_object_set_new(config, "mark_file", w->mark_file ? json_string(w->mark_file) : json_null());
    if (w->cg)
        json_object_set_new(root, "cgroup",
                            json_pack("{s:s, s:s, s:o, s:o}", "path", cgroup_stat_path(w->cg), "version",
                                      cgroup_stat_version(w->cg), "events_before",
                                      before ? cgroup_stat_events_json(before) : json_null(), "events_after",
                                      after ? cgroup_stat_events_json(after) : json_null()));
    if (w->mark)
        json_object_set_new(json_object_get(root, "summary"), "proofs_done", json_integer((json_int_t)marks));
}

/* The live line (a terminal) or a line every heartbeat (elsewhere). */
static void watch_console_tick(console_t *con, sampler_t *s)
{
    sample_t x = {0};
    uint64_t ticks = 0, peak = 0;
    double med = 0;
    sampler_latest(s, &x);
    sampler_stats(s, &ticks, &med, &peak);
    console_watch(con, x.rss, peak > x.rss ? peak : x.rss);
}

/* Watches until the process ends; cap: the command's cgroup, or NULL. */
static int watch_run(const struct watch_opts *w, const memcap_t *cap)
{
    char **cmd = w->cmd;
    char dir[4096], derr[4400];
    /* from the start: a signal at any point ends the watch as an
     * interruption (the command forked below gets the default back at exec) */
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &watch_old_int);
    sigaction(SIGTERM, &sa, &watch_old_term);
    if (run_dir_create(dir, sizeof dir, w->out, "watch-", w->force, derr, sizeof derr) < 0)
        return cli_error(2, "watch: %s", derr);
    char cmdline[1024] = "";
    if (cmd)
        for (char **a = cmd; *a; a++)
            snprintf(cmdline + strlen(cmdline), sizeof cmdline - strlen(cmdline), "%s%s", a == cmd ? "" : " ", *a);
    char path[4300];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    int csv_fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    FILE *csv = csv_fd >= 0 ? fdopen(csv_fd, "w") : NULL;
    if (!csv)
        return cli_error(1, "watch: cannot write %s: %s", path, strerror(errno));
    /* a run.json from the start: on a full disk the outcome overwrites it */
    json_t *pre = json_pack("{s:s, s:s, s:b, s:o}", "status", "running", "outcome", "running", "interrupted", 0,
                            "writer", run_outcome_writer());
    if (run_outcome_save(dir, pre, derr, sizeof derr) < 0) {
        json_decref(pre);
        fclose(csv);
        return cli_error(1, "watch: %s", derr);
    }
    json_decref(pre);
    if (metrics_export_verdict(w->mx, dir, NULL, NULL, derr, sizeof derr) < 0)
        cli_error(0, "watch: %s", derr); /* the metrics go on without a verdict */
    FILE *procs = NULL;
    nvml_gpu_t *nvml = NULL;
    int in_rc = watch_outputs_open(w, dir, &procs, &nvml);
    if (in_rc) {
        fclose(csv);
        watch_discard(dir, w);
        return in_rc;
    }

    /* fork, exec, then sample the child from its first tick */
    pid_t pid = w->pid;
    struct memcap_stats before = {0}, after = {0};
    if (cap)
        memcap_read(cap, &before);
    struct cgroup_stat_events cg_before = {0}, cg_after = {0};
    bool have_cg_before = w->cg && cgroup_stat_events(w->cg, &cg_before) == 0;
    char terr[PATH_MAX + 256];
    if (w->trace && trace_env_set(dir, w->trace_min, terr, sizeof terr) < 0) {
        fclose(csv);
        watch_outputs_close(procs, nvml);
        watch_discard(dir, w);
        return cli_error(2, "watch: %s", terr);
    }
    bool terminal = false;
    int guard = -1;
    if (cmd) {
        int rc = watch_start(&pid, &terminal, cmd, cap, w->mark);
        if (w->trace)
            trace_env_restore(rc ? dir : NULL);
        if (rc) {
            fclose(csv);
            watch_outputs_close(procs, nvml);
            watch_discard(dir, w);
            return rc;
        }
        /* from here on the command dies with watch, however watch dies */
        if ((guard = watch_proc_guard_start(pid, cap ? memcap_path(cap) : NULL)) < 0)
            cli_error(0, "watch: cannot start the guardian of the command (%s): a SIGKILL of watch would leave the "
                         "command's children running", strerror(-guard));
    }

    /* the run's start: the origin of samples.csv's t_ms and of the times
     * on the console (run.json's started_at) */
    double t0 = run_clock_now();
    if (w->trace)
        trace_env_save_t0(dir, t0); /* for `zkbench trace collect` meanwhile */
    char started_at[40];
    run_clock_utc(started_at, t0);
    /* a command's output is the user's: nothing of watch's comes before
     * it or between its lines, only the summary after it */
    console_t con;
    console_init(&con, stdout, w->quiet);
    console_start(&con, t0);
    if (!cmd) {
        if (pid)
            console_say(&con, "zkbench watch: process %d every %llu ms%s until it exits or Ctrl-C; files in %s/",
                        (int)pid, (unsigned long long)w->period, w->autotick ? " (auto)" : "", dir);
        else
            console_say(&con, "zkbench watch: cgroup %s every %llu ms%s until Ctrl-C; files in %s/",
                        cgroup_stat_path(w->cg), (unsigned long long)w->period, w->autotick ? " (auto)" : "", dir);
    }
    if (w->mark && watch_mark_start(w->mark, pid, t0) < 0)
        cli_error(0, "watch: --mark: cannot start the output reader; lines are not counted");
    struct sampler_config sc = {.period_ms = (unsigned)w->period, .pid = pid, .smaps_rollup = w->smaps, .t0 = t0,
                                .tree = true, .children = w->children, .procs_csv = procs, .cgroup = w->cg,
                                .nvml = nvml, .proofs_done = w->mark ? watch_mark_counter(w->mark) : NULL,
                                .on_sample = w->autotick ? watch_autotick_on_sample
                                             : w->metrics ? metrics_on_sample : NULL,
                                .sample_ctx = w->autotick ? (void *)w->autotick : w->metrics,
                                .thin_after_ms = w->thin_after * 1e3, .thin_interval_ms = w->thin_interval * 1e3};
    sampler_t *s = NULL;
    int status = 0, exit_code = 0;
    bool ended = false, reaped = false;
    if (w->autotick)
        watch_autotick_chain(w->autotick, w->metrics ? metrics_on_sample : NULL, w->metrics);
    int rc = sampler_start(&s, &sc, csv);
    if (rc == 0 && w->autotick)
        watch_autotick_attach(w->autotick, s);
    if (rc == -ESRCH && watch_proc_ended_early(pid, cmd != NULL, &status)) {
        /* it ended before the first sample: an empty run, the status kept */
        ended = reaped = true;
        sampler_write_header_cfg(csv, &sc);
    } else if (rc < 0) {
        fclose(csv);
        if (cmd) {
            kill(-pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
        if (terminal)
            watch_proc_take_terminal();
        watch_proc_guard_release(&guard);
        watch_mark_finish(w->mark, 0);
        watch_outputs_close(procs, nvml);
        watch_discard(dir, w);
        return cli_error(2, "watch: cannot sample process %d: %s", (int)pid, strerror(-rc));
    }
    /*
     * Until the process ends. A SIGINT or SIGTERM to watch is passed on to
     * the command's whole process group (each one, as it comes); when
     * --kill-after S passes with any process of the group left, the group
     * gets SIGKILL. After a signal the watch ends when the group is empty,
     * not only the command: a child it started must not outlive it.
     */
    bool interrupted = false, escalated = false;
    size_t ticks_said = 0;
    double t_first_sig = 0;
    int forwarded = 0;
    while (!ended) {
        if (cmd && !reaped && waitpid(pid, &status, WNOHANG) == pid)
            reaped = true;
        if (cmd && reaped && (!t_first_sig || escalated || w->kill_after <= 0 || !watch_proc_group_alive(pid)))
            break;
        if (!cmd && ((pid && watch_proc_ended(pid)) || (s && (sampler_write_error(s) < 0 || sampler_ended(s))))) {
            /* --cgroup alone runs until SIGINT, or until its cgroup is
             * gone past the grace; a full disk ends a --pid or --cgroup
             * watch (a command is waited for) */
            break;
        }
        if (watch_stop) {
            watch_stop = 0;
            interrupted = true;
            if (!t_first_sig)
                t_first_sig = run_clock_now();
            if (!cmd)
                break;
            if (kill(-pid, atomic_load(&watch_last_sig)) == 0) /* pass it on, then wait for the group */
                forwarded++;
        }
        if (cmd && t_first_sig && w->kill_after > 0 && !escalated && run_clock_now() - t_first_sig >= w->kill_after) {
            kill(-pid, SIGKILL);
            escalated = true;
        }
        if (!cmd && s)
            watch_console_tick(&con, s);
        watch_autotick_say(w->autotick, &con, w->quiet, &ticks_said);
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (cmd && !reaped)
        waitpid(pid, &status, 0);
    if (terminal)
        watch_proc_take_terminal();
    /* a terminal's Ctrl-C went to the command's group, which had the
     * terminal: the command ended by it was interrupted too */
    if (watch_signalled || (cmd && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT))
        interrupted = true;
    watch_autotick_say(w->autotick, &con, w->quiet, &ticks_said);
    console_end_live(&con);
    uint64_t ticks = 0, peak = 0;
    double med = 0;
    if (s)
        sampler_stats(s, &ticks, &med, &peak);
    /* which file failed is known only before the sampler is freed; an
     * error in stop's last row is taken as samples.csv's */
    char bad_path[4200];
    snprintf(bad_path, sizeof bad_path, "%s/%s", dir, s ? sampler_write_error_file(s) : "samples.csv");
    int write_rc = sampler_stop(s);
    if (fclose(csv) != 0 && write_rc == 0)
        write_rc = -errno;
    watch_mark_finish(w->mark, 1000);
    if (write_rc == 0 && watch_mark_error(w->mark) < 0) {
        write_rc = watch_mark_error(w->mark);
        snprintf(bad_path, sizeof bad_path, "%s/marks.csv", dir);
    }
    uint64_t marks = w->mark ? *watch_mark_counter(w->mark) : 0;
    bool have_cg_after = w->cg && cgroup_stat_events(w->cg, &cg_after) == 0;
    watch_outputs_close(procs, nvml);
    double wall = run_clock_now() - t0;
    struct trace_collect_summary tsum;
    int trace_rc = w->trace ? trace_collect(dir, t0, &tsum, terr, sizeof terr) : 0;
    char states_line[1024] = ""; /* the program's "synth start"/... marks as occupancy */
    json_t *jstates =
        w->trace && trace_rc == 0 && write_rc == 0 ? watch_states_apply(dir, states_line, sizeof states_line) : NULL;
    if (cmd)
        exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    bool have_cg = cap && memcap_read(cap, &after) == 0;
    /* the kill may hit a process the command started: the cgroup's count
     * says it happened, however the command itself then ended */
    bool oom = have_cg && after.oom_kill > before.oom_kill;
    const char *outcome = write_rc < 0                       ? "failed"
                          : oom                              ? "oom-killed"
                          : interrupted                      ? "interrupted"
                          : cmd && WIFSIGNALED(status)       ? "killed"
                          : cmd && WEXITSTATUS(status) != 0 ? "failed"
                                                             : "complete";

    double first = 0, last = 0;
    {
        double *t = NULL, *y = NULL;
        size_t n = 0;
        if (read_series(path, &t, &y, &n) == 0 && n > 0)
            first = y[0], last = y[n - 1];
        free(t);
        free(y);
    }

    json_t *root = json_pack("{s:{s:s, s:I, s:s, s:I, s:b, s:b, s:o}, s:{s:I, s:I, s:I, s:f, s:I, s:f}, s:b, s:s, "
                             "s:s}",
                             "config", "mode", cmd ? "command" : pid ? "pid" : "cgroup", "pid", (json_int_t)pid,
                             "command", cmdline,
                             "sample_ms", (json_int_t)(w->autotick ? watch_autotick_tick(w->autotick) : w->period),
                             "smaps", w->smaps, "gpu", w->gpu, "mem_limit",
                             w->mem_limit ? json_integer((json_int_t)w->mem_limit) : json_null(), "summary",
                             "first_rss", (json_int_t)first, "last_rss", (json_int_t)last, "peak_rss",
                             (json_int_t)peak, "wall_s", wall, "ticks", (json_int_t)ticks, "median_tick_us", med,
                             "interrupted", interrupted, "status",
                             write_rc < 0 ? "failed" : oom ? "oom-killed" : "complete", "outcome",
                             outcome);
    json_object_set_new(root, "started_at", json_string(started_at));
    json_object_set_new(json_object_get(root, "config"), "sample_ms_auto", json_boolean(w->autotick));
    if (w->autotick) /* the ticks over time: analysis takes the rows of the last one */
        json_object_set_new(root, "sampling", watch_autotick_json(w->autotick));
    if (cmd)
        json_object_set_new(root, "exit_code", json_integer(exit_code));
    watch_json_add(root, w, have_cg_before ? &cg_before : NULL, have_cg_after ? &cg_after : NULL, marks);
    if (jstates)
        json_object_set_new(root, "mark_states", jstates);
    if (w->trace && trace_rc == 0)
        json_object_set_new(root, "trace",
                            json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:b}", "min_bytes", (json_int_t)w->trace_min,
                                      "processes", (json_int_t)tsum.n_files, "killed", (json_int_t)tsum.n_killed,
                                      "buffers", (json_int_t)tsum.n_buffers, "sites", (json_int_t)tsum.n_sites,
                                      "never_freed_bytes", (json_int_t)tsum.never_freed_bytes, "symbols",
                                      tsum.symbols));
    if (w->trace && trace_rc == 0) { /* the allocator's own mappings; processes with their own allocator */
        json_object_set_new(json_object_get(root, "trace"), "allocator_mapped_bytes",
                            json_integer((json_int_t)tsum.allocator_bytes));
        json_object_set_new(json_object_get(root, "trace"), "static_allocator_processes",
                            json_integer((json_int_t)tsum.n_static_allocator));
    }
    if (cap)
        run_outcome_set(root, outcome, w->mem_limit, cap, have_cg ? &after : NULL);
    json_object_set_new(json_object_get(root, "config"), "kill_after_s", json_real(w->kill_after));
    json_object_set_new(json_object_get(root, "config"), "thin_after_s", json_real(w->thin_after));
    json_object_set_new(json_object_get(root, "config"), "thin_interval_s", json_real(w->thin_interval));
    if (watch_signalled) {
        /* watch's own SIGINT/SIGTERM: which, how many, what it did with them */
        char sig1[16];
        sig_name(sig1, atomic_load(&watch_first_sig));
        json_object_set_new(root, "signal", json_string(sig1));
        json_object_set_new(root, "stop",
                            json_pack("{s:s, s:i, s:s, s:i, s:b}", "signal", sig1, "received",
                                      atomic_load(&watch_n_sig), "passed_to",
                                      cmd ? "the command's process group" : "nobody (not watch's process)",
                                      "passed_on", forwarded, "sigkill_after_kill_after", escalated));
    }
    if (write_rc < 0) {
        snprintf(derr, sizeof derr, "cannot write %s: %s", bad_path, strerror(-write_rc));
        json_object_set_new(root, "error", json_string(derr));
    }
    char err[4400];
    int save_rc = run_outcome_save(dir, root, err, sizeof err);
    json_decref(root);
    watch_proc_guard_release(&guard); /* the command ended as watch meant */

    char b1[32], b2[32], b3[32], every[64];
    snprintf(every, sizeof every, "%llu ms", (unsigned long long)w->period);
    if (w->autotick && watch_autotick_tick(w->autotick) != w->period)
        snprintf(every, sizeof every, "%llu -> %u ms (--sample-ms auto)", (unsigned long long)w->period,
                 watch_autotick_tick(w->autotick));
    if (!cmd && !pid)
        console_say(&con, "watched cgroup %s for %.1f s: %llu samples every %s (median tick %.0f us)%s",
                    cgroup_stat_path(w->cg), wall, (unsigned long long)ticks, every, med,
                    interrupted ? ", interrupted" : "");
    else
        console_say(&con, "watched %s %d for %.1f s: %llu samples every %s (median tick %.0f us)%s",
                    cmd ? "command" : "process", (int)pid, wall, (unsigned long long)ticks, every, med,
                    interrupted ? ", interrupted" : "");
    if (w->mark)
        console_say(&con, "  marks      %llu lines matched --mark (proofs_done; marks.csv)", (unsigned long long)marks);
    console_say(&con, "  RSS first %s, last %s, peak %s", fmt_bytes(b1, first), fmt_bytes(b2, last),
                fmt_bytes(b3, (double)peak));
    if (states_line[0])
        console_say(&con, "  states     %s", states_line);
    /* the verdict is analyze's, from the files just written: one engine */
    if (write_rc == 0 && save_rc == 0) {
        analyze_run_t *arun = NULL;
        analyze_result_t ar;
        char aerr[768];
        run_csv_set_warn(cli_warn_csv);
        if (analyze_run_open(&arun, &ar, dir, NULL, aerr, sizeof aerr) == 0) {
            say_verdict(&con, &ar, w->quiet ? "" : "  ", "  ");
            if (analyze_write_verdict(dir, &ar, aerr, sizeof aerr) < 0)
                console_say(&con, "  note       %s", aerr);
            analyze_result_clear(&ar);
            analyze_run_free(arun);
        } else {
            console_final(&con, "%sverdict    cannot be given: %s", w->quiet ? "" : "  ", aerr);
        }
    }
    if (w->trace && trace_rc == 0) {
        char est[64] = ""; /* small blocks never freed, estimated from the samples */
        if (tsum.sampled_never_freed_est >= 1)
            snprintf(est, sizeof est, " (+ %s estimated in small blocks)", fmt_bytes(b2, tsum.sampled_never_freed_est));
        console_say(&con, "  trace      %zu process(es)%s, %zu allocations >= %llu B at %zu sites, never freed %s%s%s",
                    tsum.n_files, tsum.n_killed ? " (some ended without exit)" : "", tsum.n_buffers,
                    (unsigned long long)w->trace_min, tsum.n_sites, fmt_bytes(b1, (double)tsum.never_freed_bytes), est,
                    tsum.symbols || !tsum.n_buffers ? "" : " (symbols not resolved: module+offset labels)");
        for (size_t i = 0; i < tsum.n_top; i++)
            console_say(&con, "    never freed %10s in %llu allocation(s)%s at %s",
                        fmt_bytes(b1, (double)tsum.top[i].never_freed_bytes),
                        (unsigned long long)tsum.top[i].n_never_freed,
                        tsum.top[i].estimated ? " and sampled small blocks (an estimate)" : "", tsum.top[i].site);
        if (tsum.allocator_bytes) /* what it mapped beyond the live blocks is its overhead */
            console_say(&con, "    allocator  %s mapped by the allocator itself, %s beyond the live blocks traced "
                        "(retained, fragmentation); not counted at sites", fmt_bytes(b1, (double)tsum.allocator_bytes),
                        fmt_bytes(b2, tsum.allocator_bytes > tsum.heap_live_bytes
                                          ? (double)(tsum.allocator_bytes - tsum.heap_live_bytes) : 0));
        if (tsum.n_static_allocator)
            console_say(&con, "    note: %s, its own allocator: traced through mmap/brk only", tsum.static_allocator);
        if (!tsum.n_files)
            console_say(&con, "    no process was traced (a statically linked or setuid program ignores LD_PRELOAD)");
    }
    console_say(&con, "  files      %s/", dir);
    if (write_rc < 0)
        return cli_error(1, "watch: %s%s", derr, save_rc < 0 ? "; run.json not written" : " (run.json says failed)");
    if (trace_rc < 0) /* a damaged trace file is bad input (2); anything else, 1 */
        return cli_error(trace_rc == -EINVAL ? 2 : 1, "watch: --trace: %s", terr);
    if (save_rc < 0)
        return cli_error(1, "watch: %s", err);
    if (oom) {
        char lim[32], pk[32];
        fmt_bytes(lim, (double)w->mem_limit);
        fmt_bytes(pk, (double)(after.peak ? after.peak : peak));
        return cli_error(3, "watch: the command was OOM-killed under --mem-limit %s at peak %s; files in %s/", lim, pk,
                         dir);
    }
    return cmd ? exit_code : 0;
}

/* --cgroup and --mark, checked before anything is written. 0 or an exit
 * status after one error line. */
static int watch_inputs_open(struct watch_opts *w, const char *cgroup_arg)
{
    char err[1024];
    if (w->mark_re && watch_mark_new(&w->mark, w->mark_re, err, sizeof err) < 0)
        return cli_error(2, "watch: --mark: bad regular expression '%s': %s", w->mark_re, err);
    int rc;
    if (w->mark_file && (rc = watch_mark_follow(w->mark, w->mark_file)) < 0)
        return cli_error(2, "watch: --mark-file %s: %s", w->mark_file,
                         rc == -EINVAL ? "not a regular file or a FIFO" : strerror(-rc));
    if (cgroup_arg && cgroup_stat_open(&w->cg, cgroup_arg, err, sizeof err) < 0)
        return cli_error(2, "watch: %s", err);
    return 0;
}

/* watch_run, inside a capped cgroup with --mem-limit. */
static int watch_capped(const struct watch_opts *w)
{
    if (!w->mem_limit)
        return watch_run(w, NULL);
    /* made before anything else, so a refusal leaves nothing behind */
    char err[1024];
    memcap_t *cap = NULL;
    int rc = memcap_new(&cap, w->mem_limit, err, sizeof err);
    if (rc < 0)
        return cli_error(2, "watch: --mem-limit: %s", err);
    rc = watch_run(w, cap);
    memcap_free(cap);
    return rc;
}

int cmd_watch(int argc, char **argv)
{
    bool children = true;
    const char *cgroup_arg = NULL, *mark_re = NULL, *mark_file = NULL;
    bool trace = false, trace_min_set = false, kill_after_set = false;
    double kill_after = 10, thin_after = 3600, thin_interval = 10;
    uint64_t trace_min = 1u << 20;
    uint64_t pid_arg = 0, period = 100, mem_limit = 0;
    bool sample_auto = false;
    const char *out = NULL;
    bool smaps = false, gpu = false, force = false, quiet = false;
    struct metrics_opts mo;
    metrics_opts_init(&mo);
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_watch, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        const char *val = a.val;
        switch (c) {
        case OPT_PID:
            if (!cli_parse_u64(&pid_arg, "watch", "pid", val))
                return 2;
            if (pid_arg == 0 || pid_arg > 0x7fffffff)
                return cli_error(2, "watch: --pid must be a process id, got %s", val);
            break;
        case OPT_OUT: out = val; break;
        case OPT_FORCE: force = true; break;
        case OPT_SAMPLE_MS: {
            char *end;
            errno = 0;
            sample_auto = strcmp(val, "auto") == 0;
            period = sample_auto ? 100 : strtoull(val, &end, 10);
            if (!sample_auto && (*val < '0' || *val > '9' || errno || *end || period == 0 || period > 60000))
                return cli_error(2, "watch: --sample-ms must be 1..60000 (ms) or auto, got '%s'", val);
            break;
        }
        case OPT_SMAPS: smaps = true; break;
        case OPT_GPU: gpu = true; break;
        case OPT_MEM_LIMIT:
            if (!analyze_parse_size(&mem_limit, val))
                return cli_error(2, "watch: --mem-limit must be a size such as 512M, 1.5G or 2GiB, got '%s'", val);
            break;
        case OPT_TRACE: trace = true; break;
        case OPT_TRACE_MIN:
            if (!analyze_parse_size(&trace_min, val))
                return cli_error(2, "watch: --trace-min must be a size such as 4096, 64K or 1M, got '%s'", val);
            trace_min_set = true;
            break;
        case METRICS_OPT_LISTEN:
        case METRICS_OPT_FILE:
        case METRICS_OPT_LINGER:
        case METRICS_OPT_VERDICT_S: {
            char merr[256];
            if (metrics_opts_set(&mo, c, val, merr, sizeof merr) < 0)
                return cli_error(2, "watch: %s", merr);
            break;
        }
        case OPT_KILL_AFTER: {
            char *end;
            errno = 0;
            kill_after = strtod(val, &end);
            if (errno || end == val || *end || !(kill_after >= 0 && kill_after <= 86400))
                return cli_error(2, "watch: --kill-after must be seconds in 0..86400 (0: never), got '%s'", val);
            kill_after_set = true;
            break;
        }
        case OPT_THIN_AFTER:
        case OPT_THIN_INTERVAL: {
            char *end;
            errno = 0;
            double v = strtod(val, &end);
            bool after = c == OPT_THIN_AFTER;
            if (errno || end == val || *end || !(v >= 0 && v <= 31536000) || (!after && !(v >= 0.001)))
                return cli_error(2, "watch: --%s must be seconds in %s..31536000, got '%s'",
                                 after ? "thin-after" : "thin-interval", after ? "0" : "0.001", val);
            *(after ? &thin_after : &thin_interval) = v;
            break;
        }
        case OPT_NO_CHILDREN: children = false; break;
        case OPT_CGROUP: cgroup_arg = val; break;
        case OPT_MARK: mark_re = val; break;
        case OPT_MARK_FILE: mark_file = val; break;
        case OPT_QUIET: quiet = true; break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    char **cmd = a.ind < argc ? argv + a.ind : NULL;
    if (cmd && pid_arg)
        return cli_error(2, "watch: give either --pid PID or -- CMD ARGS..., not both");
    if (!cmd && !pid_arg && !cgroup_arg)
        return cli_error(2, "watch: nothing to watch: give --pid PID, -- CMD ARGS... or --cgroup PATH (see zkbench "
                            "watch --help)");
    if (mark_file && !mark_re)
        return cli_error(2, "watch: --mark-file needs --mark REGEX (the lines to count)");
    if (mark_re && !cmd && !mark_file)
        return cli_error(2, "watch: --mark reads the output of a command watch starts (-- CMD ARGS...), not of %s",
                         pid_arg ? "--pid" : "a --cgroup");
    if (mem_limit && pid_arg)
        return cli_error(2, "watch: --mem-limit caps only a command watch starts (-- CMD ARGS...), not --pid");
    if (trace && !cmd)
        return cli_error(2, "watch: --trace preloads the tracer into a command it starts (-- CMD ARGS...), not %s",
                         pid_arg ? "--pid" : "a --cgroup");
    if (trace_min_set && !trace)
        return cli_error(2, "watch: --trace-min needs --trace");
    if (kill_after_set && !cmd)
        return cli_error(2, "watch: --kill-after is for a command watch starts (-- CMD ARGS...), not %s",
                         pid_arg ? "--pid" : "a --cgroup");
    /* what can be checked is checked before the run folder is made */
    char perr[4400];
    if (cmd && watch_proc_check_command(cmd[0], perr, sizeof perr) < 0)
        return cli_error(2, "watch: %s", perr);
    if (pid_arg && watch_proc_check_pid((pid_t)pid_arg, perr, sizeof perr) < 0)
        return cli_error(2, "watch: %s", perr);

    struct watch_opts w = {.pid = (pid_t)pid_arg, .cmd = cmd, .out = out, .period = period, .mem_limit = mem_limit,
                           .smaps = smaps, .gpu = gpu, .force = force, .children = children, .mark_re = mark_re, .mark_file = mark_file, .thin_after = thin_after,
                           .thin_interval = thin_interval,
                           .trace = trace, .trace_min = trace_min, .quiet = quiet, .kill_after = kill_after,
                           .out_existed = out && access(out, F_OK) == 0};
    int rc = watch_inputs_open(&w, cgroup_arg);
    if (rc == 0 && sample_auto && watch_autotick_new(&w.autotick, (unsigned)period) < 0)
        rc = cli_error(1, "watch: out of memory");
    /* the port bound before any work: one in use is refused (exit 2) */
    char err[4400];
    metrics_export_t *mx = NULL;
    if (rc == 0 && metrics_export_new(&mx, &mo, err, sizeof err) < 0)
        rc = cli_error(2, "watch: %s", err);
    struct watch_metrics_run wm = {.cmd = cmd, .pid = w.pid, .cg = w.cg, .marks = w.mark != NULL, .gpu = gpu,
                                   .quiet = quiet, .mem_limit = mem_limit};
    if (rc == 0 && mx) {
        if (watch_metrics_begin(mx, &wm, err, sizeof err) < 0)
            rc = cli_error(1, "watch: %s", err);
        else
            w.metrics = metrics_export_metrics(mx), w.mx = mx;
    }
    if (rc == 0)
        rc = watch_capped(&w);
    if (mx) {
        if (w.metrics && metrics_export_address(mx) && mo.linger_s && !watch_stop && !quiet) {
            printf("  metrics    serving the final values until scraped (at most %u s)\n", mo.linger_s);
            fflush(stdout);
        }
        if (w.metrics && metrics_export_end(mx, &watch_stop, err, sizeof err) < 0)
            cli_error(0, "watch: %s", err);
        metrics_export_free(mx);
    }
    cgroup_stat_free(w.cg);
    watch_mark_free(w.mark);
    watch_autotick_free(w.autotick);
    return rc;
}
