/*
 * A run's files as analyze_run_load leaves them (analyze_load.c): what the
 * batch and watch rules read besides analyze.h's accessors. Internal to
 * harness/diagnose/.
 */
#ifndef ZKB_ANALYZE_RUN_H
#define ZKB_ANALYZE_RUN_H

#include <jansson.h>
#include <stdbool.h>

#include "harness/diagnose/analyze.h"
#include "harness/run/run_csv.h"

/* A run's files as loaded (analyze_load.c). */
struct analyze_run {
    char *dir;
    run_csv_t samples, buffers, stages, proofs, marks, sites;
    bool watch; /* a run of zkbench watch (analyze_watch.c) */
    json_t *run_json;
    json_t *notes; /* array of strings */
};

#endif
