/*
 * Prover busy and device busy of a batch run (analyze_busy.c), for the
 * batch rules.
 */
#ifndef ZKB_ANALYZE_BUSY_H
#define ZKB_ANALYZE_BUSY_H

#include <jansson.h>

#include "harness/diagnose/analyze.h"

/* Sets R->prove_busy (NAN when stages.csv has no heavy rows) and adds the
 * "prove_busy" section to J; cfg is run.json's config. */
void analyze_busy(analyze_result_t *R, const analyze_run_t *run, const json_t *cfg, json_t *J);

#endif
