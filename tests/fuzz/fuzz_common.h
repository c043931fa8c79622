/*
 * Shared by the libFuzzer harnesses (tests/fuzz/): the readers take paths,
 * so each input is written to a file first. fuzz_file() uses one memfd per
 * process, rewritten for every input and opened by the reader through
 * /proc/self/fd/N (a regular file: stat, mmap and fopen behave as on disk).
 * fuzz_dir() is a private folder for the readers that take a run folder.
 */
#ifndef ZKB_FUZZ_COMMON_H
#define ZKB_FUZZ_COMMON_H

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static inline void fuzz_die(const char *what)
{
    perror(what);
    abort();
}

/* Writes all of data to fd from offset 0 and truncates it there. */
static inline void fuzz_fill(int fd, const uint8_t *data, size_t size)
{
    if (ftruncate(fd, 0) < 0)
        fuzz_die("fuzz: ftruncate");
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        if (w <= 0)
            fuzz_die("fuzz: pwrite");
        done += (size_t)w;
    }
}

/* The path of a file holding exactly data. */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("zkbench-fuzz", 0);
        if (fd < 0)
            fuzz_die("fuzz: memfd_create");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    fuzz_fill(fd, data, size);
    return path;
}

/* A private folder, made once (removed by nobody: it lives in TMPDIR with
 * the process id in its name, a few KiB). */
static inline const char *fuzz_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/zkbench-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir))
            fuzz_die("fuzz: mkdtemp");
    }
    return dir;
}

/* Writes data to DIR/name (fuzz_dir()). */
static inline void fuzz_put(const char *name, const uint8_t *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        fuzz_die(path);
    fuzz_fill(fd, data, size);
    close(fd);
}

/* stdout and stderr's FILE streams to /dev/null, for the commands run
 * whole (cmd_check) that print reports and error lines: the file
 * descriptors stay, so sanitizer reports and libFuzzer's own output still
 * show. */
static inline void fuzz_quiet(void)
{
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        fuzz_die("fuzz: /dev/null");
    stdout = null;
    stderr = null;
}
#endif
