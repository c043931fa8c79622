/* A batch's checks before its run folder is made; see batch.h. */
#define _GNU_SOURCE
#include "harness/run/batch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/run/errmsg.h"
#include "harness/run/param_cache.h"
#include "kernels/kernels.h"
#include "prover/circuit/circuit.h"

/* The CUDA devices this machine has, with the reason in msg when none.
 * isolated: counted in a child process, so that this one never initializes
 * CUDA (a capped batch forks its child after the checks, and a CUDA
 * runtime initialized before a fork does not work in the child). */
static int batch_device_count(bool isolated, char *msg, size_t cap)
{
    int n = 0;
    msg[0] = 0;
    if (!isolated) {
        kernels_device_count(&n);
        snprintf(msg, cap, "%s", n ? "" : kernels_last_error());
        return n;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        struct { int n; char why[256]; } r = {0};
        kernels_device_count(&r.n);
        snprintf(r.why, sizeof r.why, "%s", r.n ? "" : kernels_last_error());
        (void)!write(p[1], &r, sizeof r);
        _exit(0);
    }
    close(p[1]);
    struct { int n; char why[256]; } r = {0, "the device probe failed"};
    if (pid > 0) {
        if (read(p[0], &r, sizeof r) != (ssize_t)sizeof r)
            snprintf(r.why, sizeof r.why, "the device probe died");
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    close(p[0]);
    snprintf(msg, cap, "%s", r.why);
    return r.n;
}

/* The checks before any file; see batch.h. */
int batch_check(const struct batch_opts *o)
{
    char err[1024];
    if (circuit_check_spec(o->circuit, o->pc.partitions, err, sizeof err) < 0)
        return errmsg_print(2, "batch: %s", err);
    bool zkey = strncmp(o->circuit, "zkey:", 5) == 0;
    if (zkey && strcmp(o->backend, "gpu") == 0)
        return errmsg_print(2, "batch: --backend gpu: circuits from a zkey are proved on the CPU");
    /* the parameters: a given file readable, or the cache's key there or makeable */
    char spec[512];
    if (!zkey && (circuit_canonical_spec(spec, sizeof spec, o->circuit, o->pc.partitions, err, sizeof err) < 0 ||
                  param_cache_preflight(spec, o->params, err, sizeof err) < 0))
        return errmsg_print(2, "batch: %s", err);
    /* the devices asked for, before the run folder: a refusal leaves nothing */
    if (strcmp(o->backend, "gpu") == 0 || o->n_gpus || o->gpus_all) {
        int n = batch_device_count(o->mem_limit != 0, err, sizeof err);
        if (n == 0 && strcmp(o->backend, "gpu") == 0)
            return errmsg_print(2, "batch: --backend gpu: no CUDA device (%s)", err);
        if (n == 0)
            return errmsg_print(2, "batch: --gpus needs the GPU backend: this machine has no CUDA device");
        for (unsigned i = 0; i < o->n_gpus; i++)
            if (o->gpus[i] >= n)
                return errmsg_print(2, "batch: --gpus: no CUDA device %d (this machine has %d: 0 to %d)", o->gpus[i], n,
                                 n - 1);
    }
    if (o->params) {
        params_error_t perr;
        if (access(o->params, R_OK) != 0)
            return errmsg_print(2, "batch: --params %s: cannot read: %s", o->params, strerror(errno));
        if (params_check_layout(o->params, &perr) < 0)
            return errmsg_print(2, "batch: --params %s", perr.msg);
    }
    return -1;
}
