/*
 * The collector of `zkbench watch --trace` and `zkbench trace collect`:
 * reads every traced process's files (DIR/trace/PID-N.trace and .small,
 * docs/trace-format.md), when the command ended or while it runs, and writes DIR/buffers.csv (the batch schema plus `site`),
 * DIR/sites.csv, DIR/trace/processes.csv, and appends the programs'
 * zkbench_mark calls to DIR/marks.csv (t_ms,pid,source,name; source api).
 */
#ifndef ZKB_TRACE_COLLECT_H
#define ZKB_TRACE_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_COLLECT_TOP 5

struct trace_collect_summary {
    size_t n_files, n_killed;   /* trace files; processes without a clean exit */
    size_t n_buffers, n_sites;  /* rows of buffers.csv and sites.csv */
    size_t n_marks;
    uint64_t never_freed_bytes; /* over every recorded allocation */
    bool symbols;               /* libdw resolved at least one function */
    uint64_t allocator_bytes;   /* mapped by the allocator for itself, still mapped at the end */
    uint64_t heap_live_bytes;   /* heap blocks live at the end: recorded, plus sampled small ones' estimate */
    double sampled_never_freed_est; /* of never_freed in the top: estimated from sampled small blocks */
    size_t n_static_allocator;  /* processes whose malloc is their own (not interposed) */
    char static_allocator[300]; /* the first one, said in one line */
    size_t n_top;
    struct {
        char site[256];
        uint64_t never_freed_bytes, n_never_freed;
        bool estimated; /* includes sampled small blocks' estimate */
    } top[TRACE_COLLECT_TOP]; /* user sites by never-freed bytes, largest first */
};

/* t0: the run's clock origin in seconds of CLOCK_MONOTONIC (run_clock_now()).
 * 0, or -errno with one line in err naming the file and the problem. */
int trace_collect(const char *run_dir, double t0, struct trace_collect_summary *sum, char *err, size_t errlen);
/* The same; marks: append the api marks to marks.csv (watch's final
 * collection does; `zkbench trace collect` while watch runs must not, or
 * the final one would add them twice). t0 < 0: the earliest trace file's
 * start is the origin. Reads each file once, line by line: time and
 * memory linear in its events. */
int trace_collect_marks(const char *run_dir, double t0, bool marks, struct trace_collect_summary *sum, char *err,
                        size_t errlen);

#endif
