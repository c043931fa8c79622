/*
 * Timings of the Pippenger MSM: G1 at 2^14, 2^16, 2^18 and G2 at 2^14,
 * 2^16 points with uniformly random scalars, at 1 and 2 threads, the best
 * of a few runs. A benchmark, not a test: it asserts nothing.
 * Arguments (optional): a group (g1, g2), a log2 size (up to 20) and a
 * thread count to time just that case, e.g. `bench_msm g1 16 2`; a fourth
 * argument forces the window. ZKB_MSM_SCALAR=1 times the scalar flush.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "prover/msm.h"
#include "tests/common.h"
#include "tests/points.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static fr_t *scalars;
static g1_affine_t *b1;
static g2_affine_t *b2;

/* Best wall seconds of reps runs; *cpu (may be NULL) gets the best CPU
 * seconds of the process, steadier than wall time on a shared machine. */
static double time_one(bool g2, size_t n, unsigned threads, unsigned window, int reps,
                       double *cpu)
{
    struct msm_opts o;
    msm_opts_default(&o);
    o.threads = threads;
    o.window = window;
    double best = 0, best_cpu = 0;
    for (int r = 0; r < reps; r++) {
        g1_jac_t r1;
        g2_jac_t r2;
        double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        int rc = g2 ? msm_g2(&r2, b2, n, scalars, n, NULL, &o)
                    : msm_g1(&r1, b1, n, scalars, n, NULL, &o);
        double dt = clock_s(CLOCK_MONOTONIC) - t0, dc = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (rc < 0)
            return -1;
        if (r == 0 || dt < best)
            best = dt;
        if (r == 0 || dc < best_cpu)
            best_cpu = dc;
    }
    if (cpu)
        *cpu = best_cpu;
    return best;
}

int main(int argc, char **argv)
{
    test_init("bench_msm");
    size_t max_n = (size_t)1 << 20;
    scalars = malloc(max_n * sizeof *scalars);
    if (!scalars)
        return 1;
    for (size_t i = 0; i < max_n; i++)
        test_rand_fr(&scalars[i]);

    if (argc >= 4) {
        bool g2 = strcmp(argv[1], "g2") == 0;
        size_t n = (size_t)1 << atoi(argv[2]);
        if (n > max_n) {
            fprintf(stderr, "bench_msm: at most 2^20 points\n");
            return 1;
        }
        unsigned window = argc >= 5 ? (unsigned)atoi(argv[4]) : 0;
        if (g2)
            b2 = test_rand_g2_points(n);
        else
            b1 = test_rand_g1_points(n);
        double cpu;
        double t = time_one(g2, n, (unsigned)atoi(argv[3]), window, 3, &cpu);
        printf("%s 2^%s threads %s window %u: %.4f s (cpu %.4f s)\n", g2 ? "G2" : "G1", argv[2],
               argv[3], window, t, cpu);
        return 0;
    }

    b1 = test_rand_g1_points((size_t)1 << 18);
    b2 = test_rand_g2_points((size_t)1 << 16);
    printf("%-6s %-6s %10s %10s %8s\n", "group", "log n", "1 thr s", "2 thr s", "speedup");
    static const struct {
        bool g2;
        unsigned log_n;
    } cases[] = {{false, 14}, {false, 16}, {false, 18}, {true, 14}, {true, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = (size_t)1 << cases[i].log_n;
        int reps = cases[i].log_n >= 18 ? 2 : 3;
        double t1 = time_one(cases[i].g2, n, 1, 0, reps, NULL);
        double t2 = time_one(cases[i].g2, n, 2, 0, reps, NULL);
        printf("%-6s %-6u %10.4f %10.4f %8.2f\n", cases[i].g2 ? "G2" : "G1", cases[i].log_n,
               t1, t2, t1 / t2);
    }
    return 0;
}
