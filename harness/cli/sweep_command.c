/* The capacity of any command; see sweep_command.h. */
#define _GNU_SOURCE
#include "harness/cli/sweep_command.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/cli/sweep_sites.h"
#include "harness/cli/sweep_table.h"
#include "harness/diagnose/analyze.h"
#include "harness/run/run_files.h"
#include "harness/run/units.h"

#define ARGS_MAX 256

void sweep_line_fit(sweep_line_t *m, const double *x, const double *y, size_t n)
{
    memset(m, 0, sizeof *m);
    m->s = m->f_low = m->f_high = NAN;
    m->n = n;
    double sx = 0, sy = 0;
    for (size_t i = 0; i < n; i++)
        sx += x[i], sy += y[i];
    if (n < 2)
        return;
    m->xbar = sx / (double)n;
    double ybar = sy / (double)n, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        m->sxx += (x[i] - m->xbar) * (x[i] - m->xbar);
        sxy += (x[i] - m->xbar) * (y[i] - ybar);
    }
    if (!(m->sxx > 0))
        return; /* one pw value only: no slope */
    m->f = sxy / m->sxx;
    m->b = ybar - m->f * m->xbar;
    m->ok = true;
    if (n < 3)
        return;
    double rss = 0;
    for (size_t i = 0; i < n; i++) {
        double e = y[i] - (m->b + m->f * x[i]);
        rss += e * e;
    }
    m->s = sqrt(rss / (double)(n - 2));
    double t = analyze_t95((double)(n - 2)), se_f = m->s / sqrt(m->sxx);
    m->f_low = m->f - t * se_f;
    m->f_high = m->f + t * se_f;
}

bool sweep_line_predict(const void *model, unsigned pw, double *peak, double *low, double *high)
{
    const sweep_line_t *m = model;
    if (!m->ok)
        return false;
    *peak = m->b + m->f * pw;
    *low = *high = NAN;
    if (m->n >= 3) {
        double d = pw - m->xbar;
        double half = analyze_t95((double)(m->n - 2)) * m->s * sqrt(1 + 1.0 / (double)m->n + d * d / m->sxx);
        *low = *peak - half;
        *high = *peak + half;
    }
    return true;
}

/* arg with every "{pw}" replaced by pw; malloc'd (NULL: out of memory). */
static char *subst_pw(const char *arg, unsigned pw)
{
    char v[16];
    int lv = snprintf(v, sizeof v, "%u", pw);
    size_t n = 0;
    for (const char *p = arg; (p = strstr(p, "{pw}")); p += 4)
        n++;
    char *out = malloc(strlen(arg) + n * (size_t)lv + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = arg;;) {
        const char *q = strstr(p, "{pw}");
        size_t k = q ? (size_t)(q - p) : strlen(p);
        memcpy(o, p, k);
        o += k;
        if (!q)
            break;
        memcpy(o, v, (size_t)lv);
        o += lv;
        p = q + 4;
    }
    *o = '\0';
    return out;
}

/* One point: `zkbench watch` of the command for pw, in a process of its
 * own, its console and the command's output in log. Its exit status (3:
 * OOM-killed under --mem-limit), or -1. */
static int run_point(const struct sweep_command_opts *o, unsigned pw, bool capped, const char *run_dir,
                     const char *log)
{
    char *args[ARGS_MAX];
    char *owned[ARGS_MAX];
    int a = 0, n_owned = 0;
    args[a++] = "zkbench";
    args[a++] = "watch";
    if (capped) {
        args[a++] = "--mem-limit";
        args[a++] = (char *)o->mem_limit_text;
    }
    if (o->mark) {
        args[a++] = "--mark";
        args[a++] = (char *)o->mark;
    }
    if (o->trace)
        args[a++] = "--trace";
    if (o->sample_ms) {
        args[a++] = "--sample-ms";
        args[a++] = (char *)o->sample_ms;
    }
    if (o->force)
        args[a++] = "--force";
    args[a++] = "--out";
    args[a++] = (char *)run_dir;
    args[a++] = "--";
    int rc = -1;
    for (char **c = o->cmd; *c; c++) {
        if (a >= ARGS_MAX - 1 || !(owned[n_owned] = subst_pw(*c, pw)))
            goto done;
        args[a++] = owned[n_owned++];
    }
    args[a] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        goto done;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) == pid)
        rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
done:
    for (int i = 0; i < n_owned; i++)
        free(owned[i]);
    return rc;
}

/* A point's row: its analysis when the run left one, else failed. */
static void point_row(struct sweep_row *r, unsigned pw, int code, const char *run_dir, uint64_t limit, double margin,
                      const char *limit_from)
{
    memset(r, 0, sizeof *r);
    r->pw = pw;
    r->conc = 1;
    r->s_per_proof = r->peak = r->footprint = r->predicted = r->low = r->high = NAN;
    r->peak_anon = r->predicted_anon = NAN;
    snprintf(r->outcome, sizeof r->outcome, "failed");
    snprintf(r->verdict, sizeof r->verdict, "-");
    if (code < 0 || access(run_dir, F_OK) != 0)
        return; /* watch refused before it made the run folder */
    /* the outcome is run.json's: watch exits with the command's own status,
     * so exit 3 is an OOM kill only when run.json says so */
    if (sweep_analyze_point(r, NULL, run_dir, limit, margin, limit_from) < 0 ||
        (code != 0 && strcmp(r->outcome, "oom-killed") != 0))
        snprintf(r->outcome, sizeof r->outcome, "failed");
}

int sweep_command(const struct sweep_command_opts *o)
{
    uint64_t limit = o->mem_limit ? o->mem_limit : o->ram;
    const char *limit_from = o->mem_limit ? "--mem-limit" : "--ram";
    char dir[4096], err[4400];
    if (run_dir_create(dir, sizeof dir, o->out, "sweep-", o->force, err, sizeof err) < 0)
        return cli_error(2, "sweep: %s", err);

    struct sweep_row row[64 + 2];
    size_t n_rows = 0, n_failed = 0;
    sweep_sites_t *sites = NULL; /* --trace: the sites' bytes at each peak */
    if (o->trace && sweep_sites_new(&sites) < 0)
        return cli_error(1, "sweep: out of memory");
    double xs[64] = {0}, ys[64] = {0}, ya[64] = {0};
    bool anon_all = true; /* every fitted point has an anonymous peak */
    size_t n_fit = 0;
    unsigned pw_top = 0;
    char failed[2048] = "";
    size_t failed_len = 0;
    for (size_t k = 0; k < o->n_pw && n_rows < 64; k++) {
        char run_dir[4200], log[4300];
        snprintf(run_dir, sizeof run_dir, "%s/pw-%u", dir, o->pw[k]);
        snprintf(log, sizeof log, "%s/pw-%u.log", dir, o->pw[k]);
        printf("sweep: pw %u -> %s\n", o->pw[k], run_dir);
        int code = run_point(o, o->pw[k], o->mem_limit != 0, run_dir, log);
        struct sweep_row *r = &row[n_rows++];
        point_row(r, o->pw[k], code, run_dir, limit, o->margin, limit_from);
        pw_top = o->pw[k] > pw_top ? o->pw[k] : pw_top;
        if (strcmp(r->outcome, "complete") == 0 && isfinite(r->peak)) {
            if (sites && sweep_sites_add(sites, o->pw[k], run_dir, err, sizeof err) < 0)
                cli_error(0, "sweep: pw %u's sites are left out: %s", o->pw[k], err);
            xs[n_fit] = o->pw[k];
            ya[n_fit] = r->peak_anon;
            anon_all = anon_all && isfinite(r->peak_anon);
            ys[n_fit++] = r->peak;
        } else if (strcmp(r->outcome, "oom-killed") != 0) {
            n_failed++;
            if (failed_len < sizeof failed)
                failed_len += (size_t)snprintf(failed + failed_len, sizeof failed - failed_len,
                                               "%spw %u (exit %d; see %s)", failed_len ? ", " : "", o->pw[k], code, log);
        }
        char b1[32];
        printf("sweep: pw %u: %s, peak %s, verdict %s\n", o->pw[k], r->outcome,
               isfinite(r->peak) ? fmt_bytes(b1, r->peak) : "-", r->headline[0] ? r->headline : r->verdict);
    }
    sweep_line_t m, ma;
    sweep_line_fit(&m, xs, ys, n_fit);
    /* the anonymous peaks' line: under --mem-limit the one held to the cap,
     * which charges anonymous memory in full and may reclaim file pages */
    sweep_line_fit(&ma, xs, ya, anon_all ? n_fit : 0);
    double unused;
    for (size_t k = 0; k < n_rows; k++) {
        if (sweep_line_predict(&m, row[k].pw, &row[k].predicted, &row[k].low, &row[k].high))
            row[k].footprint = m.f;
        if (!sweep_line_predict(&ma, row[k].pw, &row[k].predicted_anon, &unused, &unused))
            row[k].predicted_anon = NAN;
    }
    const sweep_line_t *cap = o->mem_limit && ma.ok ? &ma : &m;

    /* the largest pw whose predicted peak fits the limit less the margin */
    int max_pw = -1;
    char b1[32], b2[32], b3[32], b4[32];
    if (!m.ok) {
        printf("sweep: no prediction: %zu run(s) completed at %s distinct pw value(s); the fit peak = B + F x pw "
               "needs two (three for an interval)\n",
               n_fit, n_fit ? "fewer than two" : "no");
    } else {
        if (m.n >= 3)
            printf("sweep: model: peak = %s + %s x pw (slope 95%% CI %s .. %s), from %zu completed runs\n",
                   fmt_bytes(b1, m.b), fmt_bytes(b2, m.f), fmt_bytes(b3, m.f_low), fmt_bytes(b4, m.f_high), m.n);
        else
            printf("sweep: model: peak = %s + %s x pw, from 2 completed runs: a line through both, no interval "
                   "(a third pw value gives one)\n", fmt_bytes(b1, m.b), fmt_bytes(b2, m.f));
        double room = limit ? (double)limit * (1 - o->margin) : NAN;
        if (cap == &ma)
            printf("sweep: held to --mem-limit: anonymous peak = %s + %s x pw (a cgroup charges anonymous memory in "
                   "full; file-backed pages it may reclaim)\n", fmt_bytes(b1, ma.b), fmt_bytes(b2, ma.f));
        if (limit && !(cap->f > 0)) {
            printf("sweep: pw adds no memory in this fit (F %s): every pw that fits pw %u's peak fits\n",
                   fmt_bytes(b1, cap->f), (unsigned)xs[0]);
            max_pw = cap->b <= room ? 4096 : 0;
        } else if (limit) {
            double w = floor((room - cap->b) / cap->f);
            max_pw = w < 0 ? 0 : w > 4096 ? 4096 : (int)w;
            /* a measurement beats the line: a pw that completed under the
             * cap is no larger than what fits */
            for (size_t k = 0; k < n_fit && o->mem_limit; k++)
                if ((int)xs[k] > max_pw) {
                    printf("sweep: the fit's largest pw %d is below pw %u, which completed under --mem-limit: no "
                           "prediction (the line does not hold here; more pw values decide)\n", max_pw,
                           (unsigned)xs[k]);
                    max_pw = -1;
                    break;
                }
        }
    }

    bool verified = true;
    char verdict_line[1024] = "";
    if (o->verify && max_pw >= 1 && max_pw < 4096) {
        int len = snprintf(verdict_line, sizeof verdict_line, "predicted max pw %d", max_pw);
        for (int c = 0; c < 2 && n_rows < 66; c++) {
            unsigned w = (unsigned)max_pw + (unsigned)c;
            char run_dir[4200], log[4300];
            snprintf(run_dir, sizeof run_dir, "%s/verify-pw-%u", dir, w);
            snprintf(log, sizeof log, "%s/verify-pw-%u.log", dir, w);
            printf("sweep: verify pw %u under --mem-limit %s -> %s\n", w, o->mem_limit_text, run_dir);
            int code = run_point(o, w, true, run_dir, log);
            struct sweep_row *r = &row[n_rows++];
            point_row(r, w, code, run_dir, limit, o->margin, limit_from);
            sweep_line_predict(&m, w, &r->predicted, &r->low, &r->high);
            if (!sweep_line_predict(&ma, w, &r->predicted_anon, &unused, &unused))
                r->predicted_anon = NAN;
            r->footprint = m.f;
            pw_top = w > pw_top ? w : pw_top;
            bool killed = strcmp(r->outcome, "oom-killed") == 0, done = code == 0 && strcmp(r->outcome, "complete") == 0;
            if (!killed && !done) {
                verified = false;
                len += snprintf(verdict_line + len, sizeof verdict_line - (size_t)len, "; pw %u failed (exit %d; see %s)",
                                w, code, log);
                continue;
            }
            bool as_predicted = killed == (c == 1);
            verified = verified && as_predicted;
            if (killed)
                len += snprintf(verdict_line + len, sizeof verdict_line - (size_t)len, "; pw %u OOM-killed at %s%s", w,
                                fmt_bytes(b1, r->peak), as_predicted ? " as predicted" : " (predicted to fit: NOT as predicted)");
            else if (cap == &ma && isfinite(r->peak_anon) && r->peak_anon > 0)
                len += snprintf(verdict_line + len, sizeof verdict_line - (size_t)len,
                                "; pw %u completed, anonymous peak %s (predicted %s, error %.0f%%)%s", w,
                                fmt_bytes(b1, r->peak_anon), fmt_bytes(b2, r->predicted_anon),
                                100 * fabs(r->predicted_anon - r->peak_anon) / r->peak_anon,
                                as_predicted ? "" : " (predicted to be killed: NOT as predicted)");
            else
                len += snprintf(verdict_line + len, sizeof verdict_line - (size_t)len,
                                "; pw %u completed, peak %s (predicted %s, error %.0f%%)%s", w, fmt_bytes(b1, r->peak),
                                fmt_bytes(b2, r->predicted), 100 * fabs(r->predicted - r->peak) / r->peak,
                                as_predicted ? "" : " (predicted to be killed: NOT as predicted)");
        }
    } else if (o->verify) {
        snprintf(verdict_line, sizeof verdict_line, "no prediction to verify: %s",
                 max_pw >= 4096 ? "pw adds no memory, so no pw is predicted to be killed"
                 : max_pw == 0 ? "not even pw 1 is predicted to fit"
                               : "the fit gave no largest pw");
        verified = false;
    }

    unsigned curve = pw_top * 2;
    if (max_pw >= 0 && max_pw < 4096 && (unsigned)max_pw + 1 > curve)
        curve = (unsigned)max_pw + 1;
    if (!sweep_write_tables(dir, row, n_rows, m.ok ? sweep_line_predict : NULL, &m, o->ram, o->mem_limit, curve)) {
        sweep_sites_free(sites);
        return cli_error(1, "sweep: cannot write the capacity table in %s: %s", dir, strerror(errno));
    }
    int site_rc = sites ? sweep_sites_write(sites, dir, stdout, err, sizeof err) : 0;
    sweep_sites_free(sites);
    if (site_rc < 0)
        return cli_error(1, "sweep: %s", err);
    if (limit && max_pw >= 0)
        printf("sweep: largest pw that fits %s (%s) with a %.0f%% margin: %s\n", fmt_bytes(b1, (double)limit),
               limit_from, o->margin * 100,
               max_pw < 4096 ? (snprintf(b2, sizeof b2, "%d", max_pw), b2)
               : cap->f > 0  ? "4096 or more (pw adds little memory)"
                             : "any (pw adds no memory)");

    sweep_plot_and_print(dir, row, n_rows, o->ram, o->mem_limit);
    int status = 0;
    if (o->verify) {
        printf("%s\n", verdict_line);
        if (!verified)
            status = cli_error(1, "sweep: --verify: the capped runs did not go as predicted");
    }
    if (n_failed)
        status = cli_error(1, "sweep: %zu of %zu point(s) failed: %s", n_failed, o->n_pw, failed);
    return status;
}
