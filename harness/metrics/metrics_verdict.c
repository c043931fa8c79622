/* analyze's verdict for the metrics; see metrics_verdict.h. */
#define _GNU_SOURCE
#include "harness/metrics/metrics_verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/run_clock.h"

extern char **environ;

/* analyze's JSON of a long run is some hundred KiB; past this it is not one */
#define VERDICT_OUT_MAX ((size_t)64 << 20)

struct metrics_verdict {
    struct metrics_verdict_config c;
    char *run_dir;
    metrics_t *m;
    pthread_t thread;
    bool thread_on;
    pthread_mutex_t lock; /* stop */
    pthread_cond_t wake;
    bool stop;
};

struct out_buf {
    char *p;
    size_t len, cap;
};

/* Appends what fd has; 1 more to come, 0 at its end, -errno. */
static int out_read(struct out_buf *b, int fd)
{
    if (b->len + 4096 + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 65536;
        if (cap > VERDICT_OUT_MAX + 4096 + 1)
            return -EFBIG;
        char *p = realloc(b->p, cap);
        if (!p)
            return -ENOMEM;
        b->p = p, b->cap = cap;
    }
    ssize_t got = read(fd, b->p + b->len, b->cap - b->len - 1);
    if (got < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : -errno;
    b->len += (size_t)got;
    b->p[b->len] = '\0';
    return got > 0;
}

/* Runs `zkbench analyze --json --no-save DIR`, this binary, and collects its
 * standard output and error until both end or the timeout; then its exit
 * status in *wstatus. 0 or -errno. */
static int run_analyze(const struct metrics_verdict_config *c, struct out_buf *out, struct out_buf *errb,
                       int *wstatus)
{
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) < 0)
        return -errno;
    if (pipe2(pe, O_CLOEXEC) < 0) {
        int e = errno;
        close(po[0]), close(po[1]);
        return -e;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    char *argv[] = {"zkbench", "analyze", "--json", "--no-save", (char *)c->run_dir, NULL};
    pid_t pid;
    int rc = -posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]), close(pe[1]);
    if (rc < 0) {
        close(po[0]), close(pe[0]);
        return rc;
    }
    if (c->place)
        c->place(pid, c->place_ctx); /* best effort: the child's first pages are charged where it started */
    struct pollfd fds[2] = {{.fd = po[0], .events = POLLIN}, {.fd = pe[0], .events = POLLIN}};
    struct out_buf *bufs[2] = {out, errb};
    int open_fds = 2;
    double deadline = run_clock_now() + METRICS_VERDICT_TIMEOUT_S;
    while (open_fds > 0 && rc == 0) {
        double left = deadline - run_clock_now();
        if (left <= 0) {
            rc = -ETIMEDOUT;
            break;
        }
        int n = poll(fds, 2, (int)(left * 1000) + 1);
        if (n < 0 && errno != EINTR) {
            rc = -errno;
            break;
        }
        for (int i = 0; i < 2 && n > 0; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int r = out_read(bufs[i], fds[i].fd);
            if (r < 0)
                rc = r;
            else if (r == 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    if (rc < 0)
        kill(pid, SIGKILL);
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
        ;
    return rc;
}

int metrics_verdict_eval(const struct metrics_verdict_config *c, char *verdict, size_t vlen, char *headline,
                         size_t hlen, char *err, size_t errlen)
{
    struct out_buf out = {0}, errb = {0};
    int wstatus = 0;
    int rc = run_analyze(c, &out, &errb, &wstatus);
    if (rc < 0) {
        snprintf(err, errlen, "zkbench analyze %s: %s", c->run_dir,
                 rc == -ETIMEDOUT ? "no answer within 120 s" : strerror(-rc));
        goto done;
    }
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        /* its one error line, without the newline */
        size_t n = errb.len;
        while (n && (errb.p[n - 1] == '\n' || errb.p[n - 1] == '\r'))
            n--;
        snprintf(err, errlen, "%.*s", (int)(n > 600 ? 600 : n),
                 n ? errb.p : WIFEXITED(wstatus) ? "zkbench analyze failed" : "zkbench analyze was killed");
        rc = -EINVAL;
        goto done;
    }
    json_error_t je;
    json_t *j = out.p ? json_loadb(out.p, out.len, 0, &je) : NULL;
    const char *v = json_string_value(json_object_get(j, "verdict")),
               *h = json_string_value(json_object_get(j, "headline"));
    if (!v || !h) {
        snprintf(err, errlen, "zkbench analyze %s: its JSON has no verdict and headline", c->run_dir);
        rc = -EINVAL;
    } else {
        snprintf(verdict, vlen, "%s", v);
        snprintf(headline, hlen, "%s", h);
    }
    json_decref(j);
done:
    free(out.p);
    free(errb.p);
    return rc;
}

/* One evaluation into the metrics; a failed one leaves the last verdict
 * (the run's first samples may not be written yet). */
static int evaluate(metrics_verdict_t *v, char *err, size_t errlen)
{
    char verdict[32], headline[METRICS_HEADLINE_MAX];
    int rc = metrics_verdict_eval(&v->c, verdict, sizeof verdict, headline, sizeof headline, err, errlen);
    if (rc == 0)
        metrics_set_verdict(v->m, verdict, headline);
    return rc;
}

static void *verdict_main(void *arg)
{
    metrics_verdict_t *v = arg;
    char err[800];
    pthread_mutex_lock(&v->lock);
    while (!v->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += v->c.period_s;
        while (!v->stop && pthread_cond_timedwait(&v->wake, &v->lock, &until) == 0)
            ;
        if (v->stop)
            break;
        pthread_mutex_unlock(&v->lock);
        evaluate(v, err, sizeof err);
        pthread_mutex_lock(&v->lock);
    }
    pthread_mutex_unlock(&v->lock);
    return NULL;
}

int metrics_verdict_start(metrics_verdict_t **ret, metrics_t *m, const struct metrics_verdict_config *c)
{
    metrics_verdict_t *v = calloc(1, sizeof *v);
    if (!v || !(v->run_dir = strdup(c->run_dir))) {
        free(v);
        return -ENOMEM;
    }
    v->c = *c;
    v->c.run_dir = v->run_dir;
    v->m = m;
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->wake, NULL);
    if (c->period_s > 0) {
        int e = pthread_create(&v->thread, NULL, verdict_main, v);
        if (e != 0) {
            metrics_verdict_free(v);
            return -e;
        }
        v->thread_on = true;
    }
    *ret = v;
    return 0;
}

static void thread_stop(metrics_verdict_t *v)
{
    if (!v->thread_on)
        return;
    pthread_mutex_lock(&v->lock);
    v->stop = true;
    pthread_cond_signal(&v->wake);
    pthread_mutex_unlock(&v->lock);
    pthread_join(v->thread, NULL);
    v->thread_on = false;
}

int metrics_verdict_stop(metrics_verdict_t *v, bool final, char *err, size_t errlen)
{
    if (!v)
        return 0;
    thread_stop(v);
    return final ? evaluate(v, err, errlen) : 0;
}

void metrics_verdict_free(metrics_verdict_t *v)
{
    if (!v)
        return;
    thread_stop(v);
    pthread_cond_destroy(&v->wake);
    pthread_mutex_destroy(&v->lock);
    free(v->run_dir);
    free(v);
}
