/*
 * The small-allocation side of the trace writer (trace_io.h): the per-caller
 * counters in PID-N.small (layout 2 of docs/trace-format.md: a stripe per
 * counting thread, reserved in the file when its thread first counts) and
 * the Poisson sampler that picks small blocks to record with their stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness/trace/trace_io.h"
#include "harness/trace/trace_io_impl.h"

static __thread unsigned tls_stripe __attribute__((tls_model("initial-exec")));

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
    if (!tio_ensure_open(false))
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

int tio_small_create(const char *path, uint64_t min)
{
    int sfd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    char *m = MAP_FAILED;
    /* the header and keys reserved now, each stripe when a thread first
     * counts (small_stripe_ready): a full disk fails there, never as
     * SIGBUS later; the mapping spans every stripe, only reserved ones
     * are touched */
    if (sfd >= 0 && posix_fallocate(sfd, 0, (off_t)SMALL_STRIPES_OFF) == 0)
        m = tio_sys_mmap(NULL, small_len(), PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
    if (m == MAP_FAILED) {
        if (sfd >= 0)
            close(sfd);
        unlink(path);
        return -ENOSPC;
    }
    int high = fcntl(sfd, F_DUPFD_CLOEXEC, 900); /* out of the program's way, as the trace fd */
    if (high >= 0) {
        close(sfd);
        sfd = high;
    }
    struct small_hdr *h = (struct small_hdr *)m;
    memcpy(h->magic, "ZKTSMAL2", 8);
    h->nslots = SMALL_SLOTS;
    h->nstripes = 0;
    h->min = min;
    h->keys_off = SMALL_KEYS_OFF;
    h->stripes_off = SMALL_STRIPES_OFF;
    g_small = m;
    g_small_len = small_len();
    g_small_fd = sfd;
    return 0;
}

void tio_small_drop(void)
{
    if (g_small)
        tio_sys_munmap(g_small, g_small_len);
    g_small = NULL;
    if (g_small_fd >= 0)
        close(g_small_fd);
    g_small_fd = -1;
    g_next_stripe = 0;
    tls_stripe = 0;
}

void tio_small_lock(void)
{
    pthread_mutex_lock(&g_small_lock);
}

void tio_small_unlock(void)
{
    pthread_mutex_unlock(&g_small_lock);
}
