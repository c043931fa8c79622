/*
 * gnuplot figures of a run (see plot.h). The data files hold GiB and
 * seconds, so the scripts only draw; a script gets its data folder, the
 * output path without extension, a title and one figure-specific argument.
 */
#include "harness/plot/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#define GIB (1024.0 * 1024.0 * 1024.0)
#define MAX_BARS 4000 /* buffers drawn in the lifetime chart; more are thinned */

extern char **environ;

static bool has_scripts(const char *dir)
{
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s/memory.gp", dir) >= (int)sizeof p)
        return false;
    return access(p, R_OK) == 0;
}

int plot_scripts_dir(char *ret, size_t len)
{
    const char *env = getenv("ZKBENCH_PLOT_DIR");
    if (env && *env) {
        if (!has_scripts(env))
            return -ENOENT;
        snprintf(ret, len, "%s", env);
        return 0;
    }
    char exe[PATH_MAX], cand[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -ENOENT;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -ENOENT;
    *slash = '\0'; /* exe is now the executable's folder */
    if (snprintf(cand, sizeof cand, "%s/../share/zkbench/plot", exe) < (int)sizeof cand && has_scripts(cand))
        goto found;
    /* a build folder inside the source tree */
    for (char dir[PATH_MAX], *s = strcpy(dir, exe); *dir; s = strrchr(dir, '/')) {
        if (snprintf(cand, sizeof cand, "%s/scripts/plot", dir) < (int)sizeof cand && has_scripts(cand))
            goto found;
        s = strrchr(dir, '/');
        if (!s)
            break;
        *s = '\0';
    }
    /* a meson build folder anywhere: it records its source tree */
    for (char dir[PATH_MAX], *s = strcpy(dir, exe); *dir; ) {
        json_t *mi = NULL;
        if (snprintf(cand, sizeof cand, "%s/meson-info/meson-info.json", dir) < (int)sizeof cand)
            mi = json_load_file(cand, 0, NULL);
        if (mi) {
            const char *src = json_string_value(json_object_get(json_object_get(mi, "directories"), "source"));
            bool ok = src && snprintf(cand, sizeof cand, "%s/scripts/plot", src) < (int)sizeof cand;
            json_decref(mi);
            if (ok && has_scripts(cand))
                goto found;
        }
        s = strrchr(dir, '/');
        if (!s)
            break;
        *s = '\0';
    }
    return -ENOENT;
found:
    snprintf(ret, len, "%s", cand);
    return 0;
}

/* Runs gnuplot -c SCRIPT ARGS...; its stderr goes to tmp/gnuplot.err. */
static int run_gnuplot(const char *scripts, const char *script, const char *const *args, const char *tmp, char *err,
                       size_t errlen)
{
    char spath[PATH_MAX], epath[PATH_MAX];
    snprintf(spath, sizeof spath, "%s/%s", scripts, script);
    snprintf(epath, sizeof epath, "%s/gnuplot.err", tmp);
    char *argv[16];
    size_t k = 0;
    argv[k++] = (char *)"gnuplot";
    argv[k++] = (char *)"-c";
    argv[k++] = spath;
    for (; *args && k < 15; args++)
        argv[k++] = (char *)*args;
    argv[k] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, epath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        snprintf(err, errlen, "cannot run gnuplot: %s (install gnuplot, e.g. the gnuplot-nox package)",
                 rc == ENOENT ? "not found in PATH" : strerror(rc));
        return -ENOENT;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    char line[300] = "";
    FILE *f = fopen(epath, "r");
    bool printed = false;
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
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || printed) {
        if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && !printed)
            snprintf(err, errlen, "cannot run gnuplot: not found (install gnuplot, e.g. the gnuplot-nox package)");
        else
            snprintf(err, errlen, "gnuplot %s %s: %s", script,
                     WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "printed an error" : "failed",
                     printed ? line + strspn(line, " \t") : "no message");
        return WIFEXITED(st) && WEXITSTATUS(st) == 127 && !printed ? -ENOENT : -EIO;
    }
    return 0;
}

static int make_tmp(char *tmp, size_t len, char *err, size_t errlen)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmp, len, "%s/zkbench-plot.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmp)) {
        snprintf(err, errlen, "cannot create a temporary folder %s: %s", tmp, strerror(errno));
        return -EIO;
    }
    return 0;
}

static void rm_tmp(const char *tmp)
{
    static const char *const files[] = {"memory.dat", "proofs.dat", "kinds.dat", "buffers.dat", "sweep.dat",
                                        "model.dat", "killed.dat", "marks.dat", "gnuplot.err"};
    char p[PATH_MAX];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        if (snprintf(p, sizeof p, "%s/%s", tmp, files[i]) < (int)sizeof p)
            unlink(p);
    rmdir(tmp);
}

static FILE *open_dat(const char *tmp, const char *name, char *err, size_t errlen)
{
    char p[PATH_MAX];
    FILE *f = snprintf(p, sizeof p, "%s/%s", tmp, name) < (int)sizeof p ? fopen(p, "w") : NULL;
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", p, strerror(errno));
    return f;
}

static int close_dat(FILE *f, char *err, size_t errlen)
{
    if (ferror(f) | fclose(f)) {
        snprintf(err, errlen, "cannot write plot data: %s", strerror(errno));
        return -EIO;
    }
    return 0;
}

static int ensure_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode) && access(dir, W_OK) == 0)
            return 0;
        snprintf(err, errlen, "--out %s: %s, expected a writable folder", dir,
                 S_ISDIR(st.st_mode) ? "not writable" : "not a folder");
        return -EINVAL;
    }
    /* mkdir -p */
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        snprintf(err, errlen, "--out: path too long");
        return -EINVAL;
    }
    for (char *q = path + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        if (mkdir(path, 0755) < 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create --out folder %s: %s", path, strerror(errno));
            return -EINVAL;
        }
        *q = '/';
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create --out folder %s: %s", dir, strerror(errno));
        return -EINVAL;
    }
    return 0;
}

static void add_written(char *w, size_t wlen, const char *name)
{
    if (!w)
        return;
    size_t n = strlen(w);
    snprintf(w + n, wlen - n, "%s%s", n ? " " : "", name);
}

static const char *basename_of(const char *p)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    const char *s = p + n;
    while (s > p && s[-1] != '/')
        s--;
    return s;
}

/* sweep-model.csv (the model's curve) into model.dat; an empty file when
 * there is none. Returns the rows written or -errno. */
static int write_model_dat(const char *sweep_csv, const char *tmp, double *pw_lo, double *pw_hi, char *err,
                           size_t errlen)
{
    char path[PATH_MAX];
    const char *slash = strrchr(sweep_csv, '/');
    int dir_len = slash ? (int)(slash - sweep_csv) : 1;
    snprintf(path, sizeof path, "%.*s/sweep-model.csv", dir_len, slash ? sweep_csv : ".");
    FILE *f = open_dat(tmp, "model.dat", err, errlen);
    int rows = 0;
    if (!f)
        return -EIO;
    if (access(path, F_OK) == 0) {
        static const char *const req[] = {"pw", "predicted_peak_rss", "predicted_low", "predicted_high", NULL};
        run_csv_t c;
        if (run_csv_read(&c, path, req, NULL, NULL, err, errlen) < 0) {
            fclose(f);
            return -EINVAL;
        }
        int cpw = run_csv_col(&c, "pw"), cp = run_csv_col(&c, "predicted_peak_rss"),
            cl = run_csv_col(&c, "predicted_low"), ch = run_csv_col(&c, "predicted_high");
        for (size_t i = 0; i < c.nrows; i++) {
            *pw_lo = fmin(*pw_lo, run_csv_num(&c, i, cpw));
            *pw_hi = fmax(*pw_hi, run_csv_num(&c, i, cpw));
        }
        for (size_t i = 0; i < c.nrows; i++)
            fprintf(f, "%.0f %.6f %.6f %.6f\n", run_csv_num(&c, i, cpw), run_csv_num(&c, i, cp) / GIB,
                    run_csv_num(&c, i, cl) / GIB, run_csv_num(&c, i, ch) / GIB);
        rows = (int)c.nrows;
        run_csv_free(&c);
    }
    int rc = close_dat(f, err, errlen);
    return rc < 0 ? rc : rows;
}

/* Draws the sweep figure to OUTBASE.{png,svg} (a temporary name the caller
 * renames). */
static int draw_sweep(const char *scripts, const char *sweep_csv, const char *outbase, const char *tmp, char *err,
                      size_t errlen)
{
    static const char *const req[] = {"pw", "s_per_proof", "peak_rss", "predicted_peak_rss", NULL};
    static const char *const text[] = {"outcome", NULL};
    static const char *const empty[] = {"s_per_proof", "peak_rss", "predicted_peak_rss", "ram_bytes", "footprint_per_partition",
                                        "predicted_low", "predicted_high", "mem_limit", NULL};
    run_csv_t c;
    int rc = run_csv_read(&c, sweep_csv, req, text, empty, err, errlen);
    if (rc < 0)
        return -EINVAL;
    if (c.nrows == 0) {
        snprintf(err, errlen, "%s: no rows, expected one row per pw", sweep_csv);
        run_csv_free(&c);
        return -EINVAL;
    }
    FILE *f = open_dat(tmp, "sweep.dat", err, errlen), *fk = open_dat(tmp, "killed.dat", err, errlen);
    if (!f || !fk) {
        if (f)
            fclose(f);
        if (fk)
            fclose(fk);
        run_csv_free(&c);
        return -EIO;
    }
    int n_done = 0, n_killed = 0;
    int cpw = run_csv_col(&c, "pw"), cpk = run_csv_col(&c, "peak_rss"), cpr = run_csv_col(&c, "predicted_peak_rss"),
        cs = run_csv_col(&c, "s_per_proof"), cram = run_csv_col(&c, "ram_bytes"), cml = run_csv_col(&c, "mem_limit"),
        coc = run_csv_col(&c, "outcome");
    double ram = NAN, ml = NAN;
    for (size_t i = 0; i < c.nrows; i++) {
        if (cram >= 0 && isfinite(run_csv_num(&c, i, cram)) && run_csv_num(&c, i, cram) > 0)
            ram = run_csv_num(&c, i, cram);
        if (cml >= 0 && isfinite(run_csv_num(&c, i, cml)) && run_csv_num(&c, i, cml) > 0)
            ml = run_csv_num(&c, i, cml);
    }
    double pw_lo = INFINITY, pw_hi = -INFINITY;
    for (size_t i = 0; i < c.nrows; i++) {
        double pr = run_csv_num(&c, i, cpr), sp = run_csv_num(&c, i, cs);
        pw_lo = fmin(pw_lo, run_csv_num(&c, i, cpw));
        pw_hi = fmax(pw_hi, run_csv_num(&c, i, cpw));
        bool was_killed = strcmp(run_csv_text(&c, i, coc), "oom-killed") == 0;
        /* a failed point (empty peak, or an outcome neither complete nor killed) is not drawn */
        const char *oc = run_csv_text(&c, i, coc);
        if (!isfinite(run_csv_num(&c, i, cpk)) || (!was_killed && *oc && strcmp(oc, "complete") != 0))
            continue;
        FILE *to = was_killed ? fk : f;
        *(was_killed ? &n_killed : &n_done) += 1;
        fprintf(to, "%.0f %.6f ", run_csv_num(&c, i, cpw), run_csv_num(&c, i, cpk) / GIB);
        if (isfinite(pr))
            fprintf(to, "%.6f", pr / GIB);
        else
            fputs("NaN", to);
        fprintf(to, " %.6f\n", isfinite(sp) ? sp : 0.0);
    }
    run_csv_free(&c);
    int model_rows = 0;
    if ((rc = close_dat(f, err, errlen)) < 0 || (rc = close_dat(fk, err, errlen)) < 0 ||
        (rc = model_rows = write_model_dat(sweep_csv, tmp, &pw_lo, &pw_hi, err, errlen)) < 0)
        return rc;
    if (n_done == 0) {
        snprintf(err, errlen, "%s: no completed run to draw (every run was OOM-killed)", sweep_csv);
        return -EINVAL;
    }
    char limtxt[32] = "";
    const char *out = outbase;
    double lim = isfinite(ml) ? ml : ram;
    if (isfinite(lim))
        snprintf(limtxt, sizeof limtxt, "%.3f", lim / GIB);
    /* explicit x range: one pw alone would make gnuplot warn */
    char xa[32], xb[32];
    snprintf(xa, sizeof xa, "%.1f", pw_lo - 0.5);
    snprintf(xb, sizeof xb, "%.1f", pw_hi + 0.5);
    const char *args[] = {tmp, out, "zkbench sweep: peak RSS against pw", limtxt,
                          isfinite(ml) ? "memory limit" : "RAM", model_rows > 0 ? "1" : "0", n_killed ? "1" : "0",
                          xa, xb, NULL};
    return run_gnuplot(scripts, "sweep.gp", args, tmp, err, errlen);
}

/* ---- figures drawn to temporary names, renamed together at the end ---- */

typedef struct {
    const char *out_dir;
    char names[8][16];
    size_t n;
} figs_t;

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

/* Draws NAME with SCRIPT; args[1] is replaced by the temporary base. */
static int fig_draw(figs_t *F, const char *scripts, const char *script, const char *name, const char **args,
                    const char *tmp, char *err, size_t errlen)
{
    char base[PATH_MAX];
    fig_tmp(base, sizeof base, F->out_dir, name);
    args[1] = base;
    int rc = run_gnuplot(scripts, script, args, tmp, err, errlen);
    if (rc < 0) {
        fig_unlink(F->out_dir, name);
        return rc;
    }
    snprintf(F->names[F->n++], sizeof F->names[0], "%s", name);
    return 0;
}

static void figs_discard(figs_t *F)
{
    for (size_t i = 0; i < F->n; i++)
        fig_unlink(F->out_dir, F->names[i]);
    F->n = 0;
}

/* Renames every drawn figure into place; the names go to written. */
static int figs_commit(figs_t *F, char *written, size_t wlen, char *err, size_t errlen)
{
    for (size_t i = 0; i < F->n; i++) {
        char base[PATH_MAX], from[PATH_MAX + 8], to[PATH_MAX + 32];
        fig_tmp(base, sizeof base, F->out_dir, F->names[i]);
        for (int k = 0; k < 2; k++) {
            const char *ext = k ? "svg" : "png";
            snprintf(from, sizeof from, "%s.%s", base, ext);
            snprintf(to, sizeof to, "%s/%s.%s", F->out_dir, F->names[i], ext);
            if (rename(from, to) < 0) {
                snprintf(err, errlen, "cannot write %s: %s", to, strerror(errno));
                figs_discard(F);
                return -EIO;
            }
        }
        add_written(written, wlen, F->names[i]);
    }
    return 0;
}

int plot_sweep(const char *sweep_csv, const char *out_dir, char *err, size_t errlen)
{
    char scripts[PATH_MAX], tmp[PATH_MAX], base[PATH_MAX];
    int rc;
    if (plot_scripts_dir(scripts, sizeof scripts) < 0) {
        snprintf(err, errlen, "cannot find the gnuplot scripts (scripts/plot/*.gp); set ZKBENCH_PLOT_DIR");
        return -ENOENT;
    }
    if ((rc = ensure_dir(out_dir, err, errlen)) < 0 || (rc = make_tmp(tmp, sizeof tmp, err, errlen)) < 0)
        return rc;
    figs_t F = {.out_dir = out_dir};
    fig_tmp(base, sizeof base, out_dir, "sweep");
    rc = draw_sweep(scripts, sweep_csv, base, tmp, err, errlen);
    if (rc == 0) {
        snprintf(F.names[F.n++], sizeof F.names[0], "sweep");
        rc = figs_commit(&F, NULL, 0, err, errlen);
    } else {
        fig_unlink(out_dir, "sweep");
    }
    rm_tmp(tmp);
    return rc;
}

typedef struct {
    double t, d;
    int site;
} pev_t;

static int cmp_pev(const void *a, const void *b)
{
    const pev_t *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

static const run_csv_t *order_csv; /* for cmp_order: qsort has no context argument */
static int order_col;

static int cmp_order(const void *a, const void *b)
{
    double x = run_csv_num(order_csv, *(const size_t *)a, order_col),
           y = run_csv_num(order_csv, *(const size_t *)b, order_col);
    return (x > y) - (x < y);
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(run_csv_text(order_csv, *(const size_t *)a, order_col),
                  run_csv_text(order_csv, *(const size_t *)b, order_col));
}

/* The memory figure of a watch run: RSS and its anonymous and file parts,
 * the cgroup, GPU and traced bytes when there, marks as vertical lines. */
static int watch_memory_dat(const analyze_run_t *run, const char *tmp, char *layers, size_t llen, double *ymax,
                            size_t *nmarks, char *err, size_t errlen)
{
    const run_csv_t *s = analyze_run_csv(run, "samples.csv"), *b = analyze_run_csv(run, "buffers.csv"),
                    *m = analyze_run_csv(run, "marks.csv");
    int ct = run_csv_col(s, "t_ms"), crss = run_csv_col(s, "rss"), ca = run_csv_col(s, "rss_anon"),
        cf = run_csv_col(s, "rss_file"), ccg = run_csv_col(s, "cg_current"), cgu = run_csv_col(s, "gpu_used"),
        cpd = run_csv_col(s, "proofs_done");
    int cg[64], ncg = 0;
    for (size_t j = 0; j < s->ncols && ncg < 64; j++) {
        const char *nm = s->names[j];
        size_t len = strlen(nm);
        if (strncmp(nm, "gpu", 3) == 0 && nm[3] >= '0' && nm[3] <= '9' && len > 8 && strcmp(nm + len - 5, "_used") == 0 &&
            !strstr(nm, "device") && !run_csv_absent(s, j))
            cg[ncg++] = (int)j;
    }
    size_t n = s->nrows, nb = b->nrows;
    double *tracked = NULL;
    if (nb > 0) {
        int cb = run_csv_col(b, "bytes"), cta = run_csv_col(b, "t_alloc_ms"), ctf = run_csv_col(b, "t_free_ms");
        pev_t *ev = malloc(2 * nb * sizeof *ev);
        tracked = malloc(n * sizeof *tracked);
        if (!ev || !tracked) {
            free(ev);
            free(tracked);
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
        size_t ne = 0;
        for (size_t i = 0; i < nb; i++) {
            double by = run_csv_num(b, i, cb), tf = run_csv_num(b, i, ctf);
            ev[ne++] = (pev_t){run_csv_num(b, i, cta), by, 0};
            if (isfinite(tf))
                ev[ne++] = (pev_t){tf, -by, 0};
        }
        qsort(ev, ne, sizeof *ev, cmp_pev);
        double live = 0;
        size_t e = 0;
        for (size_t i = 0; i < n; i++) {
            while (e < ne && ev[e].t <= run_csv_num(s, i, ct))
                live += ev[e++].d;
            tracked[i] = live;
        }
        free(ev);
    }
    FILE *f = open_dat(tmp, "memory.dat", err, errlen);
    if (!f) {
        free(tracked);
        return -EIO;
    }
    bool has[6] = {true, ca >= 0, cf >= 0, ccg >= 0, false, tracked != NULL};
    *ymax = 0;
    for (size_t i = 0; i < n; i++) {
        double g = 0;
        if (ncg)
            for (int k = 0; k < ncg; k++)
                g += isfinite(run_csv_num(s, i, cg[k])) ? run_csv_num(s, i, cg[k]) : 0;
        else if (cgu >= 0 && isfinite(run_csv_num(s, i, cgu)))
            g = run_csv_num(s, i, cgu);
        has[4] = has[4] || g > 0;
        double v[6] = {run_csv_num(s, i, crss), run_csv_num(s, i, ca), run_csv_num(s, i, cf),
                       run_csv_num(s, i, ccg), g, tracked ? tracked[i] : NAN};
        fprintf(f, "%.3f", run_csv_num(s, i, ct) / 1000);
        for (int k = 0; k < 6; k++) {
            if (isfinite(v[k])) {
                fprintf(f, " %.6f", v[k] / GIB);
                *ymax = fmax(*ymax, v[k] / GIB);
            } else {
                fputs(" NaN", f);
            }
        }
        fputc('\n', f);
    }
    free(tracked);
    int rc = close_dat(f, err, errlen);
    if (rc < 0)
        return rc;
    static const char *const lname[6] = {"rss", "anon", "file", "cg", "gpu", "tracked"};
    layers[0] = '\0';
    for (int k = 0; k < 6; k++)
        if (has[k]) {
            size_t l = strlen(layers);
            snprintf(layers + l, llen - l, "%s%s", l ? " " : "", lname[k]);
        }
    /* marks: every row of marks.csv, else each proof counted in proofs_done */
    if (!(f = open_dat(tmp, "marks.dat", err, errlen)))
        return -EIO;
    *nmarks = 0;
    int cmt = run_csv_col(m, "t_ms");
    for (size_t i = 0; i < m->nrows; i++, ++*nmarks)
        fprintf(f, "%.3f\n", run_csv_num(m, i, cmt) / 1000);
    if (m->nrows == 0 && cpd >= 0) {
        double prev = 0;
        for (size_t i = 0; i < n; i++)
            if (run_csv_num(s, i, cpd) > prev) {
                prev = run_csv_num(s, i, cpd);
                fprintf(f, "%.3f\n", run_csv_num(s, i, ct) / 1000);
                ++*nmarks;
            }
    }
    return close_dat(f, err, errlen);
}

int plot_run(const analyze_run_t *run, const char *run_dir, const char *out_dir, char *written, size_t wlen,
             char *err, size_t errlen)
{
    char scripts[PATH_MAX], tmp[PATH_MAX], title[PATH_MAX + 64], arg[2048], xa[32], xb[32], ya[32];
    const run_csv_t *s = analyze_run_csv(run, "samples.csv"), *b = analyze_run_csv(run, "buffers.csv"),
                    *p = analyze_run_csv(run, "proofs.csv");
    bool watch = analyze_run_is_watch(run);
    int rc;
    if (written && wlen)
        written[0] = '\0';
    /* everything that can refuse the run is checked before any drawing */
    if (s->nrows == 0) {
        snprintf(err, errlen, "%s/samples.csv: no samples (empty run), nothing to plot", run_dir);
        return -EINVAL;
    }
    char sweep[PATH_MAX];
    snprintf(sweep, sizeof sweep, "%s/sweep.csv", run_dir);
    bool has_sweep = access(sweep, F_OK) == 0;
    if (plot_scripts_dir(scripts, sizeof scripts) < 0) {
        snprintf(err, errlen, "cannot find the gnuplot scripts (scripts/plot/*.gp); set ZKBENCH_PLOT_DIR");
        return -ENOENT;
    }
    if ((rc = ensure_dir(out_dir, err, errlen)) < 0 || (rc = make_tmp(tmp, sizeof tmp, err, errlen)) < 0)
        return rc;
    const char *name = basename_of(run_dir);
    figs_t F = {.out_dir = out_dir};
    FILE *f = NULL;
    int ct = run_csv_col(s, "t_ms");
    /* explicit ranges: a run of one sample, or of equal times, would make
     * gnuplot warn about an empty range (and a warning is a failure here) */
    double t0 = run_csv_num(s, 0, ct) / 1000, t_end = run_csv_num(s, s->nrows - 1, ct) / 1000;
    double xlo = t0, xhi = t_end;
    for (size_t i = 0; i < b->nrows; i++) {
        double ta = run_csv_num(b, i, run_csv_col(b, "t_alloc_ms")) / 1000;
        if (isfinite(ta))
            xlo = fmin(xlo, ta), xhi = fmax(xhi, ta);
    }
    if (!(xhi > xlo))
        xlo -= 0.5, xhi += 0.5;
    snprintf(xa, sizeof xa, "%.3f", xlo);
    snprintf(xb, sizeof xb, "%.3f", xhi);

    if (watch) {
        char layers[64];
        double ymax;
        size_t nmarks;
        if ((rc = watch_memory_dat(run, tmp, layers, sizeof layers, &ymax, &nmarks, err, errlen)) < 0)
            goto done;
        snprintf(ya, sizeof ya, "%.6f", ymax > 0 ? ymax * 1.05 : 1.0);
        snprintf(title, sizeof title, "%s: memory of the watched process (%zu marks)", name, nmarks);
        const char *args[] = {tmp, NULL, title, xa, xb, ya, layers, nmarks ? "1" : "0", NULL};
        if ((rc = fig_draw(&F, scripts, "watch.gp", "memory", args, tmp, err, errlen)) < 0)
            goto done;
    } else {
        /* memory over time */
        if (!(f = open_dat(tmp, "memory.dat", err, errlen))) {
            rc = -EIO;
            goto done;
        }
        int crss = run_csv_col(s, "rss"), cal = run_csv_col(s, "je_allocated"), cres = run_csv_col(s, "je_resident"),
            cgpu = run_csv_col(s, "gpu_used");
        int live[64];
        char live_name[64][48];
        size_t nlive = 0;
        for (size_t j = 0; j < s->ncols && nlive < 64; j++)
            if (strncmp(s->names[j], "live_", 5) == 0) {
                bool any = false;
                for (size_t i = 0; i < s->nrows && !any; i++)
                    any = run_csv_num(s, i, (int)j) > 0;
                if (any) {
                    live[nlive] = (int)j;
                    snprintf(live_name[nlive++], 48, "%s", s->names[j] + 5);
                }
            }
        double ymax = 0;
        for (size_t i = 0; i < s->nrows; i++) {
            double tracked = 0;
            for (size_t k = 0; k < nlive; k++)
                if (strncmp(live_name[k], "gpu_", 4) != 0)
                    tracked += run_csv_num(s, i, live[k]);
            double v[5] = {run_csv_num(s, i, crss), run_csv_num(s, i, cal), run_csv_num(s, i, cres),
                           run_csv_num(s, i, cgpu), tracked};
            fprintf(f, "%.3f", run_csv_num(s, i, ct) / 1000);
            for (int k = 0; k < 5; k++) {
                fprintf(f, " %.6f", v[k] / GIB);
                ymax = fmax(ymax, v[k] / GIB);
            }
            fputc('\n', f);
        }
        rc = close_dat(f, err, errlen);
        f = NULL;
        if (rc < 0)
            goto done;
        if (!(f = open_dat(tmp, "proofs.dat", err, errlen))) {
            rc = -EIO;
            goto done;
        }
        int ctd = run_csv_col(p, "t_done_ms");
        size_t nproofs = 0;
        for (size_t i = 0; i < p->nrows; i++)
            if (isfinite(run_csv_num(p, i, ctd))) {
                fprintf(f, "%.3f %.6f\n", run_csv_num(p, i, ctd) / 1000, ymax * 1.02);
                nproofs++;
            }
        if (nproofs == 0) /* keeps the key entry without a "no valid points" warning */
            fprintf(f, "%.3f 0\n", t_end);
        rc = close_dat(f, err, errlen);
        f = NULL;
        if (rc < 0)
            goto done;
        snprintf(ya, sizeof ya, "%.6f", ymax > 0 ? ymax * 1.05 : 1.0);
        snprintf(title, sizeof title, "%s: memory layers (%zu proofs marked)", name, nproofs);
        {
            const char *args[] = {tmp, NULL, title, xa, xb, ya, NULL};
            if ((rc = fig_draw(&F, scripts, "memory.gp", "memory", args, tmp, err, errlen)) < 0)
                goto done;
        }

        /* live bytes by kind, stacked */
        if (nlive > 0) {
            if (!(f = open_dat(tmp, "kinds.dat", err, errlen))) {
                rc = -EIO;
                goto done;
            }
            fputs("t_s", f);
            for (size_t k = 0; k < nlive; k++)
                fprintf(f, " %s", live_name[k]);
            fputc('\n', f);
            double kmax = 0;
            for (size_t i = 0; i < s->nrows; i++) {
                double cum = 0;
                fprintf(f, "%.3f", run_csv_num(s, i, ct) / 1000);
                for (size_t k = 0; k < nlive; k++) {
                    cum += run_csv_num(s, i, live[k]);
                    fprintf(f, " %.6f", cum / GIB);
                }
                kmax = fmax(kmax, cum / GIB);
                fputc('\n', f);
            }
            rc = close_dat(f, err, errlen);
            f = NULL;
            if (rc < 0)
                goto done;
            snprintf(title, sizeof title, "%s: live tracked bytes by kind (host and device)", name);
            char nk[16], ka[32];
            snprintf(nk, sizeof nk, "%zu", nlive);
            snprintf(ka, sizeof ka, "%.6f", kmax > 0 ? kmax * 1.05 : 1.0);
            const char *args[] = {tmp, NULL, title, nk, xa, xb, ka, NULL};
            if ((rc = fig_draw(&F, scripts, "kinds.gp", "kinds", args, tmp, err, errlen)) < 0)
                goto done;
        }
    }

    /* buffer lifetimes: by kind (batch) or by allocation site (watch) */
    if (b->nrows > 0) {
        if (!(f = open_dat(tmp, "buffers.dat", err, errlen))) {
            rc = -EIO;
            goto done;
        }
        int ck = run_csv_col(b, "kind"), cta = run_csv_col(b, "t_alloc_ms"), ctf = run_csv_col(b, "t_free_ms"),
            cbytes = run_csv_col(b, "bytes");
        size_t *order = malloc(b->nrows * sizeof *order);
        if (!order) {
            rc = -ENOMEM;
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        /* by allocation time: rows are written at free, so sort */
        for (size_t i = 0; i < b->nrows; i++)
            order[i] = i;
        order_csv = b;
        order_col = cta;
        qsort(order, b->nrows, sizeof *order, cmp_order);
        /* a watch run has many sites: the 8 with the most bytes get a
         * colour, the rest are "other" */
        char kinds[33][48];
        size_t nk = 0, stride = b->nrows > MAX_BARS ? (b->nrows + MAX_BARS - 1) / MAX_BARS : 1, row = 0;
        size_t max_k = watch ? 8 : 32;
        if (watch) {
            /* kinds sorted, then the total bytes of each run of equal kinds */
            size_t *by = malloc(b->nrows * sizeof *by);
            if (!by) {
                free(order);
                rc = -ENOMEM;
                snprintf(err, errlen, "out of memory");
                goto done;
            }
            for (size_t i = 0; i < b->nrows; i++)
                by[i] = i;
            order_csv = b;
            order_col = ck;
            qsort(by, b->nrows, sizeof *by, cmp_text);
            double top[8] = {0};
            for (size_t r = 0; r < b->nrows;) {
                size_t e = r;
                double tot = 0;
                while (e < b->nrows && strcmp(run_csv_text(b, by[e], ck), run_csv_text(b, by[r], ck)) == 0)
                    tot += run_csv_num(b, by[e++], cbytes);
                /* insert into the top max_k by bytes */
                size_t pos = nk;
                while (pos > 0 && top[pos - 1] < tot)
                    pos--;
                if (pos < max_k) {
                    size_t last = nk < max_k ? nk : max_k - 1;
                    for (size_t q = last; q > pos; q--) {
                        top[q] = top[q - 1];
                        memcpy(kinds[q], kinds[q - 1], sizeof kinds[q]);
                    }
                    top[pos] = tot;
                    snprintf(kinds[pos], 48, "%.47s", run_csv_text(b, by[r], ck));
                    if (nk < max_k)
                        nk++;
                }
                r = e;
            }
            free(by);
        }
        bool other = false;
        for (size_t ii = 0; ii < b->nrows; ii += stride) {
            size_t i = order[ii];
            const char *kind = run_csv_text(b, i, ck);
            size_t k = 0;
            while (k < nk && strncmp(kinds[k], kind, 47) != 0)
                k++;
            if (k == nk && !watch && nk < max_k)
                snprintf(kinds[nk++], 48, "%s", kind);
            else if (k == nk)
                other = true, k = max_k; /* the "other" colour */
            double tf = run_csv_num(b, i, ctf);
            fprintf(f, "%.3f %.3f %zu %zu\n", run_csv_num(b, i, cta) / 1000, isfinite(tf) ? tf / 1000 : t_end, ++row,
                    k + 1);
        }
        free(order);
        arg[0] = '\0';
        for (size_t k = 0; k < nk; k++) {
            size_t al = strlen(arg);
            /* words: spaces in a user tag would split it */
            char w[48];
            snprintf(w, sizeof w, "%.47s", kinds[k]);
            for (char *q = w; *q; q++)
                if (*q == ' ' || *q == '"' || *q == '\'')
                    *q = '_';
            snprintf(arg + al, sizeof arg - al, "%s%s", al ? " " : "", w);
        }
        for (size_t k = nk; other && k < max_k; k++) {
            size_t al = strlen(arg);
            snprintf(arg + al, sizeof arg - al, "%s-", al ? " " : "");
        }
        if (other) {
            size_t al = strlen(arg);
            snprintf(arg + al, sizeof arg - al, "%sother", al ? " " : "");
        }
        rc = close_dat(f, err, errlen);
        f = NULL;
        if (rc < 0)
            goto done;
        const char *what = watch ? "allocation lifetimes by site" : "buffer lifetimes";
        if (stride > 1)
            snprintf(title, sizeof title, "%s: %s (every %zu-th of %zu buffers; never freed: to the end)", name, what,
                     stride, b->nrows);
        else
            snprintf(title, sizeof title, "%s: %s (%zu buffers; never freed: to the end)", name, what, b->nrows);
        char rows[32];
        snprintf(rows, sizeof rows, "%zu", row);
        const char *args[] = {tmp, NULL, title, arg, xa, xb, rows, NULL};
        if ((rc = fig_draw(&F, scripts, "buffers.gp", "buffers", args, tmp, err, errlen)) < 0)
            goto done;
    }

    /* a sweep folder */
    if (has_sweep) {
        char base[PATH_MAX];
        fig_tmp(base, sizeof base, out_dir, "sweep");
        if ((rc = draw_sweep(scripts, sweep, base, tmp, err, errlen)) < 0) {
            fig_unlink(out_dir, "sweep");
            goto done;
        }
        snprintf(F.names[F.n++], sizeof F.names[0], "sweep");
    }
    rc = figs_commit(&F, written, wlen, err, errlen);
done:
    if (f)
        fclose(f);
    if (rc < 0)
        figs_discard(&F);
    rm_tmp(tmp);
    return rc;
}
