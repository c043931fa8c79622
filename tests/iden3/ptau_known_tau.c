/*
 * ptau-known-tau: writes a *prepared* snarkjs powers-of-tau file (phase 2
 * ready: sections 2-7 and the Lagrange sections 12-15) for BLS12-381 from
 * tau, alpha and beta drawn here and then forgotten -- but known while the
 * program runs, so the Lagrange bases L_i(tau) = w^i (tau^m - 1) /
 * (m (tau - w^i)) are field arithmetic plus one scalar multiplication per
 * point instead of snarkjs's group FFTs (`snarkjs powersoftau prepare
 * phase2` takes about 9 minutes at 2^12 on two cores and grows linearly).
 * FOR BENCHMARKS AND TESTS ONLY: a single party knowing tau is no ceremony.
 *   ptau-known-tau POWER OUT.ptau
 * Layout: snarkjs src/powersoftau_new.js, powersoftau_preparephase2.js;
 * points affine, little-endian Montgomery coordinates, infinity zeros; the
 * roots are snarkjs's (prover/iden3/zkey_file.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fp.h"
#include "arith/field/fr.h"
#include "prover/iden3/zkey_file.h"
#include "prover/parallel.h"

static FILE *out;

static void put_u32(uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, out);
}

static void put_u64(uint64_t v)
{
    put_u32((uint32_t)v);
    put_u32((uint32_t)(v >> 32));
}

static void put_fp(const fp_t *a)
{
    for (int k = 0; k < 6; k++)
        put_u64(a->l[k]);
}

/*
 * Fixed-base tables: TABLE_G1[w][d - 1] = d 2^(8w) G, so k G is at most 32
 * mixed additions (one per byte of k) instead of ~380 doublings and
 * additions: at 2^20 the file is 2^23 points.
 */
#define WINDOWS 32
#define DIGITS 255
static g1_affine_t TABLE_G1[WINDOWS][DIGITS];
static g2_affine_t TABLE_G2[WINDOWS][DIGITS];

static void build_tables(void)
{
    static g1_jac_t j1[DIGITS];
    static g2_jac_t j2[DIGITS];
    g1_jac_t b1;
    g2_jac_t b2;
    g1_jac_from_affine(&b1, &G1_GENERATOR);
    g2_jac_from_affine(&b2, &G2_GENERATOR);
    for (int w = 0; w < WINDOWS; w++) {
        j1[0] = b1;
        j2[0] = b2;
        for (int d = 1; d < DIGITS; d++) {
            g1_jac_add(&j1[d], &j1[d - 1], &b1);
            g2_jac_add(&j2[d], &j2[d - 1], &b2);
        }
        g1_batch_to_affine(TABLE_G1[w], j1, DIGITS);
        g2_batch_to_affine(TABLE_G2[w], j2, DIGITS);
        for (int i = 0; i < 8; i++) {
            g1_jac_dbl(&b1, &b1);
            g2_jac_dbl(&b2, &b2);
        }
    }
}

static void g1_fixed_mul(g1_jac_t *ret, const fr_t *k)
{
    uint64_t l[4];
    fr_to_limbs(l, k);
    g1_jac_from_affine(ret, &G1_INFINITY);
    for (int w = 0; w < WINDOWS; w++) {
        unsigned d = (unsigned)(l[w / 8] >> (8 * (w % 8))) & 0xff;
        if (d)
            g1_jac_add_mixed(ret, ret, &TABLE_G1[w][d - 1]);
    }
}

static void g2_fixed_mul(g2_jac_t *ret, const fr_t *k)
{
    uint64_t l[4];
    fr_to_limbs(l, k);
    g2_jac_from_affine(ret, &G2_INFINITY);
    for (int w = 0; w < WINDOWS; w++) {
        unsigned d = (unsigned)(l[w / 8] >> (8 * (w % 8))) & 0xff;
        if (d)
            g2_jac_add_mixed(ret, ret, &TABLE_G2[w][d - 1]);
    }
}

/* Scalars -> affine points: the work, threaded. */
typedef struct {
    const fr_t *s;
    const fr_t *scale; /* multiply every scalar by this first (NULL: 1) */
    g1_affine_t *p1;
    g2_affine_t *p2;
    size_t n;
} mul_t;

#define CHUNK 256

static void mul_chunk(void *ctx, size_t c)
{
    mul_t *m = ctx;
    g1_jac_t j1[CHUNK];
    g2_jac_t j2[CHUNK];
    size_t s = c * CHUNK, e = s + CHUNK < m->n ? s + CHUNK : m->n;
    for (size_t i = s; i < e; i++) {
        fr_t k = m->s[i];
        if (m->scale)
            fr_mul(&k, &k, m->scale);
        if (m->p1)
            g1_fixed_mul(&j1[i - s], &k);
        else
            g2_fixed_mul(&j2[i - s], &k);
    }
    if (m->p1)
        g1_batch_to_affine(m->p1 + s, j1, e - s);
    else
        g2_batch_to_affine(m->p2 + s, j2, e - s);
}

static void write_points(const fr_t *s, const fr_t *scale, size_t n, int g2)
{
    mul_t m = {s, scale, NULL, NULL, n};
    if (g2)
        m.p2 = malloc(n * sizeof *m.p2);
    else
        m.p1 = malloc(n * sizeof *m.p1);
    if (!m.p1 && !m.p2) {
        fputs("ptau-known-tau: out of memory\n", stderr);
        exit(1);
    }
    parallel_for((n + CHUNK - 1) / CHUNK, 0, mul_chunk, &m);
    for (size_t i = 0; i < n; i++) {
        if (g2) {
            put_fp(&m.p2[i].x.c0);
            put_fp(&m.p2[i].x.c1);
            put_fp(&m.p2[i].y.c0);
            put_fp(&m.p2[i].y.c1);
        } else {
            put_fp(&m.p1[i].x);
            put_fp(&m.p1[i].y);
        }
    }
    free(m.p1);
    free(m.p2);
}

static void random_fr(fr_t *r)
{
    for (;;) {
        uint64_t v[4];
        if (getrandom(v, sizeof v, 0) != (ssize_t)sizeof v)
            continue;
        v[3] &= 0x7fffffffffffffffull;
        if (fr_from_limbs(r, v) == 0 && !fr_is_zero(r))
            return;
    }
}

/* L_i(tau), i < m = 2^p, for snarkjs's root of that size. */
static void lagrange(fr_t *l, const fr_t *tau, unsigned p)
{
    size_t m = (size_t)1 << p;
    fr_t w, wi = FR_ONE, tm, mi, num;
    iden3_snarkjs_root(&w, p);
    uint64_t e = m;
    fr_pow(&tm, tau, &e, 1);
    fr_sub(&tm, &tm, &FR_ONE);
    fr_from_u64(&mi, m);
    fr_inv(&mi, &mi);
    fr_mul(&num, &tm, &mi); /* (tau^m - 1) / m */
    fr_t *d = malloc(m * sizeof *d), *wis = malloc(m * sizeof *wis);
    for (size_t i = 0; i < m; i++) {
        wis[i] = wi;
        fr_sub(&d[i], tau, &wi);
        fr_mul(&wi, &wi, &w);
    }
    fr_batch_inv(l, d, m);
    for (size_t i = 0; i < m; i++) {
        fr_mul(&l[i], &l[i], &wis[i]);
        fr_mul(&l[i], &l[i], &num);
    }
    free(d);
    free(wis);
}

/* Section header with its size known in advance. */
static void section(uint32_t type, uint64_t bytes)
{
    put_u32(type);
    put_u64(bytes);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fputs("usage: ptau-known-tau POWER OUT.ptau   (benchmarks and tests only)\n", stderr), 2;
    unsigned power = (unsigned)atoi(argv[1]);
    if (power < 1 || power > 20)
        return fputs("ptau-known-tau: POWER must be in 1..20\n", stderr), 2;
    /* Written under a temporary name and renamed when complete: a run that
     * is stopped leaves no truncated file that looks like a finished one. */
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.partial", argv[2]) >= (int)sizeof tmp)
        return fputs("ptau-known-tau: output path too long\n", stderr), 2;
    out = fopen(tmp, "wb");
    if (!out)
        return perror(tmp), 2;
    build_tables();
    fr_t tau, alpha, beta;
    random_fr(&tau);
    random_fr(&alpha);
    random_fr(&beta);
    size_t n = (size_t)1 << power, n2 = n * 2;
    fr_t *pw = malloc(n2 * sizeof *pw), *l = malloc(n2 * sizeof *l);
    pw[0] = FR_ONE;
    for (size_t i = 1; i < n2; i++)
        fr_mul(&pw[i], &pw[i - 1], &tau);

    fwrite("ptau", 1, 4, out);
    put_u32(1);
    put_u32(11);
    section(1, 4 + 48 + 8);
    put_u32(48);
    fp_t q;
    memcpy(q.l, FP_MODULUS, sizeof q.l);
    for (int k = 0; k < 6; k++)
        put_u64(FP_MODULUS[k]); /* the prime itself, plain little-endian */
    put_u32(power);
    put_u32(power);
    section(2, (n2 - 1) * 96);
    write_points(pw, NULL, n2 - 1, 0);
    section(3, n * 192);
    write_points(pw, NULL, n, 1);
    section(4, n * 96);
    write_points(pw, &alpha, n, 0);
    section(5, n * 96);
    write_points(pw, &beta, n, 0);
    section(6, 192);
    write_points(&beta, NULL, 1, 1);
    section(7, 4);
    put_u32(0); /* no contributions recorded */
    /* Lagrange bases of every size 2^0 .. 2^power (2^(power+1) for tau G1). */
    for (uint32_t sec = 12; sec <= 15; sec++) {
        unsigned top = sec == 12 ? power + 1 : power;
        size_t total = ((size_t)2 << top) - 1;
        section(sec, total * (sec == 13 ? 192 : 96));
        for (unsigned p = 0; p <= top; p++) {
            lagrange(l, &tau, p);
            const fr_t *scale = sec == 14 ? &alpha : sec == 15 ? &beta : NULL;
            write_points(l, scale, (size_t)1 << p, sec == 13);
        }
    }
    free(pw);
    free(l);
    memset(&tau, 0, sizeof tau);
    if (fclose(out) != 0)
        return perror(tmp), remove(tmp), 1;
    if (rename(tmp, argv[2]) != 0)
        return perror(argv[2]), remove(tmp), 1;
    return 0;
}
