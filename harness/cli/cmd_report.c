/*
 * `zkbench report RUN [-o FILE]`: one self-contained HTML page of a run
 * (harness/report/report.h), default RUN/report.html. Exit 0; 2 for a bad
 * argument, a missing or damaged run or an unwritable FILE (nothing is
 * written then); 1 when writing failed midway.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/report/report.h"
#include "harness/run/run_csv.h"

static void usage(FILE *f)
{
    fputs("usage: zkbench report RUN [-o FILE]\n"
          "Writes one self-contained HTML page of a run of zkbench batch or watch (or a\n"
          "sweep folder): the verdict and its evidence as zkbench analyze gives them, the\n"
          "run's settings, memory by layer, never-freed buffers or traced sites, the\n"
          "capacity prediction, proof and stage times, and the plots inline as SVG\n"
          "(drawn with gnuplot; without it the page says so). No scripts and nothing\n"
          "fetched: it opens offline and can be attached to a bug report.\n"
          "  -o, --out FILE  where to write it (default RUN/report.html)\n"
          "  -h, --help      this text\n"
          "The run is checked before anything is written; run.json is not changed.\n"
          "Exit 0; 1: writing failed; 2: bad arguments, a missing or damaged run, or an\n"
          "unwritable FILE.\n",
          f);
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: return cli_bad_option("report", argc, argv);
        }
    }
    if (optind >= argc)
        return cli_error(2, "report: RUN is required (see zkbench report --help)");
    if (optind + 1 < argc)
        return cli_error(2, "report: unexpected argument '%s'", argv[optind + 1]);
    const char *dir = argv[optind];
    char err[1024];
    run_csv_set_warn(cli_warn_csv);
    int rc = report_write(dir, out, err, sizeof err);
    if (rc < 0)
        return cli_error(rc == -EIO || rc == -ENOSPC || rc == -ENOMEM || rc == -EDQUOT ? 1 : 2, "report: %s",
                         err);
    if (out)
        printf("report   %s\n", out);
    else
        printf("report   %s/report.html\n", dir);
    return 0;
}
