/* Outputs under temporary names, renamed over regular files only; see out_file.h. */
#define _GNU_SOURCE
#include "harness/run/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/run/errmsg.h"

/* What a non-regular file is, for the one line that refuses it. */
static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "a folder"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

/*
 * Follows path's symlinks to the name that is finally written: the first
 * name of the chain that is not a symlink (an existing file, or a new name
 * a dangling link points to). A relative link target is taken from the
 * link's folder. *st gets the target's lstat, *exists whether it exists.
 */
static int resolve(char out[4096], const char *path, struct stat *st, bool *exists, char *err, size_t errlen)
{
    char cur[4096], link[4096];
    if ((size_t)snprintf(cur, sizeof cur, "%s", path) >= sizeof cur)
        return errmsg_fail(err, errlen, -ENAMETOOLONG, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
    for (int hops = 0; hops <= 40; hops++) {
        if (lstat(cur, st) != 0) {
            int e = errno;
            if (e != ENOENT)
                return errmsg_fail(err, errlen, -e, "cannot write %s: %s", path, strerror(e));
            *exists = false;
            memcpy(out, cur, sizeof cur);
            return 0;
        }
        if (!S_ISLNK(st->st_mode)) {
            *exists = true;
            memcpy(out, cur, sizeof cur);
            return 0;
        }
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            int e = errno;
            return errmsg_fail(err, errlen, -e, "cannot write %s: reading the link %s: %s", path, cur, strerror(e));
        }
        link[n] = 0;
        if (link[0] != '/') {
            /* relative to the folder that holds the link */
            char *slash = strrchr(cur, '/');
            if (slash) {
                slash[1] = 0;
                if (strlen(cur) + (size_t)n >= sizeof cur)
                    return errmsg_fail(err, errlen, -ENAMETOOLONG, "cannot write %s: %s", path,
                                       strerror(ENAMETOOLONG));
                strcat(cur, link);
                continue;
            }
        }
        memcpy(cur, link, (size_t)n + 1);
    }
    return errmsg_fail(err, errlen, -ELOOP, "cannot write %s: %s", path, strerror(ELOOP));
}

/* The checks of out_file_begin; the resolved target goes to target. */
static int check_target(char target[4096], struct stat *st, bool *exists, const char *path, char *err,
                        size_t errlen)
{
    if (!*path)
        return errmsg_fail(err, errlen, -ENOENT, "cannot write '': %s", strerror(ENOENT));
    int rc = resolve(target, path, st, exists, err, errlen);
    if (rc < 0)
        return rc;
    /* a link's target is named: it is what would have been written */
    char who[4200] = "it";
    if (strcmp(target, path) != 0)
        snprintf(who, sizeof who, "its target %s", target);
    if (*exists && S_ISDIR(st->st_mode))
        return errmsg_fail(err, errlen, -EISDIR, "cannot write %s: %s is a folder", path, who);
    if (*exists && !S_ISREG(st->st_mode))
        return errmsg_fail(err, errlen, -EINVAL, "cannot write %s: %s is %s; outputs go into regular files only",
                           path, who, kind_of(st->st_mode));
    if (*exists && faccessat(AT_FDCWD, target, W_OK, AT_EACCESS) != 0) {
        int e = errno;
        return errmsg_fail(err, errlen, -e, "cannot write %s: %s%s%s", path, strcmp(who, "it") ? who : "",
                           strcmp(who, "it") ? ": " : "", strerror(e));
    }
    return 0;
}

int out_file_begin(struct out_file *f, const char *path, char *err, size_t errlen)
{
    memset(f, 0, sizeof *f);
    struct stat st;
    bool exists;
    int rc = check_target(f->path, &st, &exists, path, err, errlen);
    if (rc < 0)
        return rc;
    snprintf(f->shown, sizeof f->shown, "%s", path);
    const char *slash = strrchr(f->path, '/');
    int dir_len = slash ? (int)(slash - f->path + 1) : 0;
    const char *base = slash ? slash + 1 : f->path;
    if ((size_t)snprintf(f->tmp, sizeof f->tmp, "%.*s.%s.%ld.tmp", dir_len, f->path, base, (long)getpid()) >=
        sizeof f->tmp)
        return errmsg_fail(err, errlen, -ENAMETOOLONG, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
    int fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        return errmsg_fail(err, errlen, -e, "cannot write %s: %s", path, strerror(e));
    }
    close(fd);
    f->replaces = exists;
    f->mode = st.st_mode & 07777;
    f->uid = st.st_uid;
    f->gid = st.st_gid;
    f->live = true;
    return 0;
}

int out_file_commit(struct out_file *f, char *err, size_t errlen)
{
    /* the data on disk before the name: a write error a filesystem reports
     * only at fsync (NFS, a full thin volume) fails here, not later */
    int fd = open(f->tmp, O_RDONLY | O_CLOEXEC);
    int rc = fd < 0 ? -errno : 0;
    if (rc == 0 && fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
        rc = -errno;
    if (rc == 0 && f->replaces) {
        /* the replacement keeps what the file's owner set (set now: a
         * writer may have replaced the temporary file itself) */
        (void)fchmod(fd, f->mode);
        if (geteuid() == 0)
            (void)!fchown(fd, f->uid, f->gid);
    }
    if (fd >= 0)
        close(fd);
    struct stat st;
    if (rc == 0 && lstat(f->path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* something else took the name while the command worked */
        out_file_abort(f);
        return errmsg_fail(err, errlen, -EINVAL, "cannot write %s: %s is now %s; outputs go into regular files only",
                           f->shown, f->path, kind_of(st.st_mode));
    }
    if (rc == 0 && rename(f->tmp, f->path) != 0)
        rc = -errno;
    if (rc < 0) {
        snprintf(err, errlen, "cannot write %s: %s", f->shown, strerror(-rc));
        out_file_abort(f);
        return rc;
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
