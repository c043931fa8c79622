/*
 * The end of the main job (README, "Main job"): a batch that ran to its
 * end is diagnosed as `zkbench analyze` would (analyze.h; the verdict is
 * written into run.json), its figures are drawn as `zkbench plot` would
 * (plot.h), and the console gets the verdict line, the numbers behind it
 * and the paths of what was written.
 */
#ifndef ZKB_BATCH_END_H
#define ZKB_BATCH_END_H

#include <stddef.h>

#include "harness/run/console.h"
#include "harness/diagnose/analyze.h"

/* The evidence behind r's verdict: up to 4 lines of at most 320 bytes
 * ("memory   baseline RSS 12.1 MiB, peak RSS 25.3 MiB, ..."). Returns the
 * number of lines. */
size_t batch_end_evidence(char lines[4][320], const analyze_result_t *r);

/* Analyzes, plots and prints for the run in run_dir. A diagnosis or a
 * figure that cannot be made (too few samples; gnuplot missing) is said in
 * one line on stderr; the verdict is printed whenever there is one. Returns
 * 0 when the verdict was printed and everything written, 1 when a figure
 * or the report could not be written (a full disk: said in one line naming
 * the file), else -errno (no diagnosis). */
int batch_end_diagnose(console_t *con, const char *run_dir);

#endif
