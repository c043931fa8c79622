/*
 * An output file of a command (setup's parameters and verifying key,
 * prove's proofs and public inputs, report -o, check --write-baseline, the
 * figures of plot), written under a temporary name and renamed over its
 * destination at the end, so a reader sees the old file or the new one and
 * a failed command leaves none of its outputs.
 *
 * An output never touches what is not its own: the destination must be a
 * regular file the user can write, or a new name in a folder the user can
 * write. A device, FIFO, socket or folder at the path is refused, before
 * any work. A symlink is followed (a chain of them too, dangling at its end
 * or not): its final target is what is replaced, from a temporary file in
 * the target's folder, so the link stays a link. A file replaced keeps its
 * permission bits (and, for root, its owner).
 */
#ifndef ZKB_OUT_FILE_H
#define ZKB_OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct out_file {
    char path[4096];  /* what is replaced: the destination, symlinks followed */
    char shown[4096]; /* the path as the user gave it, for messages */
    char tmp[4200];   /* where to write it: TARGET_DIR/.NAME.PID.tmp, made O_EXCL */
    bool live;        /* tmp exists */
    bool replaces;    /* path exists: its mode (and owner) go to the new file at commit */
    mode_t mode;
    uid_t uid;
    gid_t gid;
};

/*
 * Resolves path (symlinks followed), checks that its target is a regular
 * file the user can write or a new name, and creates f->tmp (empty) in the
 * target's folder. Returns 0, or with one line naming path in err: -EISDIR
 * (a folder), -EINVAL (a device, FIFO or socket: outputs go into regular
 * files only), -EACCES/-EPERM/-EROFS (not writable), -ELOOP, -ENOENT (no
 * such folder), -ENAMETOOLONG, or another -errno.
 */
int out_file_begin(struct out_file *f, const char *path, char *err, size_t errlen);
/* Flushes f->tmp to disk, checks the destination is still a regular file
 * or absent, and renames f->tmp over f->path. 0 or -errno with one line in
 * err (f->tmp removed). */
int out_file_commit(struct out_file *f, char *err, size_t errlen);
/* Removes f->tmp if it still exists; NULL and a zeroed f accepted. */
void out_file_abort(struct out_file *f);

/* Creates a folder and its missing parents (mode 0755); an existing folder
 * is fine. 0 or a negative errno. */
int out_mkdir_p(const char *path);

#endif
