/* Machine description and process memory for reports; see sysinfo.h. */
#define _GNU_SOURCE
#include "harness/run/sysinfo.h"

#include <errno.h>
#include <jemalloc/jemalloc.h>
#include <libproc2/pids.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "harness/version.h"
#include "kernels/kernels.h"

static void read_cpu_model(char *out, size_t cap)
{
    snprintf(out, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = 0;
                snprintf(out, cap, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

void sysinfo_read(sysinfo_t *ret)
{
    memset(ret, 0, sizeof *ret);
    read_cpu_model(ret->cpu, sizeof ret->cpu);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    ret->cores = cores > 0 ? (int)cores : 0;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    ret->ram_bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(ret->os, sizeof ret->os, "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(ret->os, sizeof ret->os, "unknown");
    const char *ver = NULL;
    size_t sz = sizeof ver;
    if (mallctl("version", &ver, &sz, NULL, 0) == 0 && ver)
        snprintf(ret->jemalloc, sizeof ret->jemalloc, "%s", ver);
    else
        snprintf(ret->jemalloc, sizeof ret->jemalloc, "not the allocator");
    snprintf(ret->commit, sizeof ret->commit, "%s", ZKBENCH_VERSION);
    int n = 0;
    if (kernels_device_count(&n) == 0 && n > 0) {
        ret->gpus = n;
        struct kernels_device_props props;
        if (kernels_device_props(0, &props) == 0) {
            snprintf(ret->gpu, sizeof ret->gpu, "%s", props.name);
            ret->gpu_mem_bytes = props.total_mem;
        }
    }
}

static int read_hwm(uint64_t *hwm)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -errno;
    char line[256];
    int rc = -ENOENT;
    while (fgets(line, sizeof line, f)) {
        unsigned long long kib;
        if (sscanf(line, "VmHWM: %llu kB", &kib) == 1) {
            *hwm = (uint64_t)kib * 1024;
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

int sysinfo_rss(uint64_t *rss, uint64_t *hwm)
{
    enum pids_item items[] = {PIDS_VM_RSS};
    struct pids_info *info = NULL;
    int rc = procps_pids_new(&info, items, 1);
    if (rc < 0)
        return rc;
    unsigned pid = (unsigned)getpid();
    struct pids_fetch *fetch = procps_pids_select(info, &pid, 1, PIDS_SELECT_PID);
    if (!fetch || fetch->counts->total < 1) {
        procps_pids_unref(&info);
        return -ESRCH;
    }
    uint64_t kib = PIDS_VAL(0, ul_int, fetch->stacks[0], info);
    procps_pids_unref(&info);
    *rss = kib * 1024;
    return read_hwm(hwm);
}
