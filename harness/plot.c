/*
 * gnuplot figures of a run (see plot.h). The data files hold GiB and
 * seconds, so the scripts only draw; a script gets its data folder, the
 * output path without extension, a title and one figure-specific argument.
 */
#include "harness/plot.h"

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
    static const char *const files[] = {"memory.dat", "proofs.dat", "kinds.dat", "buffers.dat", "sweep.dat", "model.dat", "killed.dat",
                                        "gnuplot.err"};
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
static int write_model_dat(const char *sweep_csv, const char *tmp, char *err, size_t errlen)
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
        for (size_t i = 0; i < c.nrows; i++)
            fprintf(f, "%.0f %.6f %.6f %.6f\n", run_csv_num(&c, i, cpw), run_csv_num(&c, i, cp) / GIB,
                    run_csv_num(&c, i, cl) / GIB, run_csv_num(&c, i, ch) / GIB);
        rows = (int)c.nrows;
        run_csv_free(&c);
    }
    int rc = close_dat(f, err, errlen);
    return rc < 0 ? rc : rows;
}

static int draw_sweep(const char *scripts, const char *sweep_csv, const char *out_dir, const char *tmp, char *err,
                      size_t errlen)
{
    static const char *const req[] = {"pw", "s_per_proof", "peak_rss", "predicted_peak_rss", NULL};
    static const char *const text[] = {"outcome", NULL};
    static const char *const empty[] = {"s_per_proof", "predicted_peak_rss", "ram_bytes", "footprint_per_partition",
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
    for (size_t i = 0; i < c.nrows; i++) {
        double pr = run_csv_num(&c, i, cpr), sp = run_csv_num(&c, i, cs);
        bool was_killed = strcmp(run_csv_text(&c, i, coc), "oom-killed") == 0;
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
        (rc = model_rows = write_model_dat(sweep_csv, tmp, err, errlen)) < 0)
        return rc;
    if (n_done == 0) {
        snprintf(err, errlen, "%s: no completed run to draw (every run was OOM-killed)", sweep_csv);
        return -EINVAL;
    }
    char out[PATH_MAX], limtxt[32] = "";
    snprintf(out, sizeof out, "%s/sweep", out_dir);
    double lim = isfinite(ml) ? ml : ram;
    if (isfinite(lim))
        snprintf(limtxt, sizeof limtxt, "%.3f", lim / GIB);
    const char *args[] = {tmp, out, "zkbench sweep: peak RSS against pw", limtxt,
                          isfinite(ml) ? "memory limit" : "RAM", model_rows > 0 ? "1" : "0", n_killed ? "1" : "0", NULL};
    return run_gnuplot(scripts, "sweep.gp", args, tmp, err, errlen);
}

int plot_sweep(const char *sweep_csv, const char *out_dir, char *err, size_t errlen)
{
    char scripts[PATH_MAX], tmp[PATH_MAX];
    int rc;
    if (plot_scripts_dir(scripts, sizeof scripts) < 0) {
        snprintf(err, errlen, "cannot find the gnuplot scripts (scripts/plot/*.gp); set ZKBENCH_PLOT_DIR");
        return -ENOENT;
    }
    if ((rc = ensure_dir(out_dir, err, errlen)) < 0 || (rc = make_tmp(tmp, sizeof tmp, err, errlen)) < 0)
        return rc;
    rc = draw_sweep(scripts, sweep_csv, out_dir, tmp, err, errlen);
    rm_tmp(tmp);
    return rc;
}

int plot_run(const analyze_run_t *run, const char *run_dir, const char *out_dir, char *written, size_t wlen,
             char *err, size_t errlen)
{
    char scripts[PATH_MAX], tmp[PATH_MAX], out[PATH_MAX], title[PATH_MAX + 64], arg[2048];
    const run_csv_t *s = analyze_run_csv(run, "samples.csv"), *b = analyze_run_csv(run, "buffers.csv"),
                    *p = analyze_run_csv(run, "proofs.csv");
    int rc;
    if (written && wlen)
        written[0] = '\0';
    if (s->nrows == 0) {
        snprintf(err, errlen, "%s/samples.csv: no samples (empty run), nothing to plot", run_dir);
        return -EINVAL;
    }
    if (plot_scripts_dir(scripts, sizeof scripts) < 0) {
        snprintf(err, errlen, "cannot find the gnuplot scripts (scripts/plot/*.gp); set ZKBENCH_PLOT_DIR");
        return -ENOENT;
    }
    if ((rc = ensure_dir(out_dir, err, errlen)) < 0 || (rc = make_tmp(tmp, sizeof tmp, err, errlen)) < 0)
        return rc;
    const char *name = basename_of(run_dir);

    /* memory over time */
    FILE *f = open_dat(tmp, "memory.dat", err, errlen);
    if (!f) {
        rc = -EIO;
        goto done;
    }
    int ct = run_csv_col(s, "t_ms"), crss = run_csv_col(s, "rss"), cal = run_csv_col(s, "je_allocated"),
        cres = run_csv_col(s, "je_resident"), cgpu = run_csv_col(s, "gpu_used");
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
    double ymax = 0, t_end = 0;
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
        t_end = run_csv_num(s, i, ct) / 1000;
    }
    if ((rc = close_dat(f, err, errlen)) < 0)
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
    if ((rc = close_dat(f, err, errlen)) < 0)
        goto done;
    snprintf(out, sizeof out, "%s/memory", out_dir);
    snprintf(title, sizeof title, "%s: memory layers (%zu proofs marked)", name, nproofs);
    {
        const char *args[] = {tmp, out, title, NULL};
        if ((rc = run_gnuplot(scripts, "memory.gp", args, tmp, err, errlen)) < 0)
            goto done;
    }
    add_written(written, wlen, "memory");

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
        for (size_t i = 0; i < s->nrows; i++) {
            double cum = 0;
            fprintf(f, "%.3f", run_csv_num(s, i, ct) / 1000);
            for (size_t k = 0; k < nlive; k++) {
                cum += run_csv_num(s, i, live[k]);
                fprintf(f, " %.6f", cum / GIB);
            }
            fputc('\n', f);
        }
        if ((rc = close_dat(f, err, errlen)) < 0)
            goto done;
        snprintf(out, sizeof out, "%s/kinds", out_dir);
        snprintf(title, sizeof title, "%s: live tracked bytes by kind (host and device)", name);
        char nk[16];
        snprintf(nk, sizeof nk, "%zu", nlive);
        const char *args[] = {tmp, out, title, nk, NULL};
        if ((rc = run_gnuplot(scripts, "kinds.gp", args, tmp, err, errlen)) < 0)
            goto done;
        add_written(written, wlen, "kinds");
    }

    /* buffer lifetimes */
    if (b->nrows > 0) {
        if (!(f = open_dat(tmp, "buffers.dat", err, errlen))) {
            rc = -EIO;
            goto done;
        }
        int ck = run_csv_col(b, "kind"), cta = run_csv_col(b, "t_alloc_ms"), ctf = run_csv_col(b, "t_free_ms");
        size_t *order = malloc(b->nrows * sizeof *order);
        if (!order) {
            fclose(f);
            rc = -ENOMEM;
            snprintf(err, errlen, "out of memory");
            goto done;
        }
        /* by allocation time: rows are written at free, so sort */
        for (size_t i = 0; i < b->nrows; i++)
            order[i] = i;
        for (size_t i = 1; i < b->nrows; i++) { /* insertion sort on nearly sorted input */
            size_t x = order[i], j = i;
            double tx = run_csv_num(b, x, cta);
            while (j > 0 && run_csv_num(b, order[j - 1], cta) > tx) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = x;
        }
        char kinds[32][48];
        size_t nk = 0, stride = b->nrows > MAX_BARS ? (b->nrows + MAX_BARS - 1) / MAX_BARS : 1, row = 0;
        arg[0] = '\0';
        for (size_t ii = 0; ii < b->nrows; ii += stride) {
            size_t i = order[ii];
            const char *kind = run_csv_text(b, i, ck);
            size_t k = 0;
            while (k < nk && strcmp(kinds[k], kind) != 0)
                k++;
            if (k == nk && nk < 32) {
                snprintf(kinds[nk++], 48, "%s", kind);
                size_t al = strlen(arg);
                snprintf(arg + al, sizeof arg - al, "%s%s", al ? " " : "", kind);
            }
            double tf = run_csv_num(b, i, ctf);
            fprintf(f, "%.3f %.3f %zu %zu\n", run_csv_num(b, i, cta) / 1000, isfinite(tf) ? tf / 1000 : t_end, ++row,
                    k + 1);
        }
        free(order);
        if ((rc = close_dat(f, err, errlen)) < 0)
            goto done;
        snprintf(out, sizeof out, "%s/buffers", out_dir);
        if (stride > 1)
            snprintf(title, sizeof title, "%s: buffer lifetimes (every %zu-th of %zu buffers; never freed: to the end)",
                     name, stride, b->nrows);
        else
            snprintf(title, sizeof title, "%s: buffer lifetimes (%zu buffers; never freed: to the end)", name,
                     b->nrows);
        const char *args[] = {tmp, out, title, arg, NULL};
        if ((rc = run_gnuplot(scripts, "buffers.gp", args, tmp, err, errlen)) < 0)
            goto done;
        add_written(written, wlen, "buffers");
    }

    /* a sweep folder */
    char sweep[PATH_MAX];
    snprintf(sweep, sizeof sweep, "%s/sweep.csv", run_dir);
    if (access(sweep, F_OK) == 0) {
        if ((rc = draw_sweep(scripts, sweep, out_dir, tmp, err, errlen)) < 0)
            goto done;
        add_written(written, wlen, "sweep");
    }
    rc = 0;
done:
    rm_tmp(tmp);
    return rc;
}
