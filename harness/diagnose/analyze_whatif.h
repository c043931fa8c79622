/*
 * What each change would buy (issue 29; docs/diagnosis.md, "What-if"): the
 * capacity model of a batch run (capacity.h) with one thing changed, its
 * predicted peak at the run's pw and the largest pw that fits the run's
 * limit, ranked by the pw gained. The changes:
 *   - a tracked kind freed at its last use (buffers.csv t_last_use_ms),
 *     for every kind a partition holds past its last use;
 *   - each occupancy bound one step lower: the prover queue's depth, the
 *     prover workers, the finishing slots, the proofs in flight;
 *   - on the GPU backend, the b_g2 scalars (pending) kept on the device;
 *   - allocator retention purged: the capacity model's retention term at
 *     zero (made by jemalloc's decay 0; --purge-after partition returns
 *     less at a peak).
 * Each entry names the switch that makes it (`--free-at-last-use aux`,
 * `--concurrency 1`, MALLOC_CONF's decay 0), or says it is a model result
 * only. The model holds bytes, not times: the change in s/proof cannot be
 * given, and says so. Internal to harness/diagnose/.
 */
#ifndef ZKB_ANALYZE_WHATIF_H
#define ZKB_ANALYZE_WHATIF_H

#include <stdio.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_run.h"

/* The entries into R->json's "what_if" (an array; empty where the model
 * gives no numbers, with "what_if_why"), and R->whatif_line, the top
 * entry's line when the verdict is capacity. 0 or -ENOMEM. */
int analyze_whatif(analyze_result_t *R, const analyze_run_t *run);

/* The what-if section of analyze's text. */
void analyze_whatif_text(FILE *f, const analyze_result_t *R);

#endif
