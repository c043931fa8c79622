/*
 * CUDA devices and errors: how many devices there are, what they are, how
 * much memory they have free, the runtime and driver versions, and the record
 * of the last failed CUDA call (kernels_last_error, fed by CUDA_CHECK in
 * cuda_check.cuh).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime.h>

#include "kernels/cuda_check.cuh"
#include "kernels/kernels.h"

/* One record per thread, like errno: GPU workers on several threads each
 * read their own failure. */
static thread_local char last_error[256];

int kernels_cuda_errno(cudaError_t err)
{
    switch (err) {
    case cudaSuccess:
        return 0;
    case cudaErrorMemoryAllocation:
        return -ENOMEM;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorSystemNotReady:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        return -ENODEV;
    default:
        return -EIO;
    }
}

/* "kernels/device.cu" from "../../src/kernels/device.cu": the last two path
 * components, which name the file within the repository. */
static const char *short_path(const char *file)
{
    const char *last = strrchr(file, '/');
    if (!last)
        return file;
    const char *p = last;
    while (p > file && p[-1] != '/')
        p--;
    return p;
}

int kernels_cuda_check(cudaError_t err, const char *call, const char *file,
                       int line)
{
    if (err == cudaSuccess)
        return 0;
    /* A failed call also leaves its code as the runtime's "last error";
     * clear it so that a later cudaGetLastError after a launch reports that
     * launch, not this call. Sticky errors (a crashed kernel) stay. */
    (void)cudaGetLastError();
    int name_len = (int)strcspn(call, "(");
    snprintf(last_error, sizeof last_error, "%.*s failed at %s:%d: %s",
             name_len, call, short_path(file), line, cudaGetErrorString(err));
    return kernels_cuda_errno(err);
}

int kernels_record_error(int rc, const char *msg)
{
    snprintf(last_error, sizeof last_error, "%s", msg);
    return rc;
}

const char *kernels_last_error(void)
{
    return last_error[0] ? last_error : "no CUDA error recorded";
}

int kernels_device_count(int *count)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess) {
        int rc = kernels_cuda_check(err, "cudaGetDeviceCount", __FILE__,
                                    __LINE__);
        /* No driver, no device, a driver too old for this runtime: the
         * machine has no usable GPU, which is an answer, not a failure. */
        if (rc != -ENODEV)
            return rc;
        n = 0;
    }
    *count = n;
    return 0;
}

int kernels_device_props(int dev, struct kernels_device_props *props)
{
    cudaDeviceProp p;
    int rc = CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    if (rc < 0)
        return rc;
    memset(props, 0, sizeof *props);
    snprintf(props->name, sizeof props->name, "%s", p.name);
    props->total_mem = p.totalGlobalMem;
    props->cc_major = p.major;
    props->cc_minor = p.minor;
    props->sm_count = p.multiProcessorCount;
    props->l2_bytes = (size_t)p.l2CacheSize;
    props->pci_bus = p.pciBusID;
    props->pci_device = p.pciDeviceID;
    props->pci_domain = p.pciDomainID;
    return 0;
}

int kernels_device_mem(int dev, size_t *free_bytes, size_t *total_bytes)
{
    int prev, rc;
    size_t f = 0, t = 0;
    rc = CUDA_CHECK(cudaGetDevice(&prev));
    if (rc < 0)
        return rc;
    if (prev != dev) {
        rc = CUDA_CHECK(cudaSetDevice(dev));
        if (rc < 0)
            return rc;
    }
    rc = CUDA_CHECK(cudaMemGetInfo(&f, &t));
    if (prev != dev) {
        int rc2 = CUDA_CHECK(cudaSetDevice(prev));
        if (rc >= 0)
            rc = rc2;
    }
    if (rc < 0)
        return rc;
    *free_bytes = f;
    *total_bytes = t;
    return 0;
}

int kernels_set_device(int dev)
{
    int cur = -1;
    /* cheap when dev is current already, which is the common case */
    if (cudaGetDevice(&cur) == cudaSuccess && cur == dev)
        return 0;
    return CUDA_CHECK(cudaSetDevice(dev));
}

int kernels_cuda_version(int *runtime, int *driver)
{
    int r = 0, d = 0;
    int rc = CUDA_CHECK(cudaRuntimeGetVersion(&r));
    if (rc < 0)
        return rc;
    /* 0 (not an error) when no driver is installed. */
    rc = CUDA_CHECK(cudaDriverGetVersion(&d));
    if (rc < 0)
        return rc;
    *runtime = r;
    *driver = d;
    return 0;
}
