/*
 * Figures of a run with gnuplot: the scripts in scripts/plot/NAME.gp draw them,
 * zkbench writes their data (GiB, seconds) into a temporary folder and runs
 * gnuplot as a subprocess, which must exit 0 with nothing on stderr.
 */
#ifndef ZKB_PLOT_H
#define ZKB_PLOT_H

#include <stddef.h>

#include "harness/diagnose/analyze.h"

/* Finds the folder of the gnuplot scripts: $ZKBENCH_PLOT_DIR, then
 * <exe>/../share/zkbench/plot, then scripts/plot in a folder above the
 * executable, then the source tree of the meson build the executable is in
 * (meson-info/meson-info.json). Returns 0 or -ENOENT. */
int plot_scripts_dir(char *ret, size_t len);

/* Draws memory, kinds and buffers (.png and .svg each) for a loaded run, and
 * sweep when run_dir holds a sweep.csv, into out_dir (created if missing).
 * written (may be NULL) receives the basenames drawn, space separated.
 * Returns 0; -EINVAL for bad input (sweep.csv, out_dir); -ENOENT when
 * gnuplot or the scripts are missing; -EIO when gnuplot failed or printed on
 * stderr. err gets one line. */
int plot_run(const analyze_run_t *run, const char *run_dir, const char *out_dir, char *written, size_t wlen,
             char *err, size_t errlen);

/* Draws OUT_DIR/sweep.{png,svg} from a sweep table (columns pw, s_per_proof,
 * peak_rss, predicted_peak_rss, optional ram_bytes), for `zkbench sweep`.
 * Same returns as plot_run. */
int plot_sweep(const char *sweep_csv, const char *out_dir, char *err, size_t errlen);

#endif
