/*
 * Running gnuplot for the figures of harness/plot: the scripts
 * (harness/plot/gp/NAME.gp) are compiled into the binary by gp_embed.py, written
 * into a private temporary folder next to the data they draw, and run there,
 * so `zkbench plot` draws from any folder. A script reads its parameters from
 * DATADIR/vars.gp (plot_vars_*) and is run as
 *   gnuplot -c DATADIR/NAME.gp DATADIR PNG SVG
 * drawing the two files. Figures are outputs (out_file.h: a device, FIFO or
 * folder at their name is refused, a symlink followed): drawn to temporary
 * names beside their targets, checked whole (gnuplot exits 0 after a
 * failed write: a PNG must end with its IEND chunk, an SVG with </svg>),
 * and renamed together at the end (plot_figs_*), so a failure leaves none
 * of them.
 */
#ifndef ZKB_PLOT_GP_H
#define ZKB_PLOT_GP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *name; /* file name, e.g. "memory.gp" */
    const char *text;
} plot_gp_script_t;

/* The embedded scripts, ending with {NULL, NULL} (generated plot_gp_scripts.c). */
extern const plot_gp_script_t plot_gp_scripts[];

/* Creates the temporary folder ($TMPDIR or /tmp) and writes the scripts into
 * it: the embedded ones, or for development those of $ZKBENCH_PLOT_DIR when
 * it is set (every embedded name must be there). Returns 0, -EIO or -ENOENT
 * with one line in err; on failure nothing is left behind. */
int plot_gp_setup(char *tmp, size_t len, char *err, size_t errlen);
/* Removes the temporary folder and everything in it. */
void plot_gp_cleanup(const char *tmp);

/* Opens TMP/NAME for writing; NULL with one line in err. */
FILE *plot_gp_open(const char *tmp, const char *name, char *err, size_t errlen);
/* Closes a file opened by plot_gp_open: 0 or -EIO (a write failed). */
int plot_gp_close(FILE *f, char *err, size_t errlen);

/* Parameters of the next script, written to TMP/vars.gp as gnuplot
 * assignments: a string (single-quoted; control characters become spaces)
 * or a number (NaN when not finite). */
void plot_vars_str(FILE *f, const char *name, const char *value);
void plot_vars_num(FILE *f, const char *name, double value);

/* Runs TMP/SCRIPT on TMP, drawing png and svg. Returns 0; -ENOENT when
 * gnuplot is missing; -EIO when it failed or printed anything on stderr (a
 * warning is a failure: it means a figure is not what the script meant). */
int plot_gp_run(const char *tmp, const char *script, const char *png, const char *svg, char *err, size_t errlen);

/* Whether the figure at path (shown: its name for the message) is whole:
 * a PNG whose chunks run to IEND at the file's end, an SVG that ends with
 * </svg>. 0, or one line in err: -ENOSPC (cut off, and the folder's
 * filesystem is full), -EIO (empty or cut off). */
int plot_gp_check_output(const char *path, const char *shown, bool svg, char *err, size_t errlen);

struct out_file;

/* The figures of one plot command, drawn to temporary names beside their
 * targets in out_dir and renamed into place together. */
typedef struct {
    const char *out_dir;
    char names[8][16];
    struct out_file *files[8][2]; /* .png, .svg of each (allocated) */
    size_t n;
} plot_figs_t;

/* Draws figure NAME (NAME.png, NAME.svg) with SCRIPT, vars.gp already
 * written. On failure the figure's temporary files are removed: -EINVAL
 * for a target that is not a regular file (out_file_begin), gnuplot's
 * codes, plot_gp_check_output's. */
int plot_figs_draw(plot_figs_t *F, const char *tmp, const char *script, const char *name, char *err,
                   size_t errlen);
/* Renames every drawn figure into place; their names go to written (space
 * separated; may be NULL). On failure every figure is removed. */
int plot_figs_commit(plot_figs_t *F, char *written, size_t wlen, char *err, size_t errlen);
/* Removes the drawn figures (after a failure). */
void plot_figs_discard(plot_figs_t *F);

/* Makes out_dir (mkdir -p) or checks that it is a writable folder: 0 or
 * -EINVAL with one line in err. */
int plot_ensure_dir(const char *dir, char *err, size_t errlen);

#endif
