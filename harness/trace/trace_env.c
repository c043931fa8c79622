/*
 * The environment of a command `zkbench watch --trace` starts (LD_PRELOAD,
 * ZKBENCH_TRACE_DIR, ZKBENCH_TRACE_MIN, CUDA_INJECTION64_PATH) and where the
 * trace libraries lie: beside the running zkbench (trace_env.h).
 */
#define _GNU_SOURCE
#include "harness/trace/trace_env.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the command's environment ---- */

static char *saved_env[4];
static const char *const env_names[4] = {"LD_PRELOAD", "ZKBENCH_TRACE_DIR", "ZKBENCH_TRACE_MIN",
                                         "CUDA_INJECTION64_PATH"};

int trace_env_set(const char *run_dir, uint64_t min, char *err, size_t errlen)
{
    char lib[PATH_MAX], cupti[PATH_MAX], dir[PATH_MAX], minb[32];
    if (trace_find_lib(lib, sizeof lib, "libzkbench-trace.so") < 0) {
        snprintf(err, errlen, "--trace: libzkbench-trace.so not found next to zkbench (its folder, trace/, ../lib*)");
        return -ENOENT;
    }
    snprintf(dir, sizeof dir, "%s/trace", run_dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "--trace: cannot create %s: %s", dir, strerror(errno));
        return -errno;
    }
    char *abs = realpath(dir, NULL);
    if (!abs) {
        snprintf(err, errlen, "--trace: cannot resolve %s: %s", dir, strerror(errno));
        return -errno;
    }
    snprintf(dir, sizeof dir, "%s", abs);
    free(abs);
    for (int i = 0; i < 4; i++) {
        const char *v = getenv(env_names[i]);
        saved_env[i] = v ? strdup(v) : NULL;
    }
    /* prepended, so a preload the user set still loads after the tracer */
    const char *old = saved_env[0];
    size_t need = strlen(lib) + (old ? strlen(old) + 2 : 1);
    char *pre = malloc(need);
    if (!pre) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    snprintf(pre, need, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    snprintf(minb, sizeof minb, "%" PRIu64, min);
    setenv("LD_PRELOAD", pre, 1);
    free(pre);
    setenv("ZKBENCH_TRACE_DIR", dir, 1);
    setenv("ZKBENCH_TRACE_MIN", minb, 1);
#ifdef ZKB_HAVE_CUPTI
    if (trace_find_lib(cupti, sizeof cupti, "libzkbench-cupti.so") == 0)
        setenv("CUDA_INJECTION64_PATH", cupti, 1);
#else
    (void)cupti;
#endif
    return 0;
}

void trace_env_restore(const char *abandoned_run_dir)
{
    if (abandoned_run_dir) {
        char dir[PATH_MAX + 16];
        snprintf(dir, sizeof dir, "%s/trace", abandoned_run_dir);
        rmdir(dir); /* the command never started: nothing was written there */
    }
    for (int i = 0; i < 4; i++) {
        if (saved_env[i])
            setenv(env_names[i], saved_env[i], 1);
        else
            unsetenv(env_names[i]);
        free(saved_env[i]);
        saved_env[i] = NULL;
    }
}

/* ---- finding the libraries ---- */

static bool try_path(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    return n > 0 && (size_t)n < cap && access(out, R_OK) == 0;
}

int trace_find_lib(char *out, size_t cap, const char *name)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -ENOENT;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -ENOENT;
    *slash = 0;
    char sub[PATH_MAX + 512];
    snprintf(sub, sizeof sub, "%s/trace", exe);
    if (try_path(out, cap, exe, name) || try_path(out, cap, sub, name))
        return 0;
    /* installed: bin/zkbench beside lib, lib64 or lib/<multiarch> */
    char *up = strrchr(exe, '/');
    if (!up)
        return -ENOENT;
    *up = 0;
    DIR *d = opendir(exe[0] ? exe : "/");
    if (!d)
        return -ENOENT;
    struct dirent *e;
    int rc = -ENOENT;
    while (rc && (e = readdir(d))) {
        if (strncmp(e->d_name, "lib", 3) != 0)
            continue;
        snprintf(sub, sizeof sub, "%s/%s", exe, e->d_name);
        if (try_path(out, cap, sub, name)) {
            rc = 0;
            break;
        }
        DIR *d2 = opendir(sub);
        struct dirent *e2;
        while (d2 && (e2 = readdir(d2))) {
            if (e2->d_name[0] == '.')
                continue;
            char sub2[sizeof sub + 512];
            if ((size_t)snprintf(sub2, sizeof sub2, "%s/%s", sub, e2->d_name) < sizeof sub2 &&
                try_path(out, cap, sub2, name)) {
                rc = 0;
                break;
            }
        }
        if (d2)
            closedir(d2);
    }
    closedir(d);
    return rc;
}

/* ---- the clock origin, for a collection outside watch ---- */

void trace_env_save_t0(const char *run_dir, double t0)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/trace/t0", run_dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "%.9f\n", t0);
    fclose(f);
}

int trace_env_load_t0(const char *run_dir, double *t0)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/trace/t0", run_dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    double v;
    int ok = fscanf(f, "%lf", &v) == 1 && v >= 0;
    fclose(f);
    if (!ok)
        return -EINVAL;
    *t0 = v;
    return 0;
}
