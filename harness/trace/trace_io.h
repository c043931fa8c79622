/*
 * The trace writer shared by the LD_PRELOAD tracer (trace_preload.c) and
 * the CUPTI injection library (trace_cupti.c): one event file per process
 * (docs/trace-format.md), written with write(2) only, so a process killed
 * by a signal leaves every line it wrote. Nothing here calls malloc: the
 * tables live in memory from mmap, and the caller keeps a reentrancy guard.
 * Every function is thread-safe; any write error turns tracing off for good
 * (tio_on() becomes false) and never reaches the program.
 */
#ifndef ZKB_TRACE_IO_H
#define ZKB_TRACE_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* what an allocation is: the letter in A/F lines */
enum tio_class {
    TIO_HEAP = 'h',   /* malloc and friends */
    TIO_MMAP = 'm',   /* anonymous mmap */
    TIO_GPU = 'g',    /* device memory, followed by the device number */
    TIO_PINNED = 'p', /* page-locked host memory (cudaMallocHost, cuMemHostAlloc) */
    TIO_ALLOCATOR = 'a', /* mapped by the allocator itself (jemalloc's extents): its overhead */
    TIO_SAMPLED = 's',   /* a small heap block picked by the Poisson sampler */
};

/* One sample per this many bytes of small allocations, on average
 * (jemalloc's and tcmalloc's profilers use 512 KiB too). */
#define TIO_SAMPLE_PERIOD (512u * 1024u)

#define TIO_MAX_FRAMES 16

/* Reads ZKBENCH_TRACE_DIR / ZKBENCH_TRACE_MIN; this process's file,
 * PID-N<suffix>.trace, is made at its first event (a process that records
 * nothing leaves no file); 0, or -errno (tracing stays off).
 * small_table: also map the per-site counters of small allocations
 * (PID-N.small, grown by one stripe per counting thread). */
int tio_init(const char *suffix, bool small_table);
/* After fork, in the child: the parent's tables cleared; a file of its own
 * at its first recorded event (a child that only execs leaves none). */
void tio_after_fork_child(void);
void tio_fork_prepare(void);
void tio_fork_parent(void);
/* Registers the fork handlers of one tracing library (pthread_atfork):
 * they act while *ready (the library's own "tracing" flag) is set, and the
 * child's handler sets *ready to whether its own file opened. Once. */
void tio_atfork(volatile int *ready);
/* The X (clean exit) line. */
void tio_exit(void);

bool tio_on(void);
uint64_t tio_min(void);
uint64_t tio_now_ns(void);

/* Records an allocation of bytes at ptr: a backtrace is taken here (skip:
 * frames of the caller's own to leave out), its site written once. */
void tio_alloc(uintptr_t ptr, uint64_t bytes, int cls, int device, int skip);
/* Looks ptr up among recorded allocations of cls: found, it is removed and
 * an F line written (true). */
bool tio_free(uintptr_t ptr, int cls);
/* Whether any recorded allocation is live (a cheap filter for free). */
bool tio_any_live(void);
/* A counting filter over the 2 MiB regions of recorded addresses: zero
 * means ptr is certainly not recorded. One load, no lock: free's fast
 * path. Regions, not hashed pages, so the frees of a heap's small chunks
 * keep hitting the same few cached counters. */
#define TIO_FILTER_BITS 14
extern __attribute__((visibility("hidden"))) uint32_t tio_filter[1u << TIO_FILTER_BITS];
static inline size_t tio_filter_slot(uintptr_t ptr)
{
    return (size_t)(ptr >> 21) & ((1u << TIO_FILTER_BITS) - 1);
}
static inline bool tio_maybe_live(uintptr_t ptr)
{
    return __atomic_load_n(&tio_filter[tio_filter_slot(ptr)], __ATOMIC_RELAXED) != 0;
}

/* A counting filter over the pages of live sampled blocks: zero
 * means ptr is certainly not a sampled block. One load, no lock: the check
 * each small free makes while any sampled block is live. */
#define TIO_SFILTER_BITS 14
extern __attribute__((visibility("hidden"))) uint16_t tio_sfilter[1u << TIO_SFILTER_BITS];
/* by 4 KiB page, not by address: a heap's frees come page by page, so the
 * few lines of this 32 KiB table they touch stay cached */
static inline size_t tio_sfilter_slot(uintptr_t ptr)
{
    return (size_t)(ptr >> 12) & ((1u << TIO_SFILTER_BITS) - 1);
}
static inline bool tio_maybe_sampled(uintptr_t ptr)
{
    return __atomic_load_n(&tio_sfilter[tio_sfilter_slot(ptr)], __ATOMIC_RELAXED) != 0;
}

/* Counts a small allocation of bytes under the return address site. */
void tio_small(uintptr_t site, uint64_t bytes);
/* Whether this small allocation of bytes is the calling thread's next
 * Poisson sample (exponential gaps of mean TIO_SAMPLE_PERIOD bytes): the
 * thread's bytes left to its next sample, inline; the draw out of line. */
extern __thread int64_t tio_until __attribute__((tls_model("initial-exec")));
bool tio_sample_draw(void);
static inline bool tio_sample_due(uint64_t bytes)
{
    tio_until -= (int64_t)bytes;
    return tio_until <= 0 && tio_sample_draw();
}
/* Whether any sampled block is live (free's check for small blocks). */
extern __attribute__((visibility("hidden"))) long tio_nsampled;
static inline bool tio_any_sampled(void)
{
    return __atomic_load_n(&tio_nsampled, __ATOMIC_RELAXED) > 0;
}

/* Mapped ranges, matched by range (docs/trace-format.md): the tracer keeps
 * every recorded mapping and every PROT_NONE reservation as intervals.
 * tio_map records [p, p+len) of cls (TIO_MMAP or TIO_ALLOCATOR; stack taken
 * here) or, reserve, remembers it uncounted; whatever it overlapped is cut
 * first (MAP_FIXED). tio_unmap cuts [p, p+len): a recorded mapping cut at an
 * end is trimmed (R line), cut in the middle split (R, and A with the same
 * site), covered ended (F). tio_protect: prot none decommits (cut, kept as
 * reservation), else the reserved parts of the range become recorded
 * mappings of cls (commits). tio_remap moves a recorded range (its site kept). */
void tio_map(uintptr_t p, uint64_t len, int cls, bool reserve, int skip);
void tio_unmap(uintptr_t p, uint64_t len);
void tio_protect(uintptr_t p, uint64_t len, bool none, int cls, int skip);
void tio_remap(uintptr_t old, uint64_t old_len, uintptr_t p, uint64_t len, int skip);

/* The program's malloc is not the tracer's (an allocator linked into the
 * executable): one W line says so, naming where malloc lives. */
void tio_note_static_allocator(const char *where);

void tio_mark(const char *name);
/* Sets the calling thread's kind (NULL clears). */
void tio_kind(const char *name);

/* The calling thread's reentrancy guard (initial-exec TLS). */
extern __thread int tio_busy __attribute__((tls_model("initial-exec")));

/* Real mmap/munmap (raw system calls): for the writer's own tables. */
void *tio_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
int tio_sys_munmap(void *addr, size_t len);

#endif
