/*
 * --mem-limit: the batch in a child process inside a memory cgroup
 * (memcap.h), waited for outside it, so that this process survives an OOM
 * kill of the batch and finishes its run.json (run_outcome.h).
 */
#define _GNU_SOURCE
#include "harness/run/batch.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/run/errmsg.h"
#include "harness/run/out_file.h"
#include "harness/run/run_outcome.h"
#include "harness/run/units.h"

static atomic_int forward_pid;

/* The parent's SIGINT/SIGTERM: passed on to the batch. Signals from the
 * terminal (si_code SI_KERNEL) went to the whole foreground process group,
 * the batch included, so passing them on would make them two. */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved_errno = errno;
    int pid = atomic_load(&forward_pid);
    if (pid > 0 && si->si_code != SI_KERNEL)
        kill((pid_t)pid, sig);
    errno = saved_errno;
}

/* Records in run.json how the capped child ended; returns the exit status. */
static int batch_capped_finish(const struct batch_opts *o, const char *out_dir, const memcap_t *cap, int wstatus,
                               const struct memcap_stats *before)
{
    struct memcap_stats after;
    bool have = memcap_read(cap, &after) == 0;
    char err[1024];
    json_t *root = NULL;
    int lrc = run_outcome_load(&root, out_dir, err, sizeof err);
    if (WIFEXITED(wstatus)) {
        int code = WEXITSTATUS(wstatus);
        if (lrc < 0)
            return code; /* refused before it wrote anything (it said why) */
        const char *st = json_string_value(json_object_get(root, "outcome"));
        run_outcome_set(root, st ? st : "failed", o->mem_limit, cap, have ? &after : NULL);
        if (run_outcome_save(out_dir, root, err, sizeof err) < 0 && code == 0)
            code = errmsg_print(1, "batch: %s", err);
        json_decref(root);
        return code;
    }

    int sig = WTERMSIG(wstatus);
    bool oom = sig == SIGKILL && have && after.oom_kill > before->oom_kill;
    if (lrc < 0) {
        /* killed before it wrote run.json: a new one, with what is known */
        root = json_object();
        if (lrc != -ENOENT)
            json_object_set_new(root, "error", json_string(err));
        out_mkdir_p(out_dir);
    }
    if (!json_object_get(root, "summary")) {
        json_t *b = json_object_get(json_object_get(root, "baseline"), "rss");
        json_object_set_new(root, "summary", run_outcome_summary(out_dir, (uint64_t)json_integer_value(b)));
    }
    json_object_set_new(root, "interrupted", json_false());
    const char *name = sigabbrev_np(sig);
    char signame[32];
    snprintf(signame, sizeof signame, "SIG%s", name ? name : "?");
    json_object_set_new(root, "signal", json_string(signame));
    run_outcome_set(root, oom ? "oom-killed" : "killed", o->mem_limit, cap, have ? &after : NULL);
    json_object_set_new(root, "status", json_string(oom ? "oom-killed" : "killed"));
    int src = run_outcome_save(out_dir, root, err, sizeof err);

    json_t *summary = json_object_get(root, "summary");
    uint64_t peak = (uint64_t)json_integer_value(json_object_get(summary, "peak_rss"));
    json_int_t done = json_integer_value(json_object_get(summary, "proofs_done"));
    json_decref(root);
    if (isatty(STDOUT_FILENO)) { /* end the child's progress line */
        putchar('\n');
        fflush(stdout);
    }
    if (src < 0)
        errmsg_print(1, "batch: %s", err);
    /* the peak the limit applies to: the cgroup's (RSS counts file pages
     * charged elsewhere, and misses page cache and kernel memory) */
    char lim[32], pk[32];
    fmt_bytes(lim, (double)o->mem_limit);
    fmt_bytes(pk, (double)(have && after.peak ? after.peak : peak));
    if (oom)
        return errmsg_print(3, "batch: OOM-killed under --mem-limit %s at peak %s after %lld of %u proofs; files in %s/",
                         lim, pk, (long long)done, o->pc.count, out_dir);
    return errmsg_print(1, "batch: the batch process died of %s (no OOM kill in its cgroup) after %lld of %u proofs; "
                        "files in %s/",
                     signame, (long long)done, o->pc.count, out_dir);
}

/* The capped batch; see batch.h. */
int batch_capped(const struct batch_opts *o, const char *out_dir, const memcap_t *cap)
{
    struct memcap_stats before = {0};
    memcap_read(cap, &before);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    struct sigaction sa = {.sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        batch_signals_install();
        sigprocmask(SIG_SETMASK, &old, NULL);
        /* a parent that dies cannot finish run.json: stop as on SIGTERM */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        int rc = memcap_enter(cap, 0);
        if (rc < 0)
            _exit(errmsg_print(2, "batch: --mem-limit: cannot move the batch into %s/cgroup.procs: %s",
                            memcap_path(cap), strerror(-rc)));
        int status = batch_run(o, out_dir, cap);
        fflush(NULL);
        _exit(status);
    }
    int status;
    if (pid < 0) {
        status = errmsg_print(1, "batch: fork: %s", strerror(errno));
    } else {
        forward_pid = pid;
        sigprocmask(SIG_SETMASK, &old, NULL);
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        forward_pid = 0;
        status = batch_capped_finish(o, out_dir, cap, ws, &before);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return status;
}
