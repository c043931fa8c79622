/*
 * zkbench_trace.h: tag a program's phases and buffers for `zkbench watch
 * --trace` (docs/trace-format.md). Include it and call:
 *
 *   zkbench_mark("proof done");   a proof/phase boundary (marks.csv; the
 *                                 proof column of buffers.csv counts them)
 *   zkbench_mark("synth start");  a partition's state: "STATE start|end [ID]"
 *   zkbench_mark("synth end");    (synth, wait, queue, prove, finish) fills
 *                                 samples.csv's n_synth, ... (docs/watch.md)
 *   zkbench_kind("witness");      the calling thread's following allocations
 *                                 get this kind in buffers.csv; NULL clears
 *
 * Nothing needs linking: the functions look the tracer up once with
 * dlsym(RTLD_DEFAULT) and do nothing when the program runs without it
 * (link with -ldl on a glibc older than 2.34).
 */
#ifndef ZKBENCH_TRACE_H
#define ZKBENCH_TRACE_H

#include <dlfcn.h>

/* glibc's RTLD_DEFAULT, which dlfcn.h shows only under _GNU_SOURCE */
#define ZKBENCH_RTLD_DEFAULT_ ((void *)0)

typedef void (*zkbench_trace_fn_)(const char *);

/* which: 0 mark, 1 kind; the tracer's function or NULL, looked up once */
static inline zkbench_trace_fn_ zkbench_trace_lookup_(int which)
{
    static zkbench_trace_fn_ fn[2];
    static int looked[2];
    if (!__atomic_load_n(&looked[which], __ATOMIC_ACQUIRE)) {
        void *sym = dlsym(ZKBENCH_RTLD_DEFAULT_, which ? "zkbench_trace_kind" : "zkbench_trace_mark");
        zkbench_trace_fn_ f;
        __builtin_memcpy(&f, &sym, sizeof f);
        __atomic_store_n(&fn[which], f, __ATOMIC_RELAXED);
        __atomic_store_n(&looked[which], 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&fn[which], __ATOMIC_RELAXED);
}

static inline void zkbench_mark(const char *name)
{
    zkbench_trace_fn_ f = zkbench_trace_lookup_(0);
    if (f)
        f(name);
}

static inline void zkbench_kind(const char *name)
{
    zkbench_trace_fn_ f = zkbench_trace_lookup_(1);
    if (f)
        f(name);
}

#endif
