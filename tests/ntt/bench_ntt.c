/*
 * Timings of the Fr NTT (forward, inverse, coset forward) at a few sizes
 * and thread counts: the best of several runs, domain with precomputed
 * twiddles. A benchmark, not a test: it asserts nothing. Sizes from the
 * command line as log2 values (default 16 20).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prover/ntt.h"
#include "tests/common.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef int (*ntt_fn)(const ntt_domain_t *, fr_t *, unsigned);

static double best_of(ntt_fn fn, const ntt_domain_t *d, fr_t *a, unsigned threads, int reps)
{
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        if (fn(d, a, threads) < 0)
            return -1;
        double dt = now_s() - t0;
        if (r == 0 || dt < best)
            best = dt;
    }
    return best;
}

int main(int argc, char **argv)
{
    test_init("bench_ntt");
    unsigned logs[8] = {16, 20};
    int nlogs = 2;
    if (argc > 1) {
        nlogs = 0;
        for (int i = 1; i < argc && nlogs < 8; i++)
            logs[nlogs++] = (unsigned)atoi(argv[i]);
    }
    printf("%-8s %-8s %12s %12s %12s\n", "log n", "threads", "forward s", "inverse s",
           "coset s");
    for (int li = 0; li < nlogs; li++) {
        size_t n = (size_t)1 << logs[li];
        ntt_domain_t d;
        if (ntt_domain_init(&d, n, NTT_DOMAIN_TWIDDLES, -1, -1) < 0) {
            fprintf(stderr, "bench_ntt: cannot set up a domain of 2^%u\n", logs[li]);
            return 1;
        }
        fr_t *a = malloc(n * sizeof *a);
        if (!a)
            return 1;
        for (size_t i = 0; i < n; i++)
            test_rand_fr(&a[i]);
        int reps = logs[li] >= 20 ? 3 : 10;
        for (unsigned threads = 1; threads <= 2; threads++) {
            double f = best_of(ntt_forward, &d, a, threads, reps);
            double inv = best_of(ntt_inverse, &d, a, threads, reps);
            double c = best_of(ntt_coset_forward, &d, a, threads, reps);
            printf("%-8u %-8u %12.4f %12.4f %12.4f\n", logs[li], threads, f, inv, c);
        }
        free(a);
        ntt_domain_free(&d);
    }
    return 0;
}
