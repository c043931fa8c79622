/*
 * `zkbench watch --trace`'s collector (trace_collect.h): pairs each traced
 * process's A and F lines into buffers, resolves the sites' stacks
 * (trace_symbols.h) to the first frame outside the tracer, the allocator and
 * allocation wrappers, adds the small-allocation counters, and writes the
 * run's CSV files. The file format is docs/trace-format.md.
 */
#define _GNU_SOURCE
#include "harness/trace/trace_collect.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/trace/trace_collect_impl.h"
#include "harness/trace/trace_symbols.h"


static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    void *q = realloc(*p, c * size);
    if (!q)
        return -ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

uint64_t tc_str_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* The site of key (made on first use); SIZE_MAX when out of memory. */
static size_t site_of(struct collect *c, const char *key, const struct trace_frame *fr)
{
    if (2 * (c->nsites + 1) > c->cap_index) {
        size_t cap = c->cap_index ? 2 * c->cap_index : 1024;
        size_t *t = calloc(cap, sizeof *t);
        if (!t)
            return SIZE_MAX;
        for (size_t i = 0; i < c->nsites; i++) {
            size_t j = tc_str_hash(c->sites[i].key) & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = i + 1;
        }
        free(c->site_index);
        c->site_index = t;
        c->cap_index = cap;
    }
    size_t j = tc_str_hash(key) & (c->cap_index - 1);
    while (c->site_index[j]) {
        struct tsite *s = &c->sites[c->site_index[j] - 1];
        if (strcmp(s->key, key) == 0)
            return c->site_index[j] - 1;
        j = (j + 1) & (c->cap_index - 1);
    }
    if (grow((void **)&c->sites, &c->capsites, c->nsites, sizeof *c->sites) < 0)
        return SIZE_MAX;
    struct tsite *s = &c->sites[c->nsites];
    memset(s, 0, sizeof *s);
    if (!(s->key = strdup(key)))
        return SIZE_MAX;
    if (fr) {
        s->function = fr->function ? strdup(fr->function) : NULL;
        s->file = fr->file ? strdup(fr->file) : NULL;
        s->module = strdup(fr->module);
        s->line = fr->line;
    }
    c->site_index[j] = ++c->nsites;
    return c->nsites - 1;
}

static size_t kind_of(struct collect *c, const char *name)
{
    for (size_t i = 0; i < c->nkinds; i++)
        if (strcmp(c->kinds[i], name) == 0)
            return i + 1;
    if (grow((void **)&c->kinds, &c->capkinds, c->nkinds, sizeof *c->kinds) < 0)
        return 0;
    char *k = strdup(name);
    if (!k)
        return 0;
    trace_syms_sanitize(k);
    c->kinds[c->nkinds++] = k;
    return c->nkinds;
}

/* ---- one process's file ---- */

struct open_ent {
    uint64_t key; /* ptr << 8 | class; 0 empty, UINT64_MAX deleted */
    size_t buf;
};

struct pfile {
    int pid, ppid;
    bool exited;
    char exe[512];
    char *maps;
    size_t maps_len, maps_cap;
    struct stack *stacks;
    size_t nstacks, capstacks;
    size_t *stack_index; /* open addressing by hash: stack + 1, 0 empty */
    size_t cap_stack_index;
    double period;       /* the sampler's mean gap in bytes (format 2), 0 before */
    char allocator[256]; /* the W static-allocator note, "" without */
    size_t kind_map[256]; /* the file's kind id -> kinds index + 1 */
    struct open_ent *open;
    size_t cap_open, used_open;
    uint64_t n_alloc, n_free, never_freed, n_small, bytes_small;
    size_t bad_lines;
};

static size_t open_slot(uint64_t key, size_t cap)
{
    return (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static int open_put(struct pfile *p, uint64_t key, size_t buf)
{
    if (2 * (p->used_open + 1) > p->cap_open) {
        size_t cap = p->cap_open ? 2 * p->cap_open : 1024, live = 0;
        struct open_ent *t = calloc(cap, sizeof *t);
        if (!t)
            return -ENOMEM;
        for (size_t i = 0; i < p->cap_open; i++)
            if (p->open[i].key && p->open[i].key != UINT64_MAX) {
                size_t j = open_slot(p->open[i].key, cap);
                while (t[j].key)
                    j = (j + 1) & (cap - 1);
                t[j] = p->open[i];
                live++;
            }
        free(p->open);
        p->open = t;
        p->cap_open = cap;
        p->used_open = live;
    }
    size_t j = open_slot(key, p->cap_open);
    while (p->open[j].key && p->open[j].key != UINT64_MAX) {
        if (p->open[j].key == key) { /* an address recorded again: the newer one counts */
            p->open[j].buf = buf;
            return 0;
        }
        j = (j + 1) & (p->cap_open - 1);
    }
    if (!p->open[j].key)
        p->used_open++;
    p->open[j].key = key;
    p->open[j].buf = buf;
    return 0;
}

static bool open_take(struct pfile *p, uint64_t key, size_t *buf)
{
    if (!p->cap_open)
        return false;
    size_t j = open_slot(key, p->cap_open);
    while (p->open[j].key) {
        if (p->open[j].key == key) {
            *buf = p->open[j].buf;
            p->open[j].key = UINT64_MAX;
            return true;
        }
        j = (j + 1) & (p->cap_open - 1);
    }
    return false;
}

static struct stack *stack_find(struct pfile *p, uint64_t hash)
{
    if (!p->cap_stack_index)
        return NULL;
    size_t j = (size_t)(hash * 0x9e3779b97f4a7c15ull >> 17) & (p->cap_stack_index - 1);
    for (; p->stack_index[j]; j = (j + 1) & (p->cap_stack_index - 1))
        if (p->stacks[p->stack_index[j] - 1].hash == hash)
            return &p->stacks[p->stack_index[j] - 1];
    return NULL;
}

/* Indexes the newest stack (the S line just read); a stack seen again keeps the first. */
static int stack_index_add(struct pfile *p)
{
    if (2 * p->nstacks > p->cap_stack_index) {
        size_t cap = p->cap_stack_index ? 2 * p->cap_stack_index : 1024;
        size_t *t = calloc(cap, sizeof *t);
        if (!t)
            return -ENOMEM;
        for (size_t i = 0; i + 1 < p->nstacks; i++) {
            size_t j = (size_t)(p->stacks[i].hash * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = i + 1;
        }
        free(p->stack_index);
        p->stack_index = t;
        p->cap_stack_index = cap;
    }
    uint64_t h = p->stacks[p->nstacks - 1].hash;
    if (stack_find(p, h)) {
        p->nstacks--;
        return 0;
    }
    size_t j = (size_t)(h * 0x9e3779b97f4a7c15ull >> 17) & (p->cap_stack_index - 1);
    while (p->stack_index[j])
        j = (j + 1) & (p->cap_stack_index - 1);
    p->stack_index[j] = p->nstacks;
    return 0;
}

/* The functions a program calls to allocate: in a stack, the site is
 * outside the outermost of them (an allocator linked into the program has
 * its own frames between them and sbrk/mmap). */
static bool entry_function(const char *fn)
{
    static const char *const names[] = {"malloc", "calloc", "realloc", "free", "posix_memalign",
                                        "aligned_alloc", "memalign", "valloc", "pvalloc", "reallocarray"};
    /* allocators linked in under their own names (jemalloc prefixed, as Rust's
     * tikv-jemallocator builds it; tcmalloc's and mimalloc's entry points) */
    static const char *const prefixes[] = {"_rjem_", "je_", "tc_malloc", "tc_new", "tc_realloc", "mi_malloc",
                                           "mi_zalloc", "mi_calloc", "mi_realloc", "mi_heap_malloc"};
    if (!fn)
        return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(fn, names[i]) == 0)
            return true;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(fn, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* Resolves a stack to its site: from the first frame outside the tracer,
 * the allocator and allocation wrappers, the frames joined as its key. */
static size_t stack_site(struct collect *c, trace_syms_t *syms, const struct stack *st, bool pinned)
{
    struct trace_frame fr[MAX_FRAMES];
    int first = -1, first_any = -1, entry = -1;
    for (int i = 0; i < st->n; i++) {
        trace_syms_resolve(syms, st->f[i], &fr[i]);
        if (fr[i].function)
            c->symbols = true;
        if (first_any < 0 && !strstr(fr[i].module, "libzkbench-"))
            first_any = i;
        if (!strstr(fr[i].module, "libzkbench-") && entry_function(fr[i].function))
            entry = i;
    }
    for (int i = entry + 1; i < st->n && first < 0; i++)
        if (!fr[i].wrapper && !entry_function(fr[i].function))
            first = i;
    for (int i = 0; i < st->n && first < 0; i++)
        if (!fr[i].wrapper)
            first = i;
    if (first < 0)
        first = first_any;
    if (first < 0)
        return site_of(c, "unknown", NULL);
    char key[4096];
    size_t n = (size_t)snprintf(key, sizeof key, "%s", pinned ? "pinned:" : "");
    for (int i = first; i < st->n && n < sizeof key; i++)
        n += (size_t)snprintf(key + n, sizeof key - n, "%s%s", i > first ? "\x01" : "", fr[i].label);
    return site_of(c, key, &fr[first]);
}

/* Reads PATH.small's counters into the sites. */
static int read_small(struct collect *c, trace_syms_t *syms, struct pfile *p, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : -errno;
    struct {
        char magic[8];
        uint32_t nslots, nstripes;
        uint64_t min;
        uint32_t keys_off, stripes_off;
        uint64_t reserved[4];
    } h;
    int rc = 0;
    uint64_t *keys = NULL, *ctr = NULL;
    /* layout 1: keys right after the 64-byte header, every stripe made up
     * front; layout 2: offsets in the header, nstripes those reserved so far */
    bool v1 = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, "ZKTSMAL1", 8) == 0;
    bool v2 = !v1 && memcmp(h.magic, "ZKTSMAL2", 8) == 0;
    if (v1) {
        h.keys_off = 64;
        h.stripes_off = 64 + 8 * h.nslots;
    }
    if ((!v1 && !v2) || h.nslots == 0 || h.nslots > (1u << 24) || h.nstripes > 64 ||
        h.keys_off < sizeof h || h.stripes_off < h.keys_off + 8ull * h.nslots) {
        rc = -EINVAL;
        goto out;
    }
    if (h.nstripes == 0)
        goto out; /* no thread counted */
    keys = malloc((size_t)h.nslots * sizeof *keys);
    ctr = malloc((size_t)h.nslots * 2 * sizeof *ctr);
    if (!keys || !ctr) {
        rc = -ENOMEM;
        goto out;
    }
    if (fseek(f, h.keys_off, SEEK_SET) != 0 || fread(keys, sizeof *keys, h.nslots, f) != h.nslots ||
        fseek(f, h.stripes_off, SEEK_SET) != 0) {
        rc = -EINVAL;
        goto out;
    }
    uint64_t *sum = calloc((size_t)h.nslots * 2, sizeof *sum);
    if (!sum) {
        rc = -ENOMEM;
        goto out;
    }
    for (uint32_t s = 0; s < h.nstripes && rc == 0; s++) {
        if (fread(ctr, 2 * sizeof *ctr, h.nslots, f) != h.nslots)
            rc = -EINVAL;
        for (uint32_t i = 0; i < h.nslots && rc == 0; i++) {
            sum[2 * i] += ctr[2 * i];
            sum[2 * i + 1] += ctr[2 * i + 1];
        }
    }
    for (uint32_t i = 0; i < h.nslots && rc == 0; i++) {
        if (!keys[i] || !sum[2 * i])
            continue;
        size_t si;
        if (keys[i] == 1) {
            si = site_of(c, "other-small", NULL);
        } else {
            struct trace_frame fr;
            trace_syms_resolve(syms, keys[i], &fr);
            si = site_of(c, fr.label, &fr);
        }
        if (si == SIZE_MAX) {
            rc = -ENOMEM;
            break;
        }
        c->sites[si].n_small += sum[2 * i];
        c->sites[si].bytes_small += sum[2 * i + 1];
        p->n_small += sum[2 * i];
        p->bytes_small += sum[2 * i + 1];
    }
    free(sum);
out:
    free(keys);
    free(ctr);
    fclose(f);
    return rc;
}

/* A's and F's pair up inside the file; the stacks are resolved at the end,
 * when every M line is known. */
struct pending {
    size_t buf;
    uint64_t stack;
    bool pinned;
};

static int read_trace(struct collect *c, const char *dir, const char *name, struct pfile *p, char *err,
                      size_t errlen)
{
    char path[PATH_MAX + 512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -errno;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    size_t lineno = 0;
    int rc = 0;
    struct pending *pend = NULL;
    size_t npend = 0, cappend = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[len - 1] != '\n') { /* cut off by a kill or a full disk */
            p->bad_lines++;
            break;
        }
        line[--len] = 0;
        if (lineno == 1) {
            int off = 0;
            unsigned long long period = 0;
            /* format 1: Z 1 PID PPID MIN T_NS EXE; 2: Z 2 PID PPID MIN PERIOD T_NS EXE */
            if (strncmp(line, "Z 2 ", 4) == 0) {
                if (sscanf(line, "Z 2 %d %d %*u %llu %*u %n", &p->pid, &p->ppid, &period, &off) < 3 || !off ||
                    period == 0)
                    off = 0;
            } else if (sscanf(line, "Z 1 %d %d %*u %*u %n", &p->pid, &p->ppid, &off) < 2) {
                off = 0;
            }
            if (!off) {
                snprintf(err, errlen, "%s: line 1: expected the header 'Z 2 PID PPID MIN PERIOD T_NS EXE' "
                         "(or format 1's 'Z 1 PID PPID MIN T_NS EXE')", path);
                rc = -EINVAL;
                goto out;
            }
            p->period = (double)period;
            {
                unsigned long long tz = 0;
                const char *q = line + 4;
                for (int k = 0; k < (line[2] == '2' ? 4 : 3) && q; k++)
                    q = strchr(q, ' ') ? strchr(q, ' ') + 1 : NULL;
                if (q && sscanf(q, "%llu", &tz) == 1 && tz && (!c->t_first || tz < c->t_first))
                    c->t_first = tz;
            }
            snprintf(p->exe, sizeof p->exe, "%s", line + off);
            continue;
        }
        switch (line[0]) {
        case 'M': {
            if (len < 3 || line[1] != ' ')
                break;
            const char *m = line + 2;
            size_t ml = strlen(m);
            /* the union of the snapshots, each line once */
            bool dup = false;
            for (const char *q = p->maps; q && q < p->maps + p->maps_len && !dup;) {
                const char *e = memchr(q, '\n', (size_t)(p->maps + p->maps_len - q));
                dup = e && (size_t)(e - q) == ml && memcmp(q, m, ml) == 0;
                q = e ? e + 1 : p->maps + p->maps_len;
            }
            if (dup)
                break;
            while (p->maps_len + ml + 2 > p->maps_cap) {
                size_t nc = p->maps_cap ? 2 * p->maps_cap : 65536;
                char *q = realloc(p->maps, nc);
                if (!q) {
                    rc = -ENOMEM;
                    goto oom;
                }
                p->maps = q;
                p->maps_cap = nc;
            }
            memcpy(p->maps + p->maps_len, m, ml);
            p->maps_len += ml;
            p->maps[p->maps_len++] = '\n';
            break;
        }
        case 'S': {
            if (grow((void **)&p->stacks, &p->capstacks, p->nstacks, sizeof *p->stacks) < 0) {
                rc = -ENOMEM;
                goto oom;
            }
            struct stack *st = &p->stacks[p->nstacks];
            char *q = line + 1;
            st->hash = strtoull(q, &q, 16);
            long n = strtol(q, &q, 10);
            if (n < 0 || n > MAX_FRAMES) {
                p->bad_lines++;
                break;
            }
            st->n = 0;
            for (long i = 0; i < n; i++) {
                char *e;
                uint64_t a = strtoull(q, &e, 16);
                if (e == q)
                    break;
                st->f[st->n++] = a;
                q = e;
            }
            p->nstacks++;
            if (stack_index_add(p) < 0) {
                rc = -ENOMEM;
                goto oom;
            }
            break;
        }
        case 'W':
            if (strncmp(line, "W static-allocator ", 19) == 0 && !p->allocator[0])
                snprintf(p->allocator, sizeof p->allocator, "%s", line + 19);
            else if (strncmp(line, "W ", 2) != 0)
                p->bad_lines++;
            break;
        case 'R': {
            unsigned long long t, ptr, nptr, bytes;
            char cls[16];
            size_t bi;
            if (sscanf(line, "R %llu %llx %15s %llx %llu", &t, &ptr, cls, &nptr, &bytes) != 5) {
                p->bad_lines++;
                break;
            }
            /* a mapping trimmed, or the left piece of a split: same buffer, new range */
            if (open_take(p, ptr << 8 | (unsigned char)cls[0], &bi)) {
                c->bufs[bi].bytes = bytes;
                if (open_put(p, nptr << 8 | (unsigned char)cls[0], bi) < 0) {
                    rc = -ENOMEM;
                    goto oom;
                }
            }
            break;
        }
        case 'K': {
            int id, off = 0;
            if (sscanf(line, "K %d %n", &id, &off) < 1 || !off || id <= 0 || id > 255) {
                p->bad_lines++;
                break;
            }
            p->kind_map[id] = kind_of(c, line + off);
            break;
        }
        case 'P': {
            unsigned long long t;
            int off = 0;
            if (sscanf(line, "P %llu %n", &t, &off) < 1 || !off ||
                grow((void **)&c->marks, &c->capmarks, c->nmarks, sizeof *c->marks) < 0) {
                p->bad_lines++;
                break;
            }
            c->marks[c->nmarks].t = t;
            c->marks[c->nmarks].pid = p->pid;
            c->marks[c->nmarks].name = strdup(line + off);
            if (c->marks[c->nmarks].name)
                c->nmarks++;
            break;
        }
        case 'A': {
            unsigned long long t, ptr, bytes, site;
            unsigned kind;
            char cls[16];
            if (sscanf(line, "A %llu %llx %llu %llx %u %15s", &t, &ptr, &bytes, &site, &kind, cls) != 6 ||
                !strchr("hmgpas", cls[0]) || kind > 255) {
                p->bad_lines++;
                break;
            }
            if (grow((void **)&c->bufs, &c->capbufs, c->nbufs, sizeof *c->bufs) < 0 ||
                grow((void **)&pend, &cappend, npend, sizeof *pend) < 0) {
                rc = -ENOMEM;
                goto oom;
            }
            struct tbuf *b = &c->bufs[c->nbufs];
            b->t_alloc = t;
            b->t_free = 0;
            b->bytes = bytes;
            b->kind = kind ? p->kind_map[kind] : 0;
            b->device = cls[0] == 'g' ? atoi(cls + 1) : -1;
            b->site = SIZE_MAX;
            b->cls = cls[0];
            /* a block picked with probability 1 - exp(-bytes/period) stands for bytes / that */
            b->weight = cls[0] == 's' && p->period > 0 ? (double)bytes / -expm1(-(double)bytes / p->period) : 0;
            pend[npend].buf = c->nbufs;
            pend[npend].stack = site;
            pend[npend].pinned = cls[0] == 'p';
            npend++;
            if (open_put(p, ptr << 8 | (unsigned char)cls[0], c->nbufs) < 0) {
                rc = -ENOMEM;
                goto oom;
            }
            c->nbufs++;
            p->n_alloc++;
            break;
        }
        case 'F': {
            unsigned long long t, ptr;
            char cls[16];
            size_t bi;
            if (sscanf(line, "F %llu %llx %15s", &t, &ptr, cls) != 3) {
                p->bad_lines++;
                break;
            }
            if (open_take(p, ptr << 8 | (unsigned char)cls[0], &bi)) {
                c->bufs[bi].t_free = t ? t : 1;
                p->n_free++;
            }
            break;
        }
        case 'X': p->exited = true; break;
        case 'N': break;
        default: p->bad_lines++; break;
        }
    }
    /* the stacks, now that the module maps are complete */
    {
        trace_syms_t *syms = NULL;
        if (trace_syms_new(&syms, p->maps ? p->maps : "", p->maps_len) < 0) {
            rc = -EIO;
            snprintf(err, errlen, "%s: libdw could not start", path);
            goto out;
        }
        /* one resolution per distinct stack */
        size_t *memo = calloc(p->nstacks ? 2 * p->nstacks : 1, sizeof *memo);
        size_t alloc_site = SIZE_MAX;
        for (size_t i = 0; i < npend; i++) {
            struct tbuf *b = &c->bufs[pend[i].buf];
            struct stack *st = stack_find(p, pend[i].stack);
            size_t si;
            if (b->cls == 'a') { /* the allocator's own mappings: one site per allocator */
                if (alloc_site == SIZE_MAX) {
                    char key[300] = "allocator";
                    struct trace_frame fr = {0};
                    for (int k = 0; st && k < st->n; k++) {
                        trace_syms_resolve(syms, st->f[k], &fr);
                        if (fr.module[0] && !strstr(fr.module, "libzkbench-")) {
                            const char *base = strrchr(fr.module, '/');
                            snprintf(key, sizeof key, "allocator:%s", base ? base + 1 : fr.module);
                            break;
                        }
                    }
                    alloc_site = site_of(c, key, NULL);
                    if (alloc_site != SIZE_MAX)
                        c->sites[alloc_site].allocator = true;
                }
                si = alloc_site;
            } else if (!st) {
                si = site_of(c, "unknown", NULL);
            } else {
                size_t k = (size_t)(st - p->stacks) * 2 + pend[i].pinned;
                si = memo && memo[k] ? memo[k] - 1 : stack_site(c, syms, st, pend[i].pinned);
                if (memo && si != SIZE_MAX)
                    memo[k] = si + 1;
            }
            if (si == SIZE_MAX) {
                rc = -ENOMEM;
                break;
            }
            b->site = si;
            struct tsite *S = &c->sites[si];
            if (b->cls == 's') {
                S->n_sampled++;
                S->sampled_est += b->weight;
                if (!b->t_free)
                    S->never_freed_sampled_est += b->weight;
                continue;
            }
            S->n_allocs++;
            S->bytes_total += b->bytes;
            if (!b->t_free) {
                S->never_freed += b->bytes;
                S->n_never_freed++;
                if (b->cls != 'a')
                    p->never_freed += b->bytes;
            }
        }
        free(memo);
        if (rc == 0) {
            char sp[sizeof path];
            snprintf(sp, sizeof sp, "%s", path);
            char *dot = strrchr(sp, '.');
            if (dot && (size_t)(dot - sp) + 7 < sizeof sp)
                strcpy(dot, ".small");
            int src = read_small(c, syms, p, sp);
            if (src < 0 && src != -ENOMEM)
                p->bad_lines++; /* a torn small table loses the counts, not the run */
            else if (src == -ENOMEM)
                rc = src;
        }
        trace_syms_free(syms);
    }
oom:
    if (rc == -ENOMEM)
        snprintf(err, errlen, "%s: out of memory", path);
out:
    free(pend);
    free(line);
    fclose(f);
    return rc;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

FILE *tc_open_out(const char *dir, const char *name, const char *mode, char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return f;
}

int trace_collect(const char *run_dir, double t0, struct trace_collect_summary *sum, char *err, size_t errlen)
{
    return trace_collect_marks(run_dir, t0, /* marks= */ true, sum, err, errlen);
}

int trace_collect_marks(const char *run_dir, double t0, bool marks, struct trace_collect_summary *sum, char *err,
                        size_t errlen)
{
    memset(sum, 0, sizeof *sum);
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/trace", run_dir);
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot read %s: %s", dir, strerror(errno));
        return -errno;
    }
    char **names = NULL;
    size_t nnames = 0, capnames = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 6 && strcmp(e->d_name + l - 6, ".trace") == 0) {
            if (grow((void **)&names, &capnames, nnames, sizeof *names) < 0 || !(names[nnames] = strdup(e->d_name))) {
                rc = -ENOMEM;
                break;
            }
            nnames++;
        }
    }
    closedir(d);
    if (nnames)
        qsort(names, nnames, sizeof *names, name_cmp);
    struct collect c = {0};
    FILE *idx = rc == 0 ? tc_open_out(dir, "processes.csv", "w", err, errlen) : NULL;
    if (rc == 0 && !idx)
        rc = -EIO;
    if (idx)
        fputs("file,pid,ppid,exited,exe,n_alloc,n_free,never_freed_bytes,n_small,bytes_small,bad_lines,allocator\n", idx);
    for (size_t i = 0; i < nnames && rc == 0; i++) {
        struct pfile p = {0};
        rc = read_trace(&c, dir, names[i], &p, err, errlen);
        if (rc == 0) {
            fprintf(idx, "%s,%d,%d,%d,", names[i], p.pid, p.ppid, p.exited);
            tc_csv_field(idx, p.exe);
            fprintf(idx, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%zu,", p.n_alloc, p.n_free,
                    p.never_freed, p.n_small, p.bytes_small, p.bad_lines);
            if (p.allocator[0]) {
                char note[300];
                snprintf(note, sizeof note, "static:%s", p.allocator);
                tc_csv_field(idx, note);
                if (!c.n_static++)
                    snprintf(c.static_note, sizeof c.static_note, "pid %d (%.100s): malloc is %.120s", p.pid, p.exe,
                             p.allocator);
            }
            fputc('\n', idx);
            sum->n_files++;
            sum->n_killed += !p.exited;
        }
        free(p.maps);
        free(p.stacks);
        free(p.stack_index);
        free(p.open);
    }
    if (idx && fclose(idx) != 0 && rc == 0) {
        snprintf(err, errlen, "cannot write %s/processes.csv: %s", dir, strerror(errno));
        rc = -EIO;
    }
    if (rc == 0)
        rc = tc_write_outputs(&c, run_dir, t0, marks, sum, err, errlen);
    sum->symbols = c.symbols;
    sum->n_static_allocator = c.n_static;
    snprintf(sum->static_allocator, sizeof sum->static_allocator, "%s", c.static_note);
    for (size_t i = 0; i < nnames; i++)
        free(names[i]);
    free(names);
    free(c.bufs);
    for (size_t i = 0; i < c.nsites; i++) {
        free(c.sites[i].key);
        free(c.sites[i].function);
        free(c.sites[i].file);
        free(c.sites[i].module);
    }
    free(c.sites);
    free(c.site_index);
    for (size_t i = 0; i < c.nkinds; i++)
        free(c.kinds[i]);
    free(c.kinds);
    for (size_t i = 0; i < c.nmarks; i++)
        free(c.marks[i].name);
    free(c.marks);
    return rc;
}
