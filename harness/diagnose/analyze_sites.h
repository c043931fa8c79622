/*
 * The allocation sites of a traced watch run (`watch --trace`): buffers.csv
 * rows grouped by site, never-freed and held bytes per site, names from
 * sites.csv, the run's L0 (live traced bytes at each sample) and each
 * site's lowest live bytes per interval, for the floor rule of
 * analyze_watch.c. See docs/diagnosis.md, "Watch runs".
 */
#ifndef ZKB_ANALYZE_SITES_H
#define ZKB_ANALYZE_SITES_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/run/run_csv.h"

typedef struct {
    char key[256];      /* buffers.csv site column, else the kind (labels run to 255 bytes) */
    char label[256];    /* the kind as written (function@file:line or a user tag) */
    char function[256]; /* from sites.csv, else the label before '@' */
    char where[160];    /* "file:line" (file's base name), or "" */
    double never_freed;       /* bytes of buffers without t_free_ms (or sites.csv's, if larger) */
    double small_never_freed; /* what sites.csv counts beyond buffers.csv (below --trace-min) */
    double held_gibs;         /* sum of bytes x lifetime (never freed: to the run's end), GiB*s */
    double bytes_total;
    size_t n, n_never;  /* buffers, never-freed buffers */
    bool in_buffers;    /* false: a site of sites.csv alone (no times, no floors) */
    double *floors;     /* analyze_sites_floors: lowest live bytes per interval */
    double *ev_t, *ev_d; /* allocation (+bytes) and free (-bytes) events */
    size_t n_ev;
} analyze_site_t;

typedef struct {
    analyze_site_t *v; /* sorted: most never-freed bytes first, then most held */
    size_t n;
    double never_freed; /* all sites */
    double *tracked;    /* live traced bytes at each sample time; NULL without buffers */
} analyze_sites_t;

/* Groups buffers.csv (schema of analyze.c's watch loading) by site, adds
 * sites.csv's names and never-freed bytes, and the live traced bytes at
 * each of the n sample times t (ms). 0 or -ENOMEM; *ret is the caller's
 * (analyze_sites_free), zeroed when there are no buffers and no sites. */
int analyze_sites_load(analyze_sites_t *ret, const run_csv_t *buffers, const run_csv_t *sites, const double *t,
                       size_t n);
/* For every site with buffers: its lowest live bytes over each interval
 * [a_k, b_k] (ms), k < m. 0 or -ENOMEM. */
int analyze_sites_floors(analyze_sites_t *s, const double *a, const double *b, size_t m);
/* Frees what the two above allocated; accepts NULL and a zeroed struct. */
void analyze_sites_free(analyze_sites_t *s);

#endif
