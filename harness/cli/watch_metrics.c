/* The metrics export of a watch run; see watch_metrics.h. */
#include "harness/cli/watch_metrics.h"

#include <stdio.h>
#include <unistd.h>

#include "harness/run/watch_proc.h"
#include "harness/version.h"

int watch_metrics_begin(metrics_export_t *mx, const struct watch_metrics_run *r, char *err, size_t errlen)
{
    if (metrics_export_address(mx) && !r->quiet) {
        printf("metrics at http://%s/metrics\n", metrics_export_address(mx));
        fflush(stdout);
    }
    char what[1024];
    watch_proc_cmdline(what, sizeof what, r->cmd, r->pid);
    uint64_t limit = r->mem_limit;
    if (!limit && r->cg && cgroup_stat_limit(r->cg, &limit) < 0)
        limit = 0;
    if (!limit && !r->cg)
        limit = metrics_cgroup_limit(r->cmd ? getpid() : r->pid);
    struct metrics_config mc = {.version = ZKB_PROJECT_VERSION, .commit = ZKBENCH_VERSION, .command = what,
                                .gpu = r->gpu, .marks = r->marks, .mem_limit = limit};
    return metrics_export_start(mx, &mc, err, errlen);
}
