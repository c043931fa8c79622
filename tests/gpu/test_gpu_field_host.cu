/*
 * The device field algorithms of kernels/field.cuh, run on the host (where
 * its PTX carry primitives are emulated) against arith/field: add, sub,
 * neg, dbl, mul, sqr of Fr, Fp and Fp2 on edge values paired with each
 * other and on fresh random values; the sum of two products of Fp and the
 * lane formulas of Fp2 on a pair of lanes (fp2_pair.cuh), both lanes run
 * one after the other here. Needs nvcc but no GPU, so the limb-level
 * logic of the kernels is checked on every machine that builds them; the
 * PTX itself (and the compiler's handling of its carry flag) is checked on a
 * GPU by test_gpu_field.
 */
#include <stdio.h>
#include <string.h>

#include <gmp.h>

#include "kernels/field.cuh"
#include "kernels/fp2_pair.cuh"

/* <math.h>, which the CUDA headers pull in, declares FP_ZERO (a floating-
 * point class) and fp.h a constant of the same name: rename fp.h's, which
 * this file does not use. */
#undef FP_ZERO
#define FP_ZERO fp_zero_unused_here

extern "C" {
#include "arith/field/fp.h"
#include "arith/field/fp2.h"
#include "arith/field/fr.h"
#include "tests/common.h"
}

static_assert(sizeof(fr_t) == sizeof(dev_fr_t), "fr layout");
static_assert(sizeof(fp_t) == sizeof(dev_fp_t), "fp layout");
static_assert(sizeof(fp2_t) == sizeof(dev_fp2_t), "fp2 layout");

enum { OP_ADD, OP_SUB, OP_MUL, OP_NEG, OP_DBL, OP_SQR, N_OPS };
static const char *const OP_NAMES[N_OPS] = {"add", "sub", "mul",
                                            "neg", "dbl", "sqr"};

/* The device type D of host type H, and the host reference per op. */
template <class D, class H>
static void dev_op(int op, H *r, const H *a, const H *b)
{
    D x, y, z;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    switch (op) {
    case OP_ADD: field_add(z, x, y); break;
    case OP_SUB: field_sub(z, x, y); break;
    case OP_MUL: field_mul(z, x, y); break;
    case OP_NEG: field_neg(z, x); break;
    case OP_DBL: field_dbl(z, x); break;
    default: field_sqr(z, x); break;
    }
    memcpy(r, &z, sizeof z);
}

static void ref_op(int op, fr_t *r, const fr_t *a, const fr_t *b)
{
    switch (op) {
    case OP_ADD: fr_add(r, a, b); break;
    case OP_SUB: fr_sub(r, a, b); break;
    case OP_MUL: fr_mul(r, a, b); break;
    case OP_NEG: fr_neg(r, a); break;
    case OP_DBL: fr_dbl(r, a); break;
    default: fr_sqr(r, a); break;
    }
}

static void ref_op(int op, fp_t *r, const fp_t *a, const fp_t *b)
{
    switch (op) {
    case OP_ADD: fp_add(r, a, b); break;
    case OP_SUB: fp_sub(r, a, b); break;
    case OP_MUL: fp_mul(r, a, b); break;
    case OP_NEG: fp_neg(r, a); break;
    case OP_DBL: fp_dbl(r, a); break;
    default: fp_sqr(r, a); break;
    }
}

static void ref_op(int op, fp2_t *r, const fp2_t *a, const fp2_t *b)
{
    switch (op) {
    case OP_ADD: fp2_add(r, a, b); break;
    case OP_SUB: fp2_sub(r, a, b); break;
    case OP_MUL: fp2_mul(r, a, b); break;
    case OP_NEG: fp2_neg(r, a); break;
    case OP_DBL: fp2_dbl(r, a); break;
    default: fp2_sqr(r, a); break;
    }
}

static void rand_elem(fr_t *r) { test_rand_fr(r); }
static void rand_elem(fp_t *r) { test_rand_fp(r); }
static void rand_elem(fp2_t *r)
{
    test_rand_fp(&r->c0);
    test_rand_fp(&r->c1);
}

/* Edges of Fr / Fp: 0, 1, -1, the representations 1 and m - 1, and
 * (m - 1) / 2 and (m + 1) / 2, whose sums straddle m. */
template <class H>
static int prime_edges(H *e, const H &one, const uint64_t *m)
{
    const int n = sizeof(H) / 8;
    memset(e, 0, 7 * sizeof *e);
    e[1] = one;
    ref_op(OP_NEG, &e[2], &one, &one);
    e[3].l[0] = 1;
    memcpy(e[4].l, m, sizeof(H));
    e[4].l[0] -= 1;
    for (int i = 0; i < n; i++)
        e[5].l[i] = (e[4].l[i] >> 1) | (i + 1 < n ? e[4].l[i + 1] << 63 : 0);
    e[6] = e[5];
    for (int i = 0; i < n && ++e[6].l[i] == 0; i++)
        ;
    return 7;
}

static int edges(fr_t *e) { return prime_edges(e, FR_ONE, FR_MODULUS); }
static int edges(fp_t *e) { return prime_edges(e, FP_ONE, FP_MODULUS); }
static int edges(fp2_t *e)
{
    fp_t f[7];
    int nf = edges(f), k = 0;
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < nf; j++)
            e[k++] = fp2_t{f[i], f[j]};
    return k;
}

/* Case k of a check: the edges paired with each other for k < ne^2, then
 * fresh random values. */
template <class H>
static void pick_operands(H *a, H *b, const H *e, int ne, int k)
{
    if (k < ne * ne) {
        *a = e[k / ne];
        *b = e[k % ne];
    } else {
        rand_elem(a);
        rand_elem(b);
    }
}

template <class D, class H>
static void check_field(const char *name, int n_random)
{
    static H e[64];
    int ne = edges(e);
    int total = ne * ne + n_random;
    for (int op = 0; op < N_OPS; op++) {
        long bad = 0;
        for (int k = 0; k < total; k++) {
            H a, b, want, got;
            pick_operands(&a, &b, e, ne, k);
            ref_op(op, &want, &a, &b);
            dev_op<D>(op, &got, &a, &b);
            if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 3)
                fprintf(stderr, "%s %s: case %d differs\n", name,
                        OP_NAMES[op], k);
            /* in place, as the kernels call it */
            dev_op<D>(op, &a, &a, &b);
            if (memcmp(&want, &a, sizeof want) != 0 && bad++ < 3)
                fprintf(stderr, "%s %s: case %d differs in place\n", name,
                        OP_NAMES[op], k);
        }
        CHECK(bad == 0);
    }
}

/* (a b + c d) / R by field_mul_sum against the reference's a b + c d. */
static void check_mul_sum(int n_random)
{
    static fp_t e[8];
    int ne = edges(e);
    long bad = 0;
    int total = ne * ne * ne * ne + n_random;
    for (int k = 0; k < total; k++) {
        fp_t a, b, c, d, want, t;
        if (k < ne * ne * ne * ne) {
            a = e[k % ne];
            b = e[k / ne % ne];
            c = e[k / (ne * ne) % ne];
            d = e[k / (ne * ne * ne)];
        } else {
            test_rand_fp(&a);
            test_rand_fp(&b);
            test_rand_fp(&c);
            test_rand_fp(&d);
        }
        fp_mul(&want, &a, &b);
        fp_mul(&t, &c, &d);
        fp_add(&want, &want, &t);
        dev_fp_t x, y, z, w, got;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        memcpy(&z, &c, sizeof z);
        memcpy(&w, &d, sizeof w);
        field_mul_sum(got, x, y, z, w);
        if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 3)
            fprintf(stderr, "fp mul_sum: case %d differs\n", k);
    }
    CHECK(bad == 0);
}

/* Both lanes of a pair from their own and their partner's halves, against
 * fp2_mul and fp2_sqr. */
static void check_pair(int n_random)
{
    static fp2_t e[64];
    int ne = edges(e);
    long bad = 0;
    int total = ne * ne + n_random;
    for (int k = 0; k < total; k++) {
        fp2_t a, b, want, got;
        pick_operands(&a, &b, e, ne, k);
        dev_fp2_t x, y;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        for (int sq = 0; sq < 2; sq++) {
            dev_fp2_t r;
            if (sq) {
                fp2_sqr(&want, &a);
                fp2_pair_sqr_lane(r.c0, false, x.c0, x.c1);
                fp2_pair_sqr_lane(r.c1, true, x.c1, x.c0);
            } else {
                fp2_mul(&want, &a, &b);
                fp2_pair_mul_lane(r.c0, false, x.c0, y.c0, x.c1, y.c1);
                fp2_pair_mul_lane(r.c1, true, x.c1, y.c1, x.c0, y.c0);
            }
            memcpy(&got, &r, sizeof got);
            if (memcmp(&want, &got, sizeof want) != 0 && bad++ < 3)
                fprintf(stderr, "fp2 pair %s: case %d differs\n", sq ? "sqr" : "mul", k);
        }
    }
    CHECK(bad == 0);
}

int main(void)
{
    test_init("test_gpu_field_host");
    check_field<dev_fr_t, fr_t>("fr", 20000);
    check_field<dev_fp_t, fp_t>("fp", 20000);
    check_field<dev_fp2_t, fp2_t>("fp2", 5000);
    check_mul_sum(20000);
    check_pair(5000);
    return test_finish();
}
