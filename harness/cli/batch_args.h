/*
 * The values of batch's options that have a grammar of their own (--inject,
 * --gpus) and its counts. Each returns false after one error line
 * ("batch: --gpus must be ...") and leaves o as it was for that option.
 */
#ifndef ZKB_BATCH_ARGS_H
#define ZKB_BATCH_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/run/batch.h"

/* One --inject value into o->pc.faults (and the dealloc settings), and
 * appended to o->inject_text: leak:KIND[:EVERY], hold:KIND:MS,
 * serial-dealloc:MS, no-purge, pileup. */
bool batch_args_inject(struct batch_opts *o, const char *text);
/* --NAME's value into *out: 1..max. */
bool batch_args_count(unsigned *out, const char *name, const char *text, uint64_t max);
/* --gpus: "all", or a comma-separated list of device numbers and ranges
 * (0,1 or 0-3), each device once. */
bool batch_args_gpus(struct batch_opts *o, const char *text);

/* --free-at-last-use: a comma-separated list of prover/mem.h's kinds, each
 * once, each one the prover holds past its last use
 * (GROTH16_FREE_AT_LAST_USE), into o->pc.free_at_last_use. */
bool batch_args_free_at_last_use(struct batch_opts *o, const char *text);
/* --purge-after and --trim: none, partition or proof. */
bool batch_args_purge(enum pipeline_trim *out, const char *flag, const char *text);
/* --model: the capacity model of the run in dir (analyze's, so its rules
 * apply: a killed run has none) as the budget's model. 0, or a negative
 * errno with one line in err (no prefix). */
int batch_args_model(struct mem_budget_model *m, const char *dir, char *err, size_t cap);

#endif
