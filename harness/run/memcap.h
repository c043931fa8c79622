/*
 * A memory cap for a process tree (`--mem-limit`): a fresh memory cgroup,
 * made under the cgroup this process is in (cgroup v2, or the v1 memory
 * controller), capped with swap off so the kernel OOM-kills instead of
 * swapping, and read back afterwards for what happened at the cap.
 * docs/diagnosis.md ("Reproducing an OOM kill") describes both versions.
 * Nothing here prints; errors are negative errno with one line in err.
 */
#ifndef ZKB_MEMCAP_H
#define ZKB_MEMCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct memcap memcap_t;

/* What the kernel counted in the cgroup (v2 memory.events and friends;
 * the v1 equivalents where they exist). */
struct memcap_stats {
    uint64_t oom;      /* times it ran out of memory (v1 counts only kills: = oom_kill) */
    uint64_t oom_kill; /* processes the OOM killer killed in it */
    uint64_t max;      /* times usage hit the limit (v1: memory.failcnt) */
    uint64_t high;     /* times usage passed memory.high (v2 only; 0 in v1) */
    uint64_t low;      /* times it was reclaimed below memory.low (v2 only; 0 in v1) */
    uint64_t peak;     /* bytes, the most it held (v2 memory.peak, 0 where the kernel lacks it) */
    uint64_t current;  /* bytes it holds now (anonymous, page cache, kernel) */
    uint64_t limit;    /* bytes, the cap as the kernel holds it (page-rounded) */
    bool under_oom;    /* v1: OOM in progress right now */
};

/*
 * Creates a capped cgroup, zkbench-<pid>-<n>, with nothing in it yet. The
 * parent folder is the cgroup of this process, or ZKBENCH_CGROUP_ROOT when
 * set. On cgroup v2, where that cgroup holds processes and does not give
 * the memory controller to its children, its processes (this one included)
 * are first moved into a leaf child, zkbench-leaf, and never moved back.
 * limit_bytes: at least one page. *ret is freed with memcap_free. Returns 0,
 * or -errno with err saying what was tried, on which file, and why.
 */
int memcap_new(memcap_t **ret, uint64_t limit_bytes, char *err, size_t errlen);
/* Moves process pid (0: the calling process) with all its threads into the
 * cgroup. Returns 0 or -errno. Safe in a forked child before exec. */
int memcap_enter(const memcap_t *m, pid_t pid);
/* Moves process pid out of the cgroup, into the one the process that made
 * it was in then (a helper whose memory is not the capped work's). 0, or
 * -errno (-ENOENT: that cgroup was not found). */
int memcap_leave(const memcap_t *m, pid_t pid);
/* Reads the cgroup's counters into *out. Returns 0, or -errno when the
 * kernel files cannot be read (*out untouched). */
int memcap_read(const memcap_t *m, struct memcap_stats *out);
/* Removes the cgroup (once the processes in it have exited; a cgroup still
 * in use is left as it is) and frees m. NULL accepted. */
void memcap_free(memcap_t *m);

/* "v1" or "v2". */
const char *memcap_kind(const memcap_t *m);
/* The cgroup's folder, for messages. */
const char *memcap_path(const memcap_t *m);

#endif
