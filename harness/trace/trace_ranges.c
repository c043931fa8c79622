/*
 * Mapped ranges of the trace writer (trace_io.h): every recorded mapping
 * and PROT_NONE reservation as sorted, disjoint intervals, so munmap,
 * mremap and mprotect are matched by range (trim, split, commit, decommit;
 * docs/trace-format.md, "What is recorded"). One lock: these follow system
 * calls.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "harness/trace/trace_io.h"
#include "harness/trace/trace_io_impl.h"

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
    struct tio_line l = {.n = 0};
    tio_put_str(&l, "R ");
    tio_put_u64(&l, tio_now_ns());
    tio_put_ch(&l, ' ');
    tio_put_hex(&l, old);
    tio_put_ch(&l, ' ');
    tio_put_ch(&l, (char)cls);
    tio_put_ch(&l, ' ');
    tio_put_hex(&l, lo);
    tio_put_ch(&l, ' ');
    tio_put_u64(&l, (uint64_t)(hi - lo));
    tio_write_line(&l);
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
                tio_f_line(e.lo, e.cls);
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
                tio_a_line(right.lo, right.hi - right.lo, right.site, right.kind, right.cls, 0);
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
    if (!len || !tio_ensure_open(!reserve))
        return;
    uint64_t site = reserve ? 0 : tio_take_stack(skip);
    pthread_mutex_lock(&g_rng_lock);
    rng_cut(p, p + len, false);
    struct rng r = {.lo = p, .hi = p + len, .site = site, .cls = reserve ? 0 : (uint8_t)cls,
                    .kind = (uint8_t)tio_cur_kind()};
    if (rng_insert_at(rng_find(p), r) && !reserve)
        tio_a_line(p, len, site, tio_cur_kind(), cls, 0);
    pthread_mutex_unlock(&g_rng_lock);
}

void tio_unmap(uintptr_t p, uint64_t len)
{
    if (!tio_file_open() || !len)
        return;
    pthread_mutex_lock(&g_rng_lock);
    rng_cut(p, p + len, false);
    pthread_mutex_unlock(&g_rng_lock);
}

void tio_protect(uintptr_t p, uint64_t len, bool none, int cls, int skip)
{
    if (!tio_file_open() || !len)
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
                site = tio_take_stack(skip); /* only g_maps_lock inside: no order problem */
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
            struct rng c = {.lo = a, .hi = b, .site = site, .cls = (uint8_t)cls, .kind = (uint8_t)tio_cur_kind()};
            if (!rng_insert_at(at, c))
                break;
            tio_a_line(a, b - a, site, tio_cur_kind(), cls, 0);
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
    if (!tio_file_open())
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
            tio_a_line(p, len, e.site, e.kind, e.cls, 0);
    }
    pthread_mutex_unlock(&g_rng_lock);
}

void tio_ranges_lock(void)
{
    pthread_mutex_lock(&g_rng_lock);
}

void tio_ranges_unlock(void)
{
    pthread_mutex_unlock(&g_rng_lock);
}

void tio_ranges_clear(void)
{
    g_nrng = 0;
}
