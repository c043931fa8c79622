/*
 * `zkbench analyze RUN_DIR`: the diagnosis of a run (analyze.h): a report
 * with the memory layers side by side, or one JSON object with --json; the
 * verdict is written into RUN_DIR/run.json either way. Exit 0 after a
 * diagnosis (whatever the verdict), 2 for bad arguments or run files.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_text.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/run_csv.h"

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

static void usage(FILE *f)
{
    fputs("usage: zkbench analyze RUN_DIR [--ram SIZE | --mem-limit SIZE] [--margin PCT] [--json]\n"
          "Diagnoses a run of zkbench batch or watch: leak, queue-pileup, held-too-long,\n"
          "retention, capacity or healthy, with the numbers behind it, the bytes a\n"
          "partition holds in each pipeline state, the predicted peak for other pw\n"
          "values and the largest pw that fits --ram or a cgroup's --mem-limit (e.g.\n"
          "755GiB, 128G, 64000000000; default: the run's own --mem-limit, else its\n"
          "machine RAM) less --margin percent (default 10). --json prints one JSON\n"
          "object. The verdict is also written into RUN_DIR/run.json. A watch run is\n"
          "judged from its RSS layers' valley floors per proof (marks.csv, proofs_done)\n"
          "or per second, and with --trace by allocation site.\n"
          "See docs/diagnosis.md.\n",
          f);
}

int cmd_analyze(int argc, char **argv)
{
    static const struct option opts[] = {
        {"ram", required_argument, NULL, 'r'}, {"margin", required_argument, NULL, 'm'},
        {"mem-limit", required_argument, NULL, 'L'},
        {"json", no_argument, NULL, 'j'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    analyze_opts_t o = {.ram_bytes = 0, .margin = 0.10};
    bool json = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
        case 'L':
            if (o.ram_bytes)
                return cli_error(2, "analyze: give one of --ram and --mem-limit");
            if (!analyze_parse_size(&o.ram_bytes, optarg) || o.ram_bytes == 0)
                return cli_error(2, "analyze: --%s must be a size like 755GiB, 128G or 64000000000, got '%s'",
                                 c == 'r' ? "ram" : "mem-limit", optarg);
            o.ram_from = c == 'r' ? "--ram" : "--mem-limit";
            break;
        case 'm': {
            char *end;
            double m = strtod(optarg, &end);
            if (end == optarg || (*end && strcmp(end, "%") != 0) || !(m >= 0 && m < 100))
                return cli_error(2, "analyze: --margin must be a percentage in [0, 100), got '%s'", optarg);
            o.margin = m / 100;
            break;
        }
        case 'j': json = true; break;
        case 'h': usage(stdout); return 0;
        default: return cli_bad_option("analyze", argc, argv);
        }
    }
    if (optind >= argc)
        return cli_error(2, "analyze: RUN_DIR is required (see zkbench analyze --help)");
    if (optind + 1 < argc)
        return cli_error(2, "analyze: unexpected argument '%s'", argv[optind + 1]);
    const char *dir = argv[optind];
    char err[768];
    analyze_run_t *run = NULL;
    analyze_result_t r;
    run_csv_set_warn(cli_warn_csv);
    if (analyze_run_load(&run, dir, err, sizeof err) < 0)
        return cli_error(2, "analyze: %s", err);
    if (analyze_compute(&r, run, &o, err, sizeof err) < 0) {
        analyze_run_free(run);
        return cli_error(2, "analyze: %s", err);
    }
    int status = 0;
    if (analyze_write_verdict(dir, &r, err, sizeof err) < 0)
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

