/*
 * The metrics export of a watch run (README: "Prometheus"): the run's
 * description (the watched command, GPU, marks) and the memory limit that
 * applies to it: --mem-limit's, else --cgroup's own, else the cgroup of
 * the watched process. Prints the address unless quiet.
 */
#ifndef ZKB_WATCH_METRICS_H
#define ZKB_WATCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness/metrics/metrics_export.h"
#include "harness/run/cgroup_stat.h"

struct watch_metrics_run {
    char **cmd;              /* the command, or NULL (--pid, --cgroup) */
    pid_t pid;               /* --pid's process */
    cgroup_stat_t *cg;       /* --cgroup's, or NULL */
    bool marks, gpu, quiet;  /* --mark/--mark-file, --gpu, --quiet */
    uint64_t mem_limit;      /* --mem-limit, 0: none */
};

/* Starts mx's serving and writing for the run. 0 or -errno with err. */
int watch_metrics_begin(metrics_export_t *mx, const struct watch_metrics_run *r, char *err, size_t errlen);

#endif
