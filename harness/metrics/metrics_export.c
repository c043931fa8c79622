/* The metrics export of a run; see metrics_export.h. */
#define _GNU_SOURCE
#include "harness/metrics/metrics_export.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/metrics/metrics_http.h"
#include "harness/metrics/metrics_verdict.h"

struct metrics_export {
    struct metrics_opts o;
    int fd; /* listening socket until the server takes it; -1 */
    char addr[300];
    char path[4096], tmp[8400], dir[4096];
    metrics_t *m;
    metrics_http_t *http;
    metrics_verdict_t *verdict;

    pthread_t writer;
    bool writer_on;
    pthread_mutex_t lock; /* stop, first_err */
    pthread_cond_t wake;
    bool stop;
    int first_err;
    char err[8800];
};

void metrics_opts_init(struct metrics_opts *o)
{
    memset(o, 0, sizeof *o);
    o->linger_s = METRICS_LINGER_DEFAULT_S;
    o->verdict_s = METRICS_VERDICT_PERIOD_S;
}

int metrics_opts_set(struct metrics_opts *o, int c, const char *arg, char *err, size_t errlen)
{
    switch (c) {
    case METRICS_OPT_LISTEN: o->listen = arg; return 1;
    case METRICS_OPT_FILE:
        if (!arg[0]) {
            snprintf(err, errlen, "--metrics-file needs a path");
            return -EINVAL;
        }
        o->file = arg;
        return 1;
    case METRICS_OPT_LINGER: {
        char *end;
        errno = 0;
        unsigned long v = strtoul(arg, &end, 10);
        if (!arg[0] || *end || errno || arg[0] == '-' || v > 3600) {
            snprintf(err, errlen, "--listen-linger must be 0..3600 seconds, got '%s'", arg);
            return -EINVAL;
        }
        o->linger_s = (unsigned)v;
        return 1;
    }
    case METRICS_OPT_VERDICT_S: {
        char *end;
        errno = 0;
        unsigned long v = strtoul(arg, &end, 10);
        if (!arg[0] || *end || errno || arg[0] == '-' || v > 86400) {
            snprintf(err, errlen, "--metrics-verdict-s must be 0..86400 seconds, got '%s'", arg);
            return -EINVAL;
        }
        o->verdict_s = (unsigned)v;
        return 1;
    }
    default: return 0;
    }
}

/* The temporary file next to the metrics file, and a first write there to
 * prove the folder takes files. */
static int file_check(metrics_export_t *x, char *err, size_t errlen)
{
    const char *p = x->o.file;
    if (strlen(p) >= sizeof x->path) {
        snprintf(err, errlen, "--metrics-file: path too long");
        return -ENAMETOOLONG;
    }
    snprintf(x->path, sizeof x->path, "%s", p);
    const char *slash = strrchr(x->path, '/');
    const char *base = slash ? slash + 1 : x->path;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        snprintf(err, errlen, "--metrics-file %s: not a file name", p);
        return -EINVAL;
    }
    if (slash)
        snprintf(x->dir, sizeof x->dir, "%.*s", slash == x->path ? 1 : (int)(slash - x->path), x->path);
    else
        snprintf(x->dir, sizeof x->dir, ".");
    /* outside node_exporter's *.prom glob, so a half-written file is never read */
    snprintf(x->tmp, sizeof x->tmp, "%s/.%s.%d.tmp", x->dir, base, (int)getpid());
    struct stat st;
    if (stat(x->path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--metrics-file %s: is a folder", p);
        return -EISDIR;
    }
    int fd = open(x->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "--metrics-file %s: cannot write in %s: %s", p, x->dir, strerror(e));
        return -e;
    }
    close(fd);
    unlink(x->tmp);
    return 0;
}

int metrics_export_new(metrics_export_t **ret, const struct metrics_opts *o, char *err, size_t errlen)
{
    *ret = NULL;
    if (!o->listen && !o->file)
        return 0;
    metrics_export_t *x = calloc(1, sizeof *x);
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    x->o = *o;
    x->fd = -1;
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->wake, NULL);
    int rc = 0;
    if (o->file && (rc = file_check(x, err, errlen)) < 0)
        goto fail;
    if (o->listen) {
        if ((rc = metrics_http_listen(&x->fd, o->listen, err, errlen)) < 0)
            goto fail;
        metrics_http_describe(x->fd, x->addr, sizeof x->addr);
    }
    *ret = x;
    return 0;
fail:
    metrics_export_free(x);
    return rc;
}

const char *metrics_export_address(const metrics_export_t *x)
{
    return x && x->o.listen ? x->addr : NULL;
}

metrics_t *metrics_export_metrics(metrics_export_t *x)
{
    return x ? x->m : NULL;
}

/* One atomic replacement of the metrics file. 0 or -errno (err set). */
static int file_write(metrics_export_t *x, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    int rc = metrics_render(x->m, METRICS_TEXT, &text, &len, NULL);
    if (rc < 0) {
        snprintf(err, errlen, "--metrics-file %s: out of memory", x->path);
        return rc;
    }
    const char *what = "open";
    int fd = open(x->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        goto fail;
    for (size_t off = 0; off < len;) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            what = "write";
            if (n == 0)
                errno = EIO;
            goto fail;
        }
        off += (size_t)n;
    }
    what = "fsync";
    if (fsync(fd) != 0)
        goto fail;
    what = "close";
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    what = "rename";
    if (rename(x->tmp, x->path) != 0)
        goto fail;
    /* the rename itself on disk */
    int dfd = open(x->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(text);
    return 0;
fail:
    rc = -errno;
    snprintf(err, errlen, "--metrics-file %s: %s: %s", x->path, what, strerror(errno));
    if (fd >= 0)
        close(fd);
    unlink(x->tmp);
    free(text);
    return rc;
}

static void note_error(metrics_export_t *x, int rc, const char *err)
{
    pthread_mutex_lock(&x->lock);
    if (!x->first_err) {
        x->first_err = rc;
        snprintf(x->err, sizeof x->err, "%s", err);
    }
    pthread_mutex_unlock(&x->lock);
}

static void *writer_main(void *arg)
{
    metrics_export_t *x = arg;
    char err[8800];
    pthread_mutex_lock(&x->lock);
    while (!x->stop) {
        pthread_mutex_unlock(&x->lock);
        int rc = file_write(x, err, sizeof err);
        if (rc < 0)
            note_error(x, rc, err);
        pthread_mutex_lock(&x->lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += METRICS_FILE_PERIOD_MS / 1000;
        until.tv_nsec += (long)(METRICS_FILE_PERIOD_MS % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_nsec -= 1000000000L;
            until.tv_sec++;
        }
        while (!x->stop && pthread_cond_timedwait(&x->wake, &x->lock, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&x->lock);
    return NULL;
}

int metrics_export_start(metrics_export_t *x, const struct metrics_config *cfg, char *err, size_t errlen)
{
    if (!x)
        return 0;
    int rc = metrics_new(&x->m, cfg);
    if (rc < 0) {
        snprintf(err, errlen, "metrics: out of memory");
        return rc;
    }
    if (x->fd >= 0) {
        if ((rc = metrics_http_start(&x->http, x->fd, x->m)) < 0) {
            snprintf(err, errlen, "--listen %s: cannot start the HTTP server", x->o.listen);
            return rc;
        }
        x->fd = -1;
    }
    if (x->o.file) {
        if (pthread_create(&x->writer, NULL, writer_main, x) != 0) {
            snprintf(err, errlen, "--metrics-file: cannot start the writer thread");
            return -EAGAIN;
        }
        x->writer_on = true;
    }
    return 0;
}

int metrics_export_verdict(metrics_export_t *x, const char *run_dir, metrics_place_fn place, void *place_ctx,
                           char *err, size_t errlen)
{
    if (!x || !x->m || x->verdict)
        return 0;
    struct metrics_verdict_config vc = {.run_dir = run_dir, .period_s = x->o.verdict_s, .place = place,
                                        .place_ctx = place_ctx};
    int rc = metrics_verdict_start(&x->verdict, x->m, &vc);
    if (rc < 0)
        snprintf(err, errlen, "metrics: cannot start the verdict's thread: %s", strerror(-rc));
    return rc;
}

static void writer_stop(metrics_export_t *x)
{
    if (!x->writer_on)
        return;
    pthread_mutex_lock(&x->lock);
    x->stop = true;
    pthread_cond_signal(&x->wake);
    pthread_mutex_unlock(&x->lock);
    pthread_join(x->writer, NULL);
    x->writer_on = false;
}

int metrics_export_end(metrics_export_t *x, atomic_int *stop, char *err, size_t errlen)
{
    if (!x || !x->m)
        return 0;
    /* the final verdict before the final values are served or written; a
     * failed evaluation leaves the last one (the run's own error says why) */
    char verr[800];
    metrics_verdict_stop(x->verdict, true, verr, sizeof verr);
    metrics_set_running(x->m, false);
    int rc = 0;
    if (x->http && x->o.linger_s > 0) {
        struct timespec t0, now, nap = {0, 20 * 1000000L};
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            if (metrics_http_final_scrapes(x->http) > 0)
                break;
            if (stop && atomic_load(stop))
                break; /* asked to stop: no wait, and nothing to warn about */
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 >= (double)x->o.linger_s) {
                snprintf(err, errlen, "--listen %s: no scrape fetched the final values within --listen-linger %u s",
                         x->addr, x->o.linger_s);
                rc = -ETIMEDOUT;
                break;
            }
            nanosleep(&nap, NULL);
        }
    }
    if (x->o.file) {
        writer_stop(x);
        char ferr[8800];
        int frc = file_write(x, ferr, sizeof ferr);
        if (frc < 0)
            note_error(x, frc, ferr);
        if (x->first_err) {
            snprintf(err, errlen, "%s", x->err);
            rc = x->first_err;
        }
    }
    return rc;
}

void metrics_export_free(metrics_export_t *x)
{
    if (!x)
        return;
    writer_stop(x);
    metrics_verdict_free(x->verdict);
    metrics_http_stop(x->http);
    if (x->fd >= 0)
        close(x->fd);
    metrics_free(x->m);
    pthread_cond_destroy(&x->wake);
    pthread_mutex_destroy(&x->lock);
    free(x);
}

uint64_t metrics_cgroup_limit(pid_t pid)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char rel[4096] = "";
    bool found = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) == 0) {
            line[strcspn(line, "\n")] = 0;
            snprintf(rel, sizeof rel, "%s", line + 3);
            found = true;
        }
    }
    fclose(f);
    if (!found)
        return 0;
    uint64_t best = 0;
    /* every ancestor's memory.max applies: the lowest is the limit */
    for (;;) {
        char file[4200];
        snprintf(file, sizeof file, "/sys/fs/cgroup%s/memory.max", strcmp(rel, "/") == 0 ? "" : rel);
        FILE *m = fopen(file, "r");
        if (m) {
            char v[64] = "";
            if (fgets(v, sizeof v, m) && strncmp(v, "max", 3) != 0) {
                uint64_t lim = strtoull(v, NULL, 10);
                if (lim && (!best || lim < best))
                    best = lim;
            }
            fclose(m);
        }
        char *slash = strrchr(rel, '/');
        if (!slash || slash == rel)
            break;
        *slash = 0;
    }
    return best;
}
