/*
 * NVML through dlopen; see nvml_gpu.h. The types are declared here from
 * NVML's documented layouts (nvml.h, NVML API reference):
 *   nvmlReturn_t: int, 0 success, 7 NVML_ERROR_INSUFFICIENT_SIZE;
 *   nvmlDevice_t: an opaque pointer;
 *   nvmlMemory_t: {unsigned long long total, free, used};
 *   nvmlProcessInfo_t (the _v2 and _v3 process queries alike): {unsigned
 *     int pid; unsigned long long usedGpuMemory; unsigned int
 *     gpuInstanceId, computeInstanceId}, usedGpuMemory ~0ull when the
 *     driver cannot tell (NVML_VALUE_NOT_AVAILABLE);
 *   nvmlUtilization_t: {unsigned int gpu, memory}, percent of the last
 *     sample period with a kernel running (gpu) or memory being read or
 *     written (memory).
 */
#define _GNU_SOURCE
#include "harness/run/nvml_gpu.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NVML_OK 0
#define NVML_INSUFFICIENT_SIZE 7
#define NVML_NOT_AVAILABLE (~0ull)

typedef void *nvml_device_t;

struct nvml_memory {
    unsigned long long total, free, used;
};

struct nvml_process {
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id, compute_instance_id;
};

struct nvml_utilization {
    unsigned int gpu, memory;
};

struct nvml_gpu {
    void *lib;
    int (*util)(nvml_device_t, struct nvml_utilization *); /* optional: NULL, no gpu<d>_util */
    int (*init)(void);
    int (*shutdown)(void);
    int (*count)(unsigned int *);
    int (*handle)(unsigned int, nvml_device_t *);
    int (*procs)(nvml_device_t, unsigned int *, struct nvml_process *);
    int (*memory)(nvml_device_t, struct nvml_memory *);
    unsigned n;
    nvml_device_t dev[NVML_GPU_MAX];
    struct nvml_process *buf;
    unsigned buf_cap;
};

static int fail(char *err, size_t errlen, int code, const char *what)
{
    snprintf(err, errlen, "%s", what);
    return code;
}

int nvml_gpu_open(nvml_gpu_t **ret, char *err, size_t errlen)
{
    nvml_gpu_t *g = calloc(1, sizeof *g);
    if (!g)
        return fail(err, errlen, -ENOMEM, "out of memory");
    int rc;
    g->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!g->lib) {
        rc = fail(err, errlen, -ENOENT, "libnvidia-ml.so.1");
        goto fail;
    }
    /* function pointers from dlsym: POSIX guarantees the conversion */
    *(void **)&g->init = dlsym(g->lib, "nvmlInit_v2");
    *(void **)&g->shutdown = dlsym(g->lib, "nvmlShutdown");
    *(void **)&g->count = dlsym(g->lib, "nvmlDeviceGetCount_v2");
    *(void **)&g->handle = dlsym(g->lib, "nvmlDeviceGetHandleByIndex_v2");
    *(void **)&g->memory = dlsym(g->lib, "nvmlDeviceGetMemoryInfo");
    *(void **)&g->procs = dlsym(g->lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!g->procs)
        *(void **)&g->procs = dlsym(g->lib, "nvmlDeviceGetComputeRunningProcesses_v2");
    *(void **)&g->util = dlsym(g->lib, "nvmlDeviceGetUtilizationRates");
    if (!g->init || !g->shutdown || !g->count || !g->handle || !g->memory || !g->procs) {
        rc = fail(err, errlen, -ENOENT, "libnvidia-ml.so.1 lacks an NVML function");
        goto fail;
    }
    if (g->init() != NVML_OK) {
        rc = fail(err, errlen, -EIO, "libnvidia-ml.so.1: nvmlInit_v2 failed");
        goto fail;
    }
    unsigned int n = 0;
    if (g->count(&n) != NVML_OK) {
        g->shutdown();
        rc = fail(err, errlen, -EIO, "libnvidia-ml.so.1: nvmlDeviceGetCount_v2 failed");
        goto fail;
    }
    for (unsigned int i = 0; i < n && g->n < NVML_GPU_MAX; i++)
        if (g->handle(i, &g->dev[g->n]) == NVML_OK)
            g->n++;
    *ret = g;
    return 0;
fail:
    if (g->lib)
        dlclose(g->lib);
    free(g);
    return rc;
}

unsigned nvml_gpu_count(const nvml_gpu_t *g)
{
    return g->n;
}

bool nvml_gpu_has_util(const nvml_gpu_t *g)
{
    return g && g->util;
}

static bool watched(pid_t pid, const pid_t *pids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pids[i] == pid)
            return true;
    return false;
}

int nvml_gpu_read(nvml_gpu_t *g, const pid_t *pids, size_t n_pids, struct nvml_gpu_usage *out)
{
    memset(out, 0, sizeof *out);
    out->n = g->n;
    for (unsigned d = 0; d < g->n; d++) {
        struct nvml_memory mem;
        if (g->memory(g->dev[d], &mem) == NVML_OK)
            out->device_used[d] = mem.used;
        struct nvml_utilization u;
        out->util[d] = g->util && g->util(g->dev[d], &u) == NVML_OK && u.gpu <= 100 ? (int)u.gpu : -1;
        /* the list can grow between the size query and the read: retry */
        for (int tries = 0; tries < 4; tries++) {
            unsigned int cnt = g->buf_cap;
            int r = g->procs(g->dev[d], &cnt, g->buf);
            if (r == NVML_OK) {
                for (unsigned int i = 0; i < cnt && i < g->buf_cap; i++)
                    if (g->buf[i].used_gpu_memory != NVML_NOT_AVAILABLE &&
                        watched((pid_t)g->buf[i].pid, pids, n_pids))
                        out->used[d] += g->buf[i].used_gpu_memory;
                break;
            }
            if (r != NVML_INSUFFICIENT_SIZE)
                break;
            unsigned cap = cnt + 8;
            struct nvml_process *b = realloc(g->buf, cap * sizeof *b);
            if (!b)
                return -ENOMEM;
            g->buf = b;
            g->buf_cap = cap;
        }
    }
    return 0;
}

int nvml_gpu_read_util(nvml_gpu_t *g, int util[NVML_GPU_MAX])
{
    for (unsigned d = 0; d < NVML_GPU_MAX; d++)
        util[d] = -1;
    if (!g->util)
        return -ENOENT;
    for (unsigned d = 0; d < g->n; d++) {
        struct nvml_utilization u;
        if (g->util(g->dev[d], &u) == NVML_OK && u.gpu <= 100)
            util[d] = (int)u.gpu;
    }
    return 0;
}

void nvml_gpu_close(nvml_gpu_t *g)
{
    if (!g)
        return;
    g->shutdown();
    dlclose(g->lib);
    free(g->buf);
    free(g);
}
