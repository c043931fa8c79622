/*
 * The capacity model of a watch run whose program marked its partitions'
 * states (zkbench_mark "synth start"/"synth end", ...: the occupancy
 * columns of samples.csv, harness/run/mark_states.h). The model is
 * capacity.h's, predicted and worded by the same code; only its inputs
 * differ from a batch's, since a foreign program's buffers carry no
 * partition: the bytes a partition holds in each state are fitted from
 * RSS over the occupancy (docs/diagnosis.md, "A watched prover's states"):
 *
 *   rss = B + sum over states s of F_s * n_s
 *
 * by least squares over the samples from up to a second before the first
 * state mark to the last one, and the pipeline's bounds are the most
 * partitions the marks showed in each state (pw: the most synthesizing at
 * once). Nothing here prints.
 */
#ifndef ZKB_CAPACITY_MARKS_H
#define ZKB_CAPACITY_MARKS_H

#include <stdbool.h>

#include "harness/diagnose/capacity.h"
#include "harness/run/run_csv.h"

/* Whether samples.csv has occupancy columns with values (a watch run
 * whose marks named states). */
bool capacity_marks_present(const run_csv_t *samples);

/* Fits m from a watch run's samples: 0 (m->ok tells whether numbers can be
 * given, m->why what would decide when not) or -ENOMEM. */
int capacity_marks_fit(capacity_model_t *m, const run_csv_t *samples);

#endif
