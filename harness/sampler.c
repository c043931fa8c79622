/* The sampler thread; see sampler.h. */
#define _GNU_SOURCE
#include "harness/sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <jemalloc/jemalloc.h>
#include <libproc2/pids.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

struct sampler {
    struct sampler_config cfg;
    pid_t pid;
    FILE *csv;
    struct pids_info *pids;
    int status_fd, smaps_fd;
    bool self, je_ok;
    size_t je_mib[JE_COUNT][8], je_miblen[JE_COUNT];
    size_t epoch_mib[4], epoch_miblen;
    size_t page;
    int gpus;
    char *buf; /* /proc reads */
    size_t buf_cap;

    pthread_t thread;
    atomic_bool stop;
    pthread_mutex_t lock; /* latest, ticks, stats */
    sample_t latest;
    double *tick_us;
    size_t n_ticks, cap_ticks;
    uint64_t peak_rss;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
    if (s->smaps_fd >= 0 && read_proc(s, s->smaps_fd) > 0) {
        out->smaps_pss = field_kib(s->buf, "\nPss:");
        out->smaps_anon = field_kib(s->buf, "\nAnonymous:");
        out->smaps_swap = field_kib(s->buf, "\nSwap:");
    }
    return 0;
}

static void gpu_read(sampler_t *s, sample_t *out)
{
    for (int d = 0; d < s->gpus; d++) {
        size_t free_b = 0, total = 0;
        if (kernels_device_mem(d, &free_b, &total) == 0)
            out->gpu_used += total - free_b;
    }
}

int sampler_read(sampler_t *s, sample_t *out)
{
    double t0 = now_s();
    memset(out, 0, sizeof *out);
    out->t_ms = (t0 - s->cfg.t0) * 1e3;
    int rc = proc_read(s, out);
    if (rc < 0)
        return rc;
    je_read(s, out);
    if (s->gpus)
        gpu_read(s, out);
    if (s->self) {
        for (int k = 0; k < MEM_KIND_COUNT; k++)
            out->live[k] = mem_live_bytes((enum mem_kind)k);
        if (s->cfg.occupancy)
            s->cfg.occupancy(s->cfg.ctx, out->occ);
    }
    out->tick_us = (now_s() - t0) * 1e6;
    return 0;
}

const char *sampler_occ_name(enum sampler_occ i)
{
    static const char *const names[SAMPLER_OCC_COUNT] = {
        "q_synth",         "n_synth",         "n_blocked",       "q_gpu",       "n_gpu",
        "n_finish",        "n_dealloc",       "partitions_admitted", "partitions_done", "proofs_done",
    };
    return (unsigned)i < SAMPLER_OCC_COUNT ? names[i] : NULL;
}

void sampler_write_header(FILE *csv, bool smaps_rollup)
{
    fputs("t_ms,rss,rss_anon,rss_file,hwm,je_allocated,je_active,je_resident,je_mapped,je_retained,"
          "je_metadata,je_dirty,je_muzzy,gpu_used",
          csv);
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        fprintf(csv, ",live_%s", mem_kind_name((enum mem_kind)k));
    for (int i = 0; i < SAMPLER_OCC_COUNT; i++)
        fprintf(csv, ",%s", sampler_occ_name((enum sampler_occ)i));
    fputs(",tick_us", csv);
    if (smaps_rollup)
        fputs(",smaps_pss,smaps_anon,smaps_swap", csv);
    fputc('\n', csv);
    fflush(csv);
}

/* One row; the columns this process cannot know (another process's heap)
 * stay empty rather than zero, so analysis never mistakes them for data. */
static void write_row(sampler_t *s, const sample_t *x)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "%.3f,%llu,%llu,%llu,%llu", x->t_ms, (unsigned long long)x->rss,
                     (unsigned long long)x->rss_anon, (unsigned long long)x->rss_file,
                     (unsigned long long)x->hwm);
    const uint64_t je[8] = {x->je_allocated, x->je_active, x->je_resident, x->je_mapped,
                            x->je_retained, x->je_metadata, x->je_dirty, x->je_muzzy};
    for (int i = 0; i < 8; i++)
        n += s->je_ok ? snprintf(line + n, sizeof line - n, ",%llu", (unsigned long long)je[i])
                      : snprintf(line + n, sizeof line - n, ",");
    n += snprintf(line + n, sizeof line - n, ",%llu", (unsigned long long)x->gpu_used);
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        n += s->self ? snprintf(line + n, sizeof line - n, ",%llu", (unsigned long long)x->live[k])
                     : snprintf(line + n, sizeof line - n, ",");
    for (int i = 0; i < SAMPLER_OCC_COUNT; i++)
        n += s->self ? snprintf(line + n, sizeof line - n, ",%llu", (unsigned long long)x->occ[i])
                     : snprintf(line + n, sizeof line - n, ",");
    n += snprintf(line + n, sizeof line - n, ",%.1f", x->tick_us);
    if (s->cfg.smaps_rollup)
        n += snprintf(line + n, sizeof line - n, ",%llu,%llu,%llu", (unsigned long long)x->smaps_pss,
                      (unsigned long long)x->smaps_anon, (unsigned long long)x->smaps_swap);
    line[n++] = '\n';
    fwrite(line, 1, (size_t)n, s->csv);
    fflush(s->csv);
}

static void record(sampler_t *s, const sample_t *x)
{
    write_row(s, x);
    pthread_mutex_lock(&s->lock);
    s->latest = *x;
    if (x->rss > s->peak_rss)
        s->peak_rss = x->rss;
    if (s->n_ticks == s->cap_ticks) {
        size_t cap = s->cap_ticks ? 2 * s->cap_ticks : 1024;
        double *t = realloc(s->tick_us, cap * sizeof *t);
        if (t) {
            s->tick_us = t;
            s->cap_ticks = cap;
        }
    }
    if (s->n_ticks < s->cap_ticks)
        s->tick_us[s->n_ticks++] = x->tick_us;
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
        next.tv_nsec += (long)s->cfg.period_ms * 1000000L;
        while (next.tv_nsec >= 1000000000L) {
            next.tv_nsec -= 1000000000L;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
            ;
        if (atomic_load(&s->stop))
            break;
        sample_t x;
        if (sampler_read(s, &x) < 0)
            break; /* the process is gone */
        record(s, &x);
        if (s->cfg.after_tick)
            s->cfg.after_tick(s->cfg.tick_ctx);
    }
    return NULL;
}

static void sampler_free(sampler_t *s)
{
    if (s->pids)
        procps_pids_unref(&s->pids);
    if (s->status_fd >= 0)
        close(s->status_fd);
    if (s->smaps_fd >= 0)
        close(s->smaps_fd);
    pthread_mutex_destroy(&s->lock);
    free(s->tick_us);
    free(s->buf);
    free(s);
}

int sampler_start(sampler_t **ret, const struct sampler_config *cfg, FILE *csv)
{
    if (cfg->period_ms == 0)
        return -EINVAL;
    sampler_t *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    s->cfg = *cfg;
    s->csv = csv;
    s->self = cfg->pid == 0;
    s->pid = s->self ? getpid() : cfg->pid;
    s->status_fd = s->smaps_fd = -1;
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->stop, false);
    s->buf_cap = 8192;
    s->buf = malloc(s->buf_cap);
    int rc = -ENOMEM;
    if (!s->buf)
        goto fail;
    enum pids_item items[3] = {PIDS_VM_RSS, PIDS_VM_RSS_ANON, PIDS_VM_RSS_FILE};
    if ((rc = procps_pids_new(&s->pids, items, 3)) < 0)
        goto fail;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)s->pid);
    if ((s->status_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = -ESRCH;
        goto fail;
    }
    if (cfg->smaps_rollup) {
        snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)s->pid);
        if ((s->smaps_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
            rc = -errno;
            goto fail;
        }
    }
    je_init(s);
    if (cfg->gpu && kernels_device_count(&s->gpus) != 0)
        s->gpus = 0;
    sample_t x;
    if ((rc = sampler_read(s, &x)) < 0)
        goto fail;
    sampler_write_header(s->csv, s->cfg.smaps_rollup);
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

void sampler_stop(sampler_t *s)
{
    if (!s)
        return;
    atomic_store(&s->stop, true);
    pthread_join(s->thread, NULL);
    sample_t x;
    if (sampler_read(s, &x) == 0)
        record(s, &x);
    if (s->cfg.after_tick)
        s->cfg.after_tick(s->cfg.tick_ctx);
    sampler_free(s);
}

void sampler_latest(sampler_t *s, sample_t *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->latest;
    pthread_mutex_unlock(&s->lock);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sampler_stats(sampler_t *s, uint64_t *ticks, double *median_tick_us, uint64_t *peak_rss)
{
    pthread_mutex_lock(&s->lock);
    *ticks = s->n_ticks;
    *peak_rss = s->peak_rss;
    *median_tick_us = 0;
    if (s->n_ticks) {
        double *copy = malloc(s->n_ticks * sizeof *copy);
        if (copy) {
            memcpy(copy, s->tick_us, s->n_ticks * sizeof *copy);
            qsort(copy, s->n_ticks, sizeof *copy, cmp_double);
            *median_tick_us = copy[s->n_ticks / 2];
            free(copy);
        }
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
