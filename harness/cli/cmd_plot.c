/*
 * `zkbench plot RUN_DIR [--out DIR] [--ram SIZE | --mem-limit SIZE]
 * [--margin PCT]`: memory, kinds, buffers and whatif figures of a run (and
 * sweep when RUN_DIR holds sweep.csv), PNG and SVG, drawn by gnuplot with
 * the scripts compiled in (harness/plot), from the analysis `zkbench
 * analyze` gives with the same limit options. Exit 0; 1 when
 * gnuplot is missing or fails; 2 for a bad RUN_DIR or --out.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "harness/diagnose/analyze.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/limit_opts.h"
#include "harness/run/run_csv.h"
#include "harness/plot/plot.h"

static const cli_opt_t plot_opts[] = {
    {"out", 'o', "DIR", "where the figures go (default RUN_DIR)"},
    LIMIT_OPTS,
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_plot = {
    .name = "plot",
    .summary = "draw a run's memory with gnuplot (PNG and SVG)",
    .synopsis = "zkbench plot RUN_DIR [--out DIR] [--ram SIZE | --mem-limit SIZE] [--margin PCT]",
    .about = "Draws a run with gnuplot into DIR (default RUN_DIR), each as .png and .svg:\n"
             "  memory   RSS, je_allocated, je_resident, tracked and GPU memory over time,\n"
             "           proof completions marked; for a watch run RSS, RssAnon, RssFile,\n"
             "           the cgroup, GPU and traced bytes, with its marks\n"
             "  kinds    live tracked bytes stacked by buffer kind (batch)\n"
             "  buffers  one bar per buffer from allocation to free, coloured by kind\n"
             "           (batch) or allocation site (watch --trace)\n"
             "  whatif   what each change would buy (analyze's what-if): a bar per change,\n"
             "           ranked by the pw gained, the peak it saves, the largest pw that\n"
             "           then fits; model results only hatched (runs with what-if entries)\n"
             "  sweep    peak RSS against pw with the model and RAM (RUN_DIR/sweep.csv)\n"
             "The run is diagnosed as zkbench analyze does with the same --ram, --mem-limit\n"
             "and --margin (default: the run's own limit).\n"
             "Figures are drawn to temporary names and renamed together at the end, so a\n"
             "failure leaves none of them.\n",
    .opts = plot_opts,
    .epilog = "exit: 0 drawn; 1 gnuplot missing or failed, or a figure it left empty or cut off\n"
              "(a full disk: the file is named, and no figure is kept); 2 bad arguments or RUN_DIR\n"
              "(e.g. no samples), or a figure's name taken by a device, FIFO, socket or folder.\n",
};

int cmd_plot(int argc, char **argv)
{
    const char *out = NULL;
    analyze_opts_t o = LIMIT_OPTS_INIT;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_plot, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        int t = limit_opt_take(&o, c, a.val, "plot");
        if (t < 0)
            return 2;
        if (c == 'o')
            out = a.val;
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 1, 1, "RUN_DIR"))
        return 2;
    const char *dir = argv[a.ind];
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
    int rc = plot_run(run, &o, dir, out, written, sizeof written, err, sizeof err);
    analyze_run_free(run);
    if (rc == -EINVAL)
        return cli_error(2, "plot: %s", err);
    if (rc < 0)
        return cli_error(1, "plot: %s", err);
    printf("plotted  %s into %s (.png and .svg)\n", written, out);
    return 0;
}
