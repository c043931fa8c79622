/*
 * What every figure shares: the byte unit of an axis (the unit fmt_bytes
 * would print for the axis's largest value, so ticks never read "0.005 GiB"),
 * one fixed colour per buffer kind (the same kind has the same colour in
 * every run and no two kinds share one), and the run's name for titles.
 */
#ifndef ZKB_PLOT_STYLE_H
#define ZKB_PLOT_STYLE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    double div;       /* bytes per unit */
    const char *name; /* "B", "KiB", "MiB", "GiB", "TiB" */
} plot_unit_t;

/* The unit fmt_bytes (harness/run/units.h) chooses for max_bytes. */
plot_unit_t plot_unit_for(double max_bytes);

/* The colour of a buffer kind, "#rrggbb": fixed for the kinds of
 * prover/mem.h (a device kind gpu_X is a lighter shade of X's hue); other
 * names get one of a second palette by a hash of the name. */
const char *plot_kind_color(const char *kind);
/* Whether a kind is device memory (gpu_*). */
bool plot_kind_is_device(const char *kind);
/* Order of kinds in legends and stacks: the kinds of prover/mem.h in their
 * order, then others by name. */
int plot_kind_cmp(const char *a, const char *b);

/* The run's name for a title: the basename of the absolute folder (never
 * "." or ".."), into buf. Returns buf. */
const char *plot_run_name(char *buf, size_t len, const char *run_dir);

/* Appends word to the space-separated list in buf (cut at len). */
void plot_words_add(char *buf, size_t len, const char *word);

#endif
