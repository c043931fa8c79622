/*
 * `zkbench report`: one self-contained HTML page of a run, to open offline
 * or attach to a bug report: the verdict and its evidence, the summary
 * tables (settings, memory by layer, never-freed buffers or traced sites,
 * capacity, proof and stage times), the full text of `zkbench analyze` and
 * the plots inline as SVG. No script, no external style, font or image;
 * every string taken from the run is escaped for HTML.
 */
#ifndef ZKB_REPORT_H
#define ZKB_REPORT_H

#include <stddef.h>

#include "harness/diagnose/analyze.h"

/* Writes the report of run_dir (a batch or watch run, or a sweep folder
 * holding sweep.csv) to out_path (NULL: run_dir/report.html). The run is
 * loaded and analyzed before anything is written (as `zkbench analyze`
 * would, with opts; NULL: its defaults; run.json is not changed); the page is written
 * under a temporary name beside out_path and renamed at the end, so a
 * failure leaves no file. The plots are drawn with gnuplot into a
 * temporary folder, removed afterwards; without gnuplot the page says so
 * in their place. Returns 0, or -errno with one line in err: -ENOENT,
 * -ENOTDIR or -EINVAL for a missing or damaged run, the errno of out_path
 * when it cannot be written. */
int report_write(const char *run_dir, const analyze_opts_t *opts, const char *out_path, char *err, size_t errlen);

#endif
