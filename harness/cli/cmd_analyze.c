/*
 * `zkbench analyze RUN_DIR`: the diagnosis of a run (analyze.h): a report
 * with the memory layers side by side, or one JSON object with --json; the
 * verdict is written into RUN_DIR/run.json either way, unless --no-save or
 * the run's process is alive (run.json is its writer's until the end, and a
 * write of ours could undo one of its own). Exit 0 after a
 * diagnosis (whatever the verdict), 2 for bad arguments or run files.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_text.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/limit_opts.h"
#include "harness/run/run_csv.h"


enum { OPT_JSON = 'j', OPT_NO_SAVE = 'n' };

static const cli_opt_t analyze_opts[] = {
    LIMIT_OPTS,
    {"json", OPT_JSON, NULL, "print one JSON object instead of the report"},
    {"no-save", OPT_NO_SAVE, NULL, "do not write the verdict into RUN_DIR/run.json"},
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_analyze = {
    .name = "analyze",
    .summary = "diagnose a run: leak, retention, held-too-long, queue-pileup, capacity",
    .synopsis = "zkbench analyze RUN_DIR [--ram SIZE | --mem-limit SIZE] [--margin PCT] [--json] [--no-save]",
    .about = "Diagnoses a run of zkbench batch or watch: leak, queue-pileup, held-too-long,\n"
             "retention, capacity or healthy, with the numbers behind it, the bytes a\n"
             "partition holds in each pipeline state, the predicted peak for other pw\n"
             "values and the largest pw that fits --ram or --mem-limit less --margin.\n"
             "The verdict is also written into RUN_DIR/run.json, except with --no-save\n"
             "or while the run's process is alive (run.json is its writer's until the\n"
             "run ends; the status line says still running). A watch run is judged\n"
             "from its RSS layers' valley floors per proof (marks.csv, proofs_done) or per\n"
             "second, and with --trace by allocation site. See docs/diagnosis.md.\n",
    .opts = analyze_opts,
    .epilog = "terms in the report:\n"
              "  pw            synthesis workers: partitions synthesized in parallel\n"
              "  L0 tracked    bytes of the prover's tracked buffers (sum of live_<kind>)\n"
              "  L1 heap       je_allocated: all heap allocations, tracked or not\n"
              "  L2 allocator  je_resident: what jemalloc holds in RAM (L1 + fragmentation\n"
              "                + freed pages it kept)\n"
              "  L3 process    rss; L3-L2 is memory outside the heap (pinned, CUDA, mmap)\n"
              "  g             growth per completed proof (per second in a watch run\n"
              "                without proof marks): the fit's slope, with its 95% CI\n"
              "  valley floor  a layer's minimum between two proof completions; floors\n"
              "                that rise confirm a leak\n"
              "  je_muzzy      pages jemalloc purged lazily (MADV_FREE): still counted in\n"
              "                RSS until the kernel needs them\n"
              "exit: 0 diagnosed (whatever the verdict); 1 the verdict could not be written\n"
              "into run.json; 2 bad arguments or run files.\n",
};

int cmd_analyze(int argc, char **argv)
{
    analyze_opts_t o = LIMIT_OPTS_INIT;
    bool json = false, save = true;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_analyze, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        int t = limit_opt_take(&o, c, a.val, "analyze");
        if (t < 0)
            return 2;
        if (t > 0)
            continue;
        switch (c) {
        case OPT_JSON: json = true; break;
        case OPT_NO_SAVE: save = false; break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 1, 1, "RUN_DIR"))
        return 2;
    const char *dir = argv[a.ind];
    char err[768];
    analyze_run_t *run = NULL;
    analyze_result_t r;
    run_csv_set_warn(cli_warn_csv);
    if (analyze_run_open(&run, &r, dir, &o, err, sizeof err) < 0)
        return cli_error(2, "analyze: %s", err);
    int status = 0;
    if (save && !r.live && analyze_write_verdict(dir, &r, err, sizeof err) < 0)
        status = cli_error(1, "analyze: %s", err);
    if (json) {
        json_dumpf(r.json, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
    } else {
        analyze_text_write(stdout, dir, &r);
    }
    analyze_result_clear(&r);
    analyze_run_free(run);
    return status;
}

