/*
 * What a benchmark table or a run records about where it ran: CPU, cores,
 * RAM, OS, allocator and CUDA devices, and the process's current memory.
 */
#ifndef ZKB_SYSINFO_H
#define ZKB_SYSINFO_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char cpu[128];
    int cores;
    uint64_t ram_bytes;
    char os[256];
    char jemalloc[64];
    char commit[64];
    int gpus;
    char gpu[256];          /* first device's name, "" without a GPU */
    uint64_t gpu_mem_bytes; /* first device's memory */
} sysinfo_t;

/* Fills every field; unknown values are "unknown" or 0. */
void sysinfo_read(sysinfo_t *ret);
/* Current and peak resident set size of this process, in bytes (libproc2 for
 * VmRSS, /proc/self/status for VmHWM). Returns 0 or a negative errno. */
int sysinfo_rss(uint64_t *rss, uint64_t *hwm);

#endif
