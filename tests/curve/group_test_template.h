/*
 * Group-law tests shared by G1 and G2, written once like the code they test
 * (arith/curve/curve_template.h). test_g1.c and test_g2.c define
 *   CURVE, FE_T, FE(op)     as for the library template
 *   FE_ONE                  one (an element)
 *   FE_RAND(ret)            a uniformly random field element
 *   GENERATOR, INFINITY_PT  the group's generator and infinity constants
 *   COFACTOR_HEX            the cofactor h: the curve has h r points
 *   COFACTOR_PRIMES         h's prime factors with their multiplicity, as
 *                           decimal strings ({"3", "11", "11", ...})
 * and include this file once.
 *
 * The reference is affine chord-and-tangent arithmetic written here from
 * field operations with one inversion per step: it shares no formula with
 * the library's Jacobian and XYZZ code, so agreement checks the formulas and
 * their exceptional cases, and scalar multiplication is checked against
 * plain double-and-add over that reference.
 */
#include <stdlib.h>
#include <string.h>

#include "tests/common.h"

#define T_CAT3_(a, b, c) a##_##b##_##c
#define T_CAT3(a, b, c) T_CAT3_(a, b, c)
#define T_CAT_(a, b) a##_##b
#define T_CAT(a, b) T_CAT_(a, b)
#define C(name) T_CAT(CURVE, name)
#define AFFINE_T T_CAT3(CURVE, affine, t)
#define JAC_T T_CAT3(CURVE, jac, t)
#define XYZZ_T T_CAT3(CURVE, xyzz, t)

/* ---- reference arithmetic -------------------------------------------- */

static void ref_add(AFFINE_T *ret, const AFFINE_T *a, const AFFINE_T *b)
{
    if (C(affine_is_infinity)(a)) {
        *ret = *b;
        return;
    }
    if (C(affine_is_infinity)(b)) {
        *ret = *a;
        return;
    }
    FE_T lambda, num, den, t;
    if (FE(eq)(&a->x, &b->x)) {
        FE(add)(&t, &a->y, &b->y);
        if (FE(is_zero)(&t)) {
            memset(ret, 0, sizeof *ret);
            return;
        }
        /* tangent: 3 x^2 / (2 y) */
        FE(sqr)(&num, &a->x);
        FE(add)(&t, &num, &num);
        FE(add)(&num, &t, &num);
        FE(add)(&den, &a->y, &a->y);
    } else {
        FE(sub)(&num, &b->y, &a->y);
        FE(sub)(&den, &b->x, &a->x);
    }
    FE(inv)(&den, &den);
    FE(mul)(&lambda, &num, &den);
    AFFINE_T r;
    FE(sqr)(&r.x, &lambda);
    FE(sub)(&r.x, &r.x, &a->x);
    FE(sub)(&r.x, &r.x, &b->x);
    FE(sub)(&t, &a->x, &r.x);
    FE(mul)(&t, &t, &lambda);
    FE(sub)(&r.y, &t, &a->y);
    *ret = r;
}

/* Right-to-left double and add over ref_add. */
static void ref_mul(AFFINE_T *ret, const AFFINE_T *p, const uint64_t *k,
                    size_t n)
{
    AFFINE_T acc, base = *p;
    memset(&acc, 0, sizeof acc);
    for (size_t i = 0; i < n; i++) {
        for (int bit = 0; bit < 64; bit++) {
            if ((k[i] >> bit) & 1)
                ref_add(&acc, &acc, &base);
            ref_add(&base, &base, &base);
        }
    }
    *ret = acc;
}

static void ref_mul_mpz(AFFINE_T *ret, const AFFINE_T *p, const mpz_t k)
{
    uint64_t limbs[16] = {0};
    size_t n = 0;
    mpz_export(limbs, &n, -1, 8, 0, 0, k);
    ref_mul(ret, p, limbs, n);
}

/* ---- helpers ---------------------------------------------------------- */

static void rand_nonzero(FE_T *ret)
{
    do {
        FE_RAND(ret);
    } while (FE(is_zero)(ret));
}

/* A random point of the group: [k]G for random k. */
static void rand_point(AFFINE_T *ret)
{
    fr_t k;
    JAC_T j, g;
    test_rand_fr(&k);
    C(jac_from_affine)(&g, &GENERATOR);
    C(jac_mul_fr)(&j, &g, &k);
    C(jac_to_affine)(ret, &j);
}

/* A random point of the whole curve, usually outside the group. */
static void rand_curve_point(AFFINE_T *ret)
{
    FE_T x;
    do {
        FE_RAND(&x);
    } while (!C(affine_from_x)(ret, &x, test_rand_u64() & 1));
}

/* p with a random Z: (x z^2, y z^3, z). Infinity gets a random X, Y. */
static void rand_jac(JAC_T *ret, const AFFINE_T *p)
{
    if (C(affine_is_infinity)(p)) {
        FE_RAND(&ret->x);
        FE_RAND(&ret->y);
        memset(&ret->z, 0, sizeof ret->z);
        return;
    }
    FE_T z, z2, z3;
    rand_nonzero(&z);
    FE(sqr)(&z2, &z);
    FE(mul)(&z3, &z2, &z);
    FE(mul)(&ret->x, &p->x, &z2);
    FE(mul)(&ret->y, &p->y, &z3);
    ret->z = z;
}

/* p with random ZZ = z^2, ZZZ = z^3. */
static void rand_xyzz(XYZZ_T *ret, const AFFINE_T *p)
{
    if (C(affine_is_infinity)(p)) {
        FE_RAND(&ret->x);
        FE_RAND(&ret->y);
        memset(&ret->zz, 0, sizeof ret->zz);
        memset(&ret->zzz, 0, sizeof ret->zzz);
        return;
    }
    FE_T z;
    rand_nonzero(&z);
    FE(sqr)(&ret->zz, &z);
    FE(mul)(&ret->zzz, &ret->zz, &z);
    FE(mul)(&ret->x, &p->x, &ret->zz);
    FE(mul)(&ret->y, &p->y, &ret->zzz);
}

static bool jac_is(const JAC_T *j, const AFFINE_T *want)
{
    AFFINE_T a;
    C(jac_to_affine)(&a, j);
    return C(affine_eq)(&a, want) && C(jac_is_on_curve)(j);
}

static bool xyzz_is(const XYZZ_T *j, const AFFINE_T *want)
{
    AFFINE_T a;
    C(xyzz_to_affine)(&a, j);
    return C(affine_eq)(&a, want);
}

static bool mul_r_is_zero(const AFFINE_T *p)
{
    JAC_T j;
    C(jac_from_affine)(&j, p);
    C(jac_mul)(&j, &j, FR_MODULUS, 4);
    return C(jac_is_infinity)(&j);
}

/* ---- tests ------------------------------------------------------------ */

static void test_generator(void)
{
    CHECK(C(affine_is_on_curve)(&GENERATOR));
    CHECK(!C(affine_is_infinity)(&GENERATOR));
    CHECK(C(affine_in_subgroup)(&GENERATOR));
    CHECK(mul_r_is_zero(&GENERATOR));

    /* [r - 1]G = -G and [r + 1]G = G, through the reference too. */
    JAC_T g, j;
    AFFINE_T neg_g, a;
    C(jac_from_affine)(&g, &GENERATOR);
    C(affine_neg)(&neg_g, &GENERATOR);
    uint64_t k[4];
    memcpy(k, FR_MODULUS, sizeof k);
    k[0] -= 1;
    C(jac_mul)(&j, &g, k, 4);
    CHECK(jac_is(&j, &neg_g));
    ref_mul(&a, &GENERATOR, k, 4);
    CHECK(C(affine_eq)(&a, &neg_g));
    k[0] += 2;
    C(jac_mul)(&j, &g, k, 4);
    CHECK(jac_is(&j, &GENERATOR));
    ref_mul(&a, &GENERATOR, FR_MODULUS, 4);
    CHECK(C(affine_is_infinity)(&a));

    CHECK(C(affine_is_infinity)(&INFINITY_PT));
    CHECK(C(affine_is_on_curve)(&INFINITY_PT));
}

/* Every addition routine against ref_add for one pair. */
static void check_sum(const AFFINE_T *p, const AFFINE_T *q)
{
    AFFINE_T want;
    ref_add(&want, p, q);
    JAC_T jp, jq, jr;
    XYZZ_T xp, xq, xr;
    rand_jac(&jp, p);
    rand_jac(&jq, q);
    rand_xyzz(&xp, p);
    rand_xyzz(&xq, q);

    C(jac_add)(&jr, &jp, &jq);
    CHECK(jac_is(&jr, &want));
    C(jac_add_mixed)(&jr, &jp, q);
    CHECK(jac_is(&jr, &want));
    C(xyzz_add)(&xr, &xp, &xq);
    CHECK(xyzz_is(&xr, &want));
    C(xyzz_add_mixed)(&xr, &xp, q);
    CHECK(xyzz_is(&xr, &want));

    /* Outputs may alias inputs. */
    jr = jp;
    C(jac_add)(&jr, &jr, &jq);
    CHECK(jac_is(&jr, &want));
    jr = jq;
    C(jac_add)(&jr, &jp, &jr);
    CHECK(jac_is(&jr, &want));
    jr = jp;
    C(jac_add_mixed)(&jr, &jr, q);
    CHECK(jac_is(&jr, &want));
    xr = xp;
    C(xyzz_add)(&xr, &xr, &xq);
    CHECK(xyzz_is(&xr, &want));
    xr = xq;
    C(xyzz_add)(&xr, &xp, &xr);
    CHECK(xyzz_is(&xr, &want));
    xr = xp;
    C(xyzz_add_mixed)(&xr, &xr, q);
    CHECK(xyzz_is(&xr, &want));
}

static void test_add(int rounds)
{
    AFFINE_T inf, p, q, np;
    memset(&inf, 0, sizeof inf);
    for (int i = 0; i < rounds; i++) {
        rand_point(&p);
        rand_point(&q);
        C(affine_neg)(&np, &p);
        check_sum(&p, &q);
        check_sum(&p, &p);   /* doubling through add */
        check_sum(&p, &np);  /* P + (-P) = O */
        check_sum(&np, &p);
        check_sum(&p, &inf);
        check_sum(&inf, &p);
        /* Points outside the group obey the same law. */
        rand_curve_point(&p);
        rand_curve_point(&q);
        check_sum(&p, &q);
        check_sum(&p, &p);
    }
    check_sum(&inf, &inf);

    /* P + (-P) is infinity in every form. */
    rand_point(&p);
    C(affine_neg)(&np, &p);
    JAC_T jp, jn, jr;
    C(jac_from_affine)(&jp, &p);
    C(jac_neg)(&jn, &jp);
    C(jac_add)(&jr, &jp, &jn);
    CHECK(C(jac_is_infinity)(&jr));
    C(jac_add_mixed)(&jr, &jp, &np);
    CHECK(C(jac_is_infinity)(&jr));
    XYZZ_T xp, xr;
    C(xyzz_from_affine)(&xp, &p);
    C(xyzz_add_mixed)(&xr, &xp, &np);
    CHECK(C(xyzz_is_infinity)(&xr));
    C(affine_neg)(&np, &inf);
    CHECK(C(affine_is_infinity)(&np));
}

static void test_dbl(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        AFFINE_T p, want;
        if (i & 1)
            rand_curve_point(&p);
        else
            rand_point(&p);
        ref_add(&want, &p, &p);
        JAC_T j, d, s;
        rand_jac(&j, &p);
        C(jac_dbl)(&d, &j);
        CHECK(jac_is(&d, &want));
        C(jac_add)(&s, &j, &j);
        CHECK(C(jac_eq)(&s, &d));
        C(jac_dbl)(&j, &j); /* aliasing */
        CHECK(jac_is(&j, &want));
        XYZZ_T x, xd;
        rand_xyzz(&x, &p);
        C(xyzz_dbl)(&xd, &x);
        CHECK(xyzz_is(&xd, &want));
        C(xyzz_dbl)(&x, &x);
        CHECK(xyzz_is(&x, &want));
    }
    AFFINE_T inf;
    memset(&inf, 0, sizeof inf);
    JAC_T j;
    XYZZ_T x;
    rand_jac(&j, &inf);
    C(jac_dbl)(&j, &j);
    CHECK(C(jac_is_infinity)(&j));
    rand_xyzz(&x, &inf);
    C(xyzz_dbl)(&x, &x);
    CHECK(C(xyzz_is_infinity)(&x));
}

/* Conversions between the forms and point equality. */
static void test_forms(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        AFFINE_T p, q, a;
        rand_point(&p);
        rand_point(&q);
        JAC_T j1, j2, jq;
        rand_jac(&j1, &p);
        rand_jac(&j2, &p);
        rand_jac(&jq, &q);
        CHECK(C(jac_eq)(&j1, &j2));
        CHECK(!C(jac_eq)(&j1, &jq));
        JAC_T jn;
        C(jac_neg)(&jn, &j1);
        CHECK(!C(jac_eq)(&j1, &jn)); /* same x, other y */
        XYZZ_T x;
        rand_xyzz(&x, &p);
        C(xyzz_to_jac)(&j2, &x);
        CHECK(C(jac_eq)(&j1, &j2) && C(jac_is_on_curve)(&j2));
        C(xyzz_to_affine)(&a, &x);
        CHECK(C(affine_eq)(&a, &p));
        C(xyzz_from_affine)(&x, &p);
        CHECK(xyzz_is(&x, &p));
        C(jac_from_affine)(&j2, &p);
        CHECK(jac_is(&j2, &p));
    }
    AFFINE_T inf, p, a;
    memset(&inf, 0, sizeof inf);
    rand_point(&p);
    JAC_T ji, jp;
    XYZZ_T xi;
    C(jac_from_affine)(&ji, &inf);
    CHECK(C(jac_is_infinity)(&ji));
    C(jac_to_affine)(&a, &ji);
    CHECK(C(affine_is_infinity)(&a));
    rand_jac(&ji, &inf);
    C(jac_from_affine)(&jp, &p);
    CHECK(!C(jac_eq)(&ji, &jp) && !C(jac_eq)(&jp, &ji));
    JAC_T ji2;
    rand_jac(&ji2, &inf);
    CHECK(C(jac_eq)(&ji, &ji2));
    C(xyzz_from_affine)(&xi, &inf);
    CHECK(C(xyzz_is_infinity)(&xi));
    rand_xyzz(&xi, &inf);
    C(xyzz_to_jac)(&ji, &xi);
    CHECK(C(jac_is_infinity)(&ji));
    memset(&a, 0xff, sizeof a);
    C(xyzz_to_affine)(&a, &xi);
    CHECK(C(affine_is_infinity)(&a));
}

/* Long chains: the same sequence of mixed additions accumulated in
 * Jacobian and in XYZZ form (so Z values are far from 1), with repeats
 * and cancellations in the sequence, compared after every step. */
static void test_chain(int steps)
{
    JAC_T acc_j, acc_jf, from_x;
    XYZZ_T acc_x, acc_xf, tmp;
    AFFINE_T pts[4];
    for (int i = 0; i < 4; i++)
        rand_point(&pts[i]);
    C(jac_from_affine)(&acc_j, &INFINITY_PT);
    acc_jf = acc_j;
    C(xyzz_from_affine)(&acc_x, &INFINITY_PT);
    acc_xf = acc_x;
    for (int i = 0; i < steps; i++) {
        AFFINE_T q = pts[test_rand_below(4)];
        if (test_rand_below(4) == 0)
            C(affine_neg)(&q, &q);
        if (test_rand_below(8) == 0)
            C(jac_to_affine)(&q, &acc_j); /* doubling of the sum */
        JAC_T qj;
        rand_jac(&qj, &q);
        C(jac_add_mixed)(&acc_j, &acc_j, &q);
        C(jac_add)(&acc_jf, &acc_jf, &qj);
        C(xyzz_add_mixed)(&acc_x, &acc_x, &q);
        rand_xyzz(&tmp, &q);
        C(xyzz_add)(&acc_xf, &acc_xf, &tmp);
        C(xyzz_to_jac)(&from_x, &acc_x);
        CHECK(C(jac_eq)(&acc_j, &from_x));
        CHECK(C(jac_eq)(&acc_j, &acc_jf));
        C(xyzz_to_jac)(&from_x, &acc_xf);
        CHECK(C(jac_eq)(&acc_j, &from_x));
        if (i % 16 == 0)
            CHECK(C(jac_is_on_curve)(&acc_j));
    }
}

static void test_on_curve(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        AFFINE_T p, bad;
        rand_curve_point(&p);
        CHECK(C(affine_is_on_curve)(&p));
        bad = p;
        FE(add)(&bad.y, &bad.y, &FE_ONE);
        CHECK(!C(affine_is_on_curve)(&bad));
        FE_RAND(&bad.x);
        FE_RAND(&bad.y);
        CHECK(!C(affine_is_on_curve)(&bad));
        JAC_T j;
        rand_jac(&j, &p);
        CHECK(C(jac_is_on_curve)(&j));
        FE(add)(&j.x, &j.x, &FE_ONE);
        CHECK(!C(jac_is_on_curve)(&j));
    }
    AFFINE_T inf;
    memset(&inf, 0, sizeof inf);
    CHECK(C(affine_is_on_curve)(&inf));
    JAC_T j;
    rand_jac(&j, &inf);
    CHECK(C(jac_is_on_curve)(&j));
}

static void test_from_x(int rounds)
{
    int found = 0, missing = 0;
    for (int i = 0; i < rounds; i++) {
        FE_T x;
        FE_RAND(&x);
        bool largest = i & 1;
        AFFINE_T p, before;
        memset(&p, 0xa5, sizeof p);
        before = p;
        if (C(affine_from_x)(&p, &x, largest)) {
            found++;
            CHECK(C(affine_is_on_curve)(&p) && FE(eq)(&p.x, &x));
            CHECK(FE(is_lexicographically_largest)(&p.y) == largest);
        } else {
            missing++;
            CHECK(memcmp(&p, &before, sizeof p) == 0);
            /* No y at all: x^3 + b is not a square, with b taken from
             * the generator's coordinates. */
            FE_T rhs, b, t, root;
            FE(sqr)(&b, &GENERATOR.y);
            FE(sqr)(&t, &GENERATOR.x);
            FE(mul)(&t, &t, &GENERATOR.x);
            FE(sub)(&b, &b, &t);
            FE(sqr)(&rhs, &x);
            FE(mul)(&rhs, &rhs, &x);
            FE(add)(&rhs, &rhs, &b);
            CHECK(!FE(sqrt)(&root, &rhs));
        }
    }
    /* About half of all x are abscissas. */
    CHECK(found > rounds / 4 && missing > rounds / 4);
}

static void test_mul(int rounds)
{
    JAC_T g, j;
    AFFINE_T want;
    C(jac_from_affine)(&g, &GENERATOR);

    /* Against the reference on random full-size scalars, for the generator
     * and for a point outside the group (mul must not assume the group). */
    for (int i = 0; i < rounds; i++) {
        fr_t k;
        uint64_t kl[4];
        test_rand_fr(&k);
        fr_to_limbs(kl, &k);
        C(jac_mul_fr)(&j, &g, &k);
        ref_mul(&want, &GENERATOR, kl, 4);
        CHECK(jac_is(&j, &want));
        AFFINE_T p;
        JAC_T jp;
        rand_curve_point(&p);
        rand_jac(&jp, &p);
        C(jac_mul)(&j, &jp, kl, 4);
        ref_mul(&want, &p, kl, 4);
        CHECK(jac_is(&j, &want));
        C(jac_mul)(&jp, &jp, kl, 4); /* aliasing */
        CHECK(jac_is(&jp, &want));
    }

    /* Small and structured scalars: window edges, single bits, all ones. */
    static const uint64_t smalls[] = {0, 1, 2, 3, 4, 15, 16, 17, 31, 32, 33,
                                      63, 64, 65, 0x5555, 0xffffffffull,
                                      0x8000000000000000ull, ~0ull};
    for (size_t i = 0; i < sizeof smalls / sizeof smalls[0]; i++) {
        C(jac_mul)(&j, &g, &smalls[i], 1);
        ref_mul(&want, &GENERATOR, &smalls[i], 1);
        CHECK(jac_is(&j, &want));
    }
    uint64_t wide[3] = {0, 1, 0}; /* 2^64 with a zero top limb */
    C(jac_mul)(&j, &g, wide, 3);
    ref_mul(&want, &GENERATOR, wide, 3);
    CHECK(jac_is(&j, &want));
    C(jac_mul)(&j, &g, wide, 0); /* empty scalar is zero */
    CHECK(C(jac_is_infinity)(&j));
    JAC_T inf;
    rand_jac(&inf, &INFINITY_PT);
    C(jac_mul)(&j, &inf, &smalls[5], 1);
    CHECK(C(jac_is_infinity)(&j));

    /* (a + b)G = aG + bG with a + b mod r from GMP; scalars longer than r
     * (8 limbs) act modulo r on the group. */
    mpz_t ma, mb, ms;
    mpz_inits(ma, mb, ms, NULL);
    for (int i = 0; i < rounds; i++) {
        fr_t x, y, s;
        test_rand_fr(&x);
        test_rand_fr(&y);
        test_fr_to_mpz(ma, &x);
        test_fr_to_mpz(mb, &y);
        mpz_add(ms, ma, mb);
        mpz_mod(ms, ms, test_r);
        test_fr_from_mpz(&s, ms);
        JAC_T ax, by, sum, direct;
        C(jac_mul_fr)(&ax, &g, &x);
        C(jac_mul_fr)(&by, &g, &y);
        C(jac_add)(&sum, &ax, &by);
        C(jac_mul_fr)(&direct, &g, &s);
        CHECK(C(jac_eq)(&sum, &direct));

        uint64_t big[8];
        for (int l = 0; l < 8; l++)
            big[l] = test_rand_u64();
        mpz_import(ms, 8, -1, 8, 0, 0, big);
        mpz_mod(ms, ms, test_r);
        test_fr_from_mpz(&s, ms);
        C(jac_mul)(&sum, &g, big, 8);
        C(jac_mul_fr)(&direct, &g, &s);
        CHECK(C(jac_eq)(&sum, &direct));
    }
    mpz_clears(ma, mb, ms, NULL);
}

static void test_batch(void)
{
    static const size_t sizes[] = {0, 1, 2, 7, 33};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        JAC_T *in = calloc(n + 1, sizeof *in);
        AFFINE_T *out = calloc(n + 1, sizeof *out);
        if (!CHECK(in && out)) {
            free(in);
            free(out);
            return;
        }
        for (size_t i = 0; i < n; i++) {
            AFFINE_T p;
            if (i % 3 == 1)
                memset(&p, 0, sizeof p); /* infinity */
            else
                rand_point(&p);
            rand_jac(&in[i], &p);
        }
        memset(&out[n], 0x5a, sizeof out[n]); /* guard */
        AFFINE_T guard = out[n];
        CHECK(C(batch_to_affine)(out, in, n) == 0);
        for (size_t i = 0; i < n; i++) {
            AFFINE_T one;
            C(jac_to_affine)(&one, &in[i]);
            CHECK(C(affine_eq)(&out[i], &one));
        }
        CHECK(memcmp(&out[n], &guard, sizeof guard) == 0);
        free(in);
        free(out);
    }
}

/* The fast subgroup test against the definition [r]P = O. */
static void test_subgroup(int rounds)
{
    int outside = 0;
    for (int i = 0; i < rounds; i++) {
        AFFINE_T p;
        rand_point(&p);
        CHECK(C(affine_in_subgroup)(&p));
        JAC_T j;
        rand_jac(&j, &p);
        CHECK(C(jac_in_subgroup)(&j));

        rand_curve_point(&p);
        bool in = mul_r_is_zero(&p);
        CHECK(C(affine_in_subgroup)(&p) == in);
        rand_jac(&j, &p);
        CHECK(C(jac_in_subgroup)(&j) == in);
        outside += !in;

        /* Cofactor clearing lands in the group. */
        JAC_T c;
        C(jac_clear_cofactor)(&c, &j);
        AFFINE_T ca;
        C(jac_to_affine)(&ca, &c);
        CHECK(!C(affine_is_infinity)(&ca));
        CHECK(C(affine_is_on_curve)(&ca) && mul_r_is_zero(&ca));
        CHECK(C(jac_in_subgroup)(&c));
    }
    /* Random curve points are almost never in the group (probability
     * 1/cofactor): the test above saw both answers. */
    CHECK(outside == rounds);
    AFFINE_T inf;
    memset(&inf, 0, sizeof inf);
    CHECK(C(affine_in_subgroup)(&inf));
}

/* [k]p for k a GMP value of any size, through the library's Jacobian code. */
static void jac_mul_mpz(JAC_T *ret, const AFFINE_T *p, const mpz_t k)
{
    uint64_t limbs[16] = {0};
    size_t n = 0;
    mpz_export(limbs, &n, -1, 8, 0, 0, k);
    JAC_T j;
    C(jac_from_affine)(&j, p);
    C(jac_mul)(ret, &j, limbs, n);
}

/* Both tests, the endomorphism one (affine and Jacobian) and [r]P = O,
 * must give want for p. */
static void check_membership(const AFFINE_T *p, bool want)
{
    JAC_T j;
    rand_jac(&j, p);
    CHECK(C(affine_is_on_curve)(p));
    CHECK(C(affine_in_subgroup)(p) == want);
    CHECK(C(jac_in_subgroup)(&j) == want);
    CHECK(mul_r_is_zero(p) == want);
}

/*
 * Crafted points on the curve and outside the group, the ones a hostile
 * key would hold: a point of each prime order q dividing the cofactor (and
 * of order q^2 where q^2 divides it), the same added to a group point, and
 * the cofactor part of a random point ([r]R). The endomorphism test and
 * the definition [r]P = O must reject every one and accept the group point.
 */
static void test_subgroup_crafted(int rounds)
{
    static const char *const primes[] = COFACTOR_PRIMES;
    const size_t n_primes = sizeof primes / sizeof primes[0];
    mpz_t h, prod, q, order, k;
    mpz_inits(h, prod, q, order, k, NULL);
    CHECK(mpz_set_str(h, COFACTOR_HEX, 16) == 0);
    mpz_set_ui(prod, 1);
    for (size_t i = 0; i < n_primes; i++) {
        CHECK(mpz_set_str(q, primes[i], 10) == 0);
        CHECK(mpz_probab_prime_p(q, 30) > 0);
        mpz_mul(prod, prod, q);
    }
    CHECK(mpz_cmp(prod, h) == 0);
    mpz_mul(order, h, test_r);

    for (int round = 0; round < rounds; round++) {
        AFFINE_T r_pt, g, sum, t;
        JAC_T j;
        /* the curve has h r points: [h r]R = O */
        rand_curve_point(&r_pt);
        jac_mul_mpz(&j, &r_pt, order);
        CHECK(C(jac_is_infinity)(&j));
        rand_point(&g);
        check_membership(&g, true);

        /* the cofactor part of R: order dividing h, not 1 */
        jac_mul_mpz(&j, &r_pt, test_r);
        C(jac_to_affine)(&t, &j);
        CHECK(!C(affine_is_infinity)(&t));
        check_membership(&t, false);

        for (size_t i = 0; i < n_primes; i++) {
            if (i > 0 && strcmp(primes[i], primes[i - 1]) == 0)
                continue;
            unsigned m = 1;
            while (i + m < n_primes && strcmp(primes[i + m], primes[i]) == 0)
                m++;
            /* T = [h r / q^m]R: R's q-primary part (order dividing q^m) */
            mpz_set_str(q, primes[i], 10);
            mpz_pow_ui(k, q, m);
            mpz_divexact(k, order, k);
            bool found = false;
            for (int tries = 0; tries < 64 && !found; tries++) {
                rand_curve_point(&r_pt);
                jac_mul_mpz(&j, &r_pt, k);
                C(jac_to_affine)(&t, &j);
                found = !C(affine_is_infinity)(&t);
            }
            if (!CHECK(found))
                continue;
            mpz_pow_ui(k, q, m);
            jac_mul_mpz(&j, &t, k);
            CHECK(C(jac_is_infinity)(&j));
            for (;;) {
                /* T itself, and T added to a group point */
                check_membership(&t, false);
                ref_add(&sum, &g, &t);
                check_membership(&sum, false);
                /* then [q]T, down to a point of order q */
                jac_mul_mpz(&j, &t, q);
                if (C(jac_is_infinity)(&j))
                    break;
                C(jac_to_affine)(&t, &j);
            }
        }
    }
    mpz_clears(h, prod, q, order, k, NULL);
}

static void run_group_tests(int rounds)
{
    test_generator();
    test_add(rounds);
    test_dbl(rounds);
    test_forms(rounds);
    test_chain(8 * rounds);
    test_on_curve(rounds);
    test_from_x(4 * rounds);
    test_mul(rounds / 4 + 1);
    test_batch();
    test_subgroup(rounds / 4 + 1);
    test_subgroup_crafted(2);
}
