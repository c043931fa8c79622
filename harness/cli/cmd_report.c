/*
 * `zkbench report RUN [-o FILE]`: one self-contained HTML page of a run
 * (harness/report/report.h), default RUN/report.html. Exit 0; 2 for a bad
 * argument, a missing or damaged run or an unwritable FILE (nothing is
 * written then); 1 when writing failed midway.
 */
#include <errno.h>
#include <stdio.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/limit_opts.h"
#include "harness/report/report.h"
#include "harness/run/run_csv.h"

static const cli_opt_t report_opts[] = {
    {"out", 'o', "FILE", "where to write it (default RUN/report.html)"},
    LIMIT_OPTS,
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_report = {
    .name = "report",
    .summary = "one self-contained HTML page of a run: verdict, tables, plots",
    .synopsis = "zkbench report RUN [-o FILE] [--ram SIZE | --mem-limit SIZE] [--margin PCT]",
    .about = "Writes one self-contained HTML page of a run of zkbench batch or watch (or a\n"
             "sweep folder): the verdict and its evidence as zkbench analyze gives them, the\n"
             "run's settings, memory by layer, never-freed buffers or traced sites, the\n"
             "capacity prediction and what each change would buy (what-if), proof and stage\n"
             "times, and the plots inline as SVG (drawn with gnuplot; without it the page\n"
             "says so). No scripts and nothing fetched: it opens offline and can be attached\n"
             "to a bug report. The run is checked before anything is written, and analyzed\n"
             "as zkbench analyze does with the same --ram, --mem-limit and --margin;\n"
             "run.json is not changed.\n",
    .opts = report_opts,
    .letters = "o=out",
    .epilog = "exit: 0 written; 1 writing failed; 2 bad arguments, a missing or damaged run, or\n"
              "an unwritable FILE (nothing is written then).\n",
};

int cmd_report(int argc, char **argv)
{
    const char *out = NULL;
    analyze_opts_t o = LIMIT_OPTS_INIT;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_report, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        int t = limit_opt_take(&o, c, a.val, "report");
        if (t < 0)
            return 2;
        if (c == 'o')
            out = a.val;
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 1, 1, "RUN"))
        return 2;
    const char *dir = argv[a.ind];
    char err[1024];
    run_csv_set_warn(cli_warn_csv);
    int rc = report_write(dir, &o, out, err, sizeof err);
    if (rc < 0)
        return cli_error(rc == -EIO || rc == -ENOSPC || rc == -ENOMEM || rc == -EDQUOT ? 1 : 2, "report: %s",
                         err);
    if (out)
        printf("report   %s\n", out);
    else
        printf("report   %s/report.html\n", dir);
    return 0;
}
