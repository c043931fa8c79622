/* Per-site fits of a command sweep with --trace; see sweep_sites.h. */
#include "harness/cli/sweep_sites.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/sweep_command.h"
#include "harness/run/run_csv.h"
#include "harness/run/units.h"

#define SITES_POINTS 64 /* a sweep's points at most (sweep_command's rows) */
#define SITES_SAY 5     /* sites named on the console */

struct site {
    char *label;
    double at_peak[SITES_POINTS]; /* bytes live at each point's peak; 0 where absent */
    sweep_line_t fit;
};

struct sweep_sites {
    unsigned pw[SITES_POINTS];
    size_t n_points;
    struct site *site;
    size_t n_site, cap_site;
};

int sweep_sites_new(sweep_sites_t **ret)
{
    *ret = calloc(1, sizeof **ret);
    return *ret ? 0 : -ENOMEM;
}

void sweep_sites_free(sweep_sites_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_site; i++)
        free(s->site[i].label);
    free(s->site);
    free(s);
}

static struct site *site_get(sweep_sites_t *s, const char *label)
{
    for (size_t i = 0; i < s->n_site; i++)
        if (strcmp(s->site[i].label, label) == 0)
            return &s->site[i];
    if (s->n_site == s->cap_site) {
        size_t cap = s->cap_site ? 2 * s->cap_site : 64;
        struct site *p = realloc(s->site, cap * sizeof *p);
        if (!p)
            return NULL;
        s->site = p, s->cap_site = cap;
    }
    struct site *x = &s->site[s->n_site];
    memset(x, 0, sizeof *x);
    if (!(x->label = strdup(label)))
        return NULL;
    s->n_site++;
    return x;
}

/* The time of the run's highest RSS sample, ms. */
static int peak_time(double *t_peak, const char *run_dir, char *err, size_t errlen)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/samples.csv", run_dir);
    static const char *const need[] = {"t_ms", "rss", NULL};
    run_csv_t sc;
    run_csv_opts_t so = {.required = need, .empty_cols_absent = true, .sparse_ok = true};
    int rc = run_csv_read_opts(&sc, path, &so, err, errlen);
    if (rc < 0)
        return rc;
    int ct = run_csv_col(&sc, "t_ms"), cr = run_csv_col(&sc, "rss");
    double best = -1;
    *t_peak = NAN;
    for (size_t i = 0; i < sc.nrows; i++) {
        double r = run_csv_num(&sc, i, cr);
        if (isfinite(r) && r > best)
            best = r, *t_peak = run_csv_num(&sc, i, ct);
    }
    run_csv_free(&sc);
    if (!isfinite(*t_peak)) {
        snprintf(err, errlen, "%s: no RSS sample", path);
        return -EINVAL;
    }
    return 0;
}

int sweep_sites_add(sweep_sites_t *s, unsigned pw, const char *run_dir, char *err, size_t errlen)
{
    if (s->n_points >= SITES_POINTS)
        return 0;
    double t_peak;
    int rc = peak_time(&t_peak, run_dir, err, errlen);
    if (rc < 0)
        return rc;
    char path[4300];
    snprintf(path, sizeof path, "%s/buffers.csv", run_dir);
    static const char *const need[] = {"bytes", "t_alloc_ms", "t_free_ms", "site", NULL};
    static const char *const text[] = {"kind", "device", "site", NULL};
    static const char *const empty[] = {"proof", "partition", "t_free_ms", "t_last_use_ms", NULL};
    run_csv_t bc;
    if ((rc = run_csv_read(&bc, path, need, text, empty, err, errlen)) < 0)
        return rc;
    size_t k = s->n_points;
    s->pw[k] = pw;
    int cb = run_csv_col(&bc, "bytes"), ca = run_csv_col(&bc, "t_alloc_ms"), cf = run_csv_col(&bc, "t_free_ms"),
        cs = run_csv_col(&bc, "site");
    for (size_t i = 0; i < bc.nrows && rc == 0; i++) {
        double ta = run_csv_num(&bc, i, ca), tf = run_csv_num(&bc, i, cf);
        const char *label = run_csv_text(&bc, i, cs);
        struct site *x = label && label[0] ? site_get(s, label) : NULL;
        if (label && label[0] && !x) {
            snprintf(err, errlen, "out of memory");
            rc = -ENOMEM;
        } else if (x && ta <= t_peak && !(tf <= t_peak)) {
            x->at_peak[k] += run_csv_num(&bc, i, cb);
        }
    }
    run_csv_free(&bc);
    if (rc == 0)
        s->n_points++;
    return rc;
}

static int by_growth(const void *a, const void *b)
{
    const struct site *x = a, *y = b;
    double fx = x->fit.ok ? x->fit.f : 0, fy = y->fit.ok ? y->fit.f : 0;
    if (fx != fy)
        return fx < fy ? 1 : -1;
    return strcmp(x->label, y->label);
}

/* Whether a site's bytes grow with pw: the slope's interval above 0 with
 * three points or more, with two a slope of a tenth of its mean or more. */
static bool grows(const struct site *x, double mean)
{
    if (!x->fit.ok || !(x->fit.f > 0))
        return false;
    return isfinite(x->fit.f_low) ? x->fit.f_low > 0 : x->fit.f >= 0.1 * mean;
}

static double site_mean(const struct site *x, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < n; k++)
        m += x->at_peak[k];
    return n ? m / (double)n : 0;
}

int sweep_sites_write(sweep_sites_t *s, const char *dir, FILE *out, char *err, size_t errlen)
{
    double xs[SITES_POINTS];
    size_t distinct = 0;
    for (size_t k = 0; k < s->n_points; k++) {
        xs[k] = s->pw[k];
        bool seen = false;
        for (size_t j = 0; j < k; j++)
            seen |= s->pw[j] == s->pw[k];
        distinct += !seen;
    }
    if (distinct < 2) {
        fprintf(out, "sweep: sites: %zu traced run(s) completed at %zu pw value(s): the per-site fit needs two\n",
                s->n_points, distinct);
        return 0;
    }
    for (size_t i = 0; i < s->n_site; i++)
        sweep_line_fit(&s->site[i].fit, xs, s->site[i].at_peak, s->n_points);
    qsort(s->site, s->n_site, sizeof *s->site, by_growth);
    char path[4300];
    snprintf(path, sizeof path, "%s/sweep-sites.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -e;
    }
    fprintf(f, "site,per_pw_bytes,per_pw_low,per_pw_high,fixed_bytes,points,at_peak_bytes_by_pw\n");
    for (size_t i = 0; i < s->n_site; i++) {
        const struct site *x = &s->site[i];
        /* a label is CSV-safe (docs/trace-format.md): no comma or quote */
        fprintf(f, "%s,%.0f,", x->label, x->fit.f);
        if (isfinite(x->fit.f_low))
            fprintf(f, "%.0f,%.0f,", x->fit.f_low, x->fit.f_high);
        else
            fprintf(f, ",,");
        fprintf(f, "%.0f,%zu,", x->fit.b, s->n_points);
        for (size_t k = 0; k < s->n_points; k++)
            fprintf(f, "%s%u:%.0f", k ? ";" : "", s->pw[k], x->at_peak[k]);
        fprintf(f, "\n");
    }
    bool ok = fflush(f) == 0 && !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        snprintf(err, errlen, "cannot write %s", path);
        return -EIO;
    }
    /* the console: the growing sites first (largest F), then the largest
     * fixed ones, SITES_SAY in all */
    char b1[32], b2[32], b3[32];
    size_t said = 0;
    for (size_t i = 0; i < s->n_site && said < SITES_SAY; i++) {
        const struct site *x = &s->site[i];
        if (!grows(x, site_mean(x, s->n_points)))
            continue;
        if (isfinite(x->fit.f_low))
            fprintf(out, "sweep: site %s holds %s per pw (95%% CI %s .. %s) at the peak\n", x->label,
                    fmt_bytes(b1, x->fit.f), fmt_bytes(b2, x->fit.f_low), fmt_bytes(b3, x->fit.f_high));
        else
            fprintf(out, "sweep: site %s holds %s per pw at the peak (two pw values: no interval)\n", x->label,
                    fmt_bytes(b1, x->fit.f));
        said++;
    }
    /* then the fixed sites that hold the most, largest first */
    bool *told = calloc(s->n_site ? s->n_site : 1, sizeof *told);
    while (told && said < SITES_SAY) {
        size_t best = s->n_site;
        double best_mean = 0;
        for (size_t i = 0; i < s->n_site; i++) {
            double m = site_mean(&s->site[i], s->n_points);
            if (!told[i] && !grows(&s->site[i], m) && m > best_mean)
                best = i, best_mean = m;
        }
        if (best == s->n_site)
            break;
        told[best] = true;
        fprintf(out, "sweep: site %s holds %s whatever the pw\n", s->site[best].label, fmt_bytes(b1, best_mean));
        said++;
    }
    free(told);
    fprintf(out, "sweep: sites: %zu traced in %zu runs; every fit in %s\n", s->n_site, s->n_points, path);
    return 0;
}
