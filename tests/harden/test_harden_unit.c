/*
 * Unit tests of the hardening in the prover library (issue 16, defect 11
 * and 12):
 * - mem_alloc refuses sizes whose header and rounding would wrap around
 *   size_t (a tiny buffer for a huge request, before), with no event and
 *   no count;
 * - mem_free of a pointer that is not a live buffer never reads it: a
 *   second free and a pointer into an unmapped page are counted as bad
 *   frees (the old magic check read the header, so the unmapped page
 *   crashed it);
 * - mem_live_snapshot agrees exactly with the event stream: every event
 *   stamped before a snapshot's time is in its counters and none after,
 *   under threads that allocate and free while the snapshots run (the
 *   cause of the flaky batch test: the sampler stamped its row, then read
 *   the counters a while later);
 * - a failing random source is an error, never a loop: rand_bytes retries
 *   EINTR and returns -errno otherwise; proving and batch verification
 *   then fail with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prover/groth16.h"
#include "prover/mem.h"
#include "prover/r1cs.h"
#include "prover/rand.h"
#include "tests/common.h"

/* ---- the event log the sink keeps ---- */

#define MAX_EVENTS (1u << 20)
static struct mem_event *events;
static atomic_uint n_events;

static void sink(void *ctx, const struct mem_event *ev)
{
    (void)ctx;
    unsigned i = atomic_fetch_add(&n_events, 1);
    if (i < MAX_EVENTS)
        events[i] = *ev;
}

static void test_overflow(void)
{
    uint64_t live0 = mem_live_bytes(MEM_KIND_OTHER), a0, f0, a1, f1;
    mem_counts(&a0, &f0);
    unsigned ev0 = atomic_load(&n_events);
    const size_t huge[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 63, SIZE_MAX - 64, SIZE_MAX - 100, SIZE_MAX - 126,
                           SIZE_MAX / 2 + 1};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        errno = 0;
        void *p = mem_alloc(MEM_KIND_OTHER, 0, 0, huge[i]);
        CHECK(p == NULL);
        CHECK(errno == ENOMEM);
        mem_free(p);
        CHECK(mem_calloc(MEM_KIND_OTHER, 0, 0, huge[i]) == NULL);
    }
    mem_counts(&a1, &f1);
    CHECK(a1 == a0 && f1 == f0);
    CHECK(mem_live_bytes(MEM_KIND_OTHER) == live0);
    CHECK(atomic_load(&n_events) == ev0);
    /* and the largest size that is not refused for wrapping still works
     * at a sane size: 0 and 1 bytes */
    void *p = mem_alloc(MEM_KIND_OTHER, 0, 0, 0), *q = mem_alloc(MEM_KIND_OTHER, 0, 0, 1);
    CHECK(p && q && ((uintptr_t)p & 63) == 0);
    mem_free(p);
    mem_free(q);
    CHECK(mem_live_bytes(MEM_KIND_OTHER) == live0);
}

static void test_bad_frees(void)
{
    uint64_t bad0 = mem_bad_frees(), live0 = mem_live_bytes(MEM_KIND_AUX);
    void *p = mem_alloc(MEM_KIND_AUX, 1, 2, 100000);
    CHECK(p != NULL);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == live0 + 100000);
    mem_free(p);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == live0);
    mem_free(p); /* a second free: counted, nothing freed */
    mem_touch(p);
    CHECK(mem_bad_frees() == bad0 + 1);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == live0);

    /* a pointer whose header would lie in an unmapped page: reading it
     * would fault, so a passing call proves it is never read */
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    munmap(m, (size_t)page * 2);
    mem_free(m + 64);
    mem_touch(m + 64);
    mem_free(m + page);
    CHECK(mem_bad_frees() == bad0 + 3);

    /* a static array's pointer, and one inside a live buffer */
    static unsigned char blob[256];
    mem_free(blob + 128);
    void *b = mem_alloc(MEM_KIND_AUX, 0, 0, 4096);
    mem_free((char *)b + 128);
    CHECK(mem_bad_frees() == bad0 + 5);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == live0 + 4096);
    mem_free(b);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == live0);

    /* many live buffers: the set grows and every one frees once */
    enum { N = 3000 };
    void **v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++)
        v[i] = mem_alloc(MEM_KIND_AUX, 0, i, 64 + (size_t)i);
    for (int i = 0; i < N; i += 2)
        mem_free(v[i]);
    for (int i = 1; i < N; i += 2)
        mem_free(v[i]);
    for (int i = 0; i < N; i += 7)
        mem_free(v[i]);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == live0);
    CHECK(mem_bad_frees() == bad0 + 5 + (N + 6) / 7);
    free(v);
}

/* ---- snapshots against events ---- */

#define SNAPS 3000
static atomic_bool churn_stop;

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    void *held[8] = {0};
    while (!atomic_load(&churn_stop) && atomic_load(&n_events) < MAX_EVENTS / 2) {
        seed = seed * 1103515245u + 12345u;
        unsigned k = (seed >> 16) & 7;
        if (held[k]) {
            mem_free(held[k]);
            held[k] = NULL;
        } else {
            held[k] = mem_alloc(MEM_KIND_ABC, 0, (int)k, 1000 + ((seed >> 8) & 0xfff));
        }
    }
    for (int k = 0; k < 8; k++)
        mem_free(held[k]);
    return NULL;
}

static int cmp_ev(const void *a, const void *b)
{
    const struct mem_event *x = a, *y = b;
    return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

static void test_snapshot(void)
{
    uint64_t base[MEM_KIND_COUNT];
    atomic_store(&n_events, 0);
    mem_live_snapshot(base);
    static uint64_t snap_t[SNAPS], snap_abc[SNAPS];
    pthread_t th[3];
    atomic_store(&churn_stop, false);
    for (int i = 0; i < 3; i++)
        pthread_create(&th[i], NULL, churn, (void *)(uintptr_t)(i + 1));
    for (int s = 0; s < SNAPS; s++) {
        uint64_t live[MEM_KIND_COUNT];
        snap_t[s] = mem_live_snapshot(live);
        snap_abc[s] = live[MEM_KIND_ABC];
        if (s % 64 == 0)
            sched_yield();
    }
    atomic_store(&churn_stop, true);
    for (int i = 0; i < 3; i++)
        pthread_join(th[i], NULL);
    unsigned n = atomic_load(&n_events);
    CHECK(n < MAX_EVENTS);
    qsort(events, n, sizeof *events, cmp_ev);
    /* replay: live ABC bytes of every event stamped up to each snapshot */
    uint64_t live = base[MEM_KIND_ABC];
    unsigned e = 0, bad = 0;
    for (int s = 0; s < SNAPS; s++) {
        while (e < n && events[e].t_ns <= snap_t[s]) {
            if (events[e].kind == MEM_KIND_ABC && !events[e].is_use)
                live += events[e].is_free ? (uint64_t)0 - events[e].bytes : events[e].bytes;
            e++;
        }
        if (live != snap_abc[s] && bad++ < 3)
            fprintf(stderr, "snapshot %d at %llu ns: counters %llu B, events up to it %llu B\n", s,
                    (unsigned long long)snap_t[s], (unsigned long long)snap_abc[s], (unsigned long long)live);
    }
    CHECK(bad == 0);
    CHECK(mem_live_bytes(MEM_KIND_ABC) == base[MEM_KIND_ABC]);
    printf("snapshot: %d snapshots against %u events, %u disagreements\n", SNAPS, n, bad);
}

/* ---- a failing random source ---- */

static int fail_errno, eintr_left;
static ssize_t failing(void *buf, size_t len, unsigned flags)
{
    (void)buf, (void)len, (void)flags;
    errno = fail_errno;
    return -1;
}
static ssize_t eintr_then_short(void *buf, size_t len, unsigned flags)
{
    (void)flags;
    if (eintr_left > 0) {
        eintr_left--;
        errno = EINTR;
        return -1;
    }
    memset(buf, 0x11, len > 3 ? 3 : len); /* short reads: 3 bytes at a time */
    return len > 3 ? 3 : (ssize_t)len;
}
static ssize_t no_progress(void *buf, size_t len, unsigned flags)
{
    (void)buf, (void)len, (void)flags;
    return 0;
}

/* x * x = y with y public: the smallest circuit with an input */
static void test_rand(void)
{
    unsigned char b[40];
    fr_t x;
    fail_errno = ENOSYS;
    rand_set_source(failing);
    CHECK(rand_bytes(b, sizeof b) == -ENOSYS);
    CHECK(rand_fr(&x) == -ENOSYS);
    CHECK(rand_fr128(&x) == -ENOSYS);
    fail_errno = EIO;
    CHECK(rand_bytes(b, sizeof b) == -EIO);
    rand_set_source(no_progress);
    CHECK(rand_bytes(b, sizeof b) == -EIO);
    eintr_left = 5;
    rand_set_source(eintr_then_short);
    memset(b, 0, sizeof b);
    CHECK(rand_bytes(b, sizeof b) == 0);
    CHECK(b[0] == 0x11 && b[39] == 0x11);
    rand_set_source(NULL);
    CHECK(rand_bytes(b, sizeof b) == 0);

    /* the prover and the batch verifier pass the error on */
    r1cs_builder_t *bl;
    r1cs_var_t vx, vy;
    CHECK(r1cs_builder_new(&bl) == 0);
    CHECK(r1cs_alloc_input(&vy, bl) == 0);
    CHECK(r1cs_alloc_aux(&vx, bl) == 0);
    fr_t one = FR_ONE;
    r1cs_term_t tx = {vx, one}, ty = {vy, one};
    CHECK(r1cs_enforce(bl, &tx, 1, &tx, 1, &ty, 1) == 0);
    r1cs_t *cs = NULL;
    CHECK(r1cs_builder_finish(&cs, bl) == 0);
    r1cs_builder_free(bl);
    groth16_shape_t *shape;
    groth16_params_t *pk;
    groth16_pvk_t *pvk;
    CHECK(groth16_shape_new(&shape, cs) == 0);
    CHECK(groth16_setup(&pk, shape, 7, 1) == 0);
    CHECK(groth16_pvk_new(&pvk, &pk->vk) == 0);
    fr_t w[3];
    w[0] = FR_ONE;
    fr_from_u64(&w[2], 9);
    fr_sqr(&w[1], &w[2]);
    struct groth16_prove_opts o;
    groth16_prove_opts_default(&o);
    groth16_proof_t proofs[2];
    CHECK(groth16_prove(&proofs[0], pk, shape, w, &o) == 0);
    CHECK(groth16_prove(&proofs[1], pk, shape, w, &o) == 0);
    fr_t inputs[2] = {w[1], w[1]};
    CHECK(groth16_verify_batch(pvk, proofs, inputs, 2, 1) == 1);
    fail_errno = EPERM;
    rand_set_source(failing);
    groth16_proof_t p3;
    CHECK(groth16_prove(&p3, pk, shape, w, &o) == -EPERM);
    CHECK(groth16_verify_batch(pvk, proofs, inputs, 2, 1) < 0);
    CHECK(groth16_verify(pvk, &proofs[0], inputs, 1) == 1); /* one proof needs no randomness */
    rand_set_source(NULL);
    CHECK(groth16_verify_batch(pvk, proofs, inputs, 2, 1) == 1);
    groth16_pvk_free(pvk);
    params_free(pk);
    groth16_shape_free(shape);
    r1cs_free(cs);
}

int main(void)
{
    test_init("harden-unit");
    events = calloc(MAX_EVENTS, sizeof *events);
    CHECK(events != NULL);
    mem_set_sink(sink, NULL);
    test_overflow();
    test_bad_frees();
    test_snapshot();
    mem_set_sink(NULL, NULL);
    test_rand();
    free(events);
    return test_finish();
}
