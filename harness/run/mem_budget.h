/*
 * Admission by memory (zkbench batch --mem-budget SIZE; docs/diagnosis.md,
 * "Admission by memory"): a semaphore counted in bytes. A partition enters
 * synthesis only when the bytes its coming states will need, from a
 * capacity model, fit under the budget beside the baseline and what the
 * partitions in flight have reserved; its reservation shrinks as it moves
 * to cheaper states and is returned when it is done. Free memory is never
 * sampled: a sampled check lets a burst through, a reservation does not.
 *
 * The model comes from an earlier run (its capacity model, capacity.h, as
 * batch's --model reads it) or is learned from this run's first
 * MEM_BUDGET_LEARN partitions, admitted one at a time: the bytes of every
 * host buffer tagged with the partition in each state (through the mem
 * sink, as the capacity model counts them), and the RSS above the baseline
 * meanwhile (the sampler's rows) for the untracked share.
 *
 * The *_locked calls are made under the pipeline's lock, which is the
 * semaphore's mutex (its condition variable wakes the waiters; the caller
 * broadcasts after a move or a release). The sink and the sample hook take
 * the budget's own lock, and only while a partition is being learned.
 */
#ifndef ZKB_MEM_BUDGET_H
#define ZKB_MEM_BUDGET_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "prover/mem.h"

/* The states that hold memory, in the capacity model's order (capacity.h:
 * enum mem_budget_state), so its bytes per state are copied index by index. */
enum mem_budget_state {
    MEM_BUDGET_SYNTH,  /* witness and a, b, c being made */
    MEM_BUDGET_HELD,   /* synthesized, waiting for a prover (blocked or queued) */
    MEM_BUDGET_PROVE,  /* prove_start */
    MEM_BUDGET_FINISH, /* finishing */
    MEM_BUDGET_NSTATES
};

/* Partitions of this run a model is learned from, one in flight at a time. */
#define MEM_BUDGET_LEARN 2

/* What a partition holds, by state, and the RSS that comes with it. */
struct mem_budget_model {
    double state_bytes[MEM_BUDGET_NSTATES]; /* tracked host bytes of one partition per state */
    double untracked_share;               /* k: RSS beyond them, as a share of them */
    double baseline;                      /* B of the model's run (RSS); 0: none */
    unsigned partitions;                  /* partitions measured */
    char source[4200];                    /* "run DIR" or "this run" */
};

/* The bytes a partition reserves on entering state s under model m: (1 + k)
 * times the most any later state holds. */
uint64_t mem_budget_model_need(const struct mem_budget_model *m, enum mem_budget_state s);

typedef struct mem_budget mem_budget_t;

/* A budget of `budget` bytes of RSS. model NULL: learned from this run;
 * else copied. rss_start: RSS before the first partition; the baseline is
 * the larger of it and the model's. 0 or -ENOMEM. */
int mem_budget_new(mem_budget_t **ret, uint64_t budget, const struct mem_budget_model *model, uint64_t rss_start);
/* NULL is accepted. */
void mem_budget_free(mem_budget_t *b);

/* Tries to admit partition (proof, partition) into synthesis: 1 admitted
 * with *reserved its reservation, 0 to wait (for a release, or while the
 * model is learned), -E2BIG when even alone it cannot fit (nothing else
 * reserved; mem_budget_refusal says why). */
int mem_budget_admit_locked(mem_budget_t *b, int proof, int partition, uint64_t *reserved);
/* The partition moved to state s: its reservation shrinks to that state's
 * need. */
void mem_budget_move_locked(mem_budget_t *b, int proof, int partition, enum mem_budget_state s, uint64_t *reserved);
/* The partition is done (or dropped: then it teaches the model nothing):
 * its reservation is returned. */
void mem_budget_done_locked(mem_budget_t *b, int proof, int partition, bool dropped, uint64_t *reserved);
/* Bytes reserved now (samples.csv reserved_bytes). */
uint64_t mem_budget_reserved_locked(const mem_budget_t *b);

/* A mem sink (mem.h) that measures the partition being learned, then
 * passes the event on to next (run_files_mem_sink); ctx = the budget. */
void mem_budget_sink(void *ctx, const struct mem_event *ev);
void mem_budget_set_next_sink(mem_budget_t *b, mem_sink_fn next, void *next_ctx);
/* A sampler row's RSS (the sampler thread). */
void mem_budget_on_rss(mem_budget_t *b, uint64_t rss);

/* After -E2BIG: one line (no prefix) saying what one partition needs. */
void mem_budget_refusal(const mem_budget_t *b, char *out, size_t cap);
/* run.json's mem_budget: the budget, the baseline, the model (its source,
 * bytes per state, untracked share), the needs and the peak reserved. New
 * reference. */
json_t *mem_budget_json(mem_budget_t *b);

#endif
