/* Outputs under temporary names, renamed at the end; see out_file.h. */
#define _GNU_SOURCE
#include "harness/run/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int out_file_begin(struct out_file *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    if (!*path || (size_t)snprintf(f->path, sizeof f->path, "%s", path) >= sizeof f->path) {
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(*path ? ENAMETOOLONG : ENOENT));
        return *path ? -ENAMETOOLONG : -ENOENT;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(EISDIR));
        return -EISDIR;
    }
    const char *slash = strrchr(path, '/');
    int dir_len = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    if ((size_t)snprintf(f->tmp, sizeof f->tmp, "%.*s.%s.%ld.tmp", dir_len, path, base, (long)getpid()) >=
        sizeof f->tmp) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    int fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -e;
    }
    close(fd);
    f->live = true;
    return 0;
}

int out_file_commit(struct out_file *f, char *err, size_t errlen)
{
    if (rename(f->tmp, f->path) != 0) {
        int e = errno;
        snprintf(err, errlen, "cannot write %s: %s", f->path, strerror(e));
        out_file_abort(f);
        return -e;
    }
    f->live = false;
    return 0;
}

void out_file_abort(struct out_file *f)
{
    if (f && f->live) {
        unlink(f->tmp);
        f->live = false;
    }
}

int out_mkdir_p(const char *path)
{
    char tmp[4096];
    if (strlen(path) >= sizeof tmp)
        return -ENAMETOOLONG;
    strcpy(tmp, path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
        return -errno;
    return 0;
}
