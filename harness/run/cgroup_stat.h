/*
 * Reading a service's memory cgroup every sampler tick (`zkbench watch
 * --cgroup PATH`): usage, peak, memory.stat's anon/file/shmem and the OOM
 * kill count, on cgroup v2 (memory.current, memory.peak, memory.stat,
 * memory.events) or the v1 memory controller (memory.usage_in_bytes,
 * memory.max_usage_in_bytes, memory.stat total_rss/total_cache/
 * total_shmem, memory.failcnt, memory.oom_control), and the processes in
 * it (cgroup.procs). The files stay open; each read is one pread.
 * docs/watch.md lists the columns. Nothing here prints.
 */
#ifndef ZKB_CGROUP_STAT_H
#define ZKB_CGROUP_STAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct cgroup_stat cgroup_stat_t;

/* One tick's values, bytes (oom_kill a count). has_peak: false where the
 * kernel keeps no peak (v2 before Linux 5.19); has_oom_kill: false on a v1
 * kernel whose memory.oom_control lacks oom_kill (before 4.13). */
struct cgroup_stat_values {
    uint64_t current, peak, anon, file, shmem, oom_kill;
    bool has_peak, has_oom_kill;
};

/* memory.events counts (v2); on v1: oom and oom_kill both the kill count,
 * max memory.failcnt, high 0. */
struct cgroup_stat_events {
    uint64_t oom, oom_kill, high, max;
};

/*
 * Opens the memory cgroup at path: a folder that is a memory cgroup (v2:
 * memory.current; v1: memory.usage_in_bytes), or a path relative to the
 * root of the cgroup2 or v1 memory hierarchy as mounted (/proc/self/
 * mountinfo), e.g. "system.slice/prover.service" or the path of
 * /proc/PID/cgroup. Returns 0, or -errno with one line in err: -ENOENT (no
 * such cgroup), -ENOTSUP (not a memory cgroup).
 */
int cgroup_stat_open(cgroup_stat_t **ret, const char *path, char *err, size_t errlen);
/* The values now. 0 or -errno (the cgroup was removed). */
int cgroup_stat_read(cgroup_stat_t *c, struct cgroup_stat_values *out);
/* The memory limit that applies to the cgroup in bytes, 0 when none: the
 * lowest memory.max on its v2 path, or v1's hierarchical_memory_limit.
 * 0 or -errno. */
int cgroup_stat_limit(const cgroup_stat_t *c, uint64_t *limit);
/* The event counts now. 0 or -errno. */
int cgroup_stat_events(cgroup_stat_t *c, struct cgroup_stat_events *out);
/* The processes in the cgroup now (its own cgroup.procs), in *pids (owned
 * by c, valid until the next call). 0 or -errno. */
int cgroup_stat_procs(cgroup_stat_t *c, const pid_t **pids, size_t *n);
/* The folder and "v1" or "v2". */
const char *cgroup_stat_path(const cgroup_stat_t *c);
const char *cgroup_stat_version(const cgroup_stat_t *c);
/* {"oom", "oom_kill", "high", "max"}; NULL when out of memory. */
json_t *cgroup_stat_events_json(const struct cgroup_stat_events *e);
/* Closes the files and frees c; NULL accepted. */
void cgroup_stat_free(cgroup_stat_t *c);

#endif
