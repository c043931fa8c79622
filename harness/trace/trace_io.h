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
};

#define TIO_MAX_FRAMES 16

/* Reads ZKBENCH_TRACE_DIR / ZKBENCH_TRACE_MIN and opens this process's
 * file, named PID-N<suffix>.trace; 0, or -errno (tracing stays off).
 * small_table: also map the per-site counters of small allocations. */
int tio_init(const char *suffix, bool small_table);
/* After fork, in the child: a file of its own, the parent's tables cleared. */
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

/* Counts a small allocation of bytes under the return address site. */
void tio_small(uintptr_t site, uint64_t bytes);

void tio_mark(const char *name);
/* Sets the calling thread's kind (NULL clears). */
void tio_kind(const char *name);

/* The calling thread's reentrancy guard (initial-exec TLS). */
extern __thread int tio_busy __attribute__((tls_model("initial-exec")));

/* Real mmap/munmap (raw system calls): for the writer's own tables. */
void *tio_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
int tio_sys_munmap(void *addr, size_t len);

#endif
