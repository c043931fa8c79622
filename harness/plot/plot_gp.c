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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/run/errmsg.h"

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

int plot_gp_run(const char *tmp, const char *script, const char *outbase, char *err, size_t errlen)
{
    char spath[PATH_MAX], epath[PATH_MAX];
    snprintf(spath, sizeof spath, "%s/%s", tmp, script);
    snprintf(epath, sizeof epath, "%s/gnuplot.err", tmp);
    char *argv[] = {"gnuplot", "-c", spath, (char *)tmp, (char *)outbase, NULL};
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

/* OUT_DIR/.NAME.zkbench-tmp-PID: the base (without .png/.svg) a figure is
 * drawn to before the rename. */
static void fig_tmp(char *buf, size_t len, const char *out_dir, const char *name)
{
    snprintf(buf, len, "%s/.%s.zkbench-tmp-%ld", out_dir, name, (long)getpid());
}

static void fig_unlink(const char *out_dir, const char *name)
{
    char base[PATH_MAX], p[PATH_MAX + 8];
    fig_tmp(base, sizeof base, out_dir, name);
    snprintf(p, sizeof p, "%s.png", base);
    unlink(p);
    snprintf(p, sizeof p, "%s.svg", base);
    unlink(p);
}

int plot_figs_draw(plot_figs_t *F, const char *tmp, const char *script, const char *name, char *err, size_t errlen)
{
    char base[PATH_MAX];
    if (F->n >= sizeof F->names / sizeof F->names[0])
        return errmsg_fail(err, errlen, -EINVAL, "too many figures");
    fig_tmp(base, sizeof base, F->out_dir, name);
    int rc = plot_gp_run(tmp, script, base, err, errlen);
    if (rc < 0) {
        fig_unlink(F->out_dir, name);
        return rc;
    }
    snprintf(F->names[F->n++], sizeof F->names[0], "%s", name);
    return 0;
}

void plot_figs_discard(plot_figs_t *F)
{
    for (size_t i = 0; i < F->n; i++)
        fig_unlink(F->out_dir, F->names[i]);
    F->n = 0;
}

int plot_figs_commit(plot_figs_t *F, char *written, size_t wlen, char *err, size_t errlen)
{
    if (written && wlen)
        written[0] = '\0';
    for (size_t i = 0; i < F->n; i++) {
        char base[PATH_MAX], from[PATH_MAX + 8], to[PATH_MAX + 32];
        fig_tmp(base, sizeof base, F->out_dir, F->names[i]);
        for (int k = 0; k < 2; k++) {
            const char *ext = k ? "svg" : "png";
            snprintf(from, sizeof from, "%s.%s", base, ext);
            snprintf(to, sizeof to, "%s/%s.%s", F->out_dir, F->names[i], ext);
            if (rename(from, to) < 0) {
                int e = errno;
                plot_figs_discard(F);
                return errmsg_fail(err, errlen, -EIO, "cannot write %s: %s", to, strerror(e));
            }
        }
        if (written) {
            size_t n = strlen(written);
            snprintf(written + n, wlen - n, "%s%s", n ? " " : "", F->names[i]);
        }
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
