/*
 * `zkbench bench`: times the BLS12-381 arithmetic the prover is built from
 * and prints a Markdown table with the machine, date, commit and command, as
 * results/ keeps it. Each figure is the median of several timed batches of
 * dependent operations on random inputs (each result feeds the next
 * operation, so the compiler can neither hoist nor drop the work).
 */
#define _GNU_SOURCE
#include "harness/cli/bench_arith.h"
#include "harness/cli/bench_prover.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/sysinfo.h"
#include "kernels/kernels.h"
#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/curve/pairing.h"
#include "arith/field/fp12.h"

#define BENCH_REPEATS 7

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Deterministic inputs: splitmix64 from a fixed seed, reduced into the
 * field by from_limbs on a value below the modulus. */
static uint64_t bench_state = 0x5eed5eed5eed5eedull;
static uint64_t bench_rand(void)
{
    uint64_t z = (bench_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void rand_fp(fp_t *ret)
{
    uint64_t v[6];
    for (int i = 0; i < 6; i++)
        v[i] = bench_rand();
    v[5] &= 0x0fffffffffffffffull; /* below p */
    fp_from_limbs(ret, v);
}

static void rand_fr(fr_t *ret)
{
    uint64_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = bench_rand();
    v[3] &= 0x3fffffffffffffffull; /* below r */
    fr_from_limbs(ret, v);
}

static void rand_fp2(fp2_t *ret)
{
    rand_fp(&ret->c0);
    rand_fp(&ret->c1);
}

static void rand_fp12(fp12_t *ret)
{
    fp2_t *c[6] = {&ret->c0.c0, &ret->c0.c1, &ret->c0.c2,
                   &ret->c1.c0, &ret->c1.c1, &ret->c1.c2};
    for (int i = 0; i < 6; i++)
        rand_fp2(c[i]);
}

/* Inputs shared by the timed bodies; set up once. */
static struct {
    fp_t fa, fb;
    fr_t ra, rb;
    fp2_t f2a, f2b;
    fp12_t f12a, f12b;
    g1_jac_t p1, q1;
    g1_affine_t q1a;
    g1_xyzz_t x1;
    g2_jac_t p2, q2;
    g2_affine_t q2a, g2a;
    g1_affine_t g1a;
    fr_t k;
    fp12_t ml;
} in;

typedef void (*bench_body_fn)(long iters);

static void body_fp_mul(long n)
{
    for (long i = 0; i < n; i++)
        fp_mul(&in.fa, &in.fa, &in.fb);
}
static void body_fp_sqr(long n)
{
    for (long i = 0; i < n; i++)
        fp_sqr(&in.fa, &in.fa);
}
static void body_fp_add(long n)
{
    for (long i = 0; i < n; i++)
        fp_add(&in.fa, &in.fa, &in.fb);
}
static void body_fp_inv(long n)
{
    for (long i = 0; i < n; i++)
        fp_inv(&in.fa, &in.fa);
}
static void body_fr_mul(long n)
{
    for (long i = 0; i < n; i++)
        fr_mul(&in.ra, &in.ra, &in.rb);
}
static void body_fp2_mul(long n)
{
    for (long i = 0; i < n; i++)
        fp2_mul(&in.f2a, &in.f2a, &in.f2b);
}
static void body_fp12_mul(long n)
{
    for (long i = 0; i < n; i++)
        fp12_mul(&in.f12a, &in.f12a, &in.f12b);
}
static void body_g1_add(long n)
{
    for (long i = 0; i < n; i++)
        g1_jac_add(&in.p1, &in.p1, &in.q1);
}
static void body_g1_add_mixed(long n)
{
    for (long i = 0; i < n; i++)
        g1_jac_add_mixed(&in.p1, &in.p1, &in.q1a);
}
static void body_g1_dbl(long n)
{
    for (long i = 0; i < n; i++)
        g1_jac_dbl(&in.p1, &in.p1);
}
static void body_g1_xyzz_add_mixed(long n)
{
    for (long i = 0; i < n; i++)
        g1_xyzz_add_mixed(&in.x1, &in.x1, &in.q1a);
}
static void body_g2_add(long n)
{
    for (long i = 0; i < n; i++)
        g2_jac_add(&in.p2, &in.p2, &in.q2);
}
static void body_g2_add_mixed(long n)
{
    for (long i = 0; i < n; i++)
        g2_jac_add_mixed(&in.p2, &in.p2, &in.q2a);
}
static void body_g1_mul(long n)
{
    for (long i = 0; i < n; i++) {
        g1_jac_mul_fr(&in.p1, &in.p1, &in.k);
        in.k.l[0] ^= in.p1.x.l[0]; /* vary the scalar, keep it below r */
    }
}
static void body_g2_mul(long n)
{
    for (long i = 0; i < n; i++) {
        g2_jac_mul_fr(&in.p2, &in.p2, &in.k);
        in.k.l[0] ^= in.p2.x.c0.l[0];
    }
}
static void body_miller(long n)
{
    for (long i = 0; i < n; i++)
        pairing_miller_loop(&in.ml, &in.g1a, &in.g2a, 1);
}
static void body_final_exp(long n)
{
    for (long i = 0; i < n; i++)
        pairing_final_exp(&in.ml, &in.ml);
}
static void body_pairing(long n)
{
    for (long i = 0; i < n; i++)
        pairing_compute(&in.ml, &in.g1a, &in.g2a);
}

struct bench_case {
    const char *name;
    bench_body_fn body;
    long iters;          /* per timed batch, before --quick scaling */
    double target_ns;    /* 0: no target */
    double reference_ns; /* blst on the development machine, 0: none */
};

static const struct bench_case cases[] = {
    {"Fp mul", body_fp_mul, 2000000, 40, 30},
    {"Fp sqr", body_fp_sqr, 2000000, 0, 0},
    {"Fp add", body_fp_add, 4000000, 0, 0},
    {"Fp inv", body_fp_inv, 2000, 0, 0},
    {"Fr mul", body_fr_mul, 4000000, 0, 0},
    {"Fp2 mul", body_fp2_mul, 1000000, 0, 0},
    {"Fp12 mul", body_fp12_mul, 50000, 0, 0},
    {"G1 add (Jacobian)", body_g1_add, 200000, 800, 620},
    {"G1 add mixed (Jacobian + affine)", body_g1_add_mixed, 200000, 0, 0},
    {"G1 double (Jacobian)", body_g1_dbl, 200000, 0, 0},
    {"G1 add mixed (XYZZ + affine)", body_g1_xyzz_add_mixed, 200000, 0, 0},
    {"G2 add (Jacobian)", body_g2_add, 100000, 0, 0},
    {"G2 add mixed (Jacobian + affine)", body_g2_add_mixed, 100000, 0, 0},
    {"G1 scalar mul (255-bit)", body_g1_mul, 500, 0, 0},
    {"G2 scalar mul (255-bit)", body_g2_mul, 200, 0, 0},
    {"Miller loop", body_miller, 100, 0, 0},
    {"final exponentiation", body_final_exp, 100, 0, 0},
    {"pairing", body_pairing, 100, 1.5e6, 0.59e6},
};

static void setup_inputs(void)
{
    rand_fp(&in.fa);
    rand_fp(&in.fb);
    rand_fr(&in.ra);
    rand_fr(&in.rb);
    rand_fp2(&in.f2a);
    rand_fp2(&in.f2b);
    rand_fp12(&in.f12a);
    rand_fp12(&in.f12b);
    rand_fr(&in.k);

    g1_jac_t g1;
    g1_jac_from_affine(&g1, &G1_GENERATOR);
    fr_t s;
    rand_fr(&s);
    g1_jac_mul_fr(&in.p1, &g1, &s);
    rand_fr(&s);
    g1_jac_mul_fr(&in.q1, &g1, &s);
    g1_jac_to_affine(&in.q1a, &in.q1);
    g1_xyzz_from_affine(&in.x1, &in.q1a);
    g1_jac_to_affine(&in.g1a, &in.p1);

    g2_jac_t g2;
    g2_jac_from_affine(&g2, &G2_GENERATOR);
    rand_fr(&s);
    g2_jac_mul_fr(&in.p2, &g2, &s);
    rand_fr(&s);
    g2_jac_mul_fr(&in.q2, &g2, &s);
    g2_jac_to_affine(&in.q2a, &in.q2);
    g2_jac_to_affine(&in.g2a, &in.p2);
    pairing_miller_loop(&in.ml, &in.g1a, &in.g2a, 1);
}

static double time_case(const struct bench_case *c, long iters)
{
    double runs[BENCH_REPEATS];
    c->body(iters / 4 + 1); /* warm-up: caches, branch predictors, clocks */
    for (int r = 0; r < BENCH_REPEATS; r++) {
        double t0 = now_ns();
        c->body(iters);
        runs[r] = (now_ns() - t0) / (double)iters;
    }
    qsort(runs, BENCH_REPEATS, sizeof runs[0], cmp_double);
    return runs[BENCH_REPEATS / 2];
}

static void format_ns(char *out, size_t cap, double ns)
{
    if (ns <= 0)
        snprintf(out, cap, "—");
    else if (ns < 1e3)
        snprintf(out, cap, "%.1f ns", ns);
    else if (ns < 1e6)
        snprintf(out, cap, "%.2f µs", ns / 1e3);
    else
        snprintf(out, cap, "%.3f ms", ns / 1e6);
}

static const cli_opt_t bench_opts[] = {
    {"quick", 'q', NULL, "a hundredth of the iterations (a smoke run, not a measurement)"},
    {"out", 'o', "FILE", "also write the table to FILE"},
    {NULL, 0, NULL, NULL},
};

#define STR_(x) #x
#define STR(x) STR_(x)
const cli_cmd_t cli_cmd_bench = {
    .name = "bench",
    .summary = "arithmetic benchmark table (Fp, Fr, G1, G2, pairing)",
    .synopsis = "zkbench bench [arith] [--quick] [--out FILE]\n"
                "zkbench bench prover [options]   (setup and proving times: bench prover --help)",
    .about = "Times BLS12-381 field, curve and pairing operations (median of " STR(BENCH_REPEATS) "\n"
             "batches, one thread) and prints a Markdown table with machine, date\n"
             "and commit.\n",
    .opts = bench_opts,
    .epilog = "exit: 0 done; 2 bad arguments or an unwritable --out.\n",
};

int bench_arith_main(int argc, char **argv)
{
    /* zkbench bench [arith|prover] ...: arith is the default */
    if (argc > 1 && strcmp(argv[1], "prover") == 0)
        return bench_prover_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "arith") == 0) {
        argc--;
        argv++;
    }
    bool quick = false;
    const char *out_path = NULL;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_bench, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        switch (c) {
        case 'q': quick = true; break;
        case 'o': out_path = a.val; break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 0, 0, ""))
        return 2;

    FILE *out = NULL;
    if (out_path) {
        out = fopen(out_path, "w");
        if (!out)
            return cli_error(2, "bench: cannot write %s: %s", out_path, strerror(errno));
    }

    sysinfo_t si;
    sysinfo_read(&si);
    time_t t = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));

    char *table = NULL;
    size_t table_len = 0;
    FILE *tf = open_memstream(&table, &table_len);
    if (!tf)
        return cli_error(1, "bench: out of memory");
    fprintf(tf, "# BLS12-381 arithmetic, one CPU thread%s\n\n", quick ? " (--quick smoke run)" : "");
    fprintf(tf, "- machine: %s, %d cores, %.1f GiB RAM, %s\n", si.cpu, si.cores,
            (double)si.ram_bytes / (1u << 30), si.os);
    fprintf(tf, "- date: %s\n- commit: %s\n- command: zkbench bench%s\n", date, si.commit,
            quick ? " --quick" : "");
    fprintf(tf, "- method: median of %d batches of dependent operations on random inputs, after a warm-up\n\n",
            BENCH_REPEATS);
    fprintf(tf, "| operation | time | target | blst here |\n|---|---:|---:|---:|\n");
    fflush(tf);
    fputs(table, stdout);
    size_t printed = table_len;

    setup_inputs();
    int missed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long iters = quick ? cases[i].iters / 100 + 1 : cases[i].iters;
        double ns = time_case(&cases[i], iters);
        char tm[32], tg[32], ref[32];
        format_ns(tm, sizeof tm, ns);
        format_ns(tg, sizeof tg, cases[i].target_ns);
        format_ns(ref, sizeof ref, cases[i].reference_ns);
        const char *mark = "";
        if (cases[i].target_ns > 0 && ns > cases[i].target_ns) {
            mark = " (over target)";
            missed++;
        }
        fprintf(tf, "| %s | %s%s | %s | %s |\n", cases[i].name, tm, mark,
                cases[i].target_ns > 0 ? tg : "", cases[i].reference_ns > 0 ? ref : "");
        fflush(tf);
        fputs(table + printed, stdout);
        fflush(stdout);
        printed = table_len;
    }

    int n = 0;
    if (kernels_device_count(&n) == 0 && n > 0) {
        static const struct {
            enum kernels_field f;
            const char *name;
        } gpu_cases[] = {
            {KERNELS_FIELD_FR, "Fr"}, {KERNELS_FIELD_FP, "Fp"}, {KERNELS_FIELD_FP2, "Fp2"}};
        for (size_t i = 0; i < sizeof gpu_cases / sizeof gpu_cases[0]; i++) {
            double ns = 0;
            int rc = kernels_field_mul_throughput(gpu_cases[i].f, /* n= */ 0, /* reps= */ quick ? 16 : 0, &ns);
            if (rc == 0)
                fprintf(tf, "| GPU %s mul, device-wide throughput (%s) | %.2f ps | | |\n", gpu_cases[i].name,
                        si.gpu, ns * 1e3);
            else
                fprintf(tf, "| GPU %s mul | failed: %s | | |\n", gpu_cases[i].name, kernels_last_error());
        }
    }
    uint64_t rss = 0, hwm = 0;
    if (sysinfo_rss(&rss, &hwm) == 0)
        fprintf(tf, "\nprocess: RSS %.1f MiB, peak %.1f MiB (jemalloc %s)\n",
                (double)rss / (1 << 20), (double)hwm / (1 << 20), si.jemalloc);
    fclose(tf);
    fputs(table + printed, stdout);
    if (out) {
        fputs(table, out);
        if (fclose(out) != 0) {
            free(table);
            return cli_error(1, "bench: writing %s failed: %s", out_path, strerror(errno));
        }
    }
    free(table);
    if (missed)
        fprintf(stderr, "bench: %d operation(s) over target\n", missed);
    return 0;
}
