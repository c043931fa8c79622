/* The sampler thread; see sampler.h. */
#define _GNU_SOURCE
#include "harness/run/sampler.h"
#include "harness/run/sample_thin.h"

#include <errno.h>
#include <fcntl.h>
#include <jemalloc/jemalloc.h>
#include <libproc2/pids.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio_ext.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/proc_tree.h"
#include "harness/run/run_clock.h"
#include "kernels/kernels.h"

enum je_stat {
    JE_ALLOCATED,
    JE_ACTIVE,
    JE_RESIDENT,
    JE_MAPPED,
    JE_RETAINED,
    JE_METADATA,
    JE_PDIRTY,
    JE_PMUZZY,
    JE_COUNT
};

static const char *const je_names[JE_COUNT] = {
    "stats.allocated", "stats.active",   "stats.resident",          "stats.mapped",
    "stats.retained",  "stats.metadata", "stats.arenas.4096.pdirty", "stats.arenas.4096.pmuzzy",
};

/* Tick costs from 0.1 us to about 2 min in steps of 1 %. */
#define TICK_BINS 2100
#define TICK_MIN_US 0.1
#define TICK_STEP 1.01

static int tick_bin(double us)
{
    if (!(us > TICK_MIN_US))
        return 0;
    double b = log(us / TICK_MIN_US) / log(TICK_STEP);
    return b >= TICK_BINS - 1 ? TICK_BINS - 1 : (int)b;
}

/* The geometric middle of bin i: within half a percent of any cost in it. */
static double tick_bin_mid_us(int i)
{
    return TICK_MIN_US * pow(TICK_STEP, i + 0.5);
}

struct sampler {
    struct sampler_config cfg;
    pid_t pid;
    FILE *csv;
    struct pids_info *pids;
    int status_fd, smaps_fd;
    bool self, je_ok;
    size_t je_mib[JE_COUNT][8], je_miblen[JE_COUNT];
    size_t epoch_mib[4], epoch_miblen;
    /* per arena: stats.arenas.<i>.pdirty / .pmuzzy with i at index 2, and
     * arenas.narenas (read each tick: arenas are created on demand) */
    size_t arena_mib[2][8], arena_miblen[2], narenas_mib[4], narenas_miblen;
    bool arenas_ok;
    size_t page;
    int gpus;
    /* a batch on the GPU: NVML opened here for gpu<d>_util (NULL: no NVML,
     * or no utilisation query: the columns are absent) */
    nvml_gpu_t *own_nvml;
    char *buf; /* /proc reads */
    size_t buf_cap;
    proc_tree_t *tree; /* watch: the processes read each tick */
    uint64_t tree_hwm; /* the largest VmHWM of any of them so far */
    double cg_gone_s;  /* when the cgroup's reads began to fail (0: they do not) */
    pid_t *tree_pids;  /* their pids, for NVML */
    size_t cap_pids;
    pthread_mutex_t read_lock; /* buf, pids, fds: the thread's reads and sampler_read's callers */
    off_t csv_good;            /* samples.csv ends with a whole row here */
    atomic_int write_err;      /* first write error (-errno) */
    char *procs_buf;           /* a tick's procs.csv rows */
    size_t procs_cap;
    off_t procs_good;          /* procs.csv ends with a whole row here */
    bool write_err_procs;      /* the write error was procs.csv's, not samples.csv's */

    pthread_t thread;
    atomic_bool stop;
    atomic_uint period_ms;     /* the tick; sampler_set_period lowers it while the thread runs */
    atomic_bool ended; /* the thread stopped: nothing left to watch */
    pthread_mutex_t lock; /* latest, ticks, stats */
    sample_t latest;
    /* the ticks' cost as a histogram in steps of 1 %: the median in
     * constant time and memory, however long the run (an array of every
     * tick, copied and sorted for each console line, grew with the run) */
    uint32_t tick_hist[TICK_BINS];
    size_t n_ticks;
    uint64_t peak_rss;
    sample_thin_t *thin; /* after cfg.thin_after_ms: rows by interval, or NULL */
    uint64_t last_done;  /* proofs_done of the last tick recorded */
};

static void je_init(sampler_t *s)
{
    s->je_ok = false;
    if (!s->self)
        return;
    s->epoch_miblen = 4;
    if (mallctlnametomib("epoch", s->epoch_mib, &s->epoch_miblen) != 0)
        return;
    for (int i = 0; i < JE_COUNT; i++) {
        s->je_miblen[i] = 8;
        if (mallctlnametomib(je_names[i], s->je_mib[i], &s->je_miblen[i]) != 0)
            return;
    }
    size_t sz = sizeof s->page;
    if (mallctl("arenas.page", &s->page, &sz, NULL, 0) != 0)
        s->page = 4096;
    s->je_ok = true;
    static const char *const per_arena[2] = {"stats.arenas.0.pdirty", "stats.arenas.0.pmuzzy"};
    s->narenas_miblen = 4;
    s->arenas_ok = mallctlnametomib("arenas.narenas", s->narenas_mib, &s->narenas_miblen) == 0;
    for (int k = 0; k < 2 && s->arenas_ok; k++) {
        s->arena_miblen[k] = 8;
        s->arenas_ok = mallctlnametomib(per_arena[k], s->arena_mib[k], &s->arena_miblen[k]) == 0;
    }
}

/* The freed pages (dirty and muzzy) each arena keeps, summarized: how many
 * arenas keep any, and the most one keeps (docs/diagnosis.md, "Capacity":
 * the retention model scales with the arenas synthesis threads free into).
 * After je_read's epoch refresh. */
static void je_read_arenas(sampler_t *s, sample_t *out)
{
    unsigned narenas = 0;
    size_t sz = sizeof narenas;
    if (!s->arenas_ok || mallctlbymib(s->narenas_mib, s->narenas_miblen, &narenas, &sz, NULL, 0) != 0)
        return;
    for (unsigned i = 0; i < narenas; i++) {
        size_t pages = 0;
        for (int k = 0; k < 2; k++) {
            size_t mib[8], v = 0;
            memcpy(mib, s->arena_mib[k], sizeof mib);
            mib[2] = i;
            sz = sizeof v;
            if (mallctlbymib(mib, s->arena_miblen[k], &v, &sz, NULL, 0) == 0)
                pages += v; /* an arena not initialized answers EFAULT: it keeps nothing */
        }
        uint64_t bytes = (uint64_t)pages * s->page;
        out->je_arenas_freed += bytes > 0;
        if (bytes > out->je_arena_freed_max)
            out->je_arena_freed_max = bytes;
    }
}

static void je_read(sampler_t *s, sample_t *out)
{
    if (!s->je_ok)
        return;
    uint64_t epoch = 1;
    size_t sz = sizeof epoch;
    mallctlbymib(s->epoch_mib, s->epoch_miblen, &epoch, &sz, &epoch, sz);
    size_t v[JE_COUNT] = {0};
    for (int i = 0; i < JE_COUNT; i++) {
        sz = sizeof v[i];
        mallctlbymib(s->je_mib[i], s->je_miblen[i], &v[i], &sz, NULL, 0);
    }
    out->je_allocated = v[JE_ALLOCATED];
    out->je_active = v[JE_ACTIVE];
    out->je_resident = v[JE_RESIDENT];
    out->je_mapped = v[JE_MAPPED];
    out->je_retained = v[JE_RETAINED];
    out->je_metadata = v[JE_METADATA];
    out->je_dirty = v[JE_PDIRTY] * s->page;
    out->je_muzzy = v[JE_PMUZZY] * s->page;
    je_read_arenas(s, out);
}

/* Reads a whole /proc file through a descriptor kept open (pread from 0). */
static ssize_t read_proc(sampler_t *s, int fd)
{
    ssize_t n = pread(fd, s->buf, s->buf_cap - 1, 0);
    if (n < 0)
        return -errno;
    s->buf[n] = 0;
    return n;
}

static uint64_t field_kib(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    if (!p)
        return 0;
    p += strlen(key);
    return strtoull(p, NULL, 10) * 1024;
}

/* smaps_rollup of the process (batch; watch sums its tree's, tree_read) */
static void smaps_read(sampler_t *s, sample_t *out)
{
    if (s->smaps_fd >= 0 && read_proc(s, s->smaps_fd) > 0) {
        out->smaps_pss = field_kib(s->buf, "\nPss:");
        out->smaps_anon = field_kib(s->buf, "\nAnonymous:");
        out->smaps_swap = field_kib(s->buf, "\nSwap:");
    }
}

static int proc_read(sampler_t *s, sample_t *out)
{
    struct pids_fetch *f = procps_pids_select(s->pids, (unsigned *)&s->pid, 1, PIDS_SELECT_PID);
    if (!f || f->counts->total < 1)
        return -ESRCH;
    out->rss = PIDS_VAL(0, ul_int, f->stacks[0], s->pids) * 1024;
    out->rss_anon = PIDS_VAL(1, ul_int, f->stacks[0], s->pids) * 1024;
    out->rss_file = PIDS_VAL(2, ul_int, f->stacks[0], s->pids) * 1024;
    if (read_proc(s, s->status_fd) < 0 || !strstr(s->buf, "VmRSS:"))
        return -ESRCH; /* gone, or a zombie: no memory left to measure */
    out->hwm = field_kib(s->buf, "VmHWM:");
    smaps_read(s, out);
    return 0;
}

bool sampler_ended(sampler_t *s)
{
    return atomic_load(&s->ended);
}

double sampler_cgroup_grace_s(void)
{
    /* ZKBENCH_CGROUP_GRACE_S: for tests, which cannot wait half a minute */
    const char *e = getenv("ZKBENCH_CGROUP_GRACE_S");
    char *end;
    double v = e && *e ? strtod(e, &end) : NAN;
    return e && *e && *end == '\0' && v >= 0 && v <= 86400 ? v : SAMPLER_CGROUP_GRACE_S;
}

/* Watch: the process tree (and the cgroup's processes), summed; the
 * cgroup's values; NVML's per-process GPU memory. -ESRCH when nothing is
 * left to watch. */
static int tree_read(sampler_t *s, sample_t *out)
{
    const pid_t *extra = NULL;
    size_t n_extra = 0;
    if (s->cfg.cgroup) {
        out->cg_ok = cgroup_stat_read(s->cfg.cgroup, &out->cg) == 0;
        if (cgroup_stat_procs(s->cfg.cgroup, &extra, &n_extra) < 0)
            n_extra = 0;
    }
    int n = proc_tree_read(s->tree, extra, n_extra);
    if (n < 0)
        return n;
    if (s->cfg.cgroup)
        s->cg_gone_s = out->cg_ok ? 0 : s->cg_gone_s > 0 ? s->cg_gone_s : run_clock_now();
    /* the processes ended, or the cgroup has been gone for the grace (a
     * restarted service's cgroup comes back within it: its files are
     * reopened, and the rows between have empty cg_ cells) */
    if (n == 0 && !out->cg_ok && (!s->cfg.cgroup || run_clock_now() - s->cg_gone_s >= sampler_cgroup_grace_s()))
        return -ESRCH;
    size_t np;
    const struct proc_tree_proc *p = proc_tree_procs(s->tree, &np);
    if (np > s->cap_pids) {
        pid_t *a = realloc(s->tree_pids, np * sizeof *a);
        if (!a)
            return -ENOMEM;
        s->tree_pids = a;
        s->cap_pids = np;
    }
    for (size_t i = 0; i < np; i++) {
        out->rss += p[i].rss;
        out->rss_anon += p[i].rss_anon;
        out->rss_file += p[i].rss_file;
        if (p[i].hwm > s->tree_hwm)
            s->tree_hwm = p[i].hwm;
        s->tree_pids[i] = p[i].pid;
    }
    out->hwm = s->tree_hwm;
    out->n_procs = np;
    /* --smaps: Pss summed over the tree counts a shared page once (the
     * rss sum counts it in every process that maps it: forked workers
     * sharing their parameters read as that many copies) */
    for (size_t i = 0; s->cfg.smaps_rollup && i < np; i++) {
        out->smaps_pss += p[i].pss;
        out->smaps_anon += p[i].smaps_anon;
        out->smaps_swap += p[i].swap;
    }
    if (s->cfg.nvml && nvml_gpu_read(s->cfg.nvml, s->tree_pids, np, &out->gpu) == 0) {
        out->gpu_ok = true;
        for (unsigned d = 0; d < out->gpu.n; d++)
            out->gpu_used += out->gpu.used[d];
    }
    if (s->cfg.proofs_done)
        out->occ[SAMPLER_PROOFS_DONE] = atomic_load(s->cfg.proofs_done);
    return 0;
}

/* gpu_used: the listed devices (each into gpu.used[i] too), or every one;
 * gpu_ok unless a read failed (the row's GPU cells then stay empty: a
 * failed read is no 0 bytes, which would read as a valley floor) */
static void gpu_read(sampler_t *s, sample_t *out)
{
    unsigned n = s->cfg.n_gpu_devices ? s->cfg.n_gpu_devices : (unsigned)s->gpus;
    out->gpu_ok = true;
    for (unsigned i = 0; i < n; i++) {
        size_t free_b = 0, total = 0;
        int dev = s->cfg.n_gpu_devices ? s->cfg.gpu_devices[i] : (int)i;
        bool ok = kernels_device_mem(dev, &free_b, &total) == 0;
        out->gpu_ok = out->gpu_ok && ok;
        uint64_t used = ok ? total - free_b : 0;
        if (s->cfg.n_gpu_devices)
            out->gpu.used[i] = used;
        out->gpu_used += used;
    }
    out->gpu.n = s->cfg.n_gpu_devices;
}

/* gpu.util[i] of the i-th listed device, from NVML's device of that index */
static void util_read(sampler_t *s, sample_t *out)
{
    int util[NVML_GPU_MAX];
    bool ok = nvml_gpu_read_util(s->own_nvml, util) == 0;
    for (unsigned i = 0; i < s->cfg.n_gpu_devices; i++) {
        int d = s->cfg.gpu_devices[i];
        out->gpu.util[i] = ok && d >= 0 && (unsigned)d < nvml_gpu_count(s->own_nvml) ? util[d] : -1;
    }
}

int sampler_read(sampler_t *s, sample_t *out)
{
    pthread_mutex_lock(&s->read_lock);
    double t0 = run_clock_now();
    memset(out, 0, sizeof *out);
    out->t_ms = (t0 - s->cfg.t0) * 1e3;
    if (s->self) {
        /* the row's time is the instant of the tracked counters: every
         * buffer event stamped before it is in them, none after (mem.h),
         * so buffers.csv and the live_ columns agree exactly */
        uint64_t t_ns = mem_live_snapshot(out->live);
        out->t_ms = ((double)t_ns - s->cfg.t0 * 1e9) / 1e6;
    }
    int rc = s->tree ? tree_read(s, out) : proc_read(s, out);
    if (rc == 0) {
        je_read(s, out);
        if (s->gpus)
            gpu_read(s, out);
        if (s->own_nvml)
            util_read(s, out);
        if (s->self && s->cfg.occupancy)
            s->cfg.occupancy(s->cfg.ctx, out->occ);
        out->tick_us = (run_clock_now() - t0) * 1e6;
    }
    pthread_mutex_unlock(&s->read_lock);
    return rc;
}

int sampler_write_error(sampler_t *s)
{
    return atomic_load(&s->write_err);
}

const char *sampler_write_error_file(sampler_t *s)
{
    /* write_err is stored after write_err_procs, on the same thread */
    return atomic_load(&s->write_err) && s->write_err_procs ? "procs.csv" : "samples.csv";
}

const char *sampler_occ_name(enum sampler_occ i)
{
    static const char *const names[SAMPLER_OCC_COUNT] = {
        "q_synth",         "n_synth",         "n_blocked",       "q_gpu",       "n_gpu",
        "n_finish",        "n_dealloc",       "partitions_admitted", "partitions_done", "proofs_done",
        "reserved_bytes",
    };
    return (unsigned)i < SAMPLER_OCC_COUNT ? names[i] : NULL;
}

void sampler_write_header(FILE *csv, bool smaps_rollup)
{
    struct sampler_config cfg = {.smaps_rollup = smaps_rollup};
    sampler_write_header_cfg(csv, &cfg);
}

void sampler_write_header_cfg(FILE *csv, const struct sampler_config *cfg)
{
    bool smaps_rollup = cfg->smaps_rollup;
    fputs("t_ms,rss,rss_anon,rss_file,hwm,je_allocated,je_active,je_resident,je_mapped,je_retained,"
          "je_metadata,je_dirty,je_muzzy,je_arena_freed_max,je_arenas_freed,gpu_used",
          csv);
    for (unsigned i = 0; !cfg->tree && cfg->gpu && i < cfg->n_gpu_devices; i++)
        fprintf(csv, ",gpu%d_used", cfg->gpu_devices[i]);
    /* NVML's index d is taken for CUDA's device d (docs/diagnosis.md, "Busy") */
    for (unsigned i = 0; !cfg->tree && cfg->gpu && nvml_gpu_has_util(cfg->nvml) && i < cfg->n_gpu_devices; i++)
        fprintf(csv, ",gpu%d_util", cfg->gpu_devices[i]);
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        fprintf(csv, ",live_%s", mem_kind_name((enum mem_kind)k));
    for (int i = 0; i < SAMPLER_OCC_COUNT; i++)
        fprintf(csv, ",%s", sampler_occ_name((enum sampler_occ)i));
    fputs(",tick_us", csv);
    if (smaps_rollup)
        fputs(",smaps_pss,smaps_anon,smaps_swap", csv);
    if (cfg->tree) {
        fputs(",n_procs,cg_current,cg_peak,cg_anon,cg_file,cg_shmem,cg_oom_kill", csv);
        for (unsigned d = 0; cfg->nvml && d < nvml_gpu_count(cfg->nvml); d++) {
            fprintf(csv, ",gpu%u_used,gpu%u_device_used", d, d);
            if (nvml_gpu_has_util(cfg->nvml))
                fprintf(csv, ",gpu%u_util", d);
        }
    }
    fputc('\n', csv);
    fflush(csv);
}

/* Watch's appended columns (n_procs, cg_*, gpu<i>_*) into line; the
 * length written. Values not measured stay empty. */
static int watch_columns(const sampler_t *s, const sample_t *x, char *line, size_t cap)
{
    int n = snprintf(line, cap, ",%llu", (unsigned long long)x->n_procs);
    const struct cgroup_stat_values *c = &x->cg;
    if (x->cg_ok)
        n += snprintf(line + n, cap - (size_t)n, ",%llu,", (unsigned long long)c->current);
    else
        n += snprintf(line + n, cap - (size_t)n, ",,");
    if (x->cg_ok && c->has_peak)
        n += snprintf(line + n, cap - (size_t)n, "%llu", (unsigned long long)c->peak);
    if (x->cg_ok)
        n += snprintf(line + n, cap - (size_t)n, ",%llu,%llu,%llu,", (unsigned long long)c->anon,
                      (unsigned long long)c->file, (unsigned long long)c->shmem);
    else
        n += snprintf(line + n, cap - (size_t)n, ",,,,");
    if (x->cg_ok && c->has_oom_kill)
        n += snprintf(line + n, cap - (size_t)n, "%llu", (unsigned long long)c->oom_kill);
    bool util = nvml_gpu_has_util(s->cfg.nvml);
    for (unsigned d = 0; s->cfg.nvml && d < nvml_gpu_count(s->cfg.nvml); d++) {
        n += x->gpu_ok ? snprintf(line + n, cap - (size_t)n, ",%llu,%llu", (unsigned long long)x->gpu.used[d],
                                  (unsigned long long)x->gpu.device_used[d])
                       : snprintf(line + n, cap - (size_t)n, ",,");
        if (util && x->gpu_ok && x->gpu.util[d] >= 0)
            n += snprintf(line + n, cap - (size_t)n, ",%d", x->gpu.util[d]);
        else if (util)
            n += snprintf(line + n, cap - (size_t)n, ",");
    }
    return n;
}

/* One row; the columns this process cannot know (another process's heap)
 * stay empty rather than zero, so analysis never mistakes them for data. */
/* Appends n bytes of whole rows to f, or nothing: a failed write is cut
 * back to *good (the end of the last whole row), records the run's first
 * write error and stops the thread. A failing header shows in ferror. */
static void csv_append(sampler_t *s, FILE *f, off_t *good, const char *buf, size_t n)
{
    if (atomic_load(&s->write_err))
        return;
    if (ferror(f) || fwrite(buf, 1, n, f) != n || fflush(f) != 0) {
        int e = errno ? errno : EIO;
        s->write_err_procs = f != s->csv;
        __fpurge(f);
        if (*good > 0 && ftruncate(fileno(f), *good) == 0)
            lseek(fileno(f), *good, SEEK_SET);
        atomic_store(&s->write_err, -e);
        return;
    }
    *good = ftello(f);
}

/* This tick's procs.csv rows into s->procs_buf; their length (0 when they
 * cannot be formatted: the write error is recorded). */
static size_t format_procs(sampler_t *s, double t_ms)
{
    size_t need = proc_tree_format_rows(s->tree, t_ms, s->procs_buf, s->procs_cap);
    if (need >= s->procs_cap) {
        char *b = realloc(s->procs_buf, need + 1);
        if (!b) {
            atomic_store(&s->write_err, -ENOMEM);
            return 0;
        }
        s->procs_buf = b;
        s->procs_cap = need + 1;
        need = proc_tree_format_rows(s->tree, t_ms, s->procs_buf, s->procs_cap);
    }
    return need;
}

/* One samples.csv row into line (cap bytes); its length. */
static size_t format_row(sampler_t *s, const sample_t *x, char *line, size_t cap)
{
    int n = snprintf(line, cap, "%.3f,%llu,%llu,%llu,%llu", x->t_ms, (unsigned long long)x->rss,
                     (unsigned long long)x->rss_anon, (unsigned long long)x->rss_file,
                     (unsigned long long)x->hwm);
    const uint64_t je[10] = {x->je_allocated, x->je_active,   x->je_resident,        x->je_mapped,
                             x->je_retained,  x->je_metadata, x->je_dirty,           x->je_muzzy,
                             x->je_arena_freed_max, x->je_arenas_freed};
    for (int i = 0; i < 10; i++)
        n += s->je_ok ? snprintf(line + n, cap - n, ",%llu", (unsigned long long)je[i])
                      : snprintf(line + n, cap - n, ",");
    bool gpu_missing = (s->tree || s->gpus) && !x->gpu_ok;
    n += gpu_missing ? snprintf(line + n, cap - n, ",")
                     : snprintf(line + n, cap - n, ",%llu", (unsigned long long)x->gpu_used);
    for (unsigned i = 0; !s->tree && s->cfg.gpu && i < s->cfg.n_gpu_devices; i++)
        n += gpu_missing ? snprintf(line + n, cap - n, ",")
                         : snprintf(line + n, cap - n, ",%llu", (unsigned long long)x->gpu.used[i]);
    for (unsigned i = 0; !s->tree && s->cfg.gpu && nvml_gpu_has_util(s->cfg.nvml) && i < s->cfg.n_gpu_devices; i++)
        n += !gpu_missing && x->gpu.util[i] >= 0 ? snprintf(line + n, cap - n, ",%d", x->gpu.util[i])
                                                 : snprintf(line + n, cap - n, ",");
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        n += s->self ? snprintf(line + n, cap - n, ",%llu", (unsigned long long)x->live[k])
                     : snprintf(line + n, cap - n, ",");
    for (int i = 0; i < SAMPLER_OCC_COUNT; i++)
        n += s->self || (i == SAMPLER_PROOFS_DONE && s->cfg.proofs_done)
                 ? snprintf(line + n, cap - n, ",%llu", (unsigned long long)x->occ[i])
                 : snprintf(line + n, cap - n, ",");
    n += snprintf(line + n, cap - n, ",%.1f", x->tick_us);
    if (s->cfg.smaps_rollup)
        n += snprintf(line + n, cap - n, ",%llu,%llu,%llu", (unsigned long long)x->smaps_pss,
                      (unsigned long long)x->smaps_anon, (unsigned long long)x->smaps_swap);
    if (s->tree)
        n += watch_columns(s, x, line + n, cap - (size_t)n - 1);
    line[n++] = '\n';
    return (size_t)n;
}

/* A row kept (sample_thin_emit_fn): its procs rows, then its line. */
static void emit_row(void *ctx, const char *line, size_t n, const char *procs, size_t n_procs)
{
    sampler_t *s = ctx;
    if (n_procs)
        csv_append(s, s->cfg.procs_csv, &s->procs_good, procs, n_procs);
    csv_append(s, s->csv, &s->csv_good, line, n);
}

static void record(sampler_t *s, const sample_t *x)
{
    size_t np = s->tree && s->cfg.procs_csv ? format_procs(s, x->t_ms) : 0;
    char line[4096];
    size_t n = format_row(s, x, line, sizeof line);
    uint64_t done = x->occ[SAMPLER_PROOFS_DONE];
    bool marked = s->n_ticks > 0 && done != s->last_done;
    s->last_done = done;
    if (s->thin)
        sample_thin_offer(s->thin, x->t_ms, x->rss, marked, line, n, s->procs_buf, np);
    else
        emit_row(s, line, n, s->procs_buf, np);
    pthread_mutex_lock(&s->lock);
    s->latest = *x;
    if (x->rss > s->peak_rss)
        s->peak_rss = x->rss;
    uint32_t *bin = &s->tick_hist[tick_bin(x->tick_us)];
    if (*bin < UINT32_MAX)
        (*bin)++;
    s->n_ticks++;
    pthread_mutex_unlock(&s->lock);
    if (s->cfg.on_sample)
        s->cfg.on_sample(s->cfg.sample_ctx, x);
}

static void *sampler_main(void *arg)
{
    sampler_t *s = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!atomic_load(&s->stop)) {
        next.tv_nsec += (long)atomic_load(&s->period_ms) * 1000000L;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
        if (atomic_load(&s->stop))
            break;
        sample_t x;
        if (sampler_read(s, &x) < 0) {
            atomic_store(&s->ended, true);
            break; /* the process is gone (or the cgroup, past its grace) */
        }
        record(s, &x);
        if (atomic_load(&s->write_err))
            break; /* samples.csv cannot take more rows: the owner asks sampler_write_error */
        if (s->cfg.after_tick)
            s->cfg.after_tick(s->cfg.tick_ctx);
    }
    return NULL;
}

static void sampler_free(sampler_t *s)
{
    if (s->pids)
        procps_pids_unref(&s->pids);
    proc_tree_free(s->tree);
    nvml_gpu_close(s->own_nvml);
    free(s->tree_pids);
    if (s->status_fd >= 0)
        close(s->status_fd);
    if (s->smaps_fd >= 0)
        close(s->smaps_fd);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->read_lock);
    free(s->buf);
    free(s->procs_buf);
    sample_thin_free(s->thin);
    free(s);
}

int sampler_start(sampler_t **ret, const struct sampler_config *cfg, FILE *csv)
{
    if (cfg->period_ms == 0 || cfg->n_gpu_devices > NVML_GPU_MAX || (cfg->n_gpu_devices && !cfg->gpu_devices))
        return -EINVAL;
    sampler_t *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->cfg = *cfg;
    s->csv = csv;
    s->self = cfg->pid == 0 && !cfg->tree;
    s->pid = s->self ? getpid() : cfg->pid;
    s->status_fd = s->smaps_fd = -1;
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->read_lock, NULL);
    atomic_init(&s->stop, false);
    atomic_init(&s->period_ms, cfg->period_ms);
    atomic_init(&s->write_err, 0);
    s->buf_cap = 8192;
    s->buf = malloc(s->buf_cap);
    int rc = -ENOMEM;
    if (!s->buf)
        goto fail;
    char path[64];
    if (cfg->tree) {
        if ((rc = proc_tree_new(&s->tree, cfg->pid, cfg->children)) < 0)
            goto fail;
    } else {
        enum pids_item items[3] = {PIDS_VM_RSS, PIDS_VM_RSS_ANON, PIDS_VM_RSS_FILE};
        if ((rc = procps_pids_new(&s->pids, items, 3)) < 0)
            goto fail;
        snprintf(path, sizeof path, "/proc/%d/status", (int)s->pid);
        if ((s->status_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
            rc = -ESRCH;
            goto fail;
        }
    }
    if (cfg->tree && cfg->smaps_rollup)
        proc_tree_set_smaps(s->tree, true);
    else if (cfg->smaps_rollup && s->pid) {
        snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)s->pid);
        if ((s->smaps_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
            rc = -errno;
            goto fail;
        }
    }
    je_init(s);
    if (cfg->gpu && kernels_device_count(&s->gpus) != 0)
        s->gpus = 0;
    if (s->self && cfg->gpu && cfg->n_gpu_devices && !cfg->nvml && !getenv("ZKBENCH_NO_NVML")) {
        char nerr[128];
        if (nvml_gpu_open(&s->own_nvml, nerr, sizeof nerr) == 0 && !nvml_gpu_has_util(s->own_nvml)) {
            nvml_gpu_close(s->own_nvml);
            s->own_nvml = NULL;
        }
        s->cfg.nvml = s->own_nvml; /* the header and the rows see it */
    }
    if (cfg->thin_after_ms > 0 && (rc = sample_thin_new(&s->thin, cfg->thin_after_ms, cfg->thin_interval_ms,
                                                         emit_row, s)) < 0)
        goto fail;
    sample_t x;
    if ((rc = sampler_read(s, &x)) < 0)
        goto fail;
    sampler_write_header_cfg(s->csv, &s->cfg);
    s->csv_good = ftello(s->csv);
    if (s->tree && s->cfg.procs_csv)
        s->procs_good = ftello(s->cfg.procs_csv); /* after its header */
    if (cfg->fed) {
        *ret = s;
        return 0;
    }
    record(s, &x);
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        rc = -EAGAIN;
        goto fail;
    }
    *ret = s;
    return 0;
fail:
    sampler_free(s);
    return rc;
}

int sampler_stop(sampler_t *s)
{
    if (!s)
        return 0;
    atomic_store(&s->stop, true);
    sample_t x;
    if (!s->cfg.fed) {
        pthread_join(s->thread, NULL);
        if (!atomic_load(&s->write_err) && sampler_read(s, &x) == 0)
            record(s, &x);
    }
    sample_thin_flush(s->thin);
    if (s->cfg.after_tick)
        s->cfg.after_tick(s->cfg.tick_ctx);
    int rc = atomic_load(&s->write_err);
    sampler_free(s);
    return rc;
}

int sampler_feed(sampler_t *s, const sample_t *x)
{
    if (!s->cfg.fed)
        return -EINVAL;
    if (!atomic_load(&s->write_err))
        record(s, x);
    return atomic_load(&s->write_err);
}

int sampler_set_period(sampler_t *s, unsigned period_ms)
{
    if (!s || period_ms == 0)
        return -EINVAL;
    atomic_store(&s->period_ms, period_ms);
    return 0;
}

unsigned sampler_period(sampler_t *s)
{
    return atomic_load(&s->period_ms);
}

void sampler_latest(sampler_t *s, sample_t *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->latest;
    pthread_mutex_unlock(&s->lock);
}

void sampler_stats(sampler_t *s, uint64_t *ticks, double *median_tick_us, uint64_t *peak_rss)
{
    pthread_mutex_lock(&s->lock);
    *ticks = s->n_ticks;
    *peak_rss = s->peak_rss;
    *median_tick_us = 0;
    uint64_t total = 0, seen = 0;
    for (int i = 0; i < TICK_BINS; i++)
        total += s->tick_hist[i];
    for (int i = 0; i < TICK_BINS && total; i++)
        if ((seen += s->tick_hist[i]) > total / 2) {
            *median_tick_us = tick_bin_mid_us(i);
            break;
        }
    pthread_mutex_unlock(&s->lock);
}

int sampler_probe(pid_t pid, uint64_t *rss)
{
    enum pids_item items[1] = {PIDS_VM_RSS};
    struct pids_info *info = NULL;
    int rc = procps_pids_new(&info, items, 1);
    if (rc < 0)
        return rc;
    unsigned p = (unsigned)pid;
    struct pids_fetch *f = procps_pids_select(info, &p, 1, PIDS_SELECT_PID);
    rc = (!f || f->counts->total < 1) ? -ESRCH : 0;
    if (rc == 0)
        *rss = PIDS_VAL(0, ul_int, f->stacks[0], info) * 1024;
    procps_pids_unref(&info);
    return rc;
}
