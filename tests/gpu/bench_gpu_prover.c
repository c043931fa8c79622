/*
 * GPU prover benchmark: prints a Markdown table of
 *   Fr NTT 2^20 .. 2^26, data on the device (CUDA events, kernels_ntt_bench)
 *   G1 MSM 2^16 .. 2^26 from host bases and scalars, and with the bases
 *   resident on the device, scalars from pageable and from page-locked
 *   host memory (kernels_host_alloc: sppark's g1_msm_dev takes them so)
 *   G2 MSM 2^16 .. 2^24, the same two ways
 *   H (kernels_compute_h, host arrays in and out) 2^20 .. 2^24
 * each the median of several runs after a warm-up (MSM and H: wall clock
 * around the synchronous call). Inputs are random: scalars uniform below
 * 2^252, bases made on all cores by running sums from random multiples of
 * the generator. Not a test: no assertions.
 *
 *   bench_gpu_prover [--ntt-max L] [--g1-max L] [--g2-max L] [--h-max L]
 *                    [--reps R] [--max-ms MS]
 *
 * An MSM size whose median exceeds MS (default 5000) ends that series. MSM
 * rows carry the phases of the median run (kernels_msm_last_profile).
 * Exits 77 when no CUDA device is present.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kernels.h"
#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fr.h"

#define GEN_BATCH 4096

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rand_fr(fr_t *r, uint64_t *s)
{
    uint64_t l[4];
    for (int i = 0; i < 4; i++)
        l[i] = rng(s);
    l[3] &= 0x0fffffffffffffffull; /* < 2^252 < r: a valid representation */
    memcpy(r, l, sizeof l);
}

struct gen_job {
    int g2;
    void *out;
    size_t lo, hi;
    uint64_t seed;
};

/* out[lo..hi) = S + i Q for random multiples S, Q of the generator. */
static void *gen_thread(void *arg)
{
    struct gen_job *j = arg;
    uint64_t s = j->seed;
    fr_t k1, k2;
    rand_fr(&k1, &s);
    rand_fr(&k2, &s);
    if (!j->g2) {
        g1_jac_t g, acc, q, *buf = malloc(GEN_BATCH * sizeof *buf);
        g1_affine_t qa, *out = j->out;
        g1_jac_from_affine(&g, &G1_GENERATOR);
        g1_jac_mul_fr(&acc, &g, &k1);
        g1_jac_mul_fr(&q, &g, &k2);
        g1_jac_to_affine(&qa, &q);
        for (size_t i = j->lo; i < j->hi; i += GEN_BATCH) {
            size_t m = j->hi - i < GEN_BATCH ? j->hi - i : GEN_BATCH;
            for (size_t t = 0; t < m; t++) {
                buf[t] = acc;
                g1_jac_add_mixed(&acc, &acc, &qa);
            }
            g1_batch_to_affine(out + i, buf, m);
        }
        free(buf);
    } else {
        g2_jac_t g, acc, q, *buf = malloc(GEN_BATCH * sizeof *buf);
        g2_affine_t qa, *out = j->out;
        g2_jac_from_affine(&g, &G2_GENERATOR);
        g2_jac_mul_fr(&acc, &g, &k1);
        g2_jac_mul_fr(&q, &g, &k2);
        g2_jac_to_affine(&qa, &q);
        for (size_t i = j->lo; i < j->hi; i += GEN_BATCH) {
            size_t m = j->hi - i < GEN_BATCH ? j->hi - i : GEN_BATCH;
            for (size_t t = 0; t < m; t++) {
                buf[t] = acc;
                g2_jac_add_mixed(&acc, &acc, &qa);
            }
            g2_batch_to_affine(out + i, buf, m);
        }
        free(buf);
    }
    return NULL;
}

static void *gen_bases(int g2, size_t n)
{
    size_t psz = g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
    void *out = malloc(n * psz);
    long nt = sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1)
        nt = 1;
    if (nt > 256)
        nt = 256;
    pthread_t th[256];
    struct gen_job jobs[256];
    if (!out)
        return NULL;
    for (long t = 0; t < nt; t++) {
        jobs[t].g2 = g2;
        jobs[t].out = out;
        jobs[t].lo = n * (size_t)t / (size_t)nt;
        jobs[t].hi = n * (size_t)(t + 1) / (size_t)nt;
        jobs[t].seed = rng(&rng_state);
        pthread_create(&th[t], NULL, gen_thread, &jobs[t]);
    }
    for (long t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    return out;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int reps_for(unsigned log, int reps)
{
    return log >= 24 ? (reps < 3 ? reps : 3) : reps;
}

/* Median wall time (ms) of kernels_msm / kernels_msm_resident, and the
 * phase profile of the median run in *prof. */
static double max_ms = 5000; /* --max-ms */

static double time_msm(enum kernels_curve curve, const void *bases,
                       const kernels_msm_bases_t *res, const fr_t *sc, size_t n,
                       int reps, struct kernels_msm_profile *prof)
{
    unsigned char out[288];
    double t[16];
    struct kernels_msm_profile pr[16];
    int rc, idx[16];
    for (int r = -1; r < reps; r++) {
        double t0 = now_s();
        rc = res ? kernels_msm_resident(out, res, sc, n, NULL, 0)
                 : kernels_msm(out, curve, bases, n, sc, n, NULL, 0);
        if (rc < 0) {
            fprintf(stderr, "msm n=%zu: %d (%s)\n", n, rc, kernels_last_error());
            return -1;
        }
        if (r < 0 && (now_s() - t0) * 1e3 > 4 * max_ms) {
            /* the warm-up alone says the size does not fit the run */
            fprintf(stderr, "msm n=%zu: warm-up took %.0f ms, not repeated\n", n,
                    (now_s() - t0) * 1e3);
            kernels_msm_last_profile(prof);
            return (now_s() - t0) * 1e3;
        }
        if (r >= 0) {
            t[r] = (now_s() - t0) * 1e3;
            kernels_msm_last_profile(&pr[r]);
            idx[r] = r;
        }
    }
    /* order the run indices by time; the middle one is the median run */
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && t[idx[j]] < t[idx[j - 1]]; j--) {
            int x = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = x;
        }
    *prof = pr[idx[reps / 2]];
    return t[idx[reps / 2]];
}

static void print_msm_row(const char *what, unsigned log, double ms, int reps,
                          const struct kernels_msm_profile *p)
{
    printf("| %s | 2^%u | %.2f | %d | c=%u: %.1f / %.1f / %.1f / %.1f / %.1f / %.1f (%.1f + %.1f + %.1f) |\n",
           what, log, ms, reps, p->window, p->setup_ms, p->digits_ms, p->sort_ms,
           p->bases_ms, p->buckets_ms, p->reduce_ms, p->segments_ms, p->groups_ms, p->final_ms);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    unsigned ntt_max = 26, g1_max = 26, g2_max = 24, h_max = 24;
    int reps = 5, count = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--ntt-max"))
            ntt_max = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--g1-max"))
            g1_max = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--g2-max"))
            g2_max = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--h-max"))
            h_max = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-ms"))
            max_ms = atof(argv[i + 1]);
    }
    if (reps < 1 || reps > 15)
        reps = 5;
    if (kernels_device_count(&count) < 0 || count == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    struct kernels_device_props p;
    if (kernels_device_props(0, &p) == 0)
        printf("device: %s, %d SMs, %.1f GiB\n\n", p.name, p.sm_count,
               (double)p.total_mem / (1 << 30));

    printf("| benchmark | size | median ms | runs | MSM phases of the median run, ms: "
           "setup / digits / sort / bases / buckets / reduce (segments + groups + final) |\n"
           "| --- | --- | ---: | ---: | --- |\n");
    fflush(stdout);
    for (unsigned L = 20; L <= ntt_max; L++) {
        double f, ci;
        if (kernels_ntt_bench(L, KERNELS_NTT_FORWARD, reps, &f) < 0 ||
            kernels_ntt_bench(L, KERNELS_NTT_COSET_INVERSE, reps, &ci) < 0) {
            fprintf(stderr, "ntt 2^%u: %s\n", L, kernels_last_error());
            break;
        }
        printf("| Fr NTT forward, on device | 2^%u | %.3f | %d | |\n", L, f, reps);
        printf("| Fr NTT coset inverse, on device | 2^%u | %.3f | %d | |\n", L, ci, reps);
        fflush(stdout);
    }
    kernels_ntt_release();

    size_t nmax = (size_t)1 << (g1_max > g2_max ? g1_max : g2_max);
    if (h_max > 0 && ((size_t)3 << h_max) > nmax)
        nmax = (size_t)3 << h_max; /* H reads three arrays a, b, c */
    fr_t *sc = malloc(nmax * sizeof *sc);
    if (!sc)
        return 1;
    for (size_t i = 0; i < nmax; i++)
        rand_fr(&sc[i], &rng_state);
    /* the same scalars page-locked, for the MSM rows that read them so */
    fr_t *sc_pinned = NULL;
    size_t msm_max = (size_t)1 << (g1_max > g2_max ? g1_max : g2_max);
    if (kernels_host_alloc((void **)&sc_pinned, msm_max * sizeof *sc_pinned) == 0)
        memcpy(sc_pinned, sc, msm_max * sizeof *sc_pinned);
    else
        fprintf(stderr, "kernels_host_alloc: %s: no page-locked rows\n", kernels_last_error());

    for (unsigned L = 20; L <= h_max; L += 2) {
        size_t n = (size_t)1 << L;
        fr_t *h = malloc(n * sizeof *h);
        double t[16];
        int r;
        for (r = -1; r < reps_for(L, reps); r++) {
            double t0 = now_s();
            if (kernels_compute_h(h, sc, sc + n, sc + 2 * n, n) < 0) {
                fprintf(stderr, "h 2^%u: %s\n", L, kernels_last_error());
                break;
            }
            if (r >= 0)
                t[r] = (now_s() - t0) * 1e3;
        }
        free(h);
        if (r < reps_for(L, reps))
            break;
        qsort(t, (size_t)r, sizeof t[0], cmp_d);
        printf("| H (3 x iNTT + coset NTT, coset iNTT), host arrays | 2^%u | %.3f | %d | |\n",
               L, t[r / 2], r);
        fflush(stdout);
        kernels_ntt_release();
    }

    for (int g2 = 0; g2 < 2; g2++) {
        unsigned lmax = g2 ? g2_max : g1_max;
        if (lmax < 16)
            continue;
        size_t n = (size_t)1 << lmax;
        double t0 = now_s();
        void *bases = gen_bases(g2, n);
        if (!bases)
            return 1;
        fprintf(stderr, "%s bases 2^%u made in %.1f s\n", g2 ? "G2" : "G1", lmax,
                now_s() - t0);
        enum kernels_curve curve = g2 ? KERNELS_CURVE_G2 : KERNELS_CURVE_G1;
        struct kernels_msm_profile prof;
        for (unsigned L = 16; L <= lmax; L += 2) {
            double ms = time_msm(curve, bases, NULL, sc, (size_t)1 << L, reps_for(L, reps), &prof);
            if (ms < 0)
                break;
            print_msm_row(g2 ? "G2 MSM, host bases + scalars" : "G1 MSM, host bases + scalars",
                          L, ms, reps_for(L, reps), &prof);
            if (ms > max_ms)
                break; /* the larger sizes would not fit the run */
        }
        kernels_msm_bases_t *res = NULL;
        if (kernels_msm_bases_upload(&res, curve, bases, n) == 0) {
            for (int pinned = 0; pinned < 2; pinned++) {
                const fr_t *src = pinned ? sc_pinned : sc;
                if (!src)
                    continue;
                for (unsigned L = 16; L <= lmax; L += 2) {
                    double ms = time_msm(curve, NULL, res, src, (size_t)1 << L, reps_for(L, reps), &prof);
                    if (ms < 0)
                        break;
                    print_msm_row(pinned ? (g2 ? "G2 MSM, resident bases, page-locked scalars"
                                               : "G1 MSM, resident bases, page-locked scalars")
                                         : (g2 ? "G2 MSM, resident bases, host scalars"
                                               : "G1 MSM, resident bases, host scalars"),
                                  L, ms, reps_for(L, reps), &prof);
                    if (ms > max_ms)
                        break;
                }
            }
            /* scalars that repeat (250 random values, each n/250 times):
             * a few buckets per window get most points, as with a porep
             * witness, where one value repeats about n/250 times; compare
             * with the random page-locked row of the same size */
            if (sc_pinned) {
                fr_t pool[250];
                uint64_t st = 0x243f6a8885a308d3ull;
                for (int k = 0; k < 250; k++)
                    rand_fr(&pool[k], &st);
                fr_t *rep = NULL;
                if (kernels_host_alloc((void **)&rep, n * sizeof *rep) == 0) {
                    for (size_t i = 0; i < n; i++)
                        rep[i] = pool[rng(&st) % 250];
                    for (unsigned L = 16; L <= lmax; L += 2) {
                        double ms = time_msm(curve, NULL, res, rep, (size_t)1 << L, reps_for(L, reps), &prof);
                        if (ms < 0)
                            break;
                        print_msm_row(g2 ? "G2 MSM, resident bases, page-locked scalars, 250 values repeated"
                                         : "G1 MSM, resident bases, page-locked scalars, 250 values repeated",
                                      L, ms, reps_for(L, reps), &prof);
                        if (ms > max_ms)
                            break;
                    }
                    /* a porep witness is mostly bits: scalars 0 and 1 half
                     * and half, then nine in ten bits and one random (issue
                     * 30 item 5: what witness-aware scalars would save) */
                    for (int mix = 0; mix < 2 && !g2; mix++) {
                        for (size_t i = 0; i < n; i++) {
                            if (mix == 1 && rng(&st) % 10 == 0)
                                rand_fr(&rep[i], &st);
                            else
                                fr_from_u64(&rep[i], rng(&st) & 1);
                        }
                        for (unsigned L = 16; L <= lmax; L += 2) {
                            double ms = time_msm(curve, NULL, res, rep, (size_t)1 << L, reps_for(L, reps), &prof);
                            if (ms < 0)
                                break;
                            print_msm_row(mix ? "G1 MSM, resident bases, page-locked scalars, 90% bits 0/1"
                                              : "G1 MSM, resident bases, page-locked scalars, bits 0/1",
                                          L, ms, reps_for(L, reps), &prof);
                            if (ms > max_ms)
                                break;
                        }
                    }
                    kernels_host_free(rep);
                }
            }
            kernels_msm_bases_free(res);
        } else {
            fprintf(stderr, "upload: %s\n", kernels_last_error());
        }
        kernels_msm_release();
        free(bases);
    }
    kernels_host_free(sc_pinned);
    free(sc);
    return 0;
}
