/*
 * Memory cgroups for --mem-limit; see memcap.h. The folder to create the
 * capped cgroup in is found from /proc/self/mountinfo (where the hierarchy
 * is mounted, and which part of it the mount shows) and /proc/self/cgroup
 * (where this process is in it), and checked by finding this process in
 * the folder's cgroup.procs.
 */
#define _GNU_SOURCE
#include "harness/run/memcap.h"
#include "harness/run/errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MEMCAP_LEAF "zkbench-leaf"
#define MEMCAP_PATH_MAX 4096

struct memcap {
    int version; /* 1 or 2 */
    char path[MEMCAP_PATH_MAX];
    /* the cgroup this process is in once the cap is made (memcap_leave);
     * "": not found */
    char outside[MEMCAP_PATH_MAX];
};


/* dir + "/" + name into out; -ENAMETOOLONG when it does not fit. */
static int path_join(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* ---- kernel files ---------------------------------------------------------- */

/* Reads a small kernel file, NUL-terminated. Bytes read, or -errno. */
static int file_read(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t got = read(fd, buf + n, cap - 1 - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            int e = errno;
            close(fd);
            return -e;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    return (int)n;
}

/* One write(2) of text, as cgroup files need. 0 or -errno. */
static int file_write(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t len = strlen(text);
    ssize_t put = write(fd, text, len);
    int e = put < 0 ? errno : (size_t)put != len ? EIO : 0;
    if (close(fd) != 0 && e == 0)
        e = errno;
    return -e;
}

static int file_write_dir(const char *dir, const char *name, const char *text)
{
    char path[MEMCAP_PATH_MAX + 64];
    int rc = path_join(path, sizeof path, dir, name);
    return rc < 0 ? rc : file_write(path, text);
}

/* A file holding one number ("max": UINT64_MAX). 0 or -errno. */
static int file_u64(const char *dir, const char *name, uint64_t *v)
{
    char path[MEMCAP_PATH_MAX + 64], buf[64];
    int rc = path_join(path, sizeof path, dir, name);
    if (rc < 0 || (rc = file_read(path, buf, sizeof buf)) < 0)
        return rc;
    if (strncmp(buf, "max", 3) == 0) {
        *v = UINT64_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long x = strtoull(buf, &end, 10);
    if (errno || end == buf)
        return -EINVAL;
    *v = x;
    return 0;
}

/* The value of "key N" in a flat keyed file's text (memory.events,
 * memory.oom_control); 0 when the key is absent. */
static uint64_t keyed_u64(const char *text, const char *key)
{
    size_t len = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, len) == 0 && p[len] == ' ')
            return strtoull(p + len + 1, NULL, 10);
    return 0;
}

static int keyed_file(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[MEMCAP_PATH_MAX + 64];
    int rc = path_join(path, sizeof path, dir, name);
    return rc < 0 ? rc : file_read(path, buf, cap);
}

static bool file_exists(const char *dir, const char *name)
{
    char path[MEMCAP_PATH_MAX + 64];
    return path_join(path, sizeof path, dir, name) == 0 && access(path, F_OK) == 0;
}

/* Calls fn(pid, ctx) for every pid in dir/cgroup.procs until fn returns
 * non-zero; returns that value, 0, or -errno when the file cannot be read. */
static int procs_each(const char *dir, int (*fn)(pid_t, void *), void *ctx)
{
    char path[MEMCAP_PATH_MAX + 64];
    int rc = path_join(path, sizeof path, dir, "cgroup.procs");
    if (rc < 0)
        return rc;
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    long pid;
    rc = 0;
    while (rc == 0 && fscanf(f, "%ld", &pid) == 1)
        rc = fn((pid_t)pid, ctx);
    fclose(f);
    return rc;
}

static int pid_is(pid_t pid, void *ctx)
{
    return pid == *(pid_t *)ctx;
}

static bool holds_pid(const char *dir, pid_t pid)
{
    return procs_each(dir, pid_is, &pid) == 1;
}

/* ---- finding this process's cgroup ------------------------------------------ */

struct cg_mount {
    bool found;
    char dir[MEMCAP_PATH_MAX];  /* mount point */
    char root[MEMCAP_PATH_MAX]; /* the part of the hierarchy it shows */
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
    char *out = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
            *out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
            s += 3;
        } else {
            *out++ = *s;
        }
    }
    *out = '\0';
}

static bool has_token(const char *list, const char *token)
{
    size_t len = strlen(token);
    for (const char *p = list; p; p = strchr(p, ','), p = p ? p + 1 : NULL)
        if (strncmp(p, token, len) == 0 && (p[len] == ',' || p[len] == '\0'))
            return true;
    return false;
}

/* The first cgroup v1 mount with the memory controller, and the first
 * cgroup2 mount (mountinfo: "ID PARENT MAJ:MIN ROOT DIR OPTS ... - TYPE
 * SOURCE SUPEROPTS"). */
static int find_mounts(struct cg_mount *v1, struct cg_mount *v2)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -errno;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        char root[MEMCAP_PATH_MAX], dir[MEMCAP_PATH_MAX], type[64], opts[1024];
        const char *sep = strstr(line, " - ");
        if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, dir) != 2 ||
            sscanf(sep + 3, "%63s %*s %1023s", type, opts) != 2)
            continue;
        struct cg_mount *m = NULL;
        if (strcmp(type, "cgroup") == 0 && has_token(opts, "memory"))
            m = v1;
        else if (strcmp(type, "cgroup2") == 0)
            m = v2;
        if (!m || m->found)
            continue;
        unescape(root);
        unescape(dir);
        m->found = true;
        snprintf(m->dir, sizeof m->dir, "%s", dir);
        snprintf(m->root, sizeof m->root, "%s", root);
    }
    free(line);
    fclose(f);
    return 0;
}

/* This process's cgroup path in the v1 memory hierarchy or in the v2 one,
 * from /proc/self/cgroup ("ID:CONTROLLERS:PATH"). 0, or -ENOENT. */
static int own_cgroup(int version, char *out, size_t cap)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -errno;
    char *line = NULL;
    size_t lcap = 0;
    int rc = -ENOENT;
    while (rc < 0 && getline(&line, &lcap, f) > 0) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        bool match = version == 2 ? strcmp(line, "0") == 0 && c1[1] == '\0' : has_token(c1 + 1, "memory");
        if (match && (size_t)snprintf(out, cap, "%s", c2 + 1) < cap)
            rc = 0;
    }
    free(line);
    fclose(f);
    return rc;
}

/* mount dir + path, without a trailing slash; "" when it does not fit. */
static void mount_path(char *out, size_t cap, const char *dir, const char *path)
{
    while (*path == '/')
        path++;
    int n = snprintf(out, cap, "%s%s%s", dir, *path ? "/" : "", path);
    if (n < 0 || (size_t)n >= cap)
        out[0] = '\0';
}

/*
 * The folder of this process's cgroup. The path in /proc/self/cgroup is
 * relative to the hierarchy's root, or to a cgroup namespace's root; the
 * mount shows the hierarchy from its ROOT field. Candidates in order: the
 * path relative to the mount's root, the path as it is, the mount itself;
 * the first whose cgroup.procs lists this process wins.
 */
static int own_folder(char *out, size_t cap, const struct cg_mount *m, const char *cg, char *err, size_t errlen)
{
    const char *rel = cg;
    size_t rl = strlen(m->root);
    if (strcmp(m->root, "/") != 0 && strncmp(cg, m->root, rl) == 0 && (cg[rl] == '/' || cg[rl] == '\0'))
        rel = cg + rl;
    char cand[3][MEMCAP_PATH_MAX];
    mount_path(cand[0], sizeof cand[0], m->dir, rel);
    mount_path(cand[1], sizeof cand[1], m->dir, cg);
    mount_path(cand[2], sizeof cand[2], m->dir, "");
    for (int i = 0; i < 3; i++)
        if (cand[i][0] && holds_pid(cand[i], getpid())) {
            int n = snprintf(out, cap, "%s", cand[i]);
            if (n < 0 || (size_t)n >= cap)
                break;
            return 0;
        }
    return errmsg_fail(err, errlen, -ENOENT,
                "/proc/self/cgroup puts this process in %s, but neither %s nor %s lists it in cgroup.procs", cg,
                cand[0], cand[2]);
}

/* ---- v2: a parent that gives the memory controller to its children ----------- */

struct move_ctx {
    const char *to;
    int moved, rc;
};

static int move_one(pid_t pid, void *ctx)
{
    struct move_ctx *mc = ctx;
    char text[32];
    snprintf(text, sizeof text, "%ld", (long)pid);
    int rc = file_write_dir(mc->to, "cgroup.procs", text);
    if (rc == -ESRCH)
        return 0; /* exited meanwhile */
    if (rc < 0)
        return mc->rc = rc, 1;
    mc->moved++;
    return 0;
}

/* Moves every process of dir into dir/zkbench-leaf, until none is left
 * (new ones can be forked meanwhile). */
static int move_to_leaf(const char *dir, char *err, size_t errlen)
{
    char leaf[MEMCAP_PATH_MAX + 64];
    int rc = path_join(leaf, sizeof leaf, dir, MEMCAP_LEAF);
    if (rc < 0)
        return errmsg_fail(err, errlen, rc, "cgroup path too long: %s", dir);
    if (mkdir(leaf, 0755) != 0 && errno != EEXIST)
        return errmsg_fail(err, errlen, -errno, "cannot create %s (to move the processes of %s out of the way): %s", leaf,
                    dir, strerror(errno));
    for (int round = 0; round < 20; round++) {
        struct move_ctx mc = {.to = leaf};
        rc = procs_each(dir, move_one, &mc);
        if (rc < 0)
            return errmsg_fail(err, errlen, rc, "cannot read %s/cgroup.procs: %s", dir, strerror(-rc));
        if (mc.rc < 0)
            return errmsg_fail(err, errlen, mc.rc, "cannot move the processes of %s into %s/cgroup.procs: %s", dir, leaf,
                        strerror(-mc.rc));
        if (mc.moved == 0)
            return 0;
    }
    return errmsg_fail(err, errlen, -EBUSY, "processes keep appearing in %s while moving them into %s", dir, leaf);
}

/* Makes dir give the memory controller to its children (v2). */
static int delegate_memory(const char *dir, char *err, size_t errlen)
{
    char buf[1024];
    int rc = keyed_file(dir, "cgroup.subtree_control", buf, sizeof buf);
    if (rc < 0)
        return errmsg_fail(err, errlen, rc, "cannot read %s/cgroup.subtree_control: %s", dir, strerror(-rc));
    for (char *save = NULL, *t = strtok_r(buf, " \n", &save); t; t = strtok_r(NULL, " \n", &save))
        if (strcmp(t, "memory") == 0)
            return 0;
    rc = file_write_dir(dir, "cgroup.subtree_control", "+memory");
    if (rc == -EBUSY) {
        /* "no internal processes": a cgroup with processes cannot give
         * controllers to children, so move them into a leaf first */
        if ((rc = move_to_leaf(dir, err, errlen)) < 0)
            return rc;
        rc = file_write_dir(dir, "cgroup.subtree_control", "+memory");
    }
    if (rc == -ENOENT)
        return errmsg_fail(err, errlen, -ENOTSUP,
                    "%s/cgroup.controllers lacks memory: the memory controller is not delegated to this cgroup "
                    "(or is bound to a cgroup v1 hierarchy)",
                    dir);
    if (rc < 0)
        return errmsg_fail(err, errlen, rc, "cannot write +memory to %s/cgroup.subtree_control: %s", dir, strerror(-rc));
    return 0;
}

/* ---- the capped cgroup ---------------------------------------------------------- */

/* The folder to create the capped cgroup in, and the version. */
static int find_parent(char *out, size_t cap, int *version, char *err, size_t errlen)
{
    const char *env = getenv("ZKBENCH_CGROUP_ROOT");
    if (env && *env) {
        struct stat st;
        if (stat(env, &st) != 0)
            return errmsg_fail(err, errlen, -errno, "ZKBENCH_CGROUP_ROOT=%s: %s", env, strerror(errno));
        if (!S_ISDIR(st.st_mode))
            return errmsg_fail(err, errlen, -ENOTDIR, "ZKBENCH_CGROUP_ROOT=%s: not a folder", env);
        if (file_exists(env, "cgroup.controllers"))
            *version = 2;
        else if (file_exists(env, "memory.limit_in_bytes"))
            *version = 1;
        else
            return errmsg_fail(err, errlen, -ENOTSUP,
                        "ZKBENCH_CGROUP_ROOT=%s is not a memory cgroup (no cgroup.controllers, no "
                        "memory.limit_in_bytes)",
                        env);
        if ((size_t)snprintf(out, cap, "%s", env) >= cap)
            return errmsg_fail(err, errlen, -ENAMETOOLONG, "ZKBENCH_CGROUP_ROOT is too long");
        return 0;
    }
    struct cg_mount v1 = {0}, v2 = {0};
    int rc = find_mounts(&v1, &v2);
    if (rc < 0)
        return errmsg_fail(err, errlen, rc, "cannot read /proc/self/mountinfo: %s", strerror(-rc));
    /* a hybrid system mounts both; the memory controller is where v1 has it */
    *version = v1.found ? 1 : 2;
    const struct cg_mount *m = v1.found ? &v1 : &v2;
    if (!m->found)
        return errmsg_fail(err, errlen, -ENOTSUP,
                    "no memory cgroup: /proc/self/mountinfo lists neither a cgroup v1 memory mount nor a cgroup2 mount");
    char cg[MEMCAP_PATH_MAX];
    if ((rc = own_cgroup(*version, cg, sizeof cg)) < 0)
        return errmsg_fail(err, errlen, rc, "/proc/self/cgroup has no %s line", *version == 1 ? "memory" : "cgroup v2 (0::)");
    if ((rc = own_folder(out, cap, m, cg, err, errlen)) < 0)
        return rc;
    if (*version == 2) {
        /* already moved into our leaf by an earlier run: its parent is the one */
        char *slash = strrchr(out, '/');
        if (slash && strcmp(slash + 1, MEMCAP_LEAF) == 0)
            *slash = '\0';
    }
    return 0;
}

/* Is any swap configured (/proc/meminfo SwapTotal above 0)? When it
 * cannot be told, yes. */
static bool system_has_swap(void)
{
    char buf[8192];
    if (file_read("/proc/meminfo", buf, sizeof buf) < 0)
        return true;
    const char *p = strstr(buf, "SwapTotal:");
    return !p || strtoull(p + strlen("SwapTotal:"), NULL, 10) > 0;
}

/* The settings of a fresh cgroup at m->path; err names the file. */
static int memcap_configure(memcap_t *m, uint64_t limit, char *err, size_t errlen)
{
    char text[32], buf[256];
    snprintf(text, sizeof text, "%llu", (unsigned long long)limit);
    const char *file = m->version == 2 ? "memory.max" : "memory.limit_in_bytes";
    int rc = file_write_dir(m->path, file, text);
    if (rc < 0)
        return errmsg_fail(err, errlen, rc, "cannot write %s to %s/%s: %s", text, m->path, file, strerror(-rc));
    if (m->version == 2) {
        /* absent without swap accounting: then there is nothing to turn off */
        rc = file_write_dir(m->path, "memory.swap.max", "0");
        if (rc < 0 && rc != -ENOENT)
            return errmsg_fail(err, errlen, rc, "cannot write 0 to %s/memory.swap.max: %s", m->path, strerror(-rc));
        return 0;
    }
    /* v1: memory+swap capped at the same value, so swapping cannot stand in
     * for the OOM kill (memsw must not go below memory, hence the order).
     * Without swap that is a no-op, and it costs the count of hits: a charge
     * then fails on memsw, whose failcnt the kernel does not count (6.18) */
    rc = system_has_swap() ? file_write_dir(m->path, "memory.memsw.limit_in_bytes", text) : 0;
    if (rc < 0 && rc != -ENOENT)
        return errmsg_fail(err, errlen, rc, "cannot write %s to %s/memory.memsw.limit_in_bytes: %s", text, m->path,
                    strerror(-rc));
    /* a hint only (memsw already forbids swap), refused by some kernels */
    (void)file_write_dir(m->path, "memory.swappiness", "0");
    /* a new v1 cgroup inherits oom_kill_disable: with it set, the work would
     * hang at the cap instead of being killed */
    if ((rc = keyed_file(m->path, "memory.oom_control", buf, sizeof buf)) < 0)
        return errmsg_fail(err, errlen, rc, "cannot read %s/memory.oom_control: %s", m->path, strerror(-rc));
    if (keyed_u64(buf, "oom_kill_disable") && (rc = file_write_dir(m->path, "memory.oom_control", "0")) < 0)
        return errmsg_fail(err, errlen, rc, "cannot write 0 to %s/memory.oom_control (OOM killer disabled): %s", m->path,
                    strerror(-rc));
    return 0;
}

int memcap_new(memcap_t **ret, uint64_t limit_bytes, char *err, size_t errlen)
{
    long page = sysconf(_SC_PAGESIZE);
    if (limit_bytes < (uint64_t)(page > 0 ? page : 4096))
        return errmsg_fail(err, errlen, -EINVAL, "a limit of %llu bytes is below one page", (unsigned long long)limit_bytes);
    memcap_t *m = calloc(1, sizeof *m);
    if (!m)
        return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
    char parent[MEMCAP_PATH_MAX];
    int rc = find_parent(parent, sizeof parent, &m->version, err, errlen);
    if (rc < 0)
        goto fail;
    if (m->version == 2 && (rc = delegate_memory(parent, err, errlen)) < 0)
        goto fail;
    static unsigned counter;
    for (int tries = 0;; tries++) {
        char name[64];
        snprintf(name, sizeof name, "zkbench-%ld-%u", (long)getpid(), __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
        if ((rc = path_join(m->path, sizeof m->path, parent, name)) < 0) {
            errmsg_fail(err, errlen, rc, "cgroup path too long: %s", parent);
            goto fail;
        }
        if (mkdir(m->path, 0755) == 0)
            break;
        rc = -errno;
        if (rc != -EEXIST || tries >= 1000) {
            errmsg_fail(err, errlen, rc, "cannot create cgroup %s: %s", m->path, strerror(-rc));
            goto fail;
        }
    }
    if ((rc = memcap_configure(m, limit_bytes, err, errlen)) < 0) {
        rmdir(m->path);
        goto fail;
    }
    /* where this process is now (on v2 perhaps the leaf it was moved into) */
    struct cg_mount v1 = {0}, v2 = {0};
    char cg[MEMCAP_PATH_MAX], ignored[256];
    const struct cg_mount *mnt = m->version == 1 ? &v1 : &v2;
    if (find_mounts(&v1, &v2) < 0 || !mnt->found || own_cgroup(m->version, cg, sizeof cg) < 0 ||
        own_folder(m->outside, sizeof m->outside, mnt, cg, ignored, sizeof ignored) < 0)
        m->outside[0] = '\0';
    *ret = m;
    return 0;
fail:
    free(m);
    return rc;
}

int memcap_enter(const memcap_t *m, pid_t pid)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", (long)(pid ? pid : getpid()));
    return file_write_dir(m->path, "cgroup.procs", text);
}

int memcap_leave(const memcap_t *m, pid_t pid)
{
    if (!m->outside[0])
        return -ENOENT;
    char text[32];
    snprintf(text, sizeof text, "%ld", (long)pid);
    return file_write_dir(m->outside, "cgroup.procs", text);
}

int memcap_read(const memcap_t *m, struct memcap_stats *out)
{
    struct memcap_stats s = {0};
    char buf[1024];
    int rc;
    if (m->version == 2) {
        if ((rc = keyed_file(m->path, "memory.events", buf, sizeof buf)) < 0 ||
            (rc = file_u64(m->path, "memory.current", &s.current)) < 0 ||
            (rc = file_u64(m->path, "memory.max", &s.limit)) < 0)
            return rc;
        s.oom = keyed_u64(buf, "oom");
        s.oom_kill = keyed_u64(buf, "oom_kill");
        s.max = keyed_u64(buf, "max");
        s.high = keyed_u64(buf, "high");
        s.low = keyed_u64(buf, "low");
        if (file_u64(m->path, "memory.peak", &s.peak) < 0)
            s.peak = 0; /* before Linux 5.19 */
    } else {
        if ((rc = keyed_file(m->path, "memory.oom_control", buf, sizeof buf)) < 0 ||
            (rc = file_u64(m->path, "memory.failcnt", &s.max)) < 0 ||
            (rc = file_u64(m->path, "memory.max_usage_in_bytes", &s.peak)) < 0 ||
            (rc = file_u64(m->path, "memory.usage_in_bytes", &s.current)) < 0 ||
            (rc = file_u64(m->path, "memory.limit_in_bytes", &s.limit)) < 0)
            return rc;
        s.oom_kill = keyed_u64(buf, "oom_kill");
        s.under_oom = keyed_u64(buf, "under_oom") != 0;
        /* v1 counts kills, not OOM events; each OOM here ends in one */
        s.oom = s.oom_kill;
    }
    *out = s;
    return 0;
}

void memcap_free(memcap_t *m)
{
    if (!m)
        return;
    /* the last process can still be leaving the cgroup just after its
     * parent reaped it: retry a busy rmdir for a moment */
    for (int i = 0; i < 50 && rmdir(m->path) != 0 && errno == EBUSY; i++) {
        struct timespec ts = {0, 2 * 1000000L};
        nanosleep(&ts, NULL);
    }
    free(m);
}

const char *memcap_kind(const memcap_t *m)
{
    return m->version == 2 ? "v2" : "v1";
}

const char *memcap_path(const memcap_t *m)
{
    return m->path;
}
