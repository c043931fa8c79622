/*
 * Tracked buffers: every allocation that matters (>= 64 KiB or
 * per-partition), host or device, goes through this API, so the harness can
 * account for every byte: live bytes per kind are kept in atomics the
 * sampler reads, and each alloc/free is an event with a monotonic
 * nanosecond timestamp delivered to a pluggable sink (buffers.csv).
 *
 * Host buffers: mem_alloc / mem_free (a 64-byte header before the returned
 * pointer carries the buffer's identity, so freeing needs only the pointer).
 * Memory the prover does not malloc itself (device memory, pinned
 * staging) is reported with mem_note_alloc / mem_note_free around the real
 * allocation. A proving key mapped from its layout cache (params_map.h) is
 * not: it is file-backed, not heap, and params_mapped_bytes reports it.
 *
 * Cost: one clock read and a relaxed atomic add under a shared lock, the
 * live-set update (host buffers) and the sink call per event; with events switched off (mem_set_events(false)) the counters are
 * still kept.
 */
#ifndef ZKB_MEM_H
#define ZKB_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Buffer kinds (DESIGN.md); the GPU kinds mirror the host roles. Keep
 * mem_kind_name() in step. */
enum mem_kind {
    MEM_KIND_PARAMS,  /* proving key decoded on the heap (a mapped key is not tracked) */
    MEM_KIND_CIRCUIT, /* pre-compiled constraint matrices, shared */
    MEM_KIND_AUX,     /* witness */
    MEM_KIND_ABC,     /* a, b, c evaluations */
    MEM_KIND_NTT,     /* evaluation domains, twiddles */
    MEM_KIND_H,       /* quotient polynomial */
    MEM_KIND_MSM,     /* MSM scratch, buckets, digit tables */
    MEM_KIND_PENDING, /* copies held by the split API until finish */
    MEM_KIND_PINNED,  /* page-locked staging */
    MEM_KIND_OTHER,
    MEM_KIND_GPU_PARAMS,
    MEM_KIND_GPU_ABC,
    MEM_KIND_GPU_NTT,
    MEM_KIND_GPU_H,
    MEM_KIND_GPU_MSM,
    MEM_KIND_GPU_OTHER,
    MEM_KIND_COUNT
};

enum mem_device {
    MEM_HOST = -1, /* device >= 0: that GPU */
};

struct mem_event {
    uint64_t id;       /* unique per buffer, from 1 */
    uint64_t bytes;
    uint64_t t_ns;     /* CLOCK_MONOTONIC */
    enum mem_kind kind;
    int device;        /* MEM_HOST or a GPU index */
    int proof;         /* -1: not tied to a proof (params, circuit) */
    int partition;     /* -1: not tied to a partition */
    bool is_free;
    bool is_use;       /* mem_touch: the buffer's contents were last used now */
};

/* Receives every event, on the allocating/freeing thread; must be cheap and
 * thread-safe. NULL: no sink. Set it before work starts. */
typedef void (*mem_sink_fn)(void *ctx, const struct mem_event *ev);
void mem_set_sink(mem_sink_fn fn, void *ctx);
/* Events on (default) or off; counters are kept either way. */
void mem_set_events(bool on);

/* Host buffer of `bytes` (64-byte aligned) tracked under kind, or NULL
 * (errno ENOMEM, no event) when memory is exhausted or bytes plus the
 * header would not fit a size_t. The caller frees it with
 * mem_free. bytes == 0 gives a valid, freeable buffer. */
void *mem_alloc(enum mem_kind kind, int proof, int partition, size_t bytes);
/* Frees a mem_alloc buffer; NULL is accepted and ignored. A pointer that
 * is not a live mem_alloc buffer (never one, or a second free) is looked up
 * in the set of live buffers, never dereferenced, not freed, and counted by
 * mem_bad_frees(), which the tests check is zero. */
void mem_free(void *p);
uint64_t mem_bad_frees(void);
/* Zeroed variant of mem_alloc. */
void *mem_calloc(enum mem_kind kind, int proof, int partition, size_t bytes);

/* Marks the last use of a mem_alloc buffer's contents (an event with
 * is_use set): the time between this and the free is memory held after its
 * last use. NULL is ignored. */
void mem_touch(void *p);

/* Records memory obtained elsewhere; returns the buffer id to pass to
 * mem_note_free. */
uint64_t mem_note_alloc(enum mem_kind kind, int device, int proof, int partition, size_t bytes);
void mem_note_free(uint64_t id, enum mem_kind kind, int device, int proof, int partition, size_t bytes);

/* Live bytes of every kind at one instant, which it returns (mem_now_ns's
 * clock): an event whose t_ns is before it is counted, one after it is not
 * (the sampler's rows agree with buffers.csv). */
uint64_t mem_live_snapshot(uint64_t live[MEM_KIND_COUNT]);
/* Live (allocated, not yet freed) bytes of a kind, all devices. */
uint64_t mem_live_bytes(enum mem_kind kind);
/* Totals since start: allocations and frees (any kind). */
void mem_counts(uint64_t *allocs, uint64_t *frees);
/* The kinds the Groth16 prove can free at their last use instead of later
 * (groth16_prove_opts.free_at_last_use, zkbench batch --free-at-last-use):
 * the witness and the b_g2 scalars. A mask of 1 << kind. */
#define MEM_KINDS_FREEABLE_AT_LAST_USE ((1u << MEM_KIND_AUX) | (1u << MEM_KIND_PENDING))
/* "params", "circuit", ..., "gpu_msm"; NULL for an unknown kind. */
const char *mem_kind_name(enum mem_kind kind);
/* Nanoseconds on the clock mem events use. */
uint64_t mem_now_ns(void);

#endif
