/*
 * `zkbench trace collect RUN_DIR`: the collector of `watch --trace`
 * (harness/trace/trace_collect.h) run on its own, while watch still runs or
 * after it: RUN_DIR/buffers.csv, sites.csv and trace/processes.csv from the
 * trace files as they are now. Exit 0; 1 a file could not be written; 2 bad
 * arguments, no RUN_DIR/trace/, or a damaged trace file.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/trace/trace_collect.h"
#include "harness/trace/trace_env.h"

static const cli_opt_t trace_collect_opts[] = {
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_trace_collect = {
    .name = "trace collect",
    .summary = "turn a watch --trace run's trace files into buffers.csv and sites.csv, also while it runs",
    .synopsis = "zkbench trace collect RUN_DIR",
    .about = "Reads RUN_DIR/trace/ (every traced process's files, docs/trace-format.md) and\n"
             "writes RUN_DIR/buffers.csv, RUN_DIR/sites.csv and RUN_DIR/trace/processes.csv,\n"
             "as watch does when its command ends. It can run while watch runs: what the\n"
             "processes wrote so far is collected (a line being written is skipped), and\n"
             "watch's own collection at the end replaces these files. The programs'\n"
             "zkbench_mark calls are appended to marks.csv only once watch has ended\n"
             "(run.json written) and marks.csv has none yet. One pass over each file:\n"
             "time and memory grow with its events, not with events times stacks.\n",
    .opts = trace_collect_opts,
    .epilog = "exit: 0 collected; 1 an output could not be written; 2 bad arguments, RUN_DIR\n"
              "without trace/, or a trace file that is not one (its header).\n",
};

static const char *human(char *buf, size_t cap, double v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

/* whether marks.csv already holds rows of source api */
static bool has_api_marks(const char *dir)
{
    char path[4200], line[1024];
    snprintf(path, sizeof path, "%s/marks.csv", dir);
    FILE *f = fopen(path, "r");
    bool any = false;
    while (f && !any && fgets(line, sizeof line, f))
        any = strstr(line, ",api,") != NULL;
    if (f)
        fclose(f);
    return any;
}

int cmd_trace(int argc, char **argv)
{
    /* zkbench trace collect ...: the one subcommand */
    if (argc < 2 || strcmp(argv[1], "collect") != 0)
        return cli_error(2, "trace: expected 'trace collect RUN_DIR' (zkbench trace collect --help)");
    argc--;
    argv++;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_trace_collect, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0)
        ;
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 1, 1, "RUN_DIR"))
        return 2;
    const char *dir = argv[a.ind];
    char tdir[4200], path[4200];
    struct stat st;
    snprintf(tdir, sizeof tdir, "%s/trace", dir);
    if (stat(tdir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cli_error(2, "trace collect: %s is not a watch --trace run (no folder %s)", dir, tdir);
    double t0 = -1;
    bool known_t0 = trace_env_load_t0(dir, &t0) == 0;
    snprintf(path, sizeof path, "%s/run.json", dir);
    bool ended = stat(path, &st) == 0;
    struct trace_collect_summary sum;
    char err[1024] = "";
    int rc = trace_collect_marks(dir, known_t0 ? t0 : -1, ended && !has_api_marks(dir), &sum, err, sizeof err);
    if (rc < 0)
        return cli_error(rc == -EINVAL || rc == -ENOENT ? 2 : 1, "trace collect: %s", err);
    char b[32];
    char est[64] = "", e[32];
    if (sum.sampled_never_freed_est >= 1)
        snprintf(est, sizeof est, " (+ %s estimated in small blocks)", human(e, sizeof e, sum.sampled_never_freed_est));
    printf("trace: %zu process(es)%s, %zu allocations at %zu sites, never freed %s%s%s\n", sum.n_files,
           sum.n_killed ? (ended ? " (some ended without exit)" : " (some still running)") : "", sum.n_buffers,
           sum.n_sites, human(b, sizeof b, (double)sum.never_freed_bytes), est,
           known_t0 ? "" : " (times from the first traced process's start: no trace/t0)");
    for (size_t i = 0; i < sum.n_top; i++)
        printf("  never freed %10s%s at %s\n", human(b, sizeof b, (double)sum.top[i].never_freed_bytes),
               sum.top[i].estimated ? " (sampled estimate)" : "", sum.top[i].site);
    if (sum.allocator_bytes) {
        char b2[32];
        printf("  allocator  %s mapped by the allocator itself, %s beyond the live blocks traced (retained, "
               "fragmentation); not counted at sites\n", human(b, sizeof b, (double)sum.allocator_bytes),
               human(b2, sizeof b2, sum.allocator_bytes > sum.heap_live_bytes
                                        ? (double)(sum.allocator_bytes - sum.heap_live_bytes) : 0));
    }
    if (sum.n_static_allocator)
        printf("  note: %zu process(es) with their own allocator (%s): traced through mmap/brk only\n",
               sum.n_static_allocator, sum.static_allocator);
    printf("  files      %s/buffers.csv %s/sites.csv %s/processes.csv\n", dir, dir, tdir);
    return 0;
}
