/*
 * Allocation sites of a traced watch run (analyze_sites.h): buffers.csv
 * grouped by site (sorted once), per-site totals, names from sites.csv,
 * the live traced bytes at each sample (the run's L0), and per-site
 * floors over intervals.
 */
#include "harness/diagnose/analyze_sites.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct {
    double t, d;
} event_t;

static int cmp_event(const void *a, const void *b)
{
    const event_t *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    return (x->d > y->d) - (x->d < y->d); /* frees first at the same time */
}

static int cmp_site(const void *a, const void *b)
{
    const analyze_site_t *x = a, *y = b;
    if (x->never_freed != y->never_freed)
        return x->never_freed < y->never_freed ? 1 : -1;
    if (x->held_gibs != y->held_gibs)
        return x->held_gibs < y->held_gibs ? 1 : -1;
    return strcmp(x->key, y->key);
}

/* The site key of a buffers.csv row: its site column, else its kind
 * (qsort has no context argument: the file and columns are set first). */
static const run_csv_t *key_csv;
static int key_site, key_kind;

static const char *row_key(size_t i)
{
    const char *s = key_site >= 0 ? run_csv_text(key_csv, i, key_site) : "";
    return *s ? s : run_csv_text(key_csv, i, key_kind);
}

static int cmp_row_key(const void *a, const void *b)
{
    int c = strcmp(row_key(*(const size_t *)a), row_key(*(const size_t *)b));
    if (c)
        return c;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* function and "file:line" of a site, from sites.csv or its label */
static void site_names(analyze_site_t *S, const run_csv_t *sites)
{
    int cs = run_csv_col(sites, "site"), cf = run_csv_col(sites, "function"), cfl = run_csv_col(sites, "file"),
        cl = run_csv_col(sites, "line");
    for (size_t i = 0; i < sites->nrows; i++) {
        if (strcmp(run_csv_text(sites, i, cs), S->key) != 0 && strcmp(run_csv_text(sites, i, cs), S->label) != 0)
            continue;
        const char *fn = run_csv_text(sites, i, cf), *file = run_csv_text(sites, i, cfl);
        double line = run_csv_num(sites, i, cl);
        if (*fn)
            snprintf(S->function, sizeof S->function, "%s", fn);
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        if (*base && isfinite(line) && line > 0)
            snprintf(S->where, sizeof S->where, "%s:%.0f", base, line);
        else if (*base)
            snprintf(S->where, sizeof S->where, "%s", base);
        break;
    }
    if (!S->function[0]) {
        /* "function@file:line", or a user tag */
        const char *at = strchr(S->label, '@');
        snprintf(S->function, sizeof S->function, "%.*s", at ? (int)(at - S->label) : (int)strlen(S->label),
                 S->label);
        if (at && !S->where[0])
            snprintf(S->where, sizeof S->where, "%s", at + 1);
    }
}

/* Groups the rows of buffers.csv into s->v (s->n sites) with their events
 * and totals; the live bytes of all at each sample into s->tracked. */
static int group_buffers(analyze_sites_t *s, const run_csv_t *bc, size_t extra, const double *t, size_t n)
{
    size_t nbuf = bc->nrows;
    int ck = run_csv_col(bc, "kind"), csite = run_csv_col(bc, "site"), cb = run_csv_col(bc, "bytes"),
        cta = run_csv_col(bc, "t_alloc_ms"), ctf = run_csv_col(bc, "t_free_ms");
    double t_end = n ? t[n - 1] : 0;
    event_t *ev = malloc(2 * nbuf * sizeof *ev);
    size_t *site_of = malloc(nbuf * sizeof *site_of), *order = malloc(nbuf * sizeof *order);
    int rc = -ENOMEM;
    if (!ev || !site_of || !order)
        goto done;
    key_csv = bc;
    key_site = csite;
    key_kind = ck;
    for (size_t i = 0; i < nbuf; i++)
        order[i] = i;
    qsort(order, nbuf, sizeof *order, cmp_row_key);
    size_t nkeys = 0;
    for (size_t r = 0; r < nbuf; r++)
        nkeys += r == 0 || strcmp(row_key(order[r]), row_key(order[r - 1])) != 0;
    if (!(s->v = calloc(nkeys + extra, sizeof *s->v)))
        goto done;
    for (size_t r = 0; r < nbuf; r++) {
        size_t i = order[r];
        if (r == 0 || strcmp(row_key(i), row_key(order[r - 1])) != 0) {
            analyze_site_t *S = &s->v[s->n++];
            snprintf(S->key, sizeof S->key, "%s", row_key(i));
            snprintf(S->label, sizeof S->label, "%s", run_csv_text(bc, i, ck));
            S->in_buffers = true;
        }
        site_of[i] = s->n - 1;
    }
    for (size_t i = 0; i < nbuf; i++) {
        analyze_site_t *S = &s->v[site_of[i]];
        double bytes = run_csv_num(bc, i, cb), ta = run_csv_num(bc, i, cta), tf = run_csv_num(bc, i, ctf);
        S->n++;
        S->bytes_total += bytes;
        if (!isfinite(tf)) {
            S->never_freed += bytes;
            S->n_never++;
            s->never_freed += bytes;
        }
        S->held_gibs += bytes * fmax(0, (isfinite(tf) ? tf : fmax(t_end, ta)) - ta) / 1000.0 / GIB;
    }
    for (size_t k = 0; k < s->n; k++) {
        s->v[k].ev_t = malloc(2 * s->v[k].n * sizeof(double));
        s->v[k].ev_d = malloc(2 * s->v[k].n * sizeof(double));
        if (!s->v[k].ev_t || !s->v[k].ev_d)
            goto done;
    }
    size_t ne = 0;
    for (size_t i = 0; i < nbuf; i++) {
        analyze_site_t *S = &s->v[site_of[i]];
        double bytes = run_csv_num(bc, i, cb), ta = run_csv_num(bc, i, cta), tf = run_csv_num(bc, i, ctf);
        ev[ne++] = (event_t){ta, bytes};
        S->ev_t[S->n_ev] = ta;
        S->ev_d[S->n_ev++] = bytes;
        if (isfinite(tf)) {
            ev[ne++] = (event_t){fmax(tf, ta), -bytes};
            S->ev_t[S->n_ev] = fmax(tf, ta);
            S->ev_d[S->n_ev++] = -bytes;
        }
    }
    qsort(ev, ne, sizeof *ev, cmp_event);
    if (!(s->tracked = malloc((n ? n : 1) * sizeof *s->tracked)))
        goto done;
    double live = 0;
    size_t e = 0;
    for (size_t i = 0; i < n; i++) {
        while (e < ne && ev[e].t <= t[i])
            live += ev[e++].d;
        s->tracked[i] = live;
    }
    rc = 0;
done:
    free(ev);
    free(site_of);
    free(order);
    return rc;
}

int analyze_sites_load(analyze_sites_t *ret, const run_csv_t *bc, const run_csv_t *sic, const double *t, size_t n)
{
    analyze_sites_t s = {0};
    int rc = 0;
    if (bc->nrows > 0)
        rc = group_buffers(&s, bc, sic->nrows, t, n);
    else if (sic->nrows > 0 && !(s.v = calloc(sic->nrows, sizeof *s.v)))
        rc = -ENOMEM;
    if (rc < 0) {
        analyze_sites_free(&s);
        return rc;
    }
    /* sites.csv: names, and never-freed bytes of allocations below the
     * trace threshold (counted there, not in buffers.csv) */
    int cs = run_csv_col(sic, "site"), cnf = run_csv_col(sic, "never_freed_bytes"),
        cbt = run_csv_col(sic, "bytes_total");
    for (size_t i = 0; i < sic->nrows; i++) {
        const char *key = run_csv_text(sic, i, cs);
        size_t k = 0;
        while (k < s.n && strcmp(s.v[k].key, key) != 0 && strcmp(s.v[k].label, key) != 0)
            k++;
        double nf = run_csv_num(sic, i, cnf);
        if (k == s.n) {
            if (!(isfinite(nf) && nf > 0))
                continue;
            snprintf(s.v[k].key, sizeof s.v[k].key, "%s", key);
            snprintf(s.v[k].label, sizeof s.v[k].label, "%s", key);
            s.v[k].bytes_total = run_csv_num(sic, i, cbt);
            s.n++;
        }
        if (isfinite(nf) && nf > s.v[k].never_freed) {
            s.v[k].small_never_freed = nf - s.v[k].never_freed;
            s.never_freed += nf - s.v[k].never_freed;
            s.v[k].never_freed = nf;
        }
    }
    for (size_t k = 0; k < s.n; k++)
        site_names(&s.v[k], sic);
    if (s.n > 1)
        qsort(s.v, s.n, sizeof *s.v, cmp_site);
    *ret = s;
    return 0;
}

int analyze_sites_floors(analyze_sites_t *s, const double *a, const double *b, size_t m)
{
    for (size_t k = 0; k < s->n; k++) {
        analyze_site_t *S = &s->v[k];
        if (!S->in_buffers || m == 0)
            continue;
        event_t *ev = malloc(S->n_ev * sizeof *ev);
        free(S->floors);
        if (!ev || !(S->floors = malloc(m * sizeof *S->floors))) {
            free(ev);
            return -ENOMEM;
        }
        for (size_t e = 0; e < S->n_ev; e++)
            ev[e] = (event_t){S->ev_t[e], S->ev_d[e]};
        qsort(ev, S->n_ev, sizeof *ev, cmp_event);
        /* the lowest value of the step function (live = 0 before the first
         * event) over each interval */
        size_t e = 0;
        double live = 0;
        for (size_t j = 0; j < m; j++) {
            while (e < S->n_ev && ev[e].t <= a[j])
                live += ev[e++].d;
            double mn = live;
            while (e < S->n_ev && ev[e].t <= b[j]) {
                live += ev[e++].d;
                mn = fmin(mn, live);
            }
            S->floors[j] = mn;
        }
        free(ev);
    }
    return 0;
}

void analyze_sites_free(analyze_sites_t *s)
{
    if (!s)
        return;
    for (size_t k = 0; s->v && k < s->n; k++) {
        free(s->v[k].ev_t);
        free(s->v[k].ev_d);
        free(s->v[k].floors);
    }
    free(s->v);
    free(s->tracked);
    memset(s, 0, sizeof *s);
}
