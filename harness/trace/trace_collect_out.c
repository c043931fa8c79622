/*
 * The collector's output (trace_collect_impl.h): each site's label (the
 * frames that tell it from every other site), buffers.csv, sites.csv and
 * the programs' marks, in the formats of docs/trace-format.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/trace/trace_collect_impl.h"

void tc_csv_field(FILE *f, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static int cmp_buf(const void *a, const void *b)
{
    const struct tbuf *x = a, *y = b;
    return x->t_alloc < y->t_alloc ? -1 : x->t_alloc > y->t_alloc;
}

static int cmp_mark(const void *a, const void *b)
{
    const struct tmark *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

static const struct tsite *g_sort_sites;

/* never-freed bytes: the recorded ones exactly, the sampled ones estimated */
static uint64_t site_never_freed(const struct tsite *s)
{
    return s->allocator ? 0 : s->never_freed + (uint64_t)llround(s->never_freed_sampled_est);
}

static int cmp_site_idx(const void *a, const void *b)
{
    const struct tsite *x = &g_sort_sites[*(const size_t *)a], *y = &g_sort_sites[*(const size_t *)b];
    uint64_t nx = site_never_freed(x), ny = site_never_freed(y);
    if (x->allocator != y->allocator)
        return x->allocator ? 1 : -1;
    if (nx != ny)
        return nx > ny ? -1 : 1;
    uint64_t bx = x->bytes_total + x->bytes_small, by = y->bytes_total + y->bytes_small;
    if (bx != by)
        return bx > by ? -1 : 1;
    return strcmp(x->key, y->key);
}

static int cmp_key_idx(const void *a, const void *b)
{
    return strcmp(g_sort_sites[*(const size_t *)a].key, g_sort_sites[*(const size_t *)b].key);
}

/* frames two keys share from the start */
static size_t key_lcp(const char *a, const char *b)
{
    size_t n = 0;
    for (;; a++, b++) {
        if (*a != *b) /* one key ending where the other's next frame starts shares that frame too */
            return (*a == 0 && *b == '\x01') || (*a == '\x01' && *b == 0) ? n + 1 : n;
        if (*a == 0)
            return n + 1;
        if (*a == '\x01')
            n++;
    }
}

static size_t key_frames(const char *k)
{
    size_t n = 1;
    for (; *k; k++)
        n += *k == '\x01';
    return n;
}

/* Each site's label: its first frames joined by "<-" (callee first), as
 * many as tell it from every other site (the neighbours in key order
 * share the most); cut past 255 bytes only with the key's hash appended. */
static int label_sites(struct collect *c)
{
    size_t *order = malloc((c->nsites ? c->nsites : 1) * sizeof *order);
    if (!order)
        return -ENOMEM;
    for (size_t i = 0; i < c->nsites; i++)
        order[i] = i;
    g_sort_sites = c->sites;
    qsort(order, c->nsites, sizeof *order, cmp_key_idx);
    /* a calling address's small counters (one frame) go to the stack that
     * starts there when exactly one does: those keys follow it in order */
    size_t live = 0;
    for (size_t k = 0; k < c->nsites; k++) {
        struct tsite *S = &c->sites[order[k]];
        size_t len = strlen(S->key);
        if (!S->n_allocs && !S->n_sampled && S->n_small && !strchr(S->key, '\x01') && k + 1 < c->nsites) {
            const char *next = c->sites[order[k + 1]].key;
            bool one = strncmp(next, S->key, len) == 0 && next[len] == '\x01' &&
                       (k + 2 >= c->nsites || strncmp(c->sites[order[k + 2]].key, S->key, len) != 0 ||
                        c->sites[order[k + 2]].key[len] != '\x01');
            if (one) {
                c->sites[order[k + 1]].n_small += S->n_small;
                c->sites[order[k + 1]].bytes_small += S->bytes_small;
                S->merged = true;
                continue;
            }
        }
        order[live++] = order[k];
    }
    for (size_t k = 0; k < live; k++) {
        struct tsite *S = &c->sites[order[k]];
        size_t need = 0;
        if (k > 0)
            need = key_lcp(S->key, c->sites[order[k - 1]].key);
        if (k + 1 < live) {
            size_t l = key_lcp(S->key, c->sites[order[k + 1]].key);
            need = l > need ? l : need;
        }
        size_t nf = key_frames(S->key), depth = need + 1 < nf ? need + 1 : nf;
        char buf[4096];
        size_t n = 0, f = 0;
        for (const char *q = S->key; *q && n + 3 < sizeof buf; q++) {
            if (*q == '\x01') {
                if (++f >= depth)
                    break;
                buf[n++] = '<';
                buf[n++] = '-';
            } else {
                buf[n++] = *q;
            }
        }
        buf[n] = 0;
        if (n < sizeof S->label)
            memcpy(S->label, buf, n + 1);
        else
            snprintf(S->label, sizeof S->label, "%.*s#%016" PRIx64, (int)sizeof S->label - 18, buf, tc_str_hash(S->key));
    }
    free(order);
    return 0;
}

/* on the run's clock; what the command did before watch's t0 counts as 0 */
static double ms(uint64_t t_ns, double t0)
{
    double v = (double)t_ns / 1e6 - t0 * 1e3;
    return v > 0 ? v : 0;
}

int tc_write_outputs(struct collect *c, const char *run_dir, double t0, bool marks,
                         struct trace_collect_summary *sum, char *err, size_t errlen)
{
    if (t0 < 0) /* no clock origin known: the first traced process's start */
        t0 = (double)c->t_first / 1e9;
    if (label_sites(c) < 0) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    qsort(c->bufs, c->nbufs, sizeof *c->bufs, cmp_buf);
    qsort(c->marks, c->nmarks, sizeof *c->marks, cmp_mark);
    FILE *f = tc_open_out(run_dir, "buffers.csv", "w", err, errlen);
    if (!f)
        return -EIO;
    fputs("id,kind,device,proof,partition,bytes,t_alloc_ms,t_free_ms,t_last_use_ms,site\n", f);
    size_t m = 0, id = 0;
    for (size_t i = 0; i < c->nbufs; i++) {
        const struct tbuf *b = &c->bufs[i];
        const struct tsite *s = &c->sites[b->site];
        if (b->cls == 'a') { /* the allocator's own: its overhead, not a buffer of the program */
            sum->allocator_bytes += b->t_free ? 0 : b->bytes;
            continue;
        }
        if (b->cls == 's') { /* sampled: estimated per site in sites.csv */
            sum->heap_live_bytes += b->t_free ? 0 : (uint64_t)llround(b->weight);
            continue;
        }
        if (b->cls == 'h' && !b->t_free)
            sum->heap_live_bytes += b->bytes;
        while (m < c->nmarks && c->marks[m].t <= b->t_alloc)
            m++;
        char proof[24] = "", dev[24] = "host", tfree[32] = "";
        if (c->nmarks)
            snprintf(proof, sizeof proof, "%zu", m);
        if (b->device >= 0)
            snprintf(dev, sizeof dev, "gpu%d", b->device);
        if (b->t_free)
            snprintf(tfree, sizeof tfree, "%.3f", ms(b->t_free, t0));
        fprintf(f, "%zu,%s,%s,%s,,%" PRIu64 ",%.3f,%s,,%s\n", ++id, b->kind ? c->kinds[b->kind - 1] : s->label,
                dev, proof, b->bytes, ms(b->t_alloc, t0), tfree, s->label);
        sum->never_freed_bytes += b->t_free ? 0 : b->bytes;
    }
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s/buffers.csv: %s", run_dir, strerror(errno));
        return -EIO;
    }
    sum->n_buffers = id;

    size_t *order = malloc((c->nsites ? c->nsites : 1) * sizeof *order);
    if (!order) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; i < c->nsites; i++)
        order[i] = i;
    g_sort_sites = c->sites;
    qsort(order, c->nsites, sizeof *order, cmp_site_idx);
    f = tc_open_out(run_dir, "sites.csv", "w", err, errlen);
    if (!f) {
        free(order);
        return -EIO;
    }
    fputs("site,function,file,line,module,frames,n_allocs,bytes_total,n_small,bytes_small,never_freed_bytes,"
          "n_sampled,bytes_sampled_est,never_freed_sampled_est,allocator_live_bytes\n", f);
    size_t nrows = 0;
    for (size_t k = 0; k < c->nsites; k++) {
        const struct tsite *s = &c->sites[order[k]];
        if (s->merged)
            continue;
        nrows++;
        fprintf(f, "%s,", s->label);
        tc_csv_field(f, s->function);
        fputc(',', f);
        tc_csv_field(f, s->file);
        fputc(',', f);
        if (s->line)
            fprintf(f, "%d", s->line);
        fputc(',', f);
        tc_csv_field(f, s->module);
        fputc(',', f);
        for (const char *q = s->key; *q; q++) /* the frames, ';'-joined */
            fputc(*q == '\x01' ? ';' : *q == '"' || *q == ',' ? '_' : *q, f);
        uint64_t nf = site_never_freed(s), live = s->allocator ? s->never_freed : 0;
        fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.0f,%.0f,%" PRIu64 "\n",
                s->n_allocs, s->bytes_total, s->n_small, s->bytes_small, nf, s->n_sampled, s->sampled_est,
                s->never_freed_sampled_est, live);
        if (nf && sum->n_top < TRACE_COLLECT_TOP) {
            snprintf(sum->top[sum->n_top].site, sizeof sum->top[0].site, "%s", s->label);
            sum->top[sum->n_top].never_freed_bytes = nf;
            sum->top[sum->n_top].n_never_freed = s->n_never_freed;
            sum->top[sum->n_top].estimated = s->never_freed_sampled_est > 0;
            sum->n_top++;
        }
        sum->sampled_never_freed_est += s->allocator ? 0 : s->never_freed_sampled_est;
    }
    free(order);
    if (fclose(f) != 0) {
        snprintf(err, errlen, "cannot write %s/sites.csv: %s", run_dir, strerror(errno));
        return -EIO;
    }
    sum->n_sites = nrows;

    if (c->nmarks && marks) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/marks.csv", run_dir);
        bool fresh = access(path, F_OK) != 0;
        f = tc_open_out(run_dir, "marks.csv", "a", err, errlen);
        if (!f)
            return -EIO;
        if (fresh)
            fputs("t_ms,pid,source,name\n", f);
        for (size_t i = 0; i < c->nmarks; i++) {
            fprintf(f, "%.3f,%d,api,", ms(c->marks[i].t, t0), c->marks[i].pid);
            tc_csv_field(f, c->marks[i].name);
            fputc('\n', f);
        }
        if (fclose(f) != 0) {
            snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
            return -EIO;
        }
    }
    sum->n_marks = c->nmarks;
    return 0;
}

