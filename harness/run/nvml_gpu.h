/*
 * Per-process GPU memory through NVML (`zkbench watch --gpu`):
 * libnvidia-ml.so.1 is loaded with dlopen, so zkbench has no link
 * dependency on it, and NVML creates no CUDA context. Each read gives, per
 * device, the memory used by a set of processes (the compute processes
 * NVML lists, matched by pid) and the device's whole used memory.
 * docs/watch.md lists the columns. Nothing here prints.
 */
#ifndef ZKB_NVML_GPU_H
#define ZKB_NVML_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NVML_GPU_MAX 16 /* devices read; more are ignored */

typedef struct nvml_gpu nvml_gpu_t;

/* One read: used[i] the watched processes' bytes on device i, device_used[i]
 * the device's used bytes (total - free), util[i] the percent of NVML's
 * last sample period in which a kernel ran on it (-1: not read), for
 * i < n. */
struct nvml_gpu_usage {
    unsigned n;
    uint64_t used[NVML_GPU_MAX], device_used[NVML_GPU_MAX];
    int util[NVML_GPU_MAX];
};

/* Loads NVML and initializes it. Returns 0; -ENOENT when
 * libnvidia-ml.so.1 cannot be loaded or lacks a needed symbol; -EIO when
 * nvmlInit_v2 or nvmlDeviceGetCount_v2 fails (no driver). err says which. */
int nvml_gpu_open(nvml_gpu_t **ret, char *err, size_t errlen);
/* Devices found (at most NVML_GPU_MAX). */
unsigned nvml_gpu_count(const nvml_gpu_t *g);
/* Whether the library has nvmlDeviceGetUtilizationRates: the columns
 * gpu<d>_util exist only then (absent, not empty). */
bool nvml_gpu_has_util(const nvml_gpu_t *g);
/* Reads every device; pids: the watched processes (sorted or not). A device
 * that fails a call reads 0 for that value. Returns 0 or -ENOMEM. */
int nvml_gpu_read(nvml_gpu_t *g, const pid_t *pids, size_t n_pids, struct nvml_gpu_usage *out);
/* The utilisation alone (a batch's sampler: no process list): util[d] for
 * every device, -1 where not read. 0, or -ENOENT without the query. */
int nvml_gpu_read_util(nvml_gpu_t *g, int util[NVML_GPU_MAX]);
/* nvmlShutdown, dlclose and free; NULL accepted. */
void nvml_gpu_close(nvml_gpu_t *g);

#endif
