/*
 * Nanoseconds per Fp multiplication: fp_mul against fpx8_mul (8 lanes,
 * AVX-512 IFMA), both as independent products over an array (throughput)
 * and as one dependent chain (latency), best of a few runs. A benchmark,
 * not a test: it asserts nothing.
 */
#include <stdio.h>
#include <time.h>

#include "arith/field/fpx8.h"
#include "tests/common.h"

enum { N = 1024, REPS = 200, RUNS = 5 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static fp_t a[N], b[N];

static double scalar_throughput(void)
{
    double t0 = now_s();
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < N; i++)
            fp_mul(&a[i], &a[i], &b[i]);
    return (now_s() - t0) * 1e9 / (REPS * N);
}

static double scalar_latency(void)
{
    fp_t x = a[0];
    double t0 = now_s();
    for (int r = 0; r < REPS * N; r++)
        fp_mul(&x, &x, &b[r % N]);
    double dt = now_s() - t0;
    a[0] = x;
    return dt * 1e9 / (REPS * N);
}

#if FPX8_HAVE
static fpx8_t va[N / 8], vb[N / 8];

/* va, vb: a and b in lanes (compiled for AVX-512, as the timings are;
 * main is not, and calls them only where the CPU has it) */
FPX8_TARGET static void vector_setup(void)
{
    for (int i = 0; i < N / 8; i++) {
        fpx8_gather(&va[i], a + 8 * i, fpx8_stride(sizeof(fp_t)));
        fpx8_gather(&vb[i], b + 8 * i, fpx8_stride(sizeof(fp_t)));
    }
}

FPX8_TARGET static double vector_throughput(void)
{
    double t0 = now_s();
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < N / 8; i++)
            fpx8_mul(&va[i], &va[i], &vb[i]);
    return (now_s() - t0) * 1e9 / (REPS * N);
}

/* One chain per lane: 8 products per dependent step. */
FPX8_TARGET static double vector_latency(void)
{
    fpx8_t x = va[0];
    double t0 = now_s();
    for (int r = 0; r < REPS * N / 8; r++)
        fpx8_mul(&x, &x, &vb[r % (N / 8)]);
    double dt = now_s() - t0;
    va[0] = x;
    return dt * 1e9 / (REPS * N);
}
#endif

static double best(double (*f)(void))
{
    double m = 0;
    for (int i = 0; i < RUNS; i++) {
        double t = f();
        if (i == 0 || t < m)
            m = t;
    }
    return m;
}

int main(void)
{
    test_init("bench_fpx8");
    for (int i = 0; i < N; i++) {
        test_rand_fp(&a[i]);
        test_rand_fp(&b[i]);
    }
    double st = best(scalar_throughput), sl = best(scalar_latency);
    printf("%-22s %8s %8s\n", "ns per product", "array", "chain");
    printf("%-22s %8.2f %8.2f\n", "fp_mul", st, sl);
#if FPX8_HAVE
    if (fpx8_supported()) {
        vector_setup();
        double vt = best(vector_throughput), vl = best(vector_latency);
        printf("%-22s %8.2f %8.2f\n", "fpx8_mul (per lane)", vt, vl);
        printf("%-22s %8.2f %8.2f\n", "speedup", st / vt, sl / vl);
    }
#endif
    return 0;
}
