/*
 * memcap through its C API. Everywhere: memcap_new's refusals (a limit
 * below one page; ZKBENCH_CGROUP_ROOT missing, a plain folder, a file),
 * each with -errno and a message naming the value. Where this process may
 * make memory cgroups: a child moved in by pid that touches pages past a
 * 32 MiB cap is OOM-killed and counted (oom_kill, oom, peak at the cap);
 * a child that enters itself and stays within 256 MiB exits normally with
 * no kill counted and its peak seen; ZKBENCH_CGROUP_ROOT pointing at the
 * folder found on its own works; memcap_free removes every cgroup made.
 * Exit 77 (skipped) only when not root or no memory controller exists.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/run/memcap.h"
#include "tests/check.h"

#define MIB (1ull << 20)


/* memcap_new must fail with want (an -errno) and a message holding needle. */
static void expect_refusal(const char *root, uint64_t limit, int want, const char *needle)
{
    char err[1024] = "";
    memcap_t *m = NULL;
    if (root)
        setenv("ZKBENCH_CGROUP_ROOT", root, 1);
    int rc = memcap_new(&m, limit, err, sizeof err);
    unsetenv("ZKBENCH_CGROUP_ROOT");
    CHECK(rc == want, "root %s, limit %llu: rc %d (%s), expected %d", root ? root : "(unset)",
          (unsigned long long)limit, rc, err, want);
    CHECK(m == NULL, "output set on failure");
    CHECK(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
    memcap_free(m);
}

/* Touches bytes of fresh anonymous memory, a page at a time (not malloc:
 * sanitizer builds intercept it), then exits 0. */
static _Noreturn void touch_and_exit(uint64_t bytes)
{
    unsigned char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        _exit(10);
    for (uint64_t i = 0; i < bytes; i += 4096)
        p[i] = 1;
    _exit(0);
}

static bool gone(const char *path)
{
    return access(path, F_OK) != 0 && errno == ENOENT;
}

/* A child moved in by the parent touches 1 GiB under a 32 MiB cap. */
static void test_oom_kill(memcap_t *m)
{
    int go[2];
    if (pipe(go) != 0) {
        CHECK(0, "pipe: %s", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1)
            _exit(11);
        touch_and_exit(1024 * MIB);
    }
    close(go[0]);
    int rc = memcap_enter(m, pid);
    CHECK(rc == 0, "memcap_enter(pid %d): %s", (int)pid, strerror(-rc));
    (void)!write(go[1], "x", 1);
    close(go[1]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "the child was not SIGKILLed (wait status %#x)", ws);
    struct memcap_stats s;
    rc = memcap_read(m, &s);
    CHECK(rc == 0, "memcap_read: %s", strerror(-rc));
    CHECK(s.oom_kill >= 1, "oom_kill %llu", (unsigned long long)s.oom_kill);
    CHECK(s.oom >= s.oom_kill, "oom %llu below oom_kill %llu", (unsigned long long)s.oom,
          (unsigned long long)s.oom_kill);
    CHECK(s.limit == 32 * MIB, "limit %llu", (unsigned long long)s.limit);
    CHECK(s.peak == 0 || (s.peak > 24 * MIB && s.peak <= 32 * MIB), "peak %llu for a 32 MiB cap",
          (unsigned long long)s.peak);
    CHECK(s.current < 32 * MIB, "current %llu", (unsigned long long)s.current);
}

/* A child that enters by itself stays within the cap. */
static void test_within(memcap_t *m)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (memcap_enter(m, 0) != 0)
            _exit(12);
        touch_and_exit(16 * MIB);
    }
    int ws = 0;
    waitpid(pid, &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the child within the cap ended with wait status %#x", ws);
    struct memcap_stats s;
    int rc = memcap_read(m, &s);
    CHECK(rc == 0, "memcap_read: %s", strerror(-rc));
    CHECK(s.oom_kill == 0 && s.oom == 0, "oom %llu, oom_kill %llu", (unsigned long long)s.oom,
          (unsigned long long)s.oom_kill);
    CHECK(s.limit == 256 * MIB, "limit %llu", (unsigned long long)s.limit);
    CHECK(s.peak == 0 || s.peak >= 16 * MIB, "peak %llu after touching 16 MiB", (unsigned long long)s.peak);
}

int main(void)
{
    char tmp[] = "/tmp/zkb-memcap-XXXXXX", file[64];
    if (!mkdtemp(tmp))
        return perror("mkdtemp"), 1;
    snprintf(file, sizeof file, "%s/file", tmp);
    FILE *f = fopen(file, "w");
    if (f)
        fclose(f);

    expect_refusal(NULL, 100, -EINVAL, "below one page");
    expect_refusal("/nonexistent/zkbench", 64 * MIB, -ENOENT, "ZKBENCH_CGROUP_ROOT=/nonexistent/zkbench");
    expect_refusal(tmp, 64 * MIB, -ENOTSUP, "is not a memory cgroup");
    expect_refusal(file, 64 * MIB, -ENOTDIR, "not a folder");
    unlink(file);
    rmdir(tmp);

    char err[1024] = "";
    memcap_t *m = NULL;
    int rc = memcap_new(&m, 32 * MIB, err, sizeof err);
    if (rc < 0) {
        if (geteuid() != 0 || rc == -ENOTSUP || rc == -EROFS) {
            printf("SKIP: no memory cgroup to make here (%s)\n", err);
            return fails ? 1 : 77;
        }
        fprintf(stderr, "FAIL: root, yet memcap_new: %s\n", err);
        return 1;
    }
    char path[4096], parent[4096];
    snprintf(path, sizeof path, "%s", memcap_path(m));
    snprintf(parent, sizeof parent, "%s", path);
    *strrchr(parent, '/') = '\0';
    char want[64];
    snprintf(want, sizeof want, "/zkbench-%ld-", (long)getpid());
    CHECK(strstr(path, want) != NULL, "cgroup %s is not named zkbench-<pid>-<n>", path);
    CHECK(strcmp(memcap_kind(m), "v1") == 0 || strcmp(memcap_kind(m), "v2") == 0, "kind %s", memcap_kind(m));
    printf("cgroup %s (%s)\n", path, memcap_kind(m));
    test_oom_kill(m);
    memcap_free(m);
    CHECK(gone(path), "%s still exists after memcap_free", path);

    /* the override, pointed at the folder found above */
    setenv("ZKBENCH_CGROUP_ROOT", parent, 1);
    m = NULL;
    rc = memcap_new(&m, 256 * MIB, err, sizeof err);
    unsetenv("ZKBENCH_CGROUP_ROOT");
    CHECK(rc == 0, "ZKBENCH_CGROUP_ROOT=%s: %s", parent, err);
    if (rc == 0) {
        snprintf(path, sizeof path, "%s", memcap_path(m));
        CHECK(strncmp(path, parent, strlen(parent)) == 0, "made %s, not under %s", path, parent);
        test_within(m);
        memcap_free(m);
        CHECK(gone(path), "%s still exists after memcap_free", path);
    }
    memcap_free(NULL);
    if (fails)
        fprintf(stderr, "%d check(s) failed\n", fails);
    else
        printf("memcap: all checks passed\n");
    return fails ? 1 : 0;
}
