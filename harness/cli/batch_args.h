/*
 * The values of batch's options that have a grammar of their own (--inject,
 * --gpus) and its counts, and the checks that span options (--free-at-last-use
 * against --inject, --mem-budget with --model). Each returns false after one
 * error line ("batch: --gpus must be ...") and leaves o as it was for that
 * option.
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
/* --free-at-last-use beside the planted faults: a kind cannot be freed at
 * its last use and leaked or held past it. */
bool batch_args_check_frees(const struct batch_opts *o);
/* --mem-budget and --model together: --model needs --mem-budget; without
 * --model the budget learns with the sampler (--sample-ms above 0); with
 * it, the capacity model of that run (analyze's, so its rules apply: a
 * killed run has none) is read now, into storage of this file, and must
 * admit one partition under the budget. Sets o->model. */
bool batch_args_budget(struct batch_opts *o);

#endif
