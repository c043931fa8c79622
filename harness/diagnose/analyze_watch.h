/*
 * The diagnosis of a zkbench watch run (analyze_compute calls it): process
 * layers, valley floors between proof boundaries, the trend to the end, and
 * with --trace the allocation sites. See docs/diagnosis.md, "Watch runs".
 */
#ifndef ZKB_ANALYZE_WATCH_H
#define ZKB_ANALYZE_WATCH_H

#include <stddef.h>

#include "harness/diagnose/analyze.h"

/* Same contract as analyze_compute, for a run where analyze_run_is_watch()
 * holds and samples.csv has at least one row. */
int analyze_watch_compute(analyze_result_t *ret, const analyze_run_t *run, const analyze_opts_t *opts, char *err,
                          size_t errlen);

#endif
