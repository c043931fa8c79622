/*
 * An output file written under a temporary name beside it and renamed over
 * its name at the end, for commands that write several files (setup: the
 * parameters and the verifying key; prove: the proofs and the public
 * inputs): the temporaries are made first, so an unwritable destination is
 * found before any work, and a failure removes them, so a failed command
 * leaves none of its outputs.
 */
#ifndef ZKB_OUT_FILE_H
#define ZKB_OUT_FILE_H

#include <stdbool.h>
#include <stddef.h>

struct out_file {
    char path[4096]; /* the destination */
    char tmp[4200];  /* where to write it: DIR/.NAME.PID.tmp, made O_EXCL */
    bool live;       /* tmp exists */
};

/* Creates f->tmp (empty) in path's folder. -EISDIR when path is a folder;
 * -errno with one line naming path in err. */
int out_file_begin(struct out_file *f, const char *path, char *err, size_t errlen);
/* Renames f->tmp over f->path. 0 or -errno with one line in err. */
int out_file_commit(struct out_file *f, char *err, size_t errlen);
/* Removes f->tmp if it still exists; NULL and a zeroed f accepted. */
void out_file_abort(struct out_file *f);

/* Creates a folder and its missing parents (mode 0755); an existing folder
 * is fine. 0 or a negative errno. */
int out_mkdir_p(const char *path);

#endif
