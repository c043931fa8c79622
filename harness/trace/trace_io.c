/*
 * The trace writer (trace_io.h): event lines to PID-N.trace with write(2),
 * small-allocation counters in PID-N.small (a shared file mapping, so the
 * counts survive a SIGKILL), the table of recorded live allocations, the
 * set of sites whose stack was written, the kinds and the module maps.
 * The format is docs/trace-format.md. No malloc, no stdio.
 */
#define _GNU_SOURCE
#include "harness/trace/trace_io.h"
#include "harness/trace/trace_io_impl.h"

#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

__thread int tio_busy __attribute__((tls_model("initial-exec")));
static __thread int tls_kind __attribute__((tls_model("initial-exec")));

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
static int g_pid; /* the process the file was opened for */

void *tio_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, long off)
{
    long r = syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    return r == -1 ? MAP_FAILED : (void *)r;
}

int tio_sys_munmap(void *addr, size_t len)
{
    return (int)syscall(SYS_munmap, addr, len);
}

int tio_cur_kind(void)
{
    return tls_kind;
}

bool tio_file_open(void)
{
    return g_on;
}

bool tio_on(void)
{
    return g_on || g_lazy;
}

/* Opens the files on the first event that needs them; whether they are open. */
bool tio_ensure_open(bool recorded)
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

void tio_put_str(struct tio_line *l, const char *s)
{
    while (*s && l->n < sizeof l->b - 2)
        l->b[l->n++] = *s++;
}

void tio_put_ch(struct tio_line *l, char c)
{
    if (l->n < sizeof l->b - 1)
        l->b[l->n++] = c;
}

void tio_put_u64(struct tio_line *l, uint64_t v)
{
    char tmp[24];
    int i = 0;
    do {
        tmp[i++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (i)
        tio_put_ch(l, tmp[--i]);
}

void tio_put_hex(struct tio_line *l, uint64_t v)
{
    char tmp[20];
    int i = 0;
    do {
        tmp[i++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (i)
        tio_put_ch(l, tmp[--i]);
}

/* A name on one line: no control characters, at most 200 bytes. */
void tio_put_name(struct tio_line *l, const char *s)
{
    for (int i = 0; s[i] && i < 200; i++)
        tio_put_ch(l, (unsigned char)s[i] < 32 ? ' ' : s[i]);
}

void tio_write_line(struct tio_line *l)
{
    tio_put_ch(l, '\n');
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
    struct tio_line l = {.n = 0};
    tio_put_str(&l, "M ");
    size_t len = (size_t)(s + n - s);
    if (len > sizeof l.b - 8)
        len = sizeof l.b - 8;
    memcpy(l.b + l.n, s, len);
    l.n += len;
    tio_write_line(&l);
}

/* Snapshot of /proc/self/maps; caller holds g_maps_lock. */
static void maps_dump(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    g_nranges = 0;
    struct tio_line mark = {.n = 0};
    tio_put_str(&mark, "N ");
    tio_put_u64(&mark, tio_now_ns());
    tio_write_line(&mark);
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
    struct tio_line l = {.n = 0};
    tio_put_str(&l, "K ");
    tio_put_u64(&l, (uint64_t)id);
    tio_put_ch(&l, ' ');
    tio_put_name(&l, g_kinds[id]);
    tio_write_line(&l);
}

void tio_kind(const char *name)
{
    if (!name || !*name) {
        tls_kind = 0;
        return;
    }
    if (!tio_ensure_open(true))
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
    if (!tio_ensure_open(true))
        return;
    struct tio_line l = {.n = 0};
    tio_put_str(&l, "P ");
    tio_put_u64(&l, tio_now_ns());
    tio_put_ch(&l, ' ');
    tio_put_name(&l, name && *name ? name : "mark");
    tio_write_line(&l);
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
__attribute__((noinline)) uint64_t tio_take_stack(int skip)
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
        struct tio_line l = {.n = 0};
        tio_put_str(&l, "S ");
        tio_put_hex(&l, site);
        tio_put_ch(&l, ' ');
        tio_put_u64(&l, (uint64_t)n);
        for (int i = 0; i < n; i++) {
            tio_put_ch(&l, ' ');
            tio_put_hex(&l, frames[i]);
        }
        tio_write_line(&l);
    }
    return site;
}

void tio_a_line(uintptr_t ptr, uint64_t bytes, uint64_t site, int kind, int cls, int device)
{
    struct tio_line l = {.n = 0};
    tio_put_str(&l, "A ");
    tio_put_u64(&l, tio_now_ns());
    tio_put_ch(&l, ' ');
    tio_put_hex(&l, ptr);
    tio_put_ch(&l, ' ');
    tio_put_u64(&l, bytes);
    tio_put_ch(&l, ' ');
    tio_put_hex(&l, site);
    tio_put_ch(&l, ' ');
    tio_put_u64(&l, (uint64_t)kind);
    tio_put_ch(&l, ' ');
    tio_put_ch(&l, (char)cls);
    if (cls == TIO_GPU)
        tio_put_u64(&l, (uint64_t)(device < 0 ? 0 : device));
    tio_write_line(&l);
}

void tio_f_line(uintptr_t ptr, int cls)
{
    struct tio_line l = {.n = 0};
    tio_put_str(&l, "F ");
    tio_put_u64(&l, tio_now_ns());
    tio_put_ch(&l, ' ');
    tio_put_hex(&l, ptr);
    tio_put_ch(&l, ' ');
    tio_put_ch(&l, (char)cls);
    tio_write_line(&l);
}

void tio_alloc(uintptr_t ptr, uint64_t bytes, int cls, int device, int skip)
{
    if (!tio_ensure_open(true))
        return;
    uint64_t site = tio_take_stack(skip);
    uintptr_t key = cls == TIO_GPU ? (uintptr_t)TIO_GPU + 256u * (uintptr_t)(device + 1) : (uintptr_t)cls;
    if (!live_insert(ptr, key))
        return;
    if (cls == TIO_SAMPLED) {
        __atomic_add_fetch(&tio_sfilter[tio_sfilter_slot(ptr)], 1, __ATOMIC_RELAXED);
        __atomic_add_fetch(&tio_nsampled, 1, __ATOMIC_RELAXED);
    }
    tio_a_line(ptr, bytes, site, tls_kind, cls, device);
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
    tio_f_line(ptr, cls);
    return true;
}

static void w_line(void)
{
    struct tio_line l = {.n = 0};
    tio_put_str(&l, "W static-allocator ");
    tio_put_name(&l, g_static_alloc);
    tio_write_line(&l);
}

void tio_note_static_allocator(const char *where)
{
    bool was_open = g_on;
    strncpy(g_static_alloc, where && *where ? where : "?", sizeof g_static_alloc - 1);
    if (was_open)
        w_line();
    else
        tio_ensure_open(true); /* open_files writes the W line */
}

/* ---- files ---- */

static int open_files(void)
{
    char path[PATH_MAX];
    int pid = (int)getpid();
    int fd = -1;
    unsigned n;
    struct tio_line name = {.n = 0};
    for (n = 0; n < 10000; n++) {
        name.n = 0;
        tio_put_str(&name, g_dir);
        tio_put_ch(&name, '/');
        tio_put_u64(&name, (uint64_t)pid);
        tio_put_ch(&name, '-');
        tio_put_u64(&name, n);
        tio_put_str(&name, g_suffix);
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
        if (tio_small_create(path, g_min) < 0) {
            close(fd);
            return -ENOSPC;
        }
    }
    g_fd = fd;
    g_pid = pid;
    g_on = 1;
    struct tio_line l = {.n = 0};
    char exe[PATH_MAX];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = 0;
    tio_put_str(&l, "Z 2 ");
    tio_put_u64(&l, (uint64_t)pid);
    tio_put_ch(&l, ' ');
    tio_put_u64(&l, (uint64_t)getppid());
    tio_put_ch(&l, ' ');
    tio_put_u64(&l, g_min);
    tio_put_ch(&l, ' ');
    tio_put_u64(&l, TIO_SAMPLE_PERIOD);
    tio_put_ch(&l, ' ');
    tio_put_u64(&l, tio_now_ns());
    tio_put_ch(&l, ' ');
    tio_put_name(&l, exe);
    tio_write_line(&l);
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
    tio_ranges_lock();
    tio_small_lock();
    pthread_mutex_lock(&g_maps_lock);
    for (int s = 0; s < LIVE_STRIPES; s++)
        pthread_mutex_lock(&g_live[s].lock);
}

void tio_fork_parent(void)
{
    for (int s = LIVE_STRIPES - 1; s >= 0; s--)
        pthread_mutex_unlock(&g_live[s].lock);
    pthread_mutex_unlock(&g_maps_lock);
    tio_small_unlock();
    tio_ranges_unlock();
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
    tio_small_drop(); /* the child's one thread takes the first stripe of its fresh table */
    if (!was_on)
        return;
    /* the child's allocations and stacks go to its own file, made at its
     * first recorded event; what it inherited belongs to the parent's record */
    live_clear();
    tio_ranges_clear();
    tio_nsampled = 0;
    memset(tio_sfilter, 0, sizeof tio_sfilter);
    if (g_seen)
        memset(g_seen, 0, SEEN_SLOTS * sizeof(uint64_t));
    g_lazy = 2;
}

void tio_exit(void)
{
    /* a vfork child shares the parent's memory and fd: its _exit is not the
     * parent's exit */
    if (!g_on || (int)getpid() != g_pid)
        return;
    struct tio_line l = {.n = 0};
    tio_put_str(&l, "X ");
    tio_put_u64(&l, tio_now_ns());
    tio_write_line(&l);
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
