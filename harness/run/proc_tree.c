/*
 * The process tree of `zkbench watch`; see proc_tree.h. A tick costs one
 * pread of /proc/PID/status and one of /proc/PID/task/PID/children per
 * process (both descriptors kept open), plus one children file per extra
 * thread of a multi-threaded process; the /proc scan is the fallback only.
 */
#define _GNU_SOURCE
#include "harness/run/proc_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct entry {
    pid_t pid;
    int status_fd;   /* /proc/PID/status */
    int children_fd; /* /proc/PID/task/PID/children, or -1 */
    DIR *task;       /* /proc/PID/task, opened once the process has threads */
    unsigned threads;
    bool live; /* read in this tick */
    struct proc_tree_proc p;
};

struct proc_tree {
    pid_t root;
    bool children, scan, smaps;
    struct entry *e;
    size_t n, cap;
    struct proc_tree_proc *out;
    size_t n_out, cap_out;
    pid_t *queue;
    size_t nq, capq;
    pid_t (*pairs)[2]; /* scan mode: (pid, ppid) of every process, this tick */
    size_t n_pairs, cap_pairs;
    char *buf;
    size_t buf_cap;
};

/* Grows *arr (elem bytes each) to hold need elements. 0 or -ENOMEM. */
static int grow(void *arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *p = realloc(*(void **)arr, c * elem);
    if (!p)
        return -ENOMEM;
    *(void **)arr = p;
    *cap = c;
    return 0;
}

/* Reads all of fd from offset 0 into t->buf (grown as needed), NUL-terminated.
 * Bytes read or -errno. */
static ssize_t read_all(proc_tree_t *t, int fd)
{
    size_t n = 0;
    for (;;) {
        if (n + 1 >= t->buf_cap) {
            char *b = realloc(t->buf, t->buf_cap * 2);
            if (!b)
                return -ENOMEM;
            t->buf = b;
            t->buf_cap *= 2;
        }
        ssize_t got = pread(fd, t->buf + n, t->buf_cap - 1 - n, (off_t)n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            break;
        n += (size_t)got;
        /* a /proc seq_file fills the buffer unless it reached the end: a
         * short read saves the second call that would return 0 */
        if (n + 1 < t->buf_cap)
            break;
    }
    t->buf[n] = '\0';
    return (ssize_t)n;
}

void proc_tree_csv_safe(char *out, size_t cap, const char *text)
{
    if (cap == 0)
        return;
    size_t i = 0;
    for (; text[i] && i + 1 < cap; i++) {
        unsigned char c = (unsigned char)text[i];
        out[i] = c == ',' ? ';' : c == '"' ? '\'' : (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    out[i] = '\0';
}

/* "Key:<spaces>N kB" fields of /proc/PID/status into p; false when the
 * process has no memory left to read (a zombie, or gone). */
static bool parse_status(char *text, struct proc_tree_proc *p, unsigned *threads)
{
    bool rss = false;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *colon = strchr(line, ':');
        if (colon) {
            *colon = '\0';
            const char *v = colon + 1;
            while (*v == ' ' || *v == '\t')
                v++;
            uint64_t kib = strtoull(v, NULL, 10);
            if (strcmp(line, "Name") == 0)
                proc_tree_csv_safe(p->comm, sizeof p->comm, v);
            else if (strcmp(line, "PPid") == 0)
                p->ppid = (pid_t)kib;
            else if (strcmp(line, "Threads") == 0)
                *threads = (unsigned)kib;
            else if (strcmp(line, "VmHWM") == 0)
                p->hwm = kib * 1024;
            else if (strcmp(line, "VmRSS") == 0)
                p->rss = kib * 1024, rss = true;
            else if (strcmp(line, "RssAnon") == 0)
                p->rss_anon = kib * 1024;
            else if (strcmp(line, "RssFile") == 0)
                p->rss_file = kib * 1024;
            else if (strcmp(line, "RssShmem") == 0)
                p->rss_shmem = kib * 1024;
            else if (strcmp(line, "VmLck") == 0)
                p->vm_lck = kib * 1024;
            else if (strcmp(line, "VmPin") == 0)
                p->vm_pin = kib * 1024;
        }
        line = nl ? nl + 1 : NULL;
    }
    return rss;
}

static void entry_close(struct entry *e)
{
    if (e->status_fd >= 0)
        close(e->status_fd);
    if (e->children_fd >= 0)
        close(e->children_fd);
    if (e->task)
        closedir(e->task);
    e->status_fd = e->children_fd = -1;
    e->task = NULL;
}

static struct entry *find(proc_tree_t *t, pid_t pid)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->e[i].pid == pid)
            return &t->e[i];
    return NULL;
}

/* "Key:<spaces>N kB" of smaps_rollup into p (has_smaps when Pss is there). */
static void parse_smaps(const char *text, struct proc_tree_proc *p)
{
    static const char *const keys[3] = {"\nPss:", "\nAnonymous:", "\nSwap:"};
    uint64_t *dst[3] = {&p->pss, &p->smaps_anon, &p->swap};
    for (int i = 0; i < 3; i++) {
        const char *q = strstr(text, keys[i]);
        if (!q)
            continue;
        *dst[i] = strtoull(q + strlen(keys[i]), NULL, 10) * 1024;
        if (i == 0)
            p->has_smaps = true;
    }
}

void proc_tree_set_smaps(proc_tree_t *t, bool on)
{
    t->smaps = on;
}

/* A new entry for pid, its status file open; NULL when it is gone. */
static struct entry *add(proc_tree_t *t, pid_t pid)
{
    if (grow(&t->e, &t->cap, t->n + 1, sizeof *t->e) < 0)
        return NULL;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct entry *e = &t->e[t->n++];
    memset(e, 0, sizeof *e);
    e->pid = pid;
    e->status_fd = fd;
    e->children_fd = -1;
    if (t->children && !t->scan) {
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
        e->children_fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    return e;
}

static int push(proc_tree_t *t, pid_t pid)
{
    if (pid <= 0)
        return 0;
    if (grow(&t->queue, &t->capq, t->nq + 1, sizeof *t->queue) < 0)
        return -ENOMEM;
    t->queue[t->nq++] = pid;
    return 0;
}

/* Queues every pid listed in t->buf (a children file: "PID PID ..."). */
static int push_list(proc_tree_t *t)
{
    for (char *p = t->buf, *end; *p; p = end) {
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        int rc = push(t, (pid_t)v);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Queues the children of e: its main thread's file, then every other
 * thread's (a child belongs to the thread that forked it). */
static int push_children(proc_tree_t *t, struct entry *e)
{
    if (t->scan) {
        for (size_t i = 0; i < t->n_pairs; i++)
            if (t->pairs[i][1] == e->pid) {
                int rc = push(t, t->pairs[i][0]);
                if (rc < 0)
                    return rc;
            }
        return 0;
    }
    if (e->children_fd >= 0 && read_all(t, e->children_fd) >= 0) {
        int rc = push_list(t);
        if (rc < 0)
            return rc;
    }
    if (e->threads <= 1)
        return 0;
    if (!e->task) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)e->pid);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || !(e->task = fdopendir(fd))) {
            if (fd >= 0)
                close(fd);
            return 0;
        }
    }
    rewinddir(e->task);
    struct dirent *d;
    while ((d = readdir(e->task))) {
        long tid = strtol(d->d_name, NULL, 10);
        if (tid <= 0 || tid == e->pid)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%ld/children", tid);
        int fd = openat(dirfd(e->task), name, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; /* the thread ended */
        ssize_t got = read_all(t, fd);
        close(fd);
        int rc = got >= 0 ? push_list(t) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Scan mode: (pid, ppid) of every process from /proc/N/stat. */
static int scan_proc(proc_tree_t *t)
{
    t->n_pairs = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return -errno;
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (pid <= 0 || *end)
            continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t got = read_all(t, fd);
        close(fd);
        /* "pid (comm) S ppid ...": comm may hold spaces and parentheses */
        const char *p = got > 0 ? strrchr(t->buf, ')') : NULL;
        long ppid;
        if (!p || sscanf(p + 1, " %*c %ld", &ppid) != 1)
            continue;
        if ((rc = grow(&t->pairs, &t->cap_pairs, t->n_pairs + 1, sizeof *t->pairs)) < 0)
            break;
        t->pairs[t->n_pairs][0] = (pid_t)pid;
        t->pairs[t->n_pairs][1] = (pid_t)ppid;
        t->n_pairs++;
    }
    closedir(d);
    return rc;
}

int proc_tree_new(proc_tree_t **ret, pid_t root, bool children)
{
    proc_tree_t *t = calloc(1, sizeof *t);
    if (!t)
        return -ENOMEM;
    t->root = root;
    t->children = children;
    t->buf_cap = 4096;
    t->buf = malloc(t->buf_cap);
    if (!t->buf) {
        free(t);
        return -ENOMEM;
    }
    /* kernels built without CONFIG_PROC_CHILDREN lack the children files */
    const char *env = getenv("ZKBENCH_PROC_TREE");
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)getpid(), (int)getpid());
    t->scan = children && ((env && strcmp(env, "scan") == 0) || access(path, R_OK) != 0);
    *ret = t;
    return 0;
}

int proc_tree_read(proc_tree_t *t, const pid_t *extra, size_t n_extra)
{
    int rc = 0;
    t->nq = 0;
    for (size_t i = 0; i < t->n; i++)
        t->e[i].live = false;
    if ((rc = push(t, t->root)) < 0)
        return rc;
    for (size_t i = 0; i < n_extra; i++)
        if ((rc = push(t, extra[i])) < 0)
            return rc;
    /* with children, a process found before stays watched while it lives,
     * even when its parent exited and it was reparented out of the tree */
    for (size_t i = 0; t->children && i < t->n; i++)
        if ((rc = push(t, t->e[i].pid)) < 0)
            return rc;
    if (t->children && t->scan && (rc = scan_proc(t)) < 0)
        return rc;
    for (size_t q = 0; q < t->nq; q++) {
        pid_t pid = t->queue[q];
        struct entry *e = find(t, pid);
        if (e && (e->live || e->status_fd < 0))
            continue; /* read already this tick, or found dead */
        if (!e && !(e = add(t, pid)))
            continue;
        struct proc_tree_proc p = {.pid = pid};
        unsigned threads = 1;
        if (read_all(t, e->status_fd) <= 0 || !parse_status(t->buf, &p, &threads)) {
            entry_close(e); /* ended: dropped below */
            continue;
        }
        if (t->smaps) {
            /* opened each tick: the file holds the memory map of the time it
             * was opened, so one opened before an exec reads nothing after */
            char path[64];
            snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd >= 0 && read_all(t, fd) > 0)
                parse_smaps(t->buf, &p);
            if (fd >= 0)
                close(fd);
        }
        e->p = p;
        e->threads = threads;
        e->live = true;
        if (t->children && (rc = push_children(t, e)) < 0)
            return rc;
    }
    /* drop what ended or left the tree; keep the order of the rest */
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->e[i].live)
            t->e[k++] = t->e[i];
        else
            entry_close(&t->e[i]);
    }
    t->n = k;
    if ((rc = grow(&t->out, &t->cap_out, t->n, sizeof *t->out)) < 0)
        return rc;
    for (size_t i = 0; i < t->n; i++)
        t->out[i] = t->e[i].p;
    t->n_out = t->n;
    return (int)t->n;
}

const struct proc_tree_proc *proc_tree_procs(const proc_tree_t *t, size_t *n)
{
    *n = t->n_out;
    return t->out;
}

void proc_tree_free(proc_tree_t *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        entry_close(&t->e[i]);
    free(t->e);
    free(t->out);
    free(t->queue);
    free(t->pairs);
    free(t->buf);
    free(t);
}

void proc_tree_write_header(FILE *f)
{
    fputs("t_ms,pid,ppid,comm,rss,rss_anon,rss_file,rss_shmem,vm_lck,vm_pin\n", f);
    fflush(f);
}

size_t proc_tree_format_rows(const proc_tree_t *t, double t_ms, char *buf, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n_out; i++) {
        const struct proc_tree_proc *p = &t->out[i];
        int k = snprintf(n < cap ? buf + n : NULL, n < cap ? cap - n : 0,
                         "%.3f,%d,%d,%s,%llu,%llu,%llu,%llu,%llu,%llu\n", t_ms, (int)p->pid, (int)p->ppid, p->comm,
                         (unsigned long long)p->rss, (unsigned long long)p->rss_anon,
                         (unsigned long long)p->rss_file, (unsigned long long)p->rss_shmem,
                         (unsigned long long)p->vm_lck, (unsigned long long)p->vm_pin);
        n += k > 0 ? (size_t)k : 0;
    }
    return n;
}
