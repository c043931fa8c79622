/*
 * Figures of a run with gnuplot. The scripts (harness/plot/gp/NAME.gp) are
 * compiled into the binary, so `zkbench plot` needs no files but the run's
 * and no environment variable; zkbench writes the data (in the unit that
 * fits the run: B, KiB, MiB, GiB) and the scripts into a temporary folder
 * and runs gnuplot as a subprocess, which must exit 0 with nothing on
 * stderr. $ZKBENCH_PLOT_DIR, when set, replaces the embedded scripts by
 * that folder's (for editing them without a rebuild).
 */
#ifndef ZKB_PLOT_H
#define ZKB_PLOT_H

#include <stddef.h>

#include "harness/diagnose/analyze.h"

/* Draws memory, kinds (batch runs with tracked kinds), buffers (runs with
 * buffers) and whatif (runs whose analysis has what-if entries), .png and
 * .svg each, and sweep when run_dir holds a sweep.csv, into out_dir
 * (created if missing). The run is diagnosed as `zkbench analyze RUN_DIR`
 * does, with opts (NULL: analyze's defaults; its verdict goes into
 * memory's title; run.json is not changed). written (may be NULL) receives the basenames drawn, space
 * separated. Every figure is drawn to a temporary name and all are renamed
 * together, so a failure leaves none of them. Returns 0; -EINVAL for bad
 * input (no samples, sweep.csv, out_dir); -ENOENT when gnuplot is missing;
 * -EIO when gnuplot failed or printed on stderr. err gets one line. */
int plot_run(const analyze_run_t *run, const analyze_opts_t *opts, const char *run_dir, const char *out_dir,
             char *written, size_t wlen, char *err, size_t errlen);

/* Draws OUT_DIR/sweep.{png,svg} from a sweep table (columns pw, s_per_proof,
 * peak_rss, predicted_peak_rss, optional predicted_low, predicted_high,
 * ram_bytes, mem_limit (empty when unknown), outcome) and sweep-model.csv
 * beside it when there, for `zkbench sweep`. Same returns as plot_run. */
int plot_sweep(const char *sweep_csv, const char *out_dir, char *err, size_t errlen);

/* The largest pw a what-if entry (one of analyze's JSON what_if[]) lets fit,
 * against the pw that fits now: "pw 3 → 4", "pw 4 → any", or "no limit
 * to fit a pw to" (the figure's and the report's words). */
void plot_whatif_pw_text(char *buf, size_t len, const json_t *entry);
/* The largest pw that fits now, from the same entry: "3", "none", or, where
 * the occupancy bounds cap the memory below the limit, "any (pw above 5
 * adds no memory)", so a title never reads "5" where the entries say any. */
void plot_whatif_now_text(char *buf, size_t len, const json_t *entry, int largest_pw);

#endif
