/*
 * libzkbench-cupti.so: the CUDA half of `zkbench watch --trace` for programs
 * whose CUDA runtime is linked statically (Rust GPU provers), where no
 * cudaMalloc goes through a symbol LD_PRELOAD could replace. The driver
 * loads it through CUDA_INJECTION64_PATH and calls InitializeInjection.
 * CUPTI's activity records (CUPTI_ACTIVITY_KIND_MEMORY2) carry no call site
 * for a static runtime and miss pinned host memory, so this library uses the
 * callback API on the driver calls every runtime ends in (cuMemAlloc*,
 * cuMemFree*, cuMemHostAlloc, cuMemAllocHost, cuMemFreeHost and the
 * stream-ordered ones) and takes a host backtrace in the callback. Events
 * go to PID-N-cupti.trace in the format of the preload library.
 */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/trace/trace_io.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int InitializeInjection(void);

static int (*preload_in_cuda)(void);
static volatile int ready;
/* Inside a driver call on this thread: the host memory the driver maps in
 * it (pinned pages, staging, a context's own state) is the driver's, not
 * a separate allocation of the program, so the preload library counts it
 * with the small ones (cupti_in_call). */
static __thread int in_call __attribute__((tls_model("initial-exec")));

static int cupti_in_call(void)
{
    return in_call;
}

static int ctx_device(CUcontext ctx)
{
    uint32_t dev = 0;
    if (!ctx || cuptiGetDeviceId(ctx, &dev) != CUPTI_SUCCESS)
        return 0;
    return (int)dev;
}

static void on_alloc(uintptr_t ptr, size_t bytes, int cls, int device)
{
    if (ptr)
        tio_alloc(ptr, bytes, cls, device, 2);
}

static void CUPTIAPI on_driver_call(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                    const void *data)
{
    (void)userdata;
    const CUpti_CallbackData *cb = data;
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API)
        return;
    if (cb->callbackSite == CUPTI_API_ENTER)
        in_call++;
    else if (in_call > 0)
        in_call--;
    if (!ready || tio_busy)
        return;
    /* an interposed cudaMalloc of the preload library records it already */
    if (preload_in_cuda && preload_in_cuda())
        return;
    tio_busy = 1;
    const void *p = cb->functionParams;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        /* frees: out of the table before the address can come back */
        switch (cbid) {
        case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
            tio_free((uintptr_t)((const cuMemFree_v2_params *)p)->dptr, TIO_GPU);
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
        case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
            tio_free((uintptr_t)((const cuMemFreeAsync_params *)p)->dptr, TIO_GPU);
            break;
        case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
            tio_free((uintptr_t)((const cuMemFreeHost_params *)p)->p, TIO_PINNED);
            break;
        default: break;
        }
        tio_busy = 0;
        return;
    }
    const CUresult *ret = cb->functionReturnValue;
    if (!ret || *ret != CUDA_SUCCESS) {
        tio_busy = 0;
        return;
    }
    int dev = ctx_device(cb->context);
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
        const cuMemAlloc_v2_params *a = p;
        on_alloc(a->dptr ? (uintptr_t)*a->dptr : 0, a->bytesize, TIO_GPU, dev);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
        const cuMemAllocPitch_v2_params *a = p;
        if (a->dptr && a->pPitch)
            on_alloc((uintptr_t)*a->dptr, *a->pPitch * a->Height, TIO_GPU, dev);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        const cuMemAllocManaged_params *a = p;
        on_alloc(a->dptr ? (uintptr_t)*a->dptr : 0, a->bytesize, TIO_GPU, dev);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
        const cuMemAllocAsync_params *a = p;
        on_alloc(a->dptr ? (uintptr_t)*a->dptr : 0, a->bytesize, TIO_GPU, dev);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
        const cuMemAllocFromPoolAsync_params *a = p;
        on_alloc(a->dptr ? (uintptr_t)*a->dptr : 0, a->bytesize, TIO_GPU, dev);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
        const cuMemAllocHost_v2_params *a = p;
        on_alloc(a->pp ? (uintptr_t)*a->pp : 0, a->bytesize, TIO_PINNED, 0);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
        const cuMemHostAlloc_params *a = p;
        on_alloc(a->pp ? (uintptr_t)*a->pp : 0, a->bytesize, TIO_PINNED, 0);
        break;
    }
    default: break;
    }
    tio_busy = 0;
}

static void on_exit_trace(void)
{
    if (ready)
        tio_exit();
}

EXPORT int InitializeInjection(void)
{
    static int done;
    if (done)
        return 1;
    done = 1;
    tio_busy = 1;
    int rc = tio_init("-cupti", /* small_table= */ false);
    tio_busy = 0;
    if (rc < 0)
        return 0;
    void *sym = dlsym(RTLD_DEFAULT, "zkbench_trace_in_cuda");
    memcpy(&preload_in_cuda, &sym, sizeof preload_in_cuda);
    /* tell the preload library (when it is there) how to ask whether a
     * host allocation happens inside a driver allocation call */
    void (*set_probe)(int (*)(void));
    sym = dlsym(RTLD_DEFAULT, "zkbench_trace_set_cuda_probe");
    memcpy(&set_probe, &sym, sizeof set_probe);
    if (set_probe)
        set_probe(cupti_in_call);
    CUpti_SubscriberHandle sub;
    if (cuptiSubscribe(&sub, (CUpti_CallbackFunc)on_driver_call, NULL) != CUPTI_SUCCESS)
        return 0;
    /* every driver call, not only the allocations: in_call must also cover
     * what the driver maps inside a context's creation or a module load,
     * which a static runtime does lazily within the first cudaMalloc */
    if (cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS)
        return 0;
    tio_atfork(&ready);
    atexit(on_exit_trace);
    ready = 1;
    return 1;
}
