/* The files of a batch run; see run_files.h. */
#define _GNU_SOURCE
#include "harness/run/out_file.h"
#include "harness/run/run_files.h"


#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
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

/* A CSV written a whole row per write(2) (or per chunk of whole rows): a
 * failed write is cut back to size, the last whole row. */
struct csv_out {
    int fd;
    const char *name;
    off_t size;
    int err; /* first error (-errno); no more rows after it */
};

struct run_files {
    char dir[4096];
    double t0_ns; /* run start on the mem clock (CLOCK_MONOTONIC ns) */
    FILE *samples; /* written by the sampler */
    struct csv_out buffers, stages, proofs;
    pthread_mutex_t rows_lock; /* stages, proofs */
    int proofs_bin;            /* proofs.bin: each partition's proof at its place */

    pthread_mutex_t err_lock;
    int err; /* the run's first write error */
    char err_msg[4400];

    char *rows;    /* buffers.csv rows of one drain, written in chunks */
    size_t n_rows, cap_rows;

    pthread_mutex_t ev_lock;   /* the event queue */
    struct mem_event *ev, *ev_spare;
    size_t n_ev, cap_ev, cap_spare;
    uint64_t ev_dropped;

    struct live_buf *table; /* drain thread only */
    size_t cap_table, n_live;

    void (*proof_hook)(void *ctx, double wall_ms);
    void *proof_ctx;

    /* the run.json a second signal writes (run_files_abort): two slots, the
     * armed one read by the handler, the other rendered into */
    char *abort_buf[2];
    size_t abort_len[2], abort_cap[2];
    atomic_int abort_slot;   /* armed slot, -1: none */
    atomic_bool aborting;    /* the handler runs: no more rendering */
    char json_path[4200], abort_tmp[4300];
};

/* The files a run writes (and sweep's tables): what makes a folder hold a run. */
static const char *const run_names[] = {
    "run.json", "samples.csv", "buffers.csv", "stages.csv", "proofs.csv", "proofs.bin",
    "procs.csv", "marks.csv", "sites.csv", /* watch's */
    "sweep.csv", "sweep.md", "sweep-model.csv", "sweep-sites.csv", "verdict.json", NULL,
};
/* made from a run (batch's diagnosis, plot, report): removed with it by
 * --force, so a replaced run never shows the old run's figures */
static const char *const run_derived[] = {
    "memory.png", "memory.svg", "kinds.png", "kinds.svg", "buffers.png", "buffers.svg",
    "whatif.png", "whatif.svg", "sweep.png", "sweep.svg", "report.html", NULL,
};

/* mkdir of dir with its parents; the last component must be new (EEXIST
 * comes back). */
static int mkdir_new(const char *dir)
{
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        int rc = out_mkdir_p(parent);
        if (rc < 0)
            return rc;
    }
    return mkdir(dir, 0755) == 0 ? 0 : -errno;
}

/* The folders of a run: watch's trace/ (one file per traced process) and,
 * in a sweep's folder, its runs pw-N/ and verify-pw-N/ with their logs
 * pw-N.log. Returns whether name is one. */
static bool run_subfolder_name(const char *name, bool *is_log)
{
    unsigned v;
    int end = 0;
    *is_log = false;
    if (strcmp(name, "trace") == 0)
        return true;
    const char *p = strncmp(name, "verify-", 7) == 0 ? name + 7 : name;
    if (sscanf(p, "pw-%u%n", &v, &end) != 1 || end == 0)
        return false;
    if (p[end] == 0)
        return true;
    *is_log = strcmp(p + end, ".log") == 0;
    return *is_log;
}

static int remove_run_folder(const char *dir, char *err, size_t errlen);

/* Removes path, one of run_subfolder_name's: a log or a link is unlinked;
 * a trace/ folder loses its files; a run folder its run (recursively); then
 * the folder goes. A folder left holding what zkbench did not write is an
 * error: the user's files are not deleted. */
static int remove_run_subfolder(const char *path, bool is_log, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (is_log || !S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0) {
            int e = errno;
            snprintf(err, errlen, "--force: cannot remove %s: %s", path, strerror(e));
            return -e;
        }
        return 0;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strcmp(base, "trace") == 0) {
        DIR *d = opendir(path);
        if (!d) {
            int e = errno;
            snprintf(err, errlen, "--force: cannot read %s: %s", path, strerror(e));
            return -e;
        }
        struct dirent *de;
        int rc = 0;
        while (rc == 0 && (de = readdir(d))) {
            char f[4700];
            struct stat fs;
            snprintf(f, sizeof f, "%s/%s", path, de->d_name);
            if (de->d_name[0] == '.' || lstat(f, &fs) != 0 || S_ISDIR(fs.st_mode))
                continue;
            if (unlink(f) != 0) {
                rc = -errno;
                snprintf(err, errlen, "--force: cannot remove %s: %s", f, strerror(-rc));
            }
        }
        closedir(d);
        if (rc < 0)
            return rc;
    } else {
        int rc = remove_run_folder(path, err, errlen);
        if (rc < 0)
            return rc;
    }
    if (rmdir(path) != 0) {
        int e = errno;
        if (e == ENOTEMPTY || e == EEXIST)
            snprintf(err, errlen, "--force: %s holds files zkbench did not write; move them, or choose another --out",
                     path);
        else
            snprintf(err, errlen, "--force: cannot remove %s: %s", path, strerror(e));
        return -e;
    }
    return 0;
}

/* Removes every file of the run in dir: its run files, the figures and
 * report made from them, and its folders (run_subfolder_name). */
static int remove_run_folder(const char *dir, char *err, size_t errlen)
{
    for (int k = 0; k < 2; k++)
        for (const char *const *n = k ? run_derived : run_names; *n; n++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", dir, *n);
            if (unlink(path) != 0 && errno != ENOENT) {
                int e = errno;
                snprintf(err, errlen, "--force: cannot remove %s: %s", path, strerror(e));
                return -e;
            }
        }
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        snprintf(err, errlen, "--force: cannot read %s: %s", dir, strerror(e));
        return -e;
    }
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        bool is_log;
        if (!run_subfolder_name(de->d_name, &is_log))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        rc = remove_run_subfolder(path, is_log, err, errlen);
    }
    closedir(d);
    return rc;
}

/* Whether dir holds a run: one of run_names, or one of its folders. The
 * name found goes to what. */
static bool holds_run(const char *dir, char *what, size_t cap)
{
    struct stat st;
    for (int i = 0; run_names[i]; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", dir, run_names[i]);
        if (lstat(path, &st) == 0)
            return snprintf(what, cap, "%s", run_names[i]), true;
    }
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *de;
    bool found = false;
    while (!found && (de = readdir(d))) {
        bool is_log;
        if ((found = run_subfolder_name(de->d_name, &is_log)))
            snprintf(what, cap, "%s%s", de->d_name, is_log ? "" : "/");
    }
    closedir(d);
    return found;
}

int run_dir_create(char *dir, size_t cap, const char *out, const char *prefix, bool force, char *err,
                   size_t errlen)
{
    if (!out) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        struct tm tm;
        gmtime_r(&tv.tv_sec, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        for (int k = 1; k <= 1000; k++) {
            char suffix[16] = "";
            if (k > 1)
                snprintf(suffix, sizeof suffix, "-%d", k);
            if ((size_t)snprintf(dir, cap, "results/runs/%s%s.%03ld-%ld%s", prefix, stamp, (long)tv.tv_usec / 1000,
                                 (long)getpid(), suffix) >= cap)
                return snprintf(err, errlen, "output folder name too long"), -ENAMETOOLONG;
            int rc = mkdir_new(dir);
            if (rc == 0)
                return 0;
            if (rc != -EEXIST) {
                snprintf(err, errlen, "cannot create output folder %s: %s", dir, strerror(-rc));
                return rc;
            }
        }
        snprintf(err, errlen, "cannot create output folder %s: too many runs of that name", dir);
        return -EEXIST;
    }
    if ((size_t)snprintf(dir, cap, "%s", out) >= cap)
        return snprintf(err, errlen, "output folder name too long"), -ENAMETOOLONG;
    int rc = mkdir_new(dir);
    if (rc == 0)
        return 0;
    struct stat st;
    if (rc != -EEXIST || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot create output folder %s: %s", dir, strerror(rc == -EEXIST ? ENOTDIR : -rc));
        return rc == -EEXIST ? -ENOTDIR : rc;
    }
    /* an existing folder: refused when it holds a run, unless --force; then
     * every file of the old run goes (its trace/ and a sweep's runs too), so
     * nothing of it is read as the new run's */
    char what[300];
    if (holds_run(dir, what, sizeof what) && !force) {
        snprintf(err, errlen, "--out %s already holds a run (%s); give --force to replace it, or another --out", dir,
                 what);
        return -EEXIST;
    }
    return force ? remove_run_folder(dir, err, errlen) : 0;
}

void run_dir_discard(const char *dir, bool remove_dir)
{
    char path[4200];
    for (int k = 0; k < 2; k++)
        for (const char *const *n = k ? run_derived : run_names; *n; n++) {
            snprintf(path, sizeof path, "%s/%s", dir, *n);
            unlink(path);
        }
    if (remove_dir)
        rmdir(dir); /* only when empty: what else is there is not the run's */
}

/* Writes all of buf to fd from the current offset; -errno (ENOSPC for a
 * short write that made no progress) on failure. */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -ENOSPC;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int run_json_save(const char *dir, json_t *root, char *err, size_t errlen)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/run.json", dir);
    snprintf(tmp, sizeof tmp, "%s/.run.json.%ld.tmp", dir, (long)getpid());
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (!text)
        return snprintf(err, errlen, "cannot write %s: out of memory", path), -ENOMEM;
    size_t len = strlen(text);
    int rc = 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = -errno;
    } else {
        rc = write_all(fd, text, len);
        if (rc == 0)
            rc = write_all(fd, "\n", 1);
        if (close(fd) != 0 && rc == 0)
            rc = -errno;
        if (rc == 0 && rename(tmp, path) != 0)
            rc = -errno;
        if (rc < 0)
            unlink(tmp);
    }
    free(text);
    if (rc == -ENOSPC || rc == -EDQUOT) {
        /* full: overwrite the old file's blocks in place (not atomic, but the
         * outcome is recorded rather than lost) */
        int e = rc;
        text = json_dumps(root, JSON_COMPACT | JSON_SORT_KEYS);
        fd = text ? open(path, O_WRONLY | O_CLOEXEC) : -1;
        if (fd >= 0) {
            len = strlen(text);
            rc = write_all(fd, text, len);
            if (rc == 0)
                rc = write_all(fd, "\n", 1);
            if (rc == 0 && ftruncate(fd, (off_t)len + 1) != 0)
                rc = -errno;
            if (close(fd) != 0 && rc == 0)
                rc = -errno;
        }
        free(text);
        if (fd < 0 || rc < 0)
            rc = e;
    }
    if (rc < 0)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
    return rc;
}

void run_files_fail(run_files_t *rf, const char *name, int neg_errno)
{
    pthread_mutex_lock(&rf->err_lock);
    if (!rf->err) {
        rf->err = neg_errno < 0 ? neg_errno : -EIO;
        snprintf(rf->err_msg, sizeof rf->err_msg, "cannot write %s/%s: %s", rf->dir, name, strerror(-rf->err));
    }
    pthread_mutex_unlock(&rf->err_lock);
}

int run_files_error(run_files_t *rf, char *msg, size_t cap)
{
    pthread_mutex_lock(&rf->err_lock);
    int rc = rf->err;
    if (rc && msg)
        snprintf(msg, cap, "%s", rf->err_msg);
    pthread_mutex_unlock(&rf->err_lock);
    return rc;
}

/* Appends whole rows to f, or nothing: a failed write is cut back. */
static int csv_put(run_files_t *rf, struct csv_out *f, const char *buf, size_t len)
{
    if (f->fd < 0 || f->err)
        return f->err ? f->err : -EBADF;
    int rc = write_all(f->fd, buf, len);
    if (rc < 0) {
        /* drop the part of a row that made it: the file ends with a whole row */
        if (ftruncate(f->fd, f->size) == 0)
            lseek(f->fd, f->size, SEEK_SET);
        f->err = rc;
        run_files_fail(rf, f->name, rc);
        return rc;
    }
    f->size += (off_t)len;
    return 0;
}

static int csv_open(run_files_t *rf, struct csv_out *f, const char *name, const char *header, char *err,
                    size_t cap)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", rf->dir, name);
    f->name = name;
    f->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        int e = errno;
        snprintf(err, cap, "cannot write %s: %s", path, strerror(e));
        return -e;
    }
    int rc = csv_put(rf, f, header, strlen(header));
    if (rc < 0)
        snprintf(err, cap, "cannot write %s: %s", path, strerror(-rc));
    return rc;
}

int run_files_open(run_files_t **ret, const char *dir, double t0, char *err, size_t cap)
{
    run_files_t *rf = calloc(1, sizeof *rf);
    if (!rf) {
        snprintf(err, cap, "out of memory");
        return -ENOMEM;
    }
    rf->buffers.fd = rf->stages.fd = rf->proofs.fd = rf->proofs_bin = -1;
    if (strlen(dir) >= sizeof rf->dir) {
        free(rf);
        snprintf(err, cap, "output folder name too long");
        return -ENAMETOOLONG;
    }
    strcpy(rf->dir, dir);
    rf->t0_ns = t0 * 1e9;
    atomic_init(&rf->abort_slot, -1);
    atomic_init(&rf->aborting, false);
    snprintf(rf->json_path, sizeof rf->json_path, "%s/run.json", dir);
    snprintf(rf->abort_tmp, sizeof rf->abort_tmp, "%s/.run.json.%ld.abort.tmp", dir, (long)getpid());
    pthread_mutex_init(&rf->rows_lock, NULL);
    pthread_mutex_init(&rf->ev_lock, NULL);
    pthread_mutex_init(&rf->err_lock, NULL);
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    int rc, fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || !(rf->samples = fdopen(fd, "w"))) {
        rc = -errno;
        if (fd >= 0)
            close(fd);
        snprintf(err, cap, "cannot write %s: %s", path, strerror(-rc));
        goto fail;
    }
    if ((rc = csv_open(rf, &rf->buffers, "buffers.csv",
                       "id,kind,device,proof,partition,bytes,t_alloc_ms,t_free_ms,t_last_use_ms\n", err, cap)) < 0 ||
        (rc = csv_open(rf, &rf->stages, "stages.csv", "proof,partition,stage,worker,t_start_ms,t_end_ms\n", err,
                       cap)) < 0 ||
        (rc = csv_open(rf, &rf->proofs, "proofs.csv", "proof,t_submit_ms,t_start_ms,t_done_ms,wall_ms,verified\n",
                       err, cap)) < 0)
        goto fail;
    snprintf(path, sizeof path, "%s/proofs.bin", dir);
    if ((rf->proofs_bin = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
        rc = -errno;
        snprintf(err, cap, "cannot write %s: %s", path, strerror(-rc));
        goto fail;
    }
    rf->cap_table = 1024;
    rf->table = calloc(rf->cap_table, sizeof *rf->table);
    rf->cap_rows = 64 * 1024;
    rf->rows = malloc(rf->cap_rows);
    if (!rf->table || !rf->rows) {
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

/* Writes the rows gathered so far to buffers.csv. */
static void flush_rows(run_files_t *rf)
{
    if (rf->n_rows)
        csv_put(rf, &rf->buffers, rf->rows, rf->n_rows);
    rf->n_rows = 0;
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
    char row[512];
    int n = snprintf(row, sizeof row, "%llu,%s,%s,%d,%d,%llu,%.3f,%s,%s\n", (unsigned long long)b->id,
                     mem_kind_name((enum mem_kind)b->kind), device, b->proof, b->partition,
                     (unsigned long long)b->bytes, b->t_alloc_ms, t_free, t_use);
    if (n <= 0 || (size_t)n >= sizeof row)
        return;
    if (rf->n_rows + (size_t)n > rf->cap_rows)
        flush_rows(rf);
    memcpy(rf->rows + rf->n_rows, row, (size_t)n);
    rf->n_rows += (size_t)n;
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
    flush_rows(rf);
    pthread_mutex_lock(&rf->ev_lock);
    rf->ev_spare = ev;
    rf->cap_spare = cap;
    pthread_mutex_unlock(&rf->ev_lock);
}

void run_files_partition_proof(run_files_t *rf, int proof, int partition, unsigned partitions,
                               const uint8_t *bytes, size_t len)
{
    if (!rf || rf->proofs_bin < 0)
        return;
    off_t at = ((off_t)proof * partitions + partition) * (off_t)len;
    if (pwrite(rf->proofs_bin, bytes, len, at) != (ssize_t)len)
        run_files_fail(rf, "proofs.bin", errno ? -errno : -ENOSPC);
}

void run_files_stage(run_files_t *rf, int proof, int partition, const char *stage, const char *worker,
                     double t_start_ms, double t_end_ms)
{
    char row[512];
    int n = snprintf(row, sizeof row, "%d,%d,%s,%s,%.3f,%.3f\n", proof, partition, stage, worker, t_start_ms,
                     t_end_ms);
    if (n <= 0 || (size_t)n >= sizeof row)
        return;
    pthread_mutex_lock(&rf->rows_lock);
    csv_put(rf, &rf->stages, row, (size_t)n);
    pthread_mutex_unlock(&rf->rows_lock);
}

void run_files_proof(run_files_t *rf, int proof, double t_submit_ms, double t_start_ms, double t_done_ms,
                     int verified)
{
    char v[12] = "";
    if (verified >= 0)
        snprintf(v, sizeof v, "%d", verified);
    char row[256];
    int n = snprintf(row, sizeof row, "%d,%.3f,%.3f,%.3f,%.3f,%s\n", proof, t_submit_ms, t_start_ms, t_done_ms,
                     t_done_ms - t_submit_ms, v);
    if (n <= 0 || (size_t)n >= sizeof row)
        return;
    pthread_mutex_lock(&rf->rows_lock);
    csv_put(rf, &rf->proofs, row, (size_t)n);
    pthread_mutex_unlock(&rf->rows_lock);
    if (rf->proof_hook)
        rf->proof_hook(rf->proof_ctx, t_done_ms - t_submit_ms);
}

void run_files_set_proof_hook(run_files_t *rf, void (*fn)(void *ctx, double wall_ms), void *ctx)
{
    rf->proof_hook = fn;
    rf->proof_ctx = ctx;
}

int run_files_write_json(run_files_t *rf, json_t *root, char *err, size_t errlen)
{
    int rc = run_json_save(rf->dir, root, err, errlen);
    if (rc < 0)
        run_files_fail(rf, "run.json", rc);
    return rc;
}

int run_files_arm_abort(run_files_t *rf, const json_t *image)
{
    if (atomic_load(&rf->aborting))
        return 0;
    if (!image) {
        atomic_store(&rf->abort_slot, -1);
        return 0;
    }
    char *text = json_dumps(image, JSON_INDENT(2) | JSON_SORT_KEYS);
    if (!text)
        return -ENOMEM;
    size_t len = strlen(text);
    int armed = atomic_load(&rf->abort_slot), slot = armed == 0 ? 1 : 0;
    if (rf->abort_cap[slot] < len + 1) {
        char *b = realloc(rf->abort_buf[slot], len + 1);
        if (!b) {
            free(text);
            return -ENOMEM;
        }
        rf->abort_buf[slot] = b;
        rf->abort_cap[slot] = len + 1;
    }
    memcpy(rf->abort_buf[slot], text, len);
    rf->abort_buf[slot][len] = '\n';
    rf->abort_len[slot] = len + 1;
    free(text);
    /* published whole: a handler reads either the old slot or this one */
    atomic_store(&rf->abort_slot, slot);
    return 0;
}

int run_files_abort(run_files_t *rf)
{
    atomic_store(&rf->aborting, true);
    int slot = atomic_load(&rf->abort_slot);
    if (slot < 0)
        return 0;
    /* open, write, rename: async-signal-safe, and atomic for a reader */
    int fd = open(rf->abort_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = write_all(fd, rf->abort_buf[slot], rf->abort_len[slot]);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(rf->abort_tmp, rf->json_path) != 0)
        rc = -errno;
    if (rc < 0)
        unlink(rf->abort_tmp);
    return rc;
}

int run_files_close(run_files_t *rf)
{
    if (!rf)
        return 0;
    if (rf->buffers.fd >= 0 && rf->table && rf->rows) {
        run_files_drain(rf);
        for (size_t i = 0; i < rf->cap_table; i++)
            if (rf->table[i].id)
                write_buffer_row(rf, &rf->table[i], -1);
        flush_rows(rf);
    }
    if (rf->samples && fclose(rf->samples) != 0)
        run_files_fail(rf, "samples.csv", -errno);
    struct csv_out *files[3] = {&rf->buffers, &rf->stages, &rf->proofs};
    for (int i = 0; i < 3; i++)
        if (files[i]->fd >= 0 && close(files[i]->fd) != 0)
            run_files_fail(rf, files[i]->name, -errno);
    if (rf->proofs_bin >= 0 && close(rf->proofs_bin) != 0)
        run_files_fail(rf, "proofs.bin", -errno);
    int rc = rf->err;
    pthread_mutex_destroy(&rf->rows_lock);
    pthread_mutex_destroy(&rf->ev_lock);
    pthread_mutex_destroy(&rf->err_lock);
    free(rf->ev);
    free(rf->ev_spare);
    free(rf->table);
    free(rf->rows);
    free(rf->abort_buf[0]);
    free(rf->abort_buf[1]);
    free(rf);
    return rc;
}
