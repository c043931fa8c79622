/*
 * The verdict rules of a batch run (analyze_rules.c); analyze_compute
 * (analyze_engine.c) calls them for every run that is not a watch.
 */
#ifndef ZKB_ANALYZE_RULES_H
#define ZKB_ANALYZE_RULES_H

#include <stddef.h>

#include "harness/diagnose/analyze.h"

/* Same contract as analyze_compute, for a batch run. */
int analyze_batch_compute(analyze_result_t *ret, const analyze_run_t *run, const analyze_opts_t *opts, char *err,
                          size_t errlen);

#endif
