/*
 * The trace writer (trace_io.h): event lines to PID-N.trace with write(2),
 * small-allocation counters in PID-N.small (a shared file mapping, so the
 * counts survive a SIGKILL), the table of recorded live allocations, the
 * set of sites whose stack was written, the kinds and the module maps.
 * The format is docs/trace-format.md. No malloc, no stdio.
 */
#define _GNU_SOURCE
#include "harness/trace/trace_io.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__thread int tio_busy __attribute__((tls_model("initial-exec")));
static __thread int tls_kind __attribute__((tls_model("initial-exec")));
static __thread unsigned tls_stripe __attribute__((tls_model("initial-exec")));

static int g_fd = -1;
static volatile int g_on; /* the file is open */
/* not open yet: 1 open at the first event, 2 at the first recorded one (a
 * fork child: its small counts before then are dropped, most such children
 * only exec); 0 tracing is off */
static volatile int g_lazy;
static pthread_mutex_t g_open_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_static_alloc[256]; /* where the program's own malloc is, or "" */
static int open_files(void);
static uint64_t g_min = 1u << 20;
static char g_dir[PATH_MAX - 64];
static char g_suffix[16];
static bool g_want_small;

void *tio_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
    long r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    return r == -1 ? MAP_FAILED : (void *)r;
}

int tio_sys_munmap(void *addr, size_t len)
{
    return (int)syscall(SYS_munmap, addr, len);
}

bool tio_on(void)
{
    return g_on || g_lazy;
}

/* Opens the files on the first event that needs them; whether they are open. */
static bool ensure_open(bool recorded)
{
    if (__builtin_expect(g_on, 1))
        return true;
    if (!g_lazy || (g_lazy == 2 && !recorded))
        return false;
    pthread_mutex_lock(&g_open_lock);
    if (!g_on && g_lazy) {
        g_lazy = 0;
        open_files();
    }
    pthread_mutex_unlock(&g_open_lock);
    return g_on;
}

uint64_t tio_min(void)
{
    return g_min;
}

uint64_t tio_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- line building (no stdio) ---- */

struct line {
    char b[1536];
    size_t n;
};

static void put_str(struct line *l, const char *s)
{
    while (*s && l->n < sizeof l->b - 2)
        l->b[l->n++] = *s++;
}

static void put_ch(struct line *l, char c)
{
    if (l->n < sizeof l->b - 1)
        l->b[l->n++] = c;
}

static void put_u64(struct line *l, uint64_t v)
{
    char tmp[24];
    int i = 0;
    do {
        tmp[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (i)
        put_ch(l, tmp[--i]);
}

static void put_hex(struct line *l, uint64_t v)
{
    char tmp[20];
    int i = 0;
    do {
        tmp[i++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (i)
        put_ch(l, tmp[--i]);
}

/* A name on one line: no control characters, at most 200 bytes. */
static void put_name(struct line *l, const char *s)
{
    for (int i = 0; s[i] && i < 200; i++)
        put_ch(l, (unsigned char)s[i] < 32 ? ' ' : s[i]);
}

static void write_line(struct line *l)
{
    put_ch(l, '\n');
    if (!g_on || g_fd < 0)
        return;
    const char *p = l->b;
    size_t left = l->n;
    while (left) {
        ssize_t w = write(g_fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            g_on = 0; /* full disk or any error: stop tracing, never the program */
            g_lazy = 0;
            return;
        }
        p += w;
        left -= (size_t)w;
    }
}

/* ---- module maps ---- */

#define MAX_RANGES 2048
static pthread_mutex_t g_maps_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uintptr_t lo, hi;
} g_ranges[MAX_RANGES];
static int g_nranges;

static uintptr_t parse_hex(const char **s)
{
    uintptr_t v = 0;
    for (;; (*s)++) {
        char c = **s;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return v;
        v = v * 16 + (uintptr_t)d;
    }
}

/* One /proc/self/maps line: file-backed ones are written as M lines,
 * executable ranges remembered. */
static void maps_line(const char *s, size_t n)
{
    const char *path = memchr(s, '/', n);
    if (!path)
        return;
    const char *p = s;
    uintptr_t lo = parse_hex(&p);
    p++;
    uintptr_t hi = parse_hex(&p);
    if (p + 4 < s + n && p[3] == 'x' && g_nranges < MAX_RANGES) {
        g_ranges[g_nranges].lo = lo;
        g_ranges[g_nranges].hi = hi;
        g_nranges++;
    }
    struct line l = {.n = 0};
    put_str(&l, "M ");
    size_t len = (size_t)(s + n - s);
    if (len > sizeof l.b - 8)
        len = sizeof l.b - 8;
    memcpy(l.b + l.n, s, len);
    l.n += len;
    write_line(&l);
}

/* Snapshot of /proc/self/maps; caller holds g_maps_lock. */
static void maps_dump(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    g_nranges = 0;
    struct line mark = {.n = 0};
    put_str(&mark, "N ");
    put_u64(&mark, tio_now_ns());
    write_line(&mark);
    static char buf[65536]; /* under g_maps_lock */
    size_t have = 0;
    for (;;) {
        ssize_t r = read(fd, buf + have, sizeof buf - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
        size_t start = 0;
        for (size_t i = 0; i < have; i++)
            if (buf[i] == '\n') {
                maps_line(buf + start, i - start);
                start = i + 1;
            }
        memmove(buf, buf + start, have - start);
        have -= start;
        if (have == sizeof buf)
            have = 0; /* a line longer than the buffer: drop it */
    }
    close(fd);
}

static bool maps_known(const uintptr_t *frames, int n)
{
    for (int i = 0; i < n; i++) {
        bool in = false;
        for (int j = 0; j < g_nranges && !in; j++)
            in = frames[i] >= g_ranges[j].lo && frames[i] < g_ranges[j].hi;
        if (!in)
            return false;
    }
    return true;
}

/* ---- sites whose stack has been written ---- */

#define SEEN_SLOTS (1u << 16)
static uint64_t *g_seen; /* mmap'd; 0 = empty */

/* true when h was not there (the caller writes its stack) */
static bool seen_insert(uint64_t h)
{
    if (!g_seen)
        return false;
    size_t i = (size_t)(h * 0x9e3779b97f4a7c15ull >> 40) & (SEEN_SLOTS - 1);
    for (unsigned probe = 0; probe < 64; probe++, i = (i + 1) & (SEEN_SLOTS - 1)) {
        uint64_t cur = __atomic_load_n(&g_seen[i], __ATOMIC_ACQUIRE);
        if (cur == h)
            return false;
        if (cur == 0) {
            uint64_t zero = 0;
            if (__atomic_compare_exchange_n(&g_seen[i], &zero, h, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                return true;
            if (zero == h)
                return false;
        }
    }
    return false; /* full: the site's A lines go without a stack */
}

/* ---- kinds ---- */

#define MAX_KINDS 255
static pthread_mutex_t g_kind_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_kinds[MAX_KINDS + 1][64];
static int g_nkinds;

static void kind_line(int id)
{
    struct line l = {.n = 0};
    put_str(&l, "K ");
    put_u64(&l, (uint64_t)id);
    put_ch(&l, ' ');
    put_name(&l, g_kinds[id]);
    write_line(&l);
}

void tio_kind(const char *name)
{
    if (!name || !*name) {
        tls_kind = 0;
        return;
    }
    if (!ensure_open(true))
        return;
    pthread_mutex_lock(&g_kind_lock);
    int id = 0;
    for (int i = 1; i <= g_nkinds && !id; i++)
        if (strncmp(g_kinds[i], name, sizeof g_kinds[i] - 1) == 0)
            id = i;
    if (!id && g_nkinds < MAX_KINDS) {
        id = ++g_nkinds;
        strncpy(g_kinds[id], name, sizeof g_kinds[id] - 1);
        kind_line(id);
    }
    pthread_mutex_unlock(&g_kind_lock);
    tls_kind = id;
}

void tio_mark(const char *name)
{
    if (!ensure_open(true))
        return;
    struct line l = {.n = 0};
    put_str(&l, "P ");
    put_u64(&l, tio_now_ns());
    put_ch(&l, ' ');
    put_name(&l, name && *name ? name : "mark");
    write_line(&l);
}

/* ---- live recorded allocations: 64 stripes of open addressing ---- */

#define LIVE_STRIPES 64
struct live_ent {
    uintptr_t addr;
    uintptr_t cls;
};
static struct {
    pthread_mutex_t lock;
    struct live_ent *t;
    size_t cap, n;
} g_live[LIVE_STRIPES];
static long g_nlive;
uint32_t tio_filter[1u << TIO_FILTER_BITS];

static size_t live_hash(uintptr_t a)
{
    return (size_t)((a >> 4) * 0x9e3779b97f4a7c15ull >> 17);
}

static void live_put(struct live_ent *t, size_t cap, uintptr_t addr, uintptr_t cls)
{
    size_t i = live_hash(addr) & (cap - 1);
    while (t[i].addr)
        i = (i + 1) & (cap - 1);
    t[i].addr = addr;
    t[i].cls = cls;
}

static bool live_insert(uintptr_t addr, uintptr_t cls)
{
    unsigned s = (unsigned)(live_hash(addr) >> 20) & (LIVE_STRIPES - 1);
    bool ok = true;
    pthread_mutex_lock(&g_live[s].lock);
    if (2 * (g_live[s].n + 1) > g_live[s].cap) {
        size_t cap = g_live[s].cap ? 2 * g_live[s].cap : 256;
        struct live_ent *t = tio_sys_mmap(NULL, cap * sizeof *t, PROT_READ | PROT_WRITE,
                                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (t == MAP_FAILED) {
            ok = false;
        } else {
            for (size_t i = 0; i < g_live[s].cap; i++)
                if (g_live[s].t[i].addr)
                    live_put(t, cap, g_live[s].t[i].addr, g_live[s].t[i].cls);
            if (g_live[s].t)
                tio_sys_munmap(g_live[s].t, g_live[s].cap * sizeof *t);
            g_live[s].t = t;
            g_live[s].cap = cap;
        }
    }
    if (ok) {
        live_put(g_live[s].t, g_live[s].cap, addr, cls);
        if (cls != TIO_SAMPLED) /* sampled blocks have their own filter (tio_sfilter) */
            __atomic_add_fetch(&tio_filter[tio_filter_slot(addr)], 1, __ATOMIC_RELAXED);
        g_live[s].n++;
        __atomic_add_fetch(&g_nlive, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&g_live[s].lock);
    return ok;
}

/* Removes addr of cls (backward-shift deletion, no tombstones). */
static bool live_remove(uintptr_t addr, uintptr_t cls)
{
    unsigned s = (unsigned)(live_hash(addr) >> 20) & (LIVE_STRIPES - 1);
    bool found = false;
    pthread_mutex_lock(&g_live[s].lock);
    struct live_ent *t = g_live[s].t;
    size_t cap = g_live[s].cap;
    if (t) {
        size_t i = live_hash(addr) & (cap - 1);
        while (t[i].addr && !(t[i].addr == addr && t[i].cls == cls))
            i = (i + 1) & (cap - 1);
        if (t[i].addr) {
            found = true;
            size_t j = i;
            for (;;) {
                j = (j + 1) & (cap - 1);
                if (!t[j].addr)
                    break;
                size_t k = live_hash(t[j].addr) & (cap - 1);
                /* t[j] stays unless its home k lies cyclically outside (i, j] */
                if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
                    continue;
                t[i] = t[j];
                i = j;
            }
            t[i].addr = 0;
            if (cls != TIO_SAMPLED)
                __atomic_sub_fetch(&tio_filter[tio_filter_slot(addr)], 1, __ATOMIC_RELAXED);
            g_live[s].n--;
            __atomic_sub_fetch(&g_nlive, 1, __ATOMIC_RELAXED);
        }
    }
    pthread_mutex_unlock(&g_live[s].lock);
    return found;
}

bool tio_any_live(void)
{
    return __atomic_load_n(&g_nlive, __ATOMIC_RELAXED) > 0;
}

static void live_clear(void)
{
    for (int s = 0; s < LIVE_STRIPES; s++) {
        if (g_live[s].t)
            memset(g_live[s].t, 0, g_live[s].cap * sizeof *g_live[s].t);
        g_live[s].n = 0;
    }
    g_nlive = 0;
    memset(tio_filter, 0, sizeof tio_filter);
}

/* ---- small allocations: keys and striped counters in PID-N.small ---- */

/* Layout 2 (docs/trace-format.md): a 4 KiB page of header, the keys, then
 * one stripe per counting thread, each reserved in the file (fallocate)
 * when its first thread appears: the file grows with the threads that
 * count, not preallocated for the most. */
#define SMALL_SLOTS (1u << 12)
#define SMALL_STRIPES 16
#define SMALL_KEYS_OFF 4096u
#define SMALL_STRIPES_OFF (SMALL_KEYS_OFF + SMALL_SLOTS * 8u)
#define SMALL_STRIPE_LEN (SMALL_SLOTS * 16u)
static unsigned g_next_stripe;
struct small_hdr {
    char magic[8]; /* "ZKTSMAL2" */
    uint32_t nslots, nstripes; /* nstripes: reserved so far */
    uint64_t min;
    uint32_t keys_off, stripes_off;
    uint64_t reserved[4];
};
struct small_ctr {
    uint64_t count, bytes;
};
static char *g_small; /* the mapping, or NULL */
static size_t g_small_len;
static int g_small_fd = -1;
static pthread_mutex_t g_small_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t small_len(void)
{
    return SMALL_STRIPES_OFF + (size_t)SMALL_STRIPES * SMALL_STRIPE_LEN;
}

/* Stripe st (1-based) backed by the file: true when it is. */
static bool small_stripe_ready(unsigned st)
{
    struct small_hdr *h = (struct small_hdr *)g_small;
    if (__atomic_load_n(&h->nstripes, __ATOMIC_ACQUIRE) >= st)
        return true;
    bool ok = true;
    pthread_mutex_lock(&g_small_lock);
    while (ok && h->nstripes < st) {
        off_t at = (off_t)SMALL_STRIPES_OFF + (off_t)h->nstripes * SMALL_STRIPE_LEN;
        ok = g_small_fd >= 0 && posix_fallocate(g_small_fd, at, SMALL_STRIPE_LEN) == 0;
        if (ok)
            __atomic_store_n(&h->nstripes, h->nstripes + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_small_lock);
    return ok;
}

void tio_small(uintptr_t site, uint64_t bytes)
{
    if (!ensure_open(false))
        return;
    char *m = g_small;
    if (!m)
        return;
    uint64_t *keys = (uint64_t *)(m + SMALL_KEYS_OFF);
    struct small_ctr *ctr = (struct small_ctr *)(m + SMALL_STRIPES_OFF);
    uint64_t key = site ? site : 1;
    size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 40) & (SMALL_SLOTS - 1);
    for (unsigned probe = 0;; probe++, i = (i + 1) & (SMALL_SLOTS - 1)) {
        if (i == 0 && probe < 64)
            continue; /* slot 0 is the overflow's */
        uint64_t cur = __atomic_load_n(&keys[i], __ATOMIC_RELAXED);
        if (cur == key)
            break;
        if (probe >= 64) {
            i = 0; /* table full here: slot 0 holds the overflow (key 1) */
            __atomic_store_n(&keys[0], 1, __ATOMIC_RELAXED);
            break;
        }
        if (cur == 0) {
            uint64_t zero = 0;
            if (__atomic_compare_exchange_n(&keys[i], &zero, key, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED) ||
                zero == key)
                break;
        }
    }
    /* the first SMALL_STRIPES - 1 threads own a stripe each (plain adds: no
     * other thread writes it); later threads share the last one, atomically */
    unsigned st = tls_stripe;
    if (!st) {
        unsigned k = __atomic_add_fetch(&g_next_stripe, 1, __ATOMIC_RELAXED);
        st = k < SMALL_STRIPES ? k : SMALL_STRIPES;
        tls_stripe = small_stripe_ready(st) ? st : UINT_MAX;
        st = tls_stripe;
    }
    if (st == UINT_MAX)
        return; /* its stripe could not be reserved (full disk) */
    struct small_ctr *c = &ctr[(size_t)(st - 1) * SMALL_SLOTS + i];
    if (st < SMALL_STRIPES) {
        __atomic_store_n(&c->count, __atomic_load_n(&c->count, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
        __atomic_store_n(&c->bytes, __atomic_load_n(&c->bytes, __ATOMIC_RELAXED) + bytes, __ATOMIC_RELAXED);
    } else {
        __atomic_add_fetch(&c->count, 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&c->bytes, bytes, __ATOMIC_RELAXED);
    }
}

/* ---- the Poisson sampler of small allocations ---- */

__thread int64_t tio_until __attribute__((tls_model("initial-exec")));
static __thread uint64_t tls_rng __attribute__((tls_model("initial-exec")));
static __thread bool tls_drawn __attribute__((tls_model("initial-exec")));
long tio_nsampled;
uint16_t tio_sfilter[1u << TIO_SFILTER_BITS];
/* An exponential gap of mean TIO_SAMPLE_PERIOD bytes (xorshift64*). */
static int64_t sample_gap(void)
{
    if (!tls_rng)
        tls_rng = (tio_now_ns() ^ ((uint64_t)syscall(SYS_gettid) << 32)) | 1;
    tls_rng ^= tls_rng >> 12;
    tls_rng ^= tls_rng << 25;
    tls_rng ^= tls_rng >> 27;
    double u = (double)((tls_rng * 0x2545f4914f6cdd1dull) >> 11) * 0x1p-53 + 0x1p-54; /* (0, 1) */
    return (int64_t)(-log(u) * TIO_SAMPLE_PERIOD) + 1;
}

/* The countdown ran out: a sample, and the next gap (the thread's first
 * call only draws its first gap). */
bool tio_sample_draw(void)
{
    bool first = !tls_drawn;
    tls_drawn = true;
    tio_until = sample_gap();
    return !first;
}

/* ---- allocation events ---- */

static uint64_t stack_hash(const uintptr_t *f, int n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; i++) {
        h ^= f[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h ? h : 1;
}

/* The calling stack (skip frames left out), its S line written once: the site. */
__attribute__((noinline)) static uint64_t take_stack(int skip)
{
    void *raw[TIO_MAX_FRAMES + 8];
    if (skip < 0 || skip > 6)
        skip = 0;
    skip += 1; /* take_stack itself */
    int n = backtrace(raw, TIO_MAX_FRAMES + skip) - skip;
    if (n < 0)
        n = 0;
    uintptr_t frames[TIO_MAX_FRAMES];
    for (int i = 0; i < n; i++)
        frames[i] = (uintptr_t)raw[i + skip];
    uint64_t site = stack_hash(frames, n);
    if (seen_insert(site)) {
        pthread_mutex_lock(&g_maps_lock);
        if (!maps_known(frames, n))
            maps_dump(); /* a module loaded since the last snapshot */
        pthread_mutex_unlock(&g_maps_lock);
        struct line l = {.n = 0};
        put_str(&l, "S ");
        put_hex(&l, site);
        put_ch(&l, ' ');
        put_u64(&l, (uint64_t)n);
        for (int i = 0; i < n; i++) {
            put_ch(&l, ' ');
            put_hex(&l, frames[i]);
        }
        write_line(&l);
    }
    return site;
}

static void a_line(uintptr_t ptr, uint64_t bytes, uint64_t site, int kind, int cls, int device)
{
    struct line l = {.n = 0};
    put_str(&l, "A ");
    put_u64(&l, tio_now_ns());
    put_ch(&l, ' ');
    put_hex(&l, ptr);
    put_ch(&l, ' ');
    put_u64(&l, bytes);
    put_ch(&l, ' ');
    put_hex(&l, site);
    put_ch(&l, ' ');
    put_u64(&l, (uint64_t)kind);
    put_ch(&l, ' ');
    put_ch(&l, (char)cls);
    if (cls == TIO_GPU)
        put_u64(&l, (uint64_t)(device < 0 ? 0 : device));
    write_line(&l);
}

static void f_line(uintptr_t ptr, int cls)
{
    struct line l = {.n = 0};
    put_str(&l, "F ");
    put_u64(&l, tio_now_ns());
    put_ch(&l, ' ');
    put_hex(&l, ptr);
    put_ch(&l, ' ');
    put_ch(&l, (char)cls);
    write_line(&l);
}

void tio_alloc(uintptr_t ptr, uint64_t bytes, int cls, int device, int skip)
{
    if (!ensure_open(true))
        return;
    uint64_t site = take_stack(skip);
    uintptr_t key = cls == TIO_GPU ? (uintptr_t)TIO_GPU + 256u * (uintptr_t)(device + 1) : (uintptr_t)cls;
    if (!live_insert(ptr, key))
        return;
    if (cls == TIO_SAMPLED) {
        __atomic_add_fetch(&tio_sfilter[tio_sfilter_slot(ptr)], 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&tio_nsampled, 1, __ATOMIC_RELAXED);
    }
    a_line(ptr, bytes, site, tls_kind, cls, device);
}

bool tio_free(uintptr_t ptr, int cls)
{
    if (!g_on)
        return false;
    /* a device pointer is unique across devices (unified addressing), so the
     * class alone decides for GPU frees: try each device's key */
    bool found = false;
    uintptr_t key = (uintptr_t)cls;
    if (cls == TIO_GPU) {
        for (int d = 0; d < 64 && !found; d++)
            found = live_remove(ptr, key = (uintptr_t)TIO_GPU + 256u * (uintptr_t)(d + 1));
    } else {
        found = live_remove(ptr, key);
    }
    if (!found)
        return false;
    if (cls == TIO_SAMPLED) {
        __atomic_sub_fetch(&tio_sfilter[tio_sfilter_slot(ptr)], 1, __ATOMIC_RELAXED);
        __atomic_sub_fetch(&tio_nsampled, 1, __ATOMIC_RELAXED);
    }
    f_line(ptr, cls);
    return true;
}

/* ---- mapped ranges: sorted, disjoint intervals ---- */

struct rng {
    uintptr_t lo, hi;
    uint64_t site;
    uint8_t cls;  /* TIO_MMAP or TIO_ALLOCATOR; 0: a reservation (PROT_NONE), not counted */
    uint8_t kind;
};
static pthread_mutex_t g_rng_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rng *g_rng;
static size_t g_nrng, g_caprng;

static void r_line(uintptr_t old, int cls, uintptr_t lo, uintptr_t hi)
{
    struct line l = {.n = 0};
    put_str(&l, "R ");
    put_u64(&l, tio_now_ns());
    put_ch(&l, ' ');
    put_hex(&l, old);
    put_ch(&l, ' ');
    put_ch(&l, (char)cls);
    put_ch(&l, ' ');
    put_hex(&l, lo);
    put_ch(&l, ' ');
    put_u64(&l, (uint64_t)(hi - lo));
    write_line(&l);
}

/* first interval whose hi > p */
static size_t rng_find(uintptr_t p)
{
    size_t lo = 0, hi = g_nrng;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g_rng[mid].hi <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool rng_insert_at(size_t i, struct rng r)
{
    if (g_nrng == g_caprng) {
        size_t cap = g_caprng ? 2 * g_caprng : 1024;
        struct rng *t = tio_sys_mmap(NULL, cap * sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (t == MAP_FAILED)
            return false;
        if (g_rng) {
            memcpy(t, g_rng, g_nrng * sizeof *t);
            tio_sys_munmap(g_rng, g_caprng * sizeof *t);
        }
        g_rng = t;
        g_caprng = cap;
    }
    memmove(&g_rng[i + 1], &g_rng[i], (g_nrng - i) * sizeof *g_rng);
    g_rng[i] = r;
    g_nrng++;
    return true;
}

static void rng_erase(size_t i)
{
    memmove(&g_rng[i], &g_rng[i + 1], (g_nrng - i - 1) * sizeof *g_rng);
    g_nrng--;
}

/* Cuts [lo, hi) out of every interval; caller holds g_rng_lock. keep_reserved:
 * counted parts inside become reservations (a decommit). */
static void rng_cut(uintptr_t lo, uintptr_t hi, bool keep_reserved)
{
    size_t i = rng_find(lo);
    while (i < g_nrng && g_rng[i].lo < hi) {
        struct rng e = g_rng[i];
        bool counted = e.cls != 0;
        if (lo <= e.lo && e.hi <= hi) { /* covered */
            if (counted)
                f_line(e.lo, e.cls);
            rng_erase(i);
        } else if (lo <= e.lo) { /* head cut */
            g_rng[i].lo = hi;
            if (counted)
                r_line(e.lo, e.cls, hi, e.hi);
            i++;
        } else if (e.hi <= hi) { /* tail cut */
            g_rng[i].hi = lo;
            if (counted)
                r_line(e.lo, e.cls, e.lo, lo);
            i++;
        } else { /* a hole in the middle: two pieces */
            g_rng[i].hi = lo;
            if (counted)
                r_line(e.lo, e.cls, e.lo, lo);
            struct rng right = e;
            right.lo = hi;
            if (rng_insert_at(i + 1, right) && counted)
                a_line(right.lo, right.hi - right.lo, right.site, right.kind, right.cls, 0);
            i += 2;
        }
    }
    if (keep_reserved && hi > lo) {
        /* the cut range stays reserved where it was known */
        struct rng r = {.lo = lo, .hi = hi};
        rng_insert_at(rng_find(lo), r);
    }
}

void tio_map(uintptr_t p, uint64_t len, int cls, bool reserve, int skip)
{
    if (!len || !ensure_open(!reserve))
        return;
    uint64_t site = reserve ? 0 : take_stack(skip);
    pthread_mutex_lock(&g_rng_lock);
    rng_cut(p, p + len, false);
    struct rng r = {.lo = p, .hi = p + len, .site = site, .cls = reserve ? 0 : (uint8_t)cls,
                    .kind = (uint8_t)tls_kind};
    if (rng_insert_at(rng_find(p), r) && !reserve)
        a_line(p, len, site, tls_kind, cls, 0);
    pthread_mutex_unlock(&g_rng_lock);
}

void tio_unmap(uintptr_t p, uint64_t len)
{
    if (!g_on || !len)
        return;
    pthread_mutex_lock(&g_rng_lock);
    rng_cut(p, p + len, false);
    pthread_mutex_unlock(&g_rng_lock);
}

void tio_protect(uintptr_t p, uint64_t len, bool none, int skip)
{
    if (!g_on || !len)
        return;
    uintptr_t hi = p + len;
    pthread_mutex_lock(&g_rng_lock);
    size_t i = rng_find(p);
    bool any_reserved = false, any_counted = false;
    for (size_t j = i; j < g_nrng && g_rng[j].lo < hi; j++) {
        any_reserved |= g_rng[j].cls == 0;
        any_counted |= g_rng[j].cls != 0;
    }
    if (none && any_counted) {
        rng_cut(p, hi, /* keep_reserved= */ true);
    } else if (!none && any_reserved) {
        /* each reserved piece inside [p, hi) becomes a counted mapping */
        uint64_t site = 0;
        bool have_site = false;
        for (size_t j = rng_find(p); j < g_nrng && g_rng[j].lo < hi; j++) {
            if (g_rng[j].cls != 0)
                continue;
            uintptr_t a = g_rng[j].lo > p ? g_rng[j].lo : p, b = g_rng[j].hi < hi ? g_rng[j].hi : hi;
            if (!have_site) {
                site = take_stack(skip); /* only g_maps_lock inside: no order problem */
                have_site = true;
            }
            struct rng e = g_rng[j];
            /* split the reservation around [a, b) and count the middle */
            g_rng[j].hi = a;
            size_t at = j + 1;
            if (e.lo == a) {
                rng_erase(j);
                at = j;
            }
            struct rng c = {.lo = a, .hi = b, .site = site, .cls = TIO_MMAP, .kind = (uint8_t)tls_kind};
            if (!rng_insert_at(at, c))
                break;
            a_line(a, b - a, site, tls_kind, TIO_MMAP, 0);
            j = at;
            if (b < e.hi) {
                struct rng rest = {.lo = b, .hi = e.hi};
                if (!rng_insert_at(at + 1, rest))
                    break;
                j = at + 1;
            }
        }
    }
    pthread_mutex_unlock(&g_rng_lock);
}

void tio_remap(uintptr_t old, uint64_t old_len, uintptr_t p, uint64_t len, int skip)
{
    if (!g_on)
        return;
    (void)skip;
    pthread_mutex_lock(&g_rng_lock);
    size_t i = rng_find(old);
    struct rng e = {0};
    bool had = i < g_nrng && g_rng[i].lo <= old && g_rng[i].cls != 0;
    if (had)
        e = g_rng[i];
    rng_cut(old, old + old_len, false);
    if (had) {
        rng_cut(p, p + len, false);
        struct rng r = {.lo = p, .hi = p + len, .site = e.site, .cls = e.cls, .kind = e.kind};
        if (rng_insert_at(rng_find(p), r))
            a_line(p, len, e.site, e.kind, e.cls, 0);
    }
    pthread_mutex_unlock(&g_rng_lock);
}

static void w_line(void)
{
    struct line l = {.n = 0};
    put_str(&l, "W static-allocator ");
    put_name(&l, g_static_alloc);
    write_line(&l);
}

void tio_note_static_allocator(const char *where)
{
    bool was_open = g_on;
    strncpy(g_static_alloc, where && *where ? where : "?", sizeof g_static_alloc - 1);
    if (was_open)
        w_line();
    else
        ensure_open(true); /* open_files writes the W line */
}

/* ---- files ---- */

static int open_files(void)
{
    char path[PATH_MAX];
    int pid = (int)getpid();
    int fd = -1;
    unsigned n;
    struct line name = {.n = 0};
    for (n = 0; n < 10000; n++) {
        name.n = 0;
        put_str(&name, g_dir);
        put_ch(&name, '/');
        put_u64(&name, (uint64_t)pid);
        put_ch(&name, '-');
        put_u64(&name, n);
        put_str(&name, g_suffix);
        if (name.n + 8 >= sizeof path)
            return -ENAMETOOLONG;
        memcpy(path, name.b, name.n);
        strcpy(path + name.n, ".trace");
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0)
        return -errno;
    /* far from the low numbers a program opens next, so a program that
     * closes fds it does not know gets EBADF here (tracing stops) rather
     * than our lines in a file of its own */
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 900);
    if (high >= 0) {
        close(fd);
        fd = high;
    }
    if (g_want_small) {
        strcpy(path + name.n, ".small");
        int sfd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        size_t len = small_len();
        char *m = MAP_FAILED;
        /* the header and keys reserved now, each stripe when a thread first
         * counts (small_stripe_ready): a full disk fails there, never as
         * SIGBUS later; the mapping spans every stripe, only reserved ones
         * are touched */
        if (sfd >= 0 && posix_fallocate(sfd, 0, (off_t)SMALL_STRIPES_OFF) == 0)
            m = tio_sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
        if (m == MAP_FAILED) {
            if (sfd >= 0)
                close(sfd);
            close(fd);
            unlink(path);
            return -ENOSPC;
        }
        int shigh = fcntl(sfd, F_DUPFD_CLOEXEC, 900);
        if (shigh >= 0) {
            close(sfd);
            sfd = shigh;
        }
        struct small_hdr *h = (struct small_hdr *)m;
        memcpy(h->magic, "ZKTSMAL2", 8);
        h->nslots = SMALL_SLOTS;
        h->nstripes = 0;
        h->min = g_min;
        h->keys_off = SMALL_KEYS_OFF;
        h->stripes_off = SMALL_STRIPES_OFF;
        g_small = m;
        g_small_len = len;
        g_small_fd = sfd;
    }
    g_fd = fd;
    g_on = 1;
    struct line l = {.n = 0};
    char exe[PATH_MAX];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = 0;
    put_str(&l, "Z 2 ");
    put_u64(&l, (uint64_t)pid);
    put_ch(&l, ' ');
    put_u64(&l, (uint64_t)getppid());
    put_ch(&l, ' ');
    put_u64(&l, g_min);
    put_ch(&l, ' ');
    put_u64(&l, TIO_SAMPLE_PERIOD);
    put_ch(&l, ' ');
    put_u64(&l, tio_now_ns());
    put_ch(&l, ' ');
    put_name(&l, exe);
    write_line(&l);
    pthread_mutex_lock(&g_maps_lock);
    maps_dump();
    pthread_mutex_unlock(&g_maps_lock);
    for (int i = 1; i <= g_nkinds; i++)
        kind_line(i);
    if (g_static_alloc[0])
        w_line();
    return 0;
}

int tio_init(const char *suffix, bool small_table)
{
    const char *dir = getenv("ZKBENCH_TRACE_DIR");
    if (!dir || !*dir)
        return -ENOENT;
    if (strlen(dir) >= sizeof g_dir || strlen(suffix) >= sizeof g_suffix)
        return -ENAMETOOLONG;
    strcpy(g_dir, dir);
    strcpy(g_suffix, suffix);
    const char *m = getenv("ZKBENCH_TRACE_MIN");
    if (m && *m) {
        char *end;
        unsigned long long v = strtoull(m, &end, 10);
        if (*end == 0)
            g_min = v;
    }
    g_want_small = small_table;
    for (int s = 0; s < LIVE_STRIPES; s++)
        pthread_mutex_init(&g_live[s].lock, NULL);
    void *seen = tio_sys_mmap(NULL, SEEN_SLOTS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (seen == MAP_FAILED)
        return -ENOMEM;
    g_seen = seen;
    g_lazy = 1; /* the files are made at the first event */
    return 0;
}

void tio_fork_prepare(void)
{
    pthread_mutex_lock(&g_open_lock);
    pthread_mutex_lock(&g_kind_lock);
    pthread_mutex_lock(&g_rng_lock);
    pthread_mutex_lock(&g_small_lock);
    pthread_mutex_lock(&g_maps_lock);
    for (int s = 0; s < LIVE_STRIPES; s++)
        pthread_mutex_lock(&g_live[s].lock);
}

void tio_fork_parent(void)
{
    for (int s = LIVE_STRIPES - 1; s >= 0; s--)
        pthread_mutex_unlock(&g_live[s].lock);
    pthread_mutex_unlock(&g_maps_lock);
    pthread_mutex_unlock(&g_small_lock);
    pthread_mutex_unlock(&g_rng_lock);
    pthread_mutex_unlock(&g_kind_lock);
    pthread_mutex_unlock(&g_open_lock);
}

void tio_after_fork_child(void)
{
    tio_fork_parent();
    bool was_on = g_on || g_lazy;
    g_on = 0;
    g_lazy = 0;
    if (g_fd >= 0)
        close(g_fd);
    g_fd = -1;
    if (g_small)
        tio_sys_munmap(g_small, g_small_len);
    g_small = NULL;
    if (g_small_fd >= 0)
        close(g_small_fd);
    g_small_fd = -1;
    /* the child's one thread takes the first stripe of its fresh table */
    g_next_stripe = 0;
    tls_stripe = 0;
    if (!was_on)
        return;
    /* the child's allocations and stacks go to its own file, made at its
     * first recorded event; what it inherited belongs to the parent's record */
    live_clear();
    g_nrng = 0;
    tio_nsampled = 0;
    memset(tio_sfilter, 0, sizeof tio_sfilter);
    if (g_seen)
        memset(g_seen, 0, SEEN_SLOTS * sizeof(uint64_t));
    g_lazy = 2;
}

void tio_exit(void)
{
    if (!g_on)
        return;
    struct line l = {.n = 0};
    put_str(&l, "X ");
    put_u64(&l, tio_now_ns());
    write_line(&l);
}

/* ---- the fork handlers of a tracing library (tio_atfork) ---- */

static volatile int *fork_ready;

static void atfork_prepare(void)
{
    if (*fork_ready)
        tio_fork_prepare();
}

static void atfork_parent(void)
{
    if (*fork_ready)
        tio_fork_parent();
}

static void atfork_child(void)
{
    if (!*fork_ready)
        return;
    tio_busy = 1;
    tio_after_fork_child();
    *fork_ready = tio_on();
    tio_busy = 0;
}

void tio_atfork(volatile int *ready)
{
    fork_ready = ready;
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}
