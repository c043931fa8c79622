/* Log lines as proof marks; see watch_mark.h. */
#define _GNU_SOURCE
#include "harness/run/watch_mark.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/proc_tree.h"
#include "harness/run/run_clock.h"

#define MARK_LINE_MAX 65536 /* a longer line is matched on its start */
#define MARK_NAME_MAX 200   /* marks.csv's name: the line, truncated */

struct watch_mark {
    regex_t re;
    FILE *csv;
    int pipes[2][2]; /* [stdout, stderr][read, write] */
    pthread_t thread;
    bool started;
    _Atomic uint64_t count;
    atomic_bool finish;
    double deadline; /* monotonic seconds, once finish is set */
    pid_t pid;
    double t0;
    char *line[2];
    size_t len[2];
    off_t csv_good; /* marks.csv ends with a whole row here */
    int csv_err;    /* its first write error (-errno): no rows after it */
    /* --mark-file: the log followed instead of the output (line[0]) */
    char *follow;
    int ffd;
    dev_t fdev;
    ino_t fino;
    off_t foff;
};

int watch_mark_new(watch_mark_t **ret, const char *regex, char *err, size_t errlen)
{
    watch_mark_t *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = regcomp(&m->re, regex, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, &m->re, err, errlen);
        free(m);
        return -EINVAL;
    }
    for (int s = 0; s < 2; s++)
        m->pipes[s][0] = m->pipes[s][1] = -1;
    m->ffd = -1;
    atomic_init(&m->count, 0);
    atomic_init(&m->finish, false);
    *ret = m;
    return 0;
}

int watch_mark_follow(watch_mark_t *m, const char *path)
{
    struct stat st;
    if (!(m->follow = strdup(path)))
        return -ENOMEM;
    if ((m->ffd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
        return -errno;
    if (fstat(m->ffd, &st) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
        return -EINVAL;
    /* from its end: what the daemon logged before is not this run's */
    m->foff = S_ISREG(st.st_mode) ? lseek(m->ffd, 0, SEEK_END) : 0;
    m->fdev = st.st_dev;
    m->fino = st.st_ino;
    return 0;
}

int watch_mark_open(watch_mark_t *m, const char *path)
{
    for (int s = 0; s < 2; s++)
        if (!(m->line[s] = malloc(MARK_LINE_MAX + 1)))
            return -ENOMEM;
    if (!(m->csv = fopen(path, "we")))
        return -errno;
    fputs("t_ms,pid,source,name\n", m->csv);
    if (fflush(m->csv) != 0)
        return -errno;
    m->csv_good = ftello(m->csv);
    for (int s = 0; !m->follow && s < 2; s++)
        if (pipe2(m->pipes[s], O_CLOEXEC) != 0)
            return -errno;
    return 0;
}

int watch_mark_child(const watch_mark_t *m)
{
    for (int s = 0; !m->follow && s < 2; s++)
        if (dup2(m->pipes[s][1], s + 1) < 0)
            return -errno;
    return 0;
}

/* A complete line of stream s (without its newline): count it when it
 * matches and write its marks.csv row. */
static void mark_line(watch_mark_t *m, int s)
{
    char *line = m->line[s];
    size_t len = m->len[s];
    if (len && line[len - 1] == '\r')
        len--;
    line[len] = '\0';
    m->len[s] = 0;
    if (regexec(&m->re, line, 0, NULL, 0) != 0)
        return;
    atomic_fetch_add(&m->count, 1);
    char name[MARK_NAME_MAX + 1];
    proc_tree_csv_safe(name, sizeof name, line);
    if (m->csv_err)
        return; /* counting goes on; the file keeps its whole rows */
    char row[MARK_NAME_MAX + 64];
    int n = snprintf(row, sizeof row, "%.3f,%d,%s,%s\n", (run_clock_now() - m->t0) * 1e3, (int)m->pid,
                     m->follow ? "file" : "output", name);
    if (fwrite(row, 1, (size_t)n, m->csv) != (size_t)n || fflush(m->csv) != 0) {
        m->csv_err = errno ? -errno : -EIO;
        __fpurge(m->csv);
        if (ftruncate(fileno(m->csv), m->csv_good) == 0)
            lseek(fileno(m->csv), m->csv_good, SEEK_SET);
        return;
    }
    m->csv_good = ftello(m->csv);
}

int watch_mark_error(const watch_mark_t *m)
{
    /* read after watch_mark_finish has joined the reader thread */
    return m ? m->csv_err : 0;
}

/* Bytes of stream s split into lines, each complete one matched. */
static void mark_split(watch_mark_t *m, int s, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n')
            mark_line(m, s);
        else if (m->len[s] < MARK_LINE_MAX)
            m->line[s][m->len[s]++] = data[i];
    }
}

/* Bytes read from stream s: passed on at once, then split into lines. */
static void mark_data(watch_mark_t *m, int s, const char *data, size_t n)
{
    for (size_t off = 0; off < n;) {
        ssize_t put = write(s + 1, data + off, n - off);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            break; /* our own output is gone: keep reading, so the command never blocks */
        off += (size_t)put;
    }
    mark_split(m, s, data, n);
}

/* Reads what the followed log has past foff. */
static void follow_drain(watch_mark_t *m, char *buf, size_t cap)
{
    for (;;) {
        ssize_t got = read(m->ffd, buf, cap);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return;
        m->foff += got;
        mark_split(m, 0, buf, (size_t)got);
    }
}

/* --mark-file: the log read as it grows, every 50 ms. Rotated (another
 * file at the path) or truncated (shorter than what was read), it is read
 * from its start: its old file's rest first. */
static void *follow_main(void *arg)
{
    watch_mark_t *m = arg;
    char buf[65536];
    for (;;) {
        bool last = atomic_load(&m->finish);
        follow_drain(m, buf, sizeof buf);
        struct stat st;
        if (stat(m->follow, &st) == 0) {
            if (st.st_dev != m->fdev || st.st_ino != m->fino) {
                int fd = open(m->follow, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
                if (fd >= 0) {
                    close(m->ffd);
                    m->ffd = fd;
                    m->fdev = st.st_dev;
                    m->fino = st.st_ino;
                    m->foff = 0;
                    m->len[0] = 0; /* a line cut by the rotation is not matched half */
                    follow_drain(m, buf, sizeof buf);
                }
            } else if (S_ISREG(st.st_mode) && st.st_size < m->foff) {
                m->foff = lseek(m->ffd, 0, SEEK_SET);
                m->len[0] = 0;
                follow_drain(m, buf, sizeof buf);
            }
        }
        if (last)
            break;
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void *mark_main(void *arg)
{
    watch_mark_t *m = arg;
    char buf[65536];
    for (;;) {
        struct pollfd pf[2];
        nfds_t n = 0;
        int which[2];
        for (int s = 0; s < 2; s++)
            if (m->pipes[s][0] >= 0) {
                pf[n].fd = m->pipes[s][0];
                pf[n].events = POLLIN;
                which[n++] = s;
            }
        if (n == 0)
            break;
        if (atomic_load(&m->finish) && run_clock_now() > m->deadline)
            break;
        int r = poll(pf, n, 50);
        if (r < 0 && errno != EINTR)
            break;
        for (nfds_t i = 0; r > 0 && i < n; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int s = which[i];
            ssize_t got = read(m->pipes[s][0], buf, sizeof buf);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                if (m->len[s])
                    mark_line(m, s); /* the last line had no newline */
                close(m->pipes[s][0]);
                m->pipes[s][0] = -1;
                continue;
            }
            mark_data(m, s, buf, (size_t)got);
        }
    }
    return NULL;
}

int watch_mark_start(watch_mark_t *m, pid_t pid, double t0)
{
    m->pid = pid;
    m->t0 = t0;
    for (int s = 0; s < 2; s++) {
        close(m->pipes[s][1]);
        m->pipes[s][1] = -1;
    }
    signal(SIGPIPE, SIG_IGN);
    if (pthread_create(&m->thread, NULL, m->follow ? follow_main : mark_main, m) != 0)
        return -EAGAIN;
    m->started = true;
    return 0;
}

const _Atomic uint64_t *watch_mark_counter(const watch_mark_t *m)
{
    return &m->count;
}

void watch_mark_finish(watch_mark_t *m, unsigned linger_ms)
{
    if (!m || !m->started)
        return;
    m->deadline = run_clock_now() + linger_ms * 1e-3;
    atomic_store(&m->finish, true);
    pthread_join(m->thread, NULL);
    m->started = false;
    for (int s = 0; s < 2; s++)
        if (m->len[s])
            mark_line(m, s); /* a last line cut off at the deadline */
}

void watch_mark_free(watch_mark_t *m)
{
    if (!m)
        return;
    watch_mark_finish(m, 0);
    for (int s = 0; s < 2; s++)
        for (int e = 0; e < 2; e++)
            if (m->pipes[s][e] >= 0)
                close(m->pipes[s][e]);
    if (m->csv)
        fclose(m->csv);
    if (m->ffd >= 0)
        close(m->ffd);
    free(m->follow);
    regfree(&m->re);
    free(m->line[0]);
    free(m->line[1]);
    free(m);
}
