/*
 * Which allocation sites grow with pw in a command sweep with --trace
 * (`zkbench sweep --pw LIST --trace -- CMD`): for each completed point, the
 * bytes each traced site holds live at the run's peak RSS (the watch's
 * buffers.csv: allocated at or before the peak's sample, freed after it or
 * never), fitted over the points as bytes = B + F*pw (sweep_line_fit).
 * A site absent from a point holds 0 there. sweep-sites.csv gets every
 * site's fit (site,per_pw_bytes,per_pw_low,per_pw_high,fixed_bytes,
 * points,at_peak_bytes_by_pw), largest F first; the console the sites
 * that hold the most: "partition+0x23 holds 20.0 MiB per pw; main+0x6a
 * 30.0 MiB fixed".
 */
#ifndef ZKB_SWEEP_SITES_H
#define ZKB_SWEEP_SITES_H

#include <stddef.h>
#include <stdio.h>

typedef struct sweep_sites sweep_sites_t;

/* 0 or -ENOMEM. */
int sweep_sites_new(sweep_sites_t **ret);
/* The sites of one completed point's run folder. 0, or -errno with err
 * (no buffers.csv or samples.csv, a row that does not parse). */
int sweep_sites_add(sweep_sites_t *s, unsigned pw, const char *run_dir, char *err, size_t errlen);
/* Fits, writes dir/sweep-sites.csv (validated, through out_file) and says
 * the top sites on out. 0, or -errno with err. Fewer than two distinct pw
 * values: nothing fitted, one line on out saying so, 0. */
int sweep_sites_write(sweep_sites_t *s, const char *dir, FILE *out, char *err, size_t errlen);
/* NULL accepted. */
void sweep_sites_free(sweep_sites_t *s);

#endif
