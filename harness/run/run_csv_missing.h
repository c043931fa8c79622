/*
 * Missing cells of a run's CSV (run_csv_opts_t sparse_ok): a writer leaves
 * a cell empty when a read fails (NVML, a cgroup file), never writes 0, and
 * the reader leaves such rows out instead of refusing the file.
 */
#ifndef ZKB_RUN_CSV_MISSING_H
#define ZKB_RUN_CSV_MISSING_H

#include "harness/run/run_csv.h"

/* Leaves out of c's kept rows those with an empty cell in a column that is
 * neither absent nor allowed to be empty (counted in c->rows_missing). */
void run_csv_drop_missing(run_csv_t *c);

#endif
