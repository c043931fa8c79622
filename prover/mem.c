/* Tracked buffers; see mem.h. */
#include "prover/mem.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MEM_HEADER_BYTES 64
#define MEM_MAGIC 0x7a6b6d656d627566ull /* "zkmembuf" */

/* Sits in the 64 bytes before a mem_alloc pointer. */
struct mem_header {
    uint64_t magic;
    uint64_t id;
    uint64_t bytes;
    int32_t kind, proof, partition, pad;
};

static _Atomic uint64_t live_bytes[MEM_KIND_COUNT];
static atomic_uint_fast64_t next_id = 1;
static atomic_uint_fast64_t n_allocs, n_frees, n_bad_frees;
static atomic_bool events_on = true;
static mem_sink_fn sink_fn;
static void *sink_ctx;

static const char *const kind_names[MEM_KIND_COUNT] = {
    [MEM_KIND_PARAMS] = "params",     [MEM_KIND_CIRCUIT] = "circuit",
    [MEM_KIND_AUX] = "aux",           [MEM_KIND_ABC] = "abc",
    [MEM_KIND_NTT] = "ntt",           [MEM_KIND_H] = "h",
    [MEM_KIND_MSM] = "msm",           [MEM_KIND_PENDING] = "pending",
    [MEM_KIND_PINNED] = "pinned",     [MEM_KIND_OTHER] = "other",
    [MEM_KIND_GPU_PARAMS] = "gpu_params", [MEM_KIND_GPU_ABC] = "gpu_abc",
    [MEM_KIND_GPU_NTT] = "gpu_ntt",   [MEM_KIND_GPU_H] = "gpu_h",
    [MEM_KIND_GPU_MSM] = "gpu_msm",   [MEM_KIND_GPU_OTHER] = "gpu_other",
};

const char *mem_kind_name(enum mem_kind kind)
{
    if ((unsigned)kind >= MEM_KIND_COUNT)
        return NULL;
    return kind_names[kind];
}

uint64_t mem_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mem_set_sink(mem_sink_fn fn, void *ctx)
{
    sink_ctx = ctx;
    sink_fn = fn;
}

void mem_set_events(bool on)
{
    atomic_store(&events_on, on);
}

static void mem_emit(uint64_t id, enum mem_kind kind, int device, int proof, int partition,
                     uint64_t bytes, bool is_free, bool is_use)
{
    if (!sink_fn || !atomic_load_explicit(&events_on, memory_order_relaxed))
        return;
    struct mem_event ev = {
        .id = id, .bytes = bytes, .t_ns = mem_now_ns(), .kind = kind,
        .device = device, .proof = proof, .partition = partition, .is_free = is_free,
        .is_use = is_use,
    };
    sink_fn(sink_ctx, &ev);
}

uint64_t mem_note_alloc(enum mem_kind kind, int device, int proof, int partition, size_t bytes)
{
    if ((unsigned)kind >= MEM_KIND_COUNT)
        kind = MEM_KIND_OTHER;
    uint64_t id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&live_bytes[kind], bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_allocs, 1, memory_order_relaxed);
    mem_emit(id, kind, device, proof, partition, bytes, false, false);
    return id;
}

void mem_note_free(uint64_t id, enum mem_kind kind, int device, int proof, int partition, size_t bytes)
{
    if ((unsigned)kind >= MEM_KIND_COUNT)
        kind = MEM_KIND_OTHER;
    atomic_fetch_sub_explicit(&live_bytes[kind], bytes, memory_order_relaxed);
    atomic_fetch_add_explicit(&n_frees, 1, memory_order_relaxed);
    mem_emit(id, kind, device, proof, partition, bytes, true, false);
}

void *mem_alloc(enum mem_kind kind, int proof, int partition, size_t bytes)
{
    if (bytes > SIZE_MAX - MEM_HEADER_BYTES)
        return NULL;
    /* aligned_alloc wants a multiple of the alignment */
    size_t total = (MEM_HEADER_BYTES + bytes + 63) & ~(size_t)63;
    unsigned char *raw = aligned_alloc(64, total);
    if (!raw)
        return NULL;
    if ((unsigned)kind >= MEM_KIND_COUNT)
        kind = MEM_KIND_OTHER;
    struct mem_header *h = (struct mem_header *)raw;
    h->magic = MEM_MAGIC;
    h->bytes = bytes;
    h->kind = kind;
    h->proof = proof;
    h->partition = partition;
    h->id = mem_note_alloc(kind, MEM_HOST, proof, partition, bytes);
    return raw + MEM_HEADER_BYTES;
}

void *mem_calloc(enum mem_kind kind, int proof, int partition, size_t bytes)
{
    void *p = mem_alloc(kind, proof, partition, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void mem_free(void *p)
{
    if (!p)
        return;
    struct mem_header *h = (struct mem_header *)((unsigned char *)p - MEM_HEADER_BYTES);
    /* A pointer that did not come from mem_alloc is a bug in the caller;
     * the magic check keeps it from corrupting the counters or the heap. */
    if (h->magic != MEM_MAGIC) {
        atomic_fetch_add_explicit(&n_bad_frees, 1, memory_order_relaxed);
        return;
    }
    h->magic = 0;
    mem_note_free(h->id, (enum mem_kind)h->kind, MEM_HOST, h->proof, h->partition, h->bytes);
    free(h);
}

uint64_t mem_live_bytes(enum mem_kind kind)
{
    if ((unsigned)kind >= MEM_KIND_COUNT)
        return 0;
    return atomic_load_explicit(&live_bytes[kind], memory_order_relaxed);
}

void mem_counts(uint64_t *allocs, uint64_t *frees)
{
    *allocs = atomic_load(&n_allocs);
    *frees = atomic_load(&n_frees);
}

uint64_t mem_bad_frees(void)
{
    return atomic_load(&n_bad_frees);
}

void mem_touch(void *p)
{
    if (!p)
        return;
    struct mem_header *h = (struct mem_header *)((unsigned char *)p - MEM_HEADER_BYTES);
    if (h->magic != MEM_MAGIC)
        return;
    mem_emit(h->id, (enum mem_kind)h->kind, MEM_HOST, h->proof, h->partition, h->bytes, false, true);
}
