/*
 * The sampler: a thread that, every tick, reads every memory layer of one
 * process in the same tick and appends a row to samples.csv (README: "Files
 * of a run"): RSS, RssAnon, RssFile (libproc2), VmHWM (/proc/PID/status,
 * kept open), jemalloc's stats after one epoch refresh (mallctl names
 * resolved once to MIBs), GPU memory, tracked live bytes per kind, and the
 * pipeline's occupancy counters. For another process (zkbench watch) only
 * the process and GPU columns are filled; the rest stay empty.
 */
#ifndef ZKB_SAMPLER_H
#define ZKB_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "harness/run/run_clock.h"
#include "harness/run/cgroup_stat.h"
#include "harness/run/nvml_gpu.h"
#include "prover/mem.h"

/* Pipeline occupancy, in samples.csv order. Each admitted partition is in
 * exactly one of the six states q_synth .. n_finish, so on every row they
 * sum to partitions_admitted - partitions_done. */
enum sampler_occ {
    SAMPLER_Q_SYNTH,     /* waiting for a synthesis worker */
    SAMPLER_N_SYNTH,     /* being synthesized (witness, a, b, c) */
    SAMPLER_N_BLOCKED,   /* synthesized, its worker waits for a prover queue slot */
    SAMPLER_Q_GPU,       /* in the prover queue */
    SAMPLER_N_GPU,       /* on a prover worker (prove_start) */
    SAMPLER_N_FINISH,    /* waiting for or in finish (pending b_g2) */
    SAMPLER_N_DEALLOC,   /* buffers handed to asynchronous release */
    SAMPLER_PARTITIONS_ADMITTED, /* admitted, less those dropped by a failure or interruption */
    SAMPLER_PARTITIONS_DONE,
    SAMPLER_PROOFS_DONE,
    SAMPLER_RESERVED_BYTES, /* bytes reserved by admission by memory (--mem-budget; 0 without) */
    SAMPLER_OCC_COUNT
};

/* Column names of the occupancy counters, in enum order. */
const char *sampler_occ_name(enum sampler_occ i);

typedef struct {
    double t_ms;
    uint64_t rss, rss_anon, rss_file, hwm;
    uint64_t je_allocated, je_active, je_resident, je_mapped, je_retained, je_metadata;
    uint64_t je_dirty, je_muzzy;
    uint64_t je_arena_freed_max, je_arenas_freed; /* the most dirty + muzzy bytes of one arena; arenas with any */
    uint64_t gpu_used;
    uint64_t live[MEM_KIND_COUNT];
    uint64_t occ[SAMPLER_OCC_COUNT];
    uint64_t smaps_pss, smaps_anon, smaps_swap; /* with smaps_rollup only */
    double tick_us;
    /* watch (tree): processes read; the cgroup's values; NVML per device */
    uint64_t n_procs;
    struct cgroup_stat_values cg;
    bool cg_ok, gpu_ok;
    struct nvml_gpu_usage gpu; /* watch: NVML's; batch with gpu_devices: used[i] of the i-th listed device */
} sample_t;

struct sampler_config {
    unsigned period_ms;  /* >= 1 */
    pid_t pid;           /* 0: this process (all columns) */
    bool gpu;            /* read device memory (creates a CUDA context per GPU; batch) */
    /* with gpu: the CUDA devices to read, each with its own column
     * gpu<d>_used after gpu_used (their sum); NULL: every device, no
     * per-device columns. At most NVML_GPU_MAX. */
    const int *gpu_devices;
    unsigned n_gpu_devices;
    bool smaps_rollup;   /* add Pss/Anonymous/Swap from /proc/PID/smaps_rollup */
    double t0;           /* the run's start, run_clock_now() seconds: t_ms = 0 there */
    /* this process only: fills the occupancy counters */
    void (*occupancy)(void *ctx, uint64_t occ[SAMPLER_OCC_COUNT]);
    void *ctx;
    /* called in the sampler thread after each row (e.g. draining the buffer
     * log); its time is not part of tick_us */
    void (*after_tick)(void *tick_ctx);
    void *tick_ctx;
    /* watch: sum rss, rss_anon, rss_file over a process tree (proc_tree.h)
     * rooted at pid (0: the cgroup's processes only), hwm the largest VmHWM
     * of any one of them so far, and append the columns n_procs, cg_*,
     * gpu<i>_* (docs/watch.md); pid's heap and tracked columns stay empty */
    bool tree;
    bool children;          /* with tree: descendants too */
    FILE *procs_csv;        /* with tree: a procs.csv row per process per tick, or NULL */
    cgroup_stat_t *cgroup;  /* with tree: cg_* columns, and its processes join the tree; or NULL */
    nvml_gpu_t *nvml;       /* with tree: gpu_used and gpu<i>_* from NVML; NULL: empty */
    const _Atomic uint64_t *proofs_done; /* with tree: the proofs_done column (--mark), or NULL */
    /* called in the sampler thread with each row as written (the first,
     * every tick's, the last); must be quick (e.g. metrics_on_sample) */
    void (*on_sample)(void *sample_ctx, const sample_t *x);
    void *sample_ctx;
    /* after thin_after_ms (> 0) of the run, rows by interval of
     * thin_interval_ms: every row within a second of a proof mark, and
     * each interval's (or, where a mark splits it, each part's) lowest and
     * highest rss and its last (sample_thin.h); 0: every row */
    double thin_after_ms, thin_interval_ms;
    /* no thread: the first reading sets up the sources (the tree's
     * procs.csv rows) and every row is one the caller hands to
     * sampler_feed, so a benchmark drives the row pipeline (format,
     * thinning, files, statistics, on_sample) without /proc's pace */
    bool fed;
};

typedef struct sampler sampler_t;

/* Writes the samples.csv header to csv, takes a first sample at once and
 * starts the thread. csv stays the caller's (not closed). 0 or -errno
 * (-ESRCH: no such process). */
int sampler_start(sampler_t **ret, const struct sampler_config *cfg, FILE *csv);
/* Writes the samples.csv header alone (a process that ended before its
 * first sample still gets a readable, empty samples.csv). */
void sampler_write_header(FILE *csv, bool smaps_rollup);
/* The same for any configuration (with tree: the appended columns too). */
void sampler_write_header_cfg(FILE *csv, const struct sampler_config *cfg);
/* Takes one last sample, stops and frees the sampler; NULL accepted.
 * Returns 0, or the first error writing samples.csv (-errno). */
int sampler_stop(sampler_t *s);
/* The first error writing samples.csv (-errno), 0 when none. A failed row
 * is cut back (the file ends with a whole row) and stops the thread. */
int sampler_write_error(sampler_t *s);
/* Which file that error was written to: "samples.csv" or "procs.csv". */
const char *sampler_write_error_file(sampler_t *s);
/* Reads one sample now without writing it (baseline, progress line); safe
 * while the thread runs (the thread's reads and this one take turns). */
int sampler_read(sampler_t *s, sample_t *out);
/* With cfg.fed: records x as the next tick's reading (its procs.csv rows
 * are the tree's last read, at x's t_ms). 0, or the first write error
 * (-errno; later rows are dropped). */
int sampler_feed(sampler_t *s, const sample_t *x);
/* Changes the tick from the next one on (any thread; watch --sample-ms
 * auto): 0, or -EINVAL for a period of 0. */
int sampler_set_period(sampler_t *s, unsigned period_ms);
/* The tick now, ms. */
unsigned sampler_period(sampler_t *s);
/* The latest written sample. */
void sampler_latest(sampler_t *s, sample_t *out);
/* Statistics so far: ticks written, median tick cost, peak RSS seen. */
void sampler_stats(sampler_t *s, uint64_t *ticks, double *median_tick_us, uint64_t *peak_rss);
/* Sample of the process at pid alone, once, with no thread (watch's
 * starting point, tests). */
int sampler_probe(pid_t pid, uint64_t *rss);

/* Whether the sampling thread stopped because nothing was left to watch
 * (the processes ended; a --cgroup gone past its grace). */
bool sampler_ended(sampler_t *s);
/* How long a watched cgroup (--cgroup) may be gone before the watch ends:
 * a restarted service's cgroup is removed and made again at its path.
 * SAMPLER_CGROUP_GRACE_S, or ZKBENCH_CGROUP_GRACE_S seconds. */
#define SAMPLER_CGROUP_GRACE_S 30.0
double sampler_cgroup_grace_s(void);

#endif
