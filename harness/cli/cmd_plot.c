/*
 * `zkbench plot RUN_DIR [--out DIR]`: memory, kinds and buffers figures of a
 * run (and sweep when RUN_DIR holds sweep.csv), PNG and SVG, drawn by
 * gnuplot with the scripts compiled in (harness/plot). Exit 0; 1 when
 * gnuplot is missing or fails; 2 for a bad RUN_DIR or --out.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "harness/diagnose/analyze.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/run_csv.h"
#include "harness/plot/plot.h"

static void usage(FILE *f)
{
    fputs("usage: zkbench plot RUN_DIR [--out DIR]\n"
          "Draws a run with gnuplot into DIR (default RUN_DIR), each as .png and .svg:\n"
          "  memory   RSS, je_allocated, je_resident, tracked and GPU memory over time,\n"
          "           proof completions marked; for a watch run RSS, RssAnon, RssFile,\n"
          "           the cgroup, GPU and traced bytes, with its marks\n"
          "  kinds    live tracked bytes stacked by buffer kind (batch)\n"
          "  buffers  one bar per buffer from allocation to free, coloured by kind\n"
          "           (batch) or allocation site (watch --trace)\n"
          "  sweep    peak RSS against pw with the model and RAM (RUN_DIR/sweep.csv)\n"
          "Figures are drawn to temporary names and renamed together at the end, so a\n"
          "failure leaves none of them. Exit 0; 1: gnuplot missing or failed; 2: bad\n"
          "RUN_DIR (e.g. no samples).\n",
          f);
}

int cmd_plot(int argc, char **argv)
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
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': usage(stdout); return 0;
        default: return cli_bad_option("plot", argc, argv);
        }
    }
    if (optind >= argc)
        return cli_error(2, "plot: RUN_DIR is required (see zkbench plot --help)");
    if (optind + 1 < argc)
        return cli_error(2, "plot: unexpected argument '%s'", argv[optind + 1]);
    const char *dir = argv[optind];
    if (!out)
        out = dir;
    char err[768], written[256];
    /* a sweep folder (zkbench sweep's) holds sweep.csv and one folder per
     * run, but no samples of its own: draw the sweep alone */
    char samples[4200], sweep_csv[4200];
    snprintf(samples, sizeof samples, "%s/samples.csv", dir);
    snprintf(sweep_csv, sizeof sweep_csv, "%s/sweep.csv", dir);
    if (access(samples, F_OK) != 0 && access(sweep_csv, R_OK) == 0) {
        run_csv_set_warn(cli_warn_csv);
        int rc = plot_sweep(sweep_csv, out, err, sizeof err);
        if (rc < 0)
            return cli_error(rc == -EINVAL ? 2 : 1, "plot: %s", err);
        printf("plotted  sweep into %s (.png and .svg)\n", out);
        return 0;
    }
    analyze_run_t *run = NULL;
    run_csv_set_warn(cli_warn_csv);
    if (analyze_run_load(&run, dir, err, sizeof err) < 0)
        return cli_error(2, "plot: %s", err);
    int rc = plot_run(run, dir, out, written, sizeof written, err, sizeof err);
    analyze_run_free(run);
    if (rc == -EINVAL)
        return cli_error(2, "plot: %s", err);
    if (rc < 0)
        return cli_error(1, "plot: %s", err);
    printf("plotted  %s into %s (.png and .svg)\n", written, out);
    return 0;
}
