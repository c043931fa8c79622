/* Tracked buffers; see mem.h. */
#include "prover/mem.h"

#include <errno.h>
#include <pthread.h>
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
/* Events take it shared around (timestamp, counter update); a snapshot
 * takes it exclusive around (clock, counters): so an event stamped before
 * a snapshot's time is in its counters and one stamped after is not.
 * Writer-preferring, so the sampler is never starved by allocations. */
static pthread_rwlock_t stamp_lock;
static pthread_once_t stamp_once = PTHREAD_ONCE_INIT;

/* The live mem_alloc headers: a set of pointers (open addressing, linear
 * probing, backward-shift deletion), so a free is checked against it and
 * never reads memory that is not a live buffer's (a second free, a foreign
 * pointer). */
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *set_slots;
static size_t set_cap, set_n;
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

static void stamp_init(void)
{
    pthread_rwlockattr_t a;
    pthread_rwlockattr_init(&a);
    pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&stamp_lock, &a);
    pthread_rwlockattr_destroy(&a);
}

/* Adds delta (two's complement for a free) to a kind's live bytes; returns
 * the event's time, consistent with mem_live_snapshot. */
static uint64_t stamp_add(enum mem_kind kind, uint64_t delta)
{
    if (!sink_fn || !atomic_load_explicit(&events_on, memory_order_relaxed)) {
        /* no event to agree with: the counter alone */
        atomic_fetch_add_explicit(&live_bytes[kind], delta, memory_order_relaxed);
        return 0;
    }
    pthread_once(&stamp_once, stamp_init);
    pthread_rwlock_rdlock(&stamp_lock);
    uint64_t t = mem_now_ns();
    atomic_fetch_add_explicit(&live_bytes[kind], delta, memory_order_relaxed);
    pthread_rwlock_unlock(&stamp_lock);
    return t;
}

uint64_t mem_live_snapshot(uint64_t live[MEM_KIND_COUNT])
{
    pthread_once(&stamp_once, stamp_init);
    pthread_rwlock_wrlock(&stamp_lock);
    uint64_t t = mem_now_ns();
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        live[k] = atomic_load_explicit(&live_bytes[k], memory_order_relaxed);
    pthread_rwlock_unlock(&stamp_lock);
    return t;
}

static void mem_emit(uint64_t id, enum mem_kind kind, int device, int proof, int partition,
                     uint64_t bytes, bool is_free, bool is_use, uint64_t t_ns)
{
    if (!sink_fn || !atomic_load_explicit(&events_on, memory_order_relaxed))
        return;
    struct mem_event ev = {
        .id = id, .bytes = bytes, .t_ns = t_ns, .kind = kind,
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
    uint64_t t = stamp_add(kind, bytes);
    atomic_fetch_add_explicit(&n_allocs, 1, memory_order_relaxed);
    mem_emit(id, kind, device, proof, partition, bytes, false, false, t);
    return id;
}

void mem_note_free(uint64_t id, enum mem_kind kind, int device, int proof, int partition, size_t bytes)
{
    if ((unsigned)kind >= MEM_KIND_COUNT)
        kind = MEM_KIND_OTHER;
    uint64_t t = stamp_add(kind, (uint64_t)0 - (uint64_t)bytes);
    atomic_fetch_add_explicit(&n_frees, 1, memory_order_relaxed);
    mem_emit(id, kind, device, proof, partition, bytes, true, false, t);
}

static size_t set_home(uintptr_t p, size_t cap)
{
    return (size_t)(((uint64_t)p >> 6) * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
}

static void set_put_locked(uintptr_t p)
{
    size_t i = set_home(p, set_cap);
    while (set_slots[i])
        i = (i + 1) & (set_cap - 1);
    set_slots[i] = p;
    set_n++;
}

/* Adds p; -ENOMEM when the set cannot grow. */
static int set_add(uintptr_t p)
{
    pthread_mutex_lock(&set_lock);
    if ((set_n + 1) * 2 > set_cap) {
        size_t cap = set_cap ? set_cap * 2 : 256;
        uintptr_t *t = calloc(cap, sizeof *t), *old = set_slots;
        size_t old_cap = set_cap;
        if (!t) {
            pthread_mutex_unlock(&set_lock);
            return -ENOMEM;
        }
        set_slots = t;
        set_cap = cap;
        set_n = 0;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                set_put_locked(old[i]);
        free(old);
    }
    set_put_locked(p);
    pthread_mutex_unlock(&set_lock);
    return 0;
}

static size_t set_find_locked(uintptr_t p)
{
    if (!set_cap)
        return SIZE_MAX;
    size_t i = set_home(p, set_cap);
    while (set_slots[i]) {
        if (set_slots[i] == p)
            return i;
        i = (i + 1) & (set_cap - 1);
    }
    return SIZE_MAX;
}

static void set_remove_locked(size_t i)
{
    size_t mask = set_cap - 1, j = i;
    set_slots[i] = 0;
    set_n--;
    for (;;) {
        j = (j + 1) & mask;
        if (!set_slots[j])
            return;
        size_t home = set_home(set_slots[j], set_cap);
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            set_slots[i] = set_slots[j];
            set_slots[j] = 0;
            i = j;
        }
    }
}

void *mem_alloc(enum mem_kind kind, int proof, int partition, size_t bytes)
{
    /* header plus rounding to the 64-byte multiple aligned_alloc wants must
     * not wrap around */
    if (bytes > SIZE_MAX - MEM_HEADER_BYTES - 63) {
        errno = ENOMEM;
        return NULL;
    }
    size_t total = (MEM_HEADER_BYTES + bytes + 63) & ~(size_t)63;
    unsigned char *raw = aligned_alloc(64, total);
    if (!raw)
        return NULL;
    if (set_add((uintptr_t)raw) < 0) {
        free(raw);
        errno = ENOMEM;
        return NULL;
    }
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
    uintptr_t raw = (uintptr_t)p - MEM_HEADER_BYTES;
    /* A pointer that is not a live mem_alloc buffer (never one, or freed
     * already) is a bug in the caller: counted, never dereferenced. */
    pthread_mutex_lock(&set_lock);
    size_t i = set_find_locked(raw);
    if (i != SIZE_MAX)
        set_remove_locked(i);
    pthread_mutex_unlock(&set_lock);
    if (i == SIZE_MAX) {
        atomic_fetch_add_explicit(&n_bad_frees, 1, memory_order_relaxed);
        return;
    }
    struct mem_header *h = (struct mem_header *)raw;
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
    uintptr_t raw = (uintptr_t)p - MEM_HEADER_BYTES;
    pthread_mutex_lock(&set_lock);
    bool live = set_find_locked(raw) != SIZE_MAX;
    struct mem_header h = live ? *(const struct mem_header *)raw : (struct mem_header){0};
    pthread_mutex_unlock(&set_lock);
    if (!live)
        return;
    mem_emit(h.id, (enum mem_kind)h.kind, MEM_HOST, h.proof, h.partition, h.bytes, false, true, mem_now_ns());
}
