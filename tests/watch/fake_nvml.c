/*
 * A test-only libnvidia-ml.so.1 with known numbers, loaded by `zkbench watch
 * --gpu` through LD_LIBRARY_PATH (test_watch_gpu.sh). Two devices of 80 GiB;
 * device d has (d + 1) * 5 GiB in use (5 and 10 GiB). The compute
 * processes of each device come from the file named by FAKE_NVML_PROCS,
 * re-read on every call: lines "DEVICE PID BYTES", BYTES "na" for NVML's
 * "not available". FAKE_NVML_INIT_FAIL=1 makes nvmlInit_v2 fail. Built a
 * second time with FAKE_NVML_V2_ONLY, it lacks the _v3 process query and
 * the utilisation query. Device d is busy (d + 1) * 30 percent of the time
 * (nvmlDeviceGetUtilizationRates: 30 and 60).
 * FAKE_NVML_CALLS names a file that gets a line per process query with the
 * symbol used, so the test can see which one was called.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_DEVICES 2
#define GIB (1ull << 30)

struct fake_memory {
    unsigned long long total, free, used;
};

struct fake_process {
    unsigned int pid;
    unsigned long long used;
    unsigned int gpu_instance, compute_instance;
};

static int devices[FAKE_DEVICES];
static int initialized;

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev);
int nvmlDeviceGetMemoryInfo(void *dev, struct fake_memory *m);
int nvmlDeviceGetComputeRunningProcesses_v2(void *dev, unsigned int *count, struct fake_process *infos);
int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *count, struct fake_process *infos);

int nvmlInit_v2(void)
{
    if (getenv("FAKE_NVML_INIT_FAIL"))
        return 9; /* NVML_ERROR_DRIVER_NOT_LOADED */
    initialized = 1;
    return 0;
}

int nvmlShutdown(void)
{
    initialized = 0;
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
    if (!initialized)
        return 1; /* NVML_ERROR_UNINITIALIZED */
    *n = FAKE_DEVICES;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev)
{
    if (!initialized)
        return 1;
    if (i >= FAKE_DEVICES)
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *dev = &devices[i];
    return 0;
}

static int index_of(void *dev)
{
    for (int i = 0; i < FAKE_DEVICES; i++)
        if (dev == &devices[i])
            return i;
    return -1;
}

#ifndef FAKE_NVML_V2_ONLY
struct fake_utilization {
    unsigned int gpu, memory;
};

int nvmlDeviceGetUtilizationRates(void *dev, struct fake_utilization *u);
int nvmlDeviceGetUtilizationRates(void *dev, struct fake_utilization *u)
{
    int d = index_of(dev);
    if (d < 0 || !u)
        return 2;
    u->gpu = (unsigned)(d + 1) * 30;
    u->memory = 10;
    return 0;
}
#endif

int nvmlDeviceGetMemoryInfo(void *dev, struct fake_memory *m)
{
    int d = index_of(dev);
    if (d < 0 || !m)
        return 2;
    m->total = 80 * GIB;
    m->used = (unsigned long long)(d + 1) * 5 * GIB;
    m->free = m->total - m->used;
    return 0;
}

static int processes(void *dev, unsigned int *count, struct fake_process *infos, const char *symbol)
{
    int d = index_of(dev);
    if (d < 0 || !count)
        return 2;
    const char *calls = getenv("FAKE_NVML_CALLS");
    FILE *log = calls ? fopen(calls, "a") : NULL;
    if (log) {
        fprintf(log, "%s\n", symbol);
        fclose(log);
    }
    struct fake_process found[64];
    unsigned n = 0;
    const char *path = getenv("FAKE_NVML_PROCS");
    FILE *f = path ? fopen(path, "r") : NULL;
    char line[256];
    while (f && n < 64 && fgets(line, sizeof line, f)) {
        int dd;
        unsigned pid;
        char bytes[64];
        if (sscanf(line, "%d %u %63s", &dd, &pid, bytes) != 3 || dd != d)
            continue;
        found[n].pid = pid;
        found[n].used = strcmp(bytes, "na") == 0 ? ~0ull : strtoull(bytes, NULL, 10);
        found[n].gpu_instance = found[n].compute_instance = ~0u;
        n++;
    }
    if (f)
        fclose(f);
    if (*count < n || (!infos && n)) {
        *count = n;
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    memcpy(infos, found, n * sizeof *found);
    *count = n;
    return 0;
}

int nvmlDeviceGetComputeRunningProcesses_v2(void *dev, unsigned int *count, struct fake_process *infos)
{
    return processes(dev, count, infos, "v2");
}

#ifndef FAKE_NVML_V2_ONLY
int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *count, struct fake_process *infos)
{
    return processes(dev, count, infos, "v3");
}
#endif
