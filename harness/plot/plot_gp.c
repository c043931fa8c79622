/*
 * gnuplot as a subprocess, with the scripts the binary carries (plot_gp.h).
 */
#include "harness/plot/plot_gp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/run/errmsg.h"
#include "harness/run/out_file.h"

extern char **environ;

void plot_gp_cleanup(const char *tmp)
{
    DIR *d = opendir(tmp);
    if (d) {
        char p[PATH_MAX];
        for (struct dirent *e; (e = readdir(d));)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                snprintf(p, sizeof p, "%s/%s", tmp, e->d_name) < (int)sizeof p)
                unlink(p);
        closedir(d);
    }
    rmdir(tmp);
}

FILE *plot_gp_open(const char *tmp, const char *name, char *err, size_t errlen)
{
    char p[PATH_MAX];
    FILE *f = snprintf(p, sizeof p, "%s/%s", tmp, name) < (int)sizeof p ? fopen(p, "w") : NULL;
    if (!f)
        errmsg_fail(err, errlen, -EIO, "cannot write %s/%s: %s", tmp, name, strerror(errno));
    return f;
}

int plot_gp_close(FILE *f, char *err, size_t errlen)
{
    if (ferror(f) | fclose(f))
        return errmsg_fail(err, errlen, -EIO, "cannot write plot data: %s", strerror(errno ? errno : EIO));
    return 0;
}

/* A script of $ZKBENCH_PLOT_DIR (development: edit, then plot without a rebuild). */
static int copy_script(const char *dir, const char *name, FILE *to, char *err, size_t errlen)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        return errmsg_fail(err, errlen, -ENOENT, "ZKBENCH_PLOT_DIR: cannot read %s: %s", p, strerror(errno));
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;)
        fwrite(buf, 1, n, to);
    int bad = ferror(f);
    fclose(f);
    return bad ? errmsg_fail(err, errlen, -EIO, "ZKBENCH_PLOT_DIR: cannot read %s", p) : 0;
}

int plot_gp_setup(char *tmp, size_t len, char *err, size_t errlen)
{
    const char *base = getenv("TMPDIR"), *dev = getenv("ZKBENCH_PLOT_DIR");
    snprintf(tmp, len, "%s/zkbench-plot.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp))
        return errmsg_fail(err, errlen, -EIO, "cannot create a temporary folder %s: %s", tmp, strerror(errno));
    int rc = 0;
    for (const plot_gp_script_t *s = plot_gp_scripts; s->name && rc == 0; s++) {
        FILE *f = plot_gp_open(tmp, s->name, err, errlen);
        if (!f) {
            rc = -EIO;
            break;
        }
        if (dev && *dev)
            rc = copy_script(dev, s->name, f, err, errlen);
        else
            fputs(s->text, f);
        int crc = plot_gp_close(f, err, errlen);
        if (rc == 0)
            rc = crc;
    }
    if (rc < 0)
        plot_gp_cleanup(tmp);
    return rc;
}

void plot_vars_str(FILE *f, const char *name, const char *value)
{
    fprintf(f, "%s = '", name);
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        if (*p == '\'')
            fputs("''", f);
        else
            fputc(*p < 32 || *p == 127 ? ' ' : *p, f);
    }
    fputs("'\n", f);
}

void plot_vars_num(FILE *f, const char *name, double value)
{
    if (isfinite(value))
        fprintf(f, "%s = %.9g\n", name, value);
    else
        fprintf(f, "%s = NaN\n", name);
}

int plot_gp_run(const char *tmp, const char *script, const char *png, const char *svg, char *err, size_t errlen)
{
    char spath[PATH_MAX], epath[PATH_MAX];
    snprintf(spath, sizeof spath, "%s/%s", tmp, script);
    snprintf(epath, sizeof epath, "%s/gnuplot.err", tmp);
    char *argv[] = {"gnuplot", "-c", spath, (char *)tmp, (char *)png, (char *)svg, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return errmsg_fail(err, errlen, -ENOENT, "cannot run gnuplot: %s (install gnuplot, e.g. the gnuplot-nox package)",
                           rc == ENOENT ? "not found in PATH" : strerror(rc));
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return errmsg_fail(err, errlen, -errno, "gnuplot %s: %s", script, strerror(errno));
    char line[300] = "";
    bool printed = false;
    FILE *f = fopen(epath, "r");
    if (f) {
        /* the first non-empty line says what went wrong */
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            if (line[strspn(line, " \t^")]) {
                printed = true;
                break;
            }
        }
        fclose(f);
    }
    bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (ok && !printed)
        return 0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && !printed)
        return errmsg_fail(err, errlen, -ENOENT, "cannot run gnuplot: not found (install gnuplot, e.g. the gnuplot-nox package)");
    return errmsg_fail(err, errlen, -EIO, "gnuplot %s %s: %s", script, ok ? "printed an error" : "failed",
                       printed ? line + strspn(line, " \t") : "no message");
}

/* Whether the filesystem of path's folder has (almost) no room left: what
 * a figure cut off there most likely met. */
static bool folder_full(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    struct statvfs v;
    return statvfs(slash ? (dir[0] ? dir : "/") : ".", &v) == 0 && (uint64_t)v.f_bavail * v.f_frsize < (64u << 10);
}

/* A PNG whose chunks (length, type, data, CRC) run from the signature to
 * an IEND that ends the file. */
static bool png_whole(FILE *f, long size)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char h[8];
    if (size < 8 + 12 || fread(h, 1, 8, f) != 8 || memcmp(h, sig, 8) != 0)
        return false;
    for (long at = 8; at + 12 <= size;) {
        if (fseek(f, at, SEEK_SET) != 0 || fread(h, 1, 8, f) != 8)
            return false;
        uint32_t len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
        long next = at + 12 + (long)len;
        if (len > 0x7fffffffu || next > size)
            return false;
        if (memcmp(h + 4, "IEND", 4) == 0)
            return next == size;
        at = next;
    }
    return false;
}

/* An SVG that ends with its closing tag (whitespace after it allowed). */
static bool svg_whole(FILE *f, long size)
{
    char tail[64];
    long from = size > (long)sizeof tail - 1 ? size - (long)sizeof tail + 1 : 0;
    if (size < 6 || fseek(f, from, SEEK_SET) != 0)
        return false;
    size_t n = fread(tail, 1, sizeof tail - 1, f);
    while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' ' || tail[n - 1] == '\r' || tail[n - 1] == '\t'))
        n--;
    return n >= 6 && memcmp(tail + n - 6, "</svg>", 6) == 0;
}

int plot_gp_check_output(const char *path, const char *shown, bool svg, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errmsg_fail(err, errlen, -EIO, "cannot write %s: gnuplot made no file (%s)", shown, strerror(errno));
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    bool whole = size > 0 && fseek(f, 0, SEEK_SET) == 0 && (svg ? svg_whole(f, size) : png_whole(f, size));
    fclose(f);
    if (whole)
        return 0;
    bool full = folder_full(path);
    return errmsg_fail(err, errlen, full ? -ENOSPC : -EIO, "cannot write %s: gnuplot left it %s (%ld bytes%s)%s%s",
                       shown, size <= 0 ? "empty" : "cut off", size < 0 ? 0 : size,
                       size <= 0 ? "" : svg ? ", no closing </svg>" : ", no IEND chunk at its end",
                       full ? ": " : "", full ? strerror(ENOSPC) : "");
}

static void fig_abort(plot_figs_t *F, size_t i)
{
    for (int k = 0; k < 2; k++) {
        out_file_abort(F->files[i][k]);
        free(F->files[i][k]);
        F->files[i][k] = NULL;
    }
}

int plot_figs_draw(plot_figs_t *F, const char *tmp, const char *script, const char *name, char *err, size_t errlen)
{
    if (F->n >= sizeof F->names / sizeof F->names[0])
        return errmsg_fail(err, errlen, -EINVAL, "too many figures");
    size_t i = F->n;
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        char target[PATH_MAX + 32];
        snprintf(target, sizeof target, "%s/%s.%s", F->out_dir, name, k ? "svg" : "png");
        if (!(F->files[i][k] = malloc(sizeof *F->files[i][k])))
            rc = errmsg_fail(err, errlen, -ENOMEM, "out of memory");
        else if ((rc = out_file_begin(F->files[i][k], target, err, errlen)) < 0)
            rc = rc == -ENOSPC || rc == -EDQUOT || rc == -EIO ? rc : -EINVAL; /* not a place for a figure */
    }
    if (rc == 0)
        rc = plot_gp_run(tmp, script, F->files[i][0]->tmp, F->files[i][1]->tmp, err, errlen);
    /* gnuplot exits 0 after a write that failed: each file must be whole */
    for (int k = 0; k < 2 && rc == 0; k++)
        rc = plot_gp_check_output(F->files[i][k]->tmp, F->files[i][k]->shown, k == 1, err, errlen);
    if (rc < 0) {
        fig_abort(F, i);
        return rc;
    }
    snprintf(F->names[F->n++], sizeof F->names[0], "%s", name);
    return 0;
}

void plot_figs_discard(plot_figs_t *F)
{
    for (size_t i = 0; i < F->n; i++)
        fig_abort(F, i);
    F->n = 0;
}

int plot_figs_commit(plot_figs_t *F, char *written, size_t wlen, char *err, size_t errlen)
{
    if (written && wlen)
        written[0] = '\0';
    for (size_t i = 0; i < F->n; i++) {
        for (int k = 0; k < 2; k++) {
            int rc = out_file_commit(F->files[i][k], err, errlen);
            if (rc < 0) {
                plot_figs_discard(F);
                return rc == -ENOSPC || rc == -EDQUOT ? rc : -EIO;
            }
        }
        if (written) {
            size_t n = strlen(written);
            snprintf(written + n, wlen - n, "%s%s", n ? " " : "", F->names[i]);
        }
    }
    for (size_t i = 0; i < F->n; i++)
        for (int k = 0; k < 2; k++) {
            free(F->files[i][k]);
            F->files[i][k] = NULL;
        }
    return 0;
}

int plot_ensure_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode) && access(dir, W_OK) == 0)
            return 0;
        return errmsg_fail(err, errlen, -EINVAL, "--out %s: %s, expected a writable folder", dir,
                           S_ISDIR(st.st_mode) ? "not writable" : "not a folder");
    }
    char path[PATH_MAX];
    if (!*dir)
        return errmsg_fail(err, errlen, -EINVAL, "--out: empty folder name");
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return errmsg_fail(err, errlen, -EINVAL, "--out: path too long");
    for (char *q = path + 1;; q++) {
        bool end = *q == '\0';
        if (*q != '/' && !end)
            continue;
        *q = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return errmsg_fail(err, errlen, -EINVAL, "cannot create --out folder %s: %s", path, strerror(errno));
        if (end)
            break;
        *q = '/';
    }
    return 0;
}
