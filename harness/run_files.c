/* The files of a batch run; see run_files.h. */
#define _GNU_SOURCE
#include "harness/run_files.h"

#include "harness/cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A live buffer, keyed by id in an open-addressing table (linear probing,
 * backward-shift deletion): memory proportional to live buffers, not to all
 * buffers ever made. */
struct live_buf {
    uint64_t id; /* 0: empty slot */
    uint64_t bytes;
    double t_alloc_ms, t_use_ms; /* t_use_ms < 0: unknown */
    int kind, device, proof, partition;
};

struct run_files {
    char dir[4096];
    double t0_ns; /* run start on the mem clock (CLOCK_MONOTONIC ns) */
    FILE *samples, *buffers, *stages, *proofs;
    pthread_mutex_t rows_lock; /* stages, proofs */

    pthread_mutex_t ev_lock;   /* the event queue */
    struct mem_event *ev, *ev_spare;
    size_t n_ev, cap_ev, cap_spare;
    uint64_t ev_dropped;

    struct live_buf *table; /* drain thread only */
    size_t cap_table, n_live;

    void (*proof_hook)(void *ctx, double wall_ms);
    void *proof_ctx;
};

static FILE *open_csv(const char *dir, const char *name, const char *header, char *err, size_t cap)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
        return NULL;
    }
    if (header) {
        fputs(header, f);
        fflush(f);
    }
    return f;
}

int run_files_open(run_files_t **ret, const char *dir, double t0, char *err, size_t cap)
{
    run_files_t *rf = calloc(1, sizeof *rf);
    if (!rf) {
        snprintf(err, cap, "out of memory");
        return -ENOMEM;
    }
    if (strlen(dir) >= sizeof rf->dir) {
        free(rf);
        snprintf(err, cap, "output folder name too long");
        return -ENAMETOOLONG;
    }
    strcpy(rf->dir, dir);
    rf->t0_ns = t0 * 1e9;
    pthread_mutex_init(&rf->rows_lock, NULL);
    pthread_mutex_init(&rf->ev_lock, NULL);
    int rc = cli_mkdir_p(dir);
    if (rc < 0) {
        snprintf(err, cap, "cannot create output folder %s: %s", dir, strerror(-rc));
        goto fail;
    }
    rc = -EIO;
    if (!(rf->samples = open_csv(dir, "samples.csv", NULL, err, cap)) ||
        !(rf->buffers = open_csv(dir, "buffers.csv",
                                 "id,kind,device,proof,partition,bytes,t_alloc_ms,t_free_ms,t_last_use_ms\n", err,
                                 cap)) ||
        !(rf->stages = open_csv(dir, "stages.csv", "proof,partition,stage,worker,t_start_ms,t_end_ms\n", err, cap)) ||
        !(rf->proofs = open_csv(dir, "proofs.csv", "proof,t_submit_ms,t_start_ms,t_done_ms,wall_ms,verified\n",
                                err, cap)))
        goto fail;
    rf->cap_table = 1024;
    rf->table = calloc(rf->cap_table, sizeof *rf->table);
    if (!rf->table) {
        snprintf(err, cap, "out of memory");
        rc = -ENOMEM;
        goto fail;
    }
    *ret = rf;
    return 0;
fail:
    run_files_close(rf);
    return rc;
}

FILE *run_files_samples(run_files_t *rf)
{
    return rf->samples;
}

const char *run_files_dir(const run_files_t *rf)
{
    return rf->dir;
}

void run_files_mem_sink(void *ctx, const struct mem_event *ev)
{
    run_files_t *rf = ctx;
    pthread_mutex_lock(&rf->ev_lock);
    if (rf->n_ev == rf->cap_ev) {
        size_t cap = rf->cap_ev ? 2 * rf->cap_ev : 4096;
        /* plain realloc: the harness's own bookkeeping, not a prover buffer */
        struct mem_event *p = realloc(rf->ev, cap * sizeof *p);
        if (!p) {
            rf->ev_dropped++;
            pthread_mutex_unlock(&rf->ev_lock);
            return;
        }
        rf->ev = p;
        rf->cap_ev = cap;
    }
    rf->ev[rf->n_ev++] = *ev;
    pthread_mutex_unlock(&rf->ev_lock);
}

/* ---- the live-buffer table ---- */

static size_t slot_of(uint64_t id, size_t cap)
{
    return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static struct live_buf *table_find(run_files_t *rf, uint64_t id)
{
    size_t i = slot_of(id, rf->cap_table);
    while (rf->table[i].id) {
        if (rf->table[i].id == id)
            return &rf->table[i];
        i = (i + 1) & (rf->cap_table - 1);
    }
    return NULL;
}

static void table_put(run_files_t *rf, const struct live_buf *b);

static void table_grow(run_files_t *rf)
{
    struct live_buf *old = rf->table;
    size_t old_cap = rf->cap_table;
    struct live_buf *t = calloc(old_cap * 2, sizeof *t);
    if (!t)
        return; /* keep probing the full table: slower, still correct below 100% */
    rf->table = t;
    rf->cap_table = old_cap * 2;
    rf->n_live = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].id)
            table_put(rf, &old[i]);
    free(old);
}

static void table_put(run_files_t *rf, const struct live_buf *b)
{
    if ((rf->n_live + 1) * 4 > rf->cap_table * 3)
        table_grow(rf);
    if (rf->n_live + 1 >= rf->cap_table)
        return; /* no memory to grow and full: the row is lost, the run goes on */
    size_t i = slot_of(b->id, rf->cap_table);
    while (rf->table[i].id)
        i = (i + 1) & (rf->cap_table - 1);
    rf->table[i] = *b;
    rf->n_live++;
}

static void table_remove(run_files_t *rf, struct live_buf *slot)
{
    size_t mask = rf->cap_table - 1, i = (size_t)(slot - rf->table), j = i;
    rf->table[i].id = 0;
    rf->n_live--;
    for (;;) {
        j = (j + 1) & mask;
        if (!rf->table[j].id)
            return;
        size_t home = slot_of(rf->table[j].id, rf->cap_table);
        /* move j back to i when i lies cyclically in [home, j) */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            rf->table[i] = rf->table[j];
            rf->table[j].id = 0;
            i = j;
        }
    }
}

static void write_buffer_row(run_files_t *rf, const struct live_buf *b, double t_free_ms)
{
    char device[16], t_free[32], t_use[32];
    if (b->device == MEM_HOST)
        strcpy(device, "host");
    else
        snprintf(device, sizeof device, "gpu%d", b->device);
    if (t_free_ms >= 0)
        snprintf(t_free, sizeof t_free, "%.3f", t_free_ms);
    else
        t_free[0] = 0;
    if (b->t_use_ms >= 0)
        snprintf(t_use, sizeof t_use, "%.3f", b->t_use_ms);
    else
        t_use[0] = 0;
    fprintf(rf->buffers, "%llu,%s,%s,%d,%d,%llu,%.3f,%s,%s\n", (unsigned long long)b->id,
            mem_kind_name((enum mem_kind)b->kind), device, b->proof, b->partition, (unsigned long long)b->bytes,
            b->t_alloc_ms, t_free, t_use);
}

void run_files_drain(run_files_t *rf)
{
    /* swap the queue out under the lock, work on it outside */
    pthread_mutex_lock(&rf->ev_lock);
    struct mem_event *ev = rf->ev;
    size_t n = rf->n_ev, cap = rf->cap_ev;
    rf->ev = rf->ev_spare;
    rf->cap_ev = rf->cap_spare;
    rf->n_ev = 0;
    pthread_mutex_unlock(&rf->ev_lock);

    for (size_t i = 0; i < n; i++) {
        const struct mem_event *e = &ev[i];
        double t_ms = ((double)e->t_ns - rf->t0_ns) / 1e6;
        if (!e->is_free && !e->is_use) {
            struct live_buf b = {e->id, e->bytes, t_ms, -1, e->kind, e->device, e->proof, e->partition};
            table_put(rf, &b);
            continue;
        }
        struct live_buf *b = table_find(rf, e->id);
        if (!b)
            continue;
        if (e->is_use) {
            b->t_use_ms = t_ms;
        } else {
            write_buffer_row(rf, b, t_ms);
            table_remove(rf, b);
        }
    }
    if (n)
        fflush(rf->buffers);
    pthread_mutex_lock(&rf->ev_lock);
    rf->ev_spare = ev;
    rf->cap_spare = cap;
    pthread_mutex_unlock(&rf->ev_lock);
}

void run_files_stage(run_files_t *rf, int proof, int partition, const char *stage, const char *worker,
                     double t_start_ms, double t_end_ms)
{
    pthread_mutex_lock(&rf->rows_lock);
    fprintf(rf->stages, "%d,%d,%s,%s,%.3f,%.3f\n", proof, partition, stage, worker, t_start_ms, t_end_ms);
    fflush(rf->stages);
    pthread_mutex_unlock(&rf->rows_lock);
}

void run_files_proof(run_files_t *rf, int proof, double t_submit_ms, double t_start_ms, double t_done_ms,
                     int verified)
{
    char v[12] = "";
    if (verified >= 0)
        snprintf(v, sizeof v, "%d", verified);
    pthread_mutex_lock(&rf->rows_lock);
    fprintf(rf->proofs, "%d,%.3f,%.3f,%.3f,%.3f,%s\n", proof, t_submit_ms, t_start_ms, t_done_ms,
            t_done_ms - t_submit_ms, v);
    fflush(rf->proofs);
    pthread_mutex_unlock(&rf->rows_lock);
    if (rf->proof_hook)
        rf->proof_hook(rf->proof_ctx, t_done_ms - t_submit_ms);
}

void run_files_set_proof_hook(run_files_t *rf, void (*fn)(void *ctx, double wall_ms), void *ctx)
{
    rf->proof_hook = fn;
    rf->proof_ctx = ctx;
}

int run_files_write_json(run_files_t *rf, json_t *root)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/run.json", rf->dir);
    snprintf(tmp, sizeof tmp, "%s/.run.json.tmp", rf->dir);
    if (json_dump_file(root, tmp, JSON_INDENT(2) | JSON_SORT_KEYS) != 0)
        return -EIO;
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return -e;
    }
    return 0;
}

void run_files_close(run_files_t *rf)
{
    if (!rf)
        return;
    if (rf->buffers && rf->table) {
        run_files_drain(rf);
        for (size_t i = 0; i < rf->cap_table; i++)
            if (rf->table[i].id)
                write_buffer_row(rf, &rf->table[i], -1);
    }
    FILE *files[4] = {rf->samples, rf->buffers, rf->stages, rf->proofs};
    for (int i = 0; i < 4; i++)
        if (files[i])
            fclose(files[i]);
    pthread_mutex_destroy(&rf->rows_lock);
    pthread_mutex_destroy(&rf->ev_lock);
    free(rf->ev);
    free(rf->ev_spare);
    free(rf->table);
    free(rf);
}
