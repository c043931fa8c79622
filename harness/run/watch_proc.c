/* The watched command's process group, its terminal and its guardian; see watch_proc.h. */
#define _GNU_SOURCE
#include "harness/run/watch_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/errmsg.h"

/* An executable regular file at path: 0 or -errno. */
static int runnable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -errno;
    if (S_ISDIR(st.st_mode))
        return -EISDIR;
    if (!S_ISREG(st.st_mode) || faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
        return -EACCES;
    return 0;
}

int watch_proc_check_command(const char *cmd0, char *err, size_t errlen)
{
    if (!*cmd0)
        return errmsg_fail(err, errlen, -ENOENT, "cannot run '': %s", strerror(ENOENT));
    if (strchr(cmd0, '/')) {
        int rc = runnable(cmd0);
        if (rc == -EISDIR)
            return errmsg_fail(err, errlen, rc, "cannot run %s: it is a folder", cmd0);
        return rc < 0 ? errmsg_fail(err, errlen, rc, "cannot run %s: %s", cmd0, strerror(-rc)) : 0;
    }
    /* $PATH as execvp searches it (its default when unset) */
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    int found = -ENOENT;
    char full[PATH_MAX];
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        int len = (int)(end - p);
        if (snprintf(full, sizeof full, "%.*s%s%s", len, len ? p : ".", "/", cmd0) < (int)sizeof full) {
            int rc = runnable(full);
            if (rc == 0)
                return 0;
            if (rc == -EACCES)
                found = rc; /* found, not executable: said if nothing better turns up */
        }
        if (!*end)
            break;
        p = end;
    }
    if (found == -EACCES)
        return errmsg_fail(err, errlen, found, "cannot run %s: found on PATH but not executable", cmd0);
    return errmsg_fail(err, errlen, -ENOENT, "cannot run %s: not found (PATH %s)", cmd0, path);
}

int watch_proc_check_pid(pid_t pid, char *err, size_t errlen)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errmsg_fail(err, errlen, -ESRCH, "--pid %d: no such process", (int)pid);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return errmsg_fail(err, errlen, -ESRCH, "--pid %d: no such process", (int)pid);
    buf[n] = 0;
    char name[64] = "?";
    const char *nm = strstr(buf, "Name:");
    if (nm)
        sscanf(nm + 5, " %63[^\n]", name);
    /* a zombie has no memory either, but it is a process that ended: watch
     * records an empty run of it */
    const char *state = strstr(buf, "\nState:");
    bool zombie = state && (strncmp(state + 7, "\tZ", 2) == 0 || strncmp(state + 7, " Z", 2) == 0);
    if (!zombie && !strstr(buf, "\nVmRSS:"))
        return errmsg_fail(err, errlen, -EINVAL,
                           "--pid %d (%s) is a kernel thread: it has no memory of its own to watch", (int)pid, name);
    return 0;
}

bool watch_proc_give_terminal(pid_t pgid)
{
    if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp())
        return false;
    /* a background group's tcsetpgrp raises SIGTTOU: held off meanwhile */
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &ttou, &old);
    bool ok = tcsetpgrp(STDIN_FILENO, pgid) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

void watch_proc_take_terminal(void)
{
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &ttou, &old);
    (void)tcsetpgrp(STDIN_FILENO, getpgrp());
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int watch_proc_child_setup(pid_t parent, bool terminal)
{
    if (setpgid(0, 0) != 0)
        return -errno;
    if (terminal) {
        /* the parent hands it over too; whichever is first, the command
         * never reads the terminal from a background group */
        sigset_t ttou, old;
        sigemptyset(&ttou);
        sigaddset(&ttou, SIGTTOU);
        sigprocmask(SIG_BLOCK, &ttou, &old);
        (void)tcsetpgrp(STDIN_FILENO, getpid());
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        return -errno;
    if (getppid() != parent)
        return -ESRCH; /* watch died before the line above */
    return 0;
}

/* The guardian's last act: SIGKILL to the group and to the cgroup's
 * processes. Only async-signal-safe calls: it runs in a child of a
 * process with threads. */
static void guard_kill(pid_t pgid, const char *kill_path, const char *procs_path)
{
    kill(-pgid, SIGKILL);
    if (!kill_path[0])
        return;
    int fd = open(kill_path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) { /* cgroup v2: the kernel kills every process in it */
        bool ok = write(fd, "1", 1) == 1;
        close(fd);
        if (ok)
            return;
    }
    /* v1 (or a v2 kernel before cgroup.kill): the listed processes, a few
     * rounds for those forked meanwhile */
    for (int round = 0; round < 5; round++) {
        fd = open(procs_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        char buf[4096];
        long v = -1;
        bool any = false;
        for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
            for (ssize_t i = 0; i < n; i++) {
                if (buf[i] >= '0' && buf[i] <= '9') {
                    v = (v < 0 ? 0 : v * 10) + (buf[i] - '0');
                } else if (v > 0) {
                    kill((pid_t)v, SIGKILL);
                    any = true;
                    v = -1;
                }
            }
        if (v > 0) {
            kill((pid_t)v, SIGKILL);
            any = true;
        }
        close(fd);
        if (!any)
            return;
    }
}

int watch_proc_guard_start(pid_t pgid, const char *cgroup_dir)
{
    char kill_path[PATH_MAX] = "", procs_path[PATH_MAX] = "";
    if (cgroup_dir) {
        snprintf(kill_path, sizeof kill_path, "%s/cgroup.kill", cgroup_dir);
        snprintf(procs_path, sizeof procs_path, "%s/cgroup.procs", cgroup_dir);
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        return -e;
    }
    if (pid == 0) {
        /* out of watch's session and group: a terminal's hangup or a kill
         * of watch's group leaves it to do its one job */
        setsid();
        struct sigaction ign = {.sa_handler = SIG_IGN};
        sigaction(SIGINT, &ign, NULL);
        sigaction(SIGTERM, &ign, NULL);
        sigaction(SIGHUP, &ign, NULL);
        sigaction(SIGQUIT, &ign, NULL);
        sigaction(SIGPIPE, &ign, NULL);
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
            /* holds none of watch's pipes: a reader of watch's output
             * sees it end when watch ends */
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        if (p[0] != 3 && dup2(p[0], 3) < 0)
            _exit(1);
        syscall(SYS_close_range, 4u, ~0u, 0u);
        int32_t word = -1;
        ssize_t n;
        do
            n = read(3, &word, sizeof word);
        while (n < 0 && errno == EINTR);
        if (n == (ssize_t)sizeof word && word == 0)
            _exit(0); /* released: the command ended as watch meant */
        guard_kill(pgid, kill_path, procs_path);
        _exit(0);
    }
    close(p[0]);
    return p[1];
}

void watch_proc_guard_release(int *fd)
{
    if (*fd < 0)
        return;
    int32_t zero = 0;
    (void)!write(*fd, &zero, sizeof zero);
    close(*fd);
    *fd = -1;
}

bool watch_proc_group_alive(pid_t pgid)
{
    return kill(-pgid, 0) == 0 || errno == EPERM;
}

/* True when pid has ended: gone, or a zombie that its parent has not yet
 * reaped (kill(pid, 0) still succeeds on one). */
bool watch_proc_ended(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ESRCH;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return true; /* the entry went away between open and read */
    buf[n] = 0;
    /* "pid (comm) S ...": comm may hold spaces and parentheses */
    const char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return false;
    return p[2] == 'Z' || p[2] == 'X' || p[2] == 'x';
}

/* After sampler_start found no memory to read: whether the process has
 * ended (then the run is empty, not an error). A command is our child, so
 * its status is collected here; a --pid process gets a moment to finish
 * exiting. */
bool watch_proc_ended_early(pid_t pid, bool child, int *status)
{
    if (child)
        return waitpid(pid, status, 0) == pid;
    for (int i = 0; i < 50; i++) {
        if (watch_proc_ended(pid))
            return true;
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return false;
}

void watch_proc_cmdline(char *out, size_t cap, char **cmd, pid_t pid)
{
    out[0] = 0;
    size_t n = 0;
    if (cmd) {
        for (char **a = cmd; *a && n + 1 < cap; a++)
            n += (size_t)snprintf(out + n, cap - n, "%s%s", a == cmd ? "" : " ", *a);
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t got = read(fd, out, cap - 1);
    close(fd);
    if (got <= 0)
        return;
    out[got] = 0;
    while (got > 0 && out[got - 1] == 0)
        got--;
    for (ssize_t i = 0; i < got; i++)
        if (out[i] == 0)
            out[i] = ' ';
}
