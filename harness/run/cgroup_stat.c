/* A watched memory cgroup; see cgroup_stat.h. */
#define _GNU_SOURCE
#include "harness/run/cgroup_stat.h"
#include "harness/run/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CG_PATH_MAX 4096

enum { CG_CURRENT, CG_PEAK, CG_STAT, CG_EVENTS, CG_FAILCNT, CG_PROCS, CG_NFILES };

struct cgroup_stat {
    int version;
    char path[CG_PATH_MAX];
    const char *const *names; /* the files of fd, by version */
    dev_t dev;                /* the folder's identity: a cgroup made again */
    ino_t ino;                /* at the path is another folder */
    int fd[CG_NFILES]; /* -1 where absent */
    char buf[8192];
    pid_t *pids;
    size_t n_pids, cap_pids;
};


static bool has_file(const char *dir, const char *name)
{
    char path[CG_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* 2 (v2 memory cgroup), 1 (v1 memory cgroup), 0 (a cgroup without the
 * memory controller, or not a cgroup), -1 (no such folder). */
static int memory_version(const char *dir)
{
    if (!is_dir(dir))
        return -1;
    if (has_file(dir, "memory.current"))
        return 2;
    if (has_file(dir, "memory.usage_in_bytes"))
        return 1;
    return 0;
}

/* Mount points of the cgroup2 hierarchy and of the v1 memory controller
 * ("" when absent), from /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT DIR
 * OPTS ... - TYPE SOURCE SUPEROPTS"; DIR escapes a space as \040. */
static void find_mounts(char *v2, char *v1, size_t cap)
{
    v2[0] = v1[0] = '\0';
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return;
    char *line = NULL;
    size_t lcap = 0;
    while (getline(&line, &lcap, f) > 0) {
        char dir[CG_PATH_MAX], type[64], opts[1024];
        const char *sep = strstr(line, " - ");
        if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", dir) != 1 ||
            sscanf(sep + 3, "%63s %*s %1023s", type, opts) != 2)
            continue;
        char *out = NULL;
        if (strcmp(type, "cgroup2") == 0 && !v2[0])
            out = v2;
        else if (strcmp(type, "cgroup") == 0 && !v1[0]) {
            for (char *save = NULL, *t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if (strcmp(t, "memory") == 0)
                    out = v1;
        }
        if (!out)
            continue;
        size_t k = 0;
        for (const char *s = dir; *s && k + 1 < cap; s++) {
            if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' &&
                s[3] <= '7') {
                out[k++] = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
                s += 3;
            } else {
                out[k++] = *s;
            }
        }
        out[k] = '\0';
    }
    free(line);
    fclose(f);
}

/* The folder of path and its version, or -errno with err. */
static int resolve(char *out, size_t cap, int *version, const char *path, char *err, size_t errlen)
{
    if (!*path)
        return errmsg_fail(err, errlen, -ENOENT, "--cgroup: empty path");
    int v = path[0] == '/' ? memory_version(path) : -1;
    if (v < 0 && path[0] == '/' && strncmp(path, "/sys/fs/cgroup/", 15) == 0)
        return errmsg_fail(err, errlen, -ENOENT, "--cgroup %s: no such cgroup", path);
    if (v >= 0) {
        if (v == 0)
            return errmsg_fail(err, errlen, -ENOTSUP,
                        "--cgroup %s: not a memory cgroup (neither memory.current nor memory.usage_in_bytes)", path);
        if ((size_t)snprintf(out, cap, "%s", path) >= cap)
            return errmsg_fail(err, errlen, -ENAMETOOLONG, "--cgroup: path too long");
        *version = v;
        return 0;
    }
    /* relative to the root of a hierarchy (as /proc/PID/cgroup writes it) */
    char v2[CG_PATH_MAX], v1[CG_PATH_MAX];
    find_mounts(v2, v1, sizeof v2);
    const char *rel = path;
    while (*rel == '/')
        rel++;
    const char *mounts[2] = {v2, v1};
    bool exists = false;
    for (int i = 0; i < 2; i++) {
        if (!mounts[i][0])
            continue;
        char cand[CG_PATH_MAX];
        int n = snprintf(cand, sizeof cand, "%s%s%s", mounts[i], *rel ? "/" : "", rel);
        if (n < 0 || (size_t)n >= sizeof cand)
            continue;
        v = memory_version(cand);
        exists |= v == 0;
        if (v > 0) {
            snprintf(out, cap, "%s", cand);
            *version = v;
            return 0;
        }
    }
    if (exists)
        return errmsg_fail(err, errlen, -ENOTSUP,
                    "--cgroup %s: not a memory cgroup (the memory controller is not enabled there)", path);
    return errmsg_fail(err, errlen, -ENOENT, "--cgroup %s: no such cgroup (looked under %s%s%s)", path,
                v2[0] ? v2 : "", v2[0] && v1[0] ? " and " : "", v1[0] ? v1 : "no cgroup mount");
}

static int open_in(const cgroup_stat_t *c, const char *name)
{
    char path[CG_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", c->path, name);
    return open(path, O_RDONLY | O_CLOEXEC);
}

int cgroup_stat_open(cgroup_stat_t **ret, const char *path, char *err, size_t errlen)
{
    cgroup_stat_t *c = calloc(1, sizeof *c);
    if (!c)
        return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
    for (int i = 0; i < CG_NFILES; i++)
        c->fd[i] = -1;
    int rc = resolve(c->path, sizeof c->path, &c->version, path, err, errlen);
    if (rc < 0) {
        free(c);
        return rc;
    }
    static const char *const v2[CG_NFILES] = {"memory.current", "memory.peak", "memory.stat", "memory.events", NULL,
                                              "cgroup.procs"};
    static const char *const v1[CG_NFILES] = {"memory.usage_in_bytes", "memory.max_usage_in_bytes", "memory.stat",
                                              "memory.oom_control", "memory.failcnt", "cgroup.procs"};
    const char *const *names = c->names = c->version == 2 ? v2 : v1;
    struct stat st;
    if (stat(c->path, &st) == 0)
        c->dev = st.st_dev, c->ino = st.st_ino;
    for (int i = 0; i < CG_NFILES; i++) {
        if (!names[i])
            continue;
        c->fd[i] = open_in(c, names[i]);
        /* memory.peak is optional (Linux 5.19); the rest must be there */
        if (c->fd[i] < 0 && !(c->version == 2 && i == CG_PEAK)) {
            rc = errmsg_fail(err, errlen, -errno, "--cgroup: cannot open %s/%s: %s", c->path, names[i], strerror(errno));
            cgroup_stat_free(c);
            return rc;
        }
    }
    *ret = c;
    return 0;
}

/* Opens file which anew (cg_same: the cgroup was made again at its path).
 * 0, or -errno (the descriptor stays -1). */
static int cg_reopen(cgroup_stat_t *c, int which)
{
    if (c->fd[which] >= 0)
        close(c->fd[which]);
    c->fd[which] = c->names[which] ? open_in(c, c->names[which]) : -1;
    return c->fd[which] >= 0 ? 0 : -errno;
}

/* Whether the cgroup is still the one the files were opened in: a removed
 * v1 cgroup's open files go on reading 0, so its folder is checked (one
 * stat a tick). Made again at the path, every file is opened anew. 0, or
 * -ENOENT while it is gone. */
static int cg_same(cgroup_stat_t *c)
{
    struct stat st;
    if (stat(c->path, &st) != 0)
        return -ENOENT;
    /* the same folder, its files open (a folder caught while being made
     * may have had none yet: opened again) */
    if (st.st_dev == c->dev && st.st_ino == c->ino && c->fd[CG_CURRENT] >= 0)
        return 0;
    c->dev = st.st_dev;
    c->ino = st.st_ino;
    for (int i = 0; i < CG_NFILES; i++)
        (void)cg_reopen(c, i);
    return 0;
}

/* pread of a whole small file into c->buf. Bytes or -errno (-ENOENT: a
 * file this version has not, or memory.peak before Linux 5.19). A read of
 * a cgroup removed since cg_same fails: that tick's cells stay empty. */
static ssize_t cg_read(cgroup_stat_t *c, int which)
{
    if (c->fd[which] < 0)
        return -ENOENT;
    ssize_t n = pread(c->fd[which], c->buf, sizeof c->buf - 1, 0);
    if (n < 0)
        return -errno;
    c->buf[n] = '\0';
    return n;
}

static int cg_u64(cgroup_stat_t *c, int which, uint64_t *v)
{
    ssize_t n = cg_read(c, which);
    if (n < 0)
        return (int)n;
    char *end;
    unsigned long long x = strtoull(c->buf, &end, 10);
    if (end == c->buf)
        return -EINVAL;
    *v = x;
    return 0;
}

/* "key N" in a flat keyed file's text; false when the key is absent. */
static bool keyed(const char *text, const char *key, uint64_t *v)
{
    size_t len = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, len) == 0 && p[len] == ' ') {
            *v = strtoull(p + len + 1, NULL, 10);
            return true;
        }
    return false;
}

/* The first unsigned number in file dir/name; false when absent or "max". */
static bool file_limit(const char *dir, const char *name, uint64_t *v)
{
    char path[CG_PATH_MAX + 64], text[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool ok = fgets(text, sizeof text, f) && text[0] >= '0' && text[0] <= '9';
    fclose(f);
    if (ok)
        *v = strtoull(text, NULL, 10);
    return ok;
}

int cgroup_stat_limit(const cgroup_stat_t *c, uint64_t *limit)
{
    uint64_t best = 0, v;
    if (c->version == 1) {
        /* the hierarchy's limit, ancestors included; unlimited reads as
         * a number near 2^63 (PAGE_COUNTER_MAX pages) */
        char path[CG_PATH_MAX + 64], line[256];
        snprintf(path, sizeof path, "%s/memory.stat", c->path);
        FILE *f = fopen(path, "re");
        if (!f)
            return -errno;
        while (fgets(line, sizeof line, f))
            if (keyed(line, "hierarchical_memory_limit", &v) && v < ((uint64_t)1 << 62))
                best = v;
        fclose(f);
    } else {
        /* every ancestor's memory.max applies, up to the hierarchy's root
         * (which has none) */
        char dir[CG_PATH_MAX];
        snprintf(dir, sizeof dir, "%s", c->path);
        while (memory_version(dir) == 2) {
            if (file_limit(dir, "memory.max", &v) && (!best || v < best))
                best = v;
            char *slash = strrchr(dir, '/');
            if (!slash || slash == dir)
                break;
            *slash = '\0';
        }
    }
    *limit = best;
    return 0;
}

int cgroup_stat_read(cgroup_stat_t *c, struct cgroup_stat_values *out)
{
    struct cgroup_stat_values x = {0};
    int rc = cg_same(c);
    if (rc < 0)
        return rc;
    rc = cg_u64(c, CG_CURRENT, &x.current);
    if (rc < 0)
        return rc;
    x.has_peak = cg_u64(c, CG_PEAK, &x.peak) == 0;
    if ((rc = (int)cg_read(c, CG_STAT)) < 0)
        return rc;
    if (c->version == 2) {
        keyed(c->buf, "anon", &x.anon);
        keyed(c->buf, "file", &x.file);
        keyed(c->buf, "shmem", &x.shmem);
    } else {
        /* the hierarchical totals, as usage_in_bytes counts child cgroups */
        if (!keyed(c->buf, "total_rss", &x.anon))
            keyed(c->buf, "rss", &x.anon);
        if (!keyed(c->buf, "total_cache", &x.file))
            keyed(c->buf, "cache", &x.file);
        if (!keyed(c->buf, "total_shmem", &x.shmem))
            keyed(c->buf, "shmem", &x.shmem);
    }
    if ((rc = (int)cg_read(c, CG_EVENTS)) < 0)
        return rc;
    x.has_oom_kill = keyed(c->buf, "oom_kill", &x.oom_kill);
    *out = x;
    return 0;
}

int cgroup_stat_events(cgroup_stat_t *c, struct cgroup_stat_events *out)
{
    struct cgroup_stat_events e = {0};
    int rc = (int)cg_read(c, CG_EVENTS);
    if (rc < 0)
        return rc;
    keyed(c->buf, "oom_kill", &e.oom_kill);
    if (c->version == 2) {
        keyed(c->buf, "oom", &e.oom);
        keyed(c->buf, "high", &e.high);
        keyed(c->buf, "max", &e.max);
    } else {
        e.oom = e.oom_kill; /* v1 counts kills, not OOM events */
        if ((rc = cg_u64(c, CG_FAILCNT, &e.max)) < 0)
            return rc;
    }
    *out = e;
    return 0;
}

int cgroup_stat_procs(cgroup_stat_t *c, const pid_t **pids, size_t *n)
{
    c->n_pids = 0;
    int rc = cg_same(c);
    if (rc < 0)
        return rc;
    /* cgroup.procs can outgrow buf: read it in pieces, keeping a split number */
    size_t keep = 0;
    for (off_t off = 0;;) {
        ssize_t got = pread(c->fd[CG_PROCS], c->buf + keep, sizeof c->buf - 1 - keep, off);
        if (got < 0)
            return -errno;
        off += got;
        size_t len = keep + (size_t)got;
        c->buf[len] = '\0';
        size_t end = len;
        if (got > 0)
            while (end > 0 && c->buf[end - 1] != '\n')
                end--; /* the last number may continue in the next piece */
        for (char *p = c->buf, *q; p < c->buf + end; p = q) {
            long v = strtol(p, &q, 10);
            if (q == p)
                break;
            if (c->n_pids == c->cap_pids) {
                size_t cap = c->cap_pids ? 2 * c->cap_pids : 64;
                pid_t *a = realloc(c->pids, cap * sizeof *a);
                if (!a)
                    return -ENOMEM;
                c->pids = a;
                c->cap_pids = cap;
            }
            c->pids[c->n_pids++] = (pid_t)v;
        }
        if (got == 0)
            break;
        keep = len - end;
        memmove(c->buf, c->buf + end, keep);
    }
    *pids = c->pids;
    *n = c->n_pids;
    return 0;
}

const char *cgroup_stat_path(const cgroup_stat_t *c)
{
    return c->path;
}

const char *cgroup_stat_version(const cgroup_stat_t *c)
{
    return c->version == 2 ? "v2" : "v1";
}

json_t *cgroup_stat_events_json(const struct cgroup_stat_events *e)
{
    return json_pack("{s:I, s:I, s:I, s:I}", "oom", (json_int_t)e->oom, "oom_kill", (json_int_t)e->oom_kill, "high",
                     (json_int_t)e->high, "max", (json_int_t)e->max);
}

void cgroup_stat_free(cgroup_stat_t *c)
{
    if (!c)
        return;
    for (int i = 0; i < CG_NFILES; i++)
        if (c->fd[i] >= 0)
            close(c->fd[i]);
    free(c->pids);
    free(c);
}
