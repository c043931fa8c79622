/*
 * The operations G1 and G2 share, written once over a generic coordinate
 * field: both are short Weierstrass curves y^2 = x^3 + b with a = 0, so the
 * formulas are identical and only the field (Fp or Fp2) and b differ.
 * g1.c and g2.c define
 *   CURVE          the function and type prefix (g1, g2)
 *   FE_T           the coordinate field's element type (fp_t, fp2_t)
 *   FE(op)         the field's function for op (fp_mul, fp2_mul, ...)
 *   FE_ONE         one in Montgomery form (an element)
 *   FE_ONE_INIT    the same as a brace initializer, for static constants
 *   FE_ZERO_INIT   zero as a brace initializer
 *   FE_MUL_B(r,a)  r = b * a, a statement
 * and then include this file once. It is not a public header.
 *
 * Formulas are from the Explicit-Formulas Database (hyperelliptic.org/EFD,
 * "g1p/auto-shortw-jacobian-0" and "g1p/auto-shortw-xyzz"), with the
 * exceptional cases (infinity, P == Q, P == -Q) handled by explicit checks
 * so every addition is complete. Inputs are public (proof elements, keys),
 * so branching on them leaks nothing worth hiding.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/field/bls12_381.h"

#define CURVE_CAT3_(a, b, c) a##_##b##_##c
#define CURVE_CAT3(a, b, c) CURVE_CAT3_(a, b, c)
#define CURVE_CAT_(a, b) a##_##b
#define CURVE_CAT(a, b) CURVE_CAT_(a, b)
#define CURVE_FN(name) CURVE_CAT(CURVE, name)
#define AFFINE_T CURVE_CAT3(CURVE, affine, t)
#define JAC_T CURVE_CAT3(CURVE, jac, t)
#define XYZZ_T CURVE_CAT3(CURVE, xyzz, t)

/* Jacobian and XYZZ infinity: any point with Z = 0 (ZZ = 0); these are the
 * representatives the functions below produce. */
static const JAC_T CURVE_FN(jac_infinity) = {FE_ONE_INIT, FE_ONE_INIT,
                                             FE_ZERO_INIT};
static const XYZZ_T CURVE_FN(xyzz_infinity) = {FE_ONE_INIT, FE_ONE_INIT,
                                               FE_ZERO_INIT, FE_ZERO_INIT};

/* ---- affine ---------------------------------------------------------- */

bool CURVE_FN(affine_is_infinity)(const AFFINE_T *p)
{
    return FE(is_zero)(&p->x) && FE(is_zero)(&p->y);
}

bool CURVE_FN(affine_is_on_curve)(const AFFINE_T *p)
{
    if (CURVE_FN(affine_is_infinity)(p))
        return true;
    FE_T lhs, rhs, b;
    FE(sqr)(&lhs, &p->y);
    FE(sqr)(&rhs, &p->x);
    FE(mul)(&rhs, &rhs, &p->x);
    FE_MUL_B(&b, &FE_ONE);
    FE(add)(&rhs, &rhs, &b);
    return FE(eq)(&lhs, &rhs);
}

bool CURVE_FN(affine_eq)(const AFFINE_T *a, const AFFINE_T *b)
{
    return FE(eq)(&a->x, &b->x) && FE(eq)(&a->y, &b->y);
}

void CURVE_FN(affine_neg)(AFFINE_T *ret, const AFFINE_T *p)
{
    /* -(0, 0) = (0, 0): fp_neg(0) = 0 keeps infinity as it is. */
    ret->x = p->x;
    FE(neg)(&ret->y, &p->y);
}

bool CURVE_FN(affine_from_x)(AFFINE_T *ret, const FE_T *x, bool y_largest)
{
    FE_T rhs, b, y;
    FE(sqr)(&rhs, x);
    FE(mul)(&rhs, &rhs, x);
    FE_MUL_B(&b, &FE_ONE);
    FE(add)(&rhs, &rhs, &b);
    if (!FE(sqrt)(&y, &rhs))
        return false;
    /* y = 0, where the sign could not be chosen, does not occur: both
     * curves' group orders are odd, so there are no points of order 2. */
    if (FE(is_lexicographically_largest)(&y) != y_largest)
        FE(neg)(&y, &y);
    ret->x = *x;
    ret->y = y;
    return true;
}

/* ---- Jacobian -------------------------------------------------------- */

void CURVE_FN(jac_from_affine)(JAC_T *ret, const AFFINE_T *p)
{
    if (CURVE_FN(affine_is_infinity)(p)) {
        *ret = CURVE_FN(jac_infinity);
        return;
    }
    ret->x = p->x;
    ret->y = p->y;
    ret->z = FE_ONE;
}

bool CURVE_FN(jac_is_infinity)(const JAC_T *p)
{
    return FE(is_zero)(&p->z);
}

void CURVE_FN(jac_to_affine)(AFFINE_T *ret, const JAC_T *p)
{
    if (CURVE_FN(jac_is_infinity)(p)) {
        FE_T zero = {0};
        ret->x = zero;
        ret->y = zero;
        return;
    }
    FE_T zinv, zinv2, zinv3;
    FE(inv)(&zinv, &p->z);
    FE(sqr)(&zinv2, &zinv);
    FE(mul)(&zinv3, &zinv2, &zinv);
    FE(mul)(&ret->x, &p->x, &zinv2);
    FE(mul)(&ret->y, &p->y, &zinv3);
}

bool CURVE_FN(jac_is_on_curve)(const JAC_T *p)
{
    if (CURVE_FN(jac_is_infinity)(p))
        return true;
    /* Y^2 = X^3 + b Z^6 */
    FE_T lhs, rhs, z2, z6;
    FE(sqr)(&lhs, &p->y);
    FE(sqr)(&rhs, &p->x);
    FE(mul)(&rhs, &rhs, &p->x);
    FE(sqr)(&z2, &p->z);
    FE(sqr)(&z6, &z2);
    FE(mul)(&z6, &z6, &z2);
    FE_MUL_B(&z6, &z6);
    FE(add)(&rhs, &rhs, &z6);
    return FE(eq)(&lhs, &rhs);
}

bool CURVE_FN(jac_eq)(const JAC_T *a, const JAC_T *b)
{
    bool ia = CURVE_FN(jac_is_infinity)(a), ib = CURVE_FN(jac_is_infinity)(b);
    if (ia || ib)
        return ia == ib;
    /* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3 */
    FE_T z1z1, z2z2, u1, u2, s1, s2;
    FE(sqr)(&z1z1, &a->z);
    FE(sqr)(&z2z2, &b->z);
    FE(mul)(&u1, &a->x, &z2z2);
    FE(mul)(&u2, &b->x, &z1z1);
    if (!FE(eq)(&u1, &u2))
        return false;
    FE(mul)(&s1, &a->y, &z2z2);
    FE(mul)(&s1, &s1, &b->z);
    FE(mul)(&s2, &b->y, &z1z1);
    FE(mul)(&s2, &s2, &a->z);
    return FE(eq)(&s1, &s2);
}

void CURVE_FN(jac_neg)(JAC_T *ret, const JAC_T *p)
{
    ret->x = p->x;
    FE(neg)(&ret->y, &p->y);
    ret->z = p->z;
}

/* dbl-2009-l (Lange, EFD): 2M + 5S. Infinity and points with y = 0 give
 * Z3 = 2 Y1 Z1 = 0, i.e. infinity, without a special case. */
void CURVE_FN(jac_dbl)(JAC_T *ret, const JAC_T *p)
{
    FE_T a, b, c, d, e, f, t;
    FE(sqr)(&a, &p->x);
    FE(sqr)(&b, &p->y);
    FE(sqr)(&c, &b);
    FE(add)(&d, &p->x, &b);
    FE(sqr)(&d, &d);
    FE(sub)(&d, &d, &a);
    FE(sub)(&d, &d, &c);
    FE(dbl)(&d, &d);
    FE(dbl)(&e, &a);
    FE(add)(&e, &e, &a);
    FE(sqr)(&f, &e);
    /* Z3 first: ret may alias p. */
    FE(mul)(&ret->z, &p->y, &p->z);
    FE(dbl)(&ret->z, &ret->z);
    FE(dbl)(&t, &d);
    FE(sub)(&ret->x, &f, &t);
    FE(sub)(&t, &d, &ret->x);
    FE(mul)(&t, &e, &t);
    FE(dbl)(&c, &c);
    FE(dbl)(&c, &c);
    FE(dbl)(&c, &c);
    FE(sub)(&ret->y, &t, &c);
}

/* add-2007-bl (Bernstein, Lange, EFD): 11M + 5S. */
void CURVE_FN(jac_add)(JAC_T *ret, const JAC_T *a, const JAC_T *b)
{
    if (CURVE_FN(jac_is_infinity)(a)) {
        *ret = *b;
        return;
    }
    if (CURVE_FN(jac_is_infinity)(b)) {
        *ret = *a;
        return;
    }
    FE_T z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t;
    FE(sqr)(&z1z1, &a->z);
    FE(sqr)(&z2z2, &b->z);
    FE(mul)(&u1, &a->x, &z2z2);
    FE(mul)(&u2, &b->x, &z1z1);
    FE(mul)(&s1, &a->y, &b->z);
    FE(mul)(&s1, &s1, &z2z2);
    FE(mul)(&s2, &b->y, &a->z);
    FE(mul)(&s2, &s2, &z1z1);
    FE(sub)(&h, &u2, &u1);
    FE(sub)(&r, &s2, &s1);
    if (FE(is_zero)(&h)) {
        /* Same x: the formula degenerates. Equal points double, opposite
         * points cancel. */
        if (FE(is_zero)(&r))
            CURVE_FN(jac_dbl)(ret, a);
        else
            *ret = CURVE_FN(jac_infinity);
        return;
    }
    FE(dbl)(&i, &h);
    FE(sqr)(&i, &i);
    FE(mul)(&j, &h, &i);
    FE(dbl)(&r, &r);
    FE(mul)(&v, &u1, &i);
    /* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) H, before ret (maybe a or b) is
     * written. */
    FE(add)(&t, &a->z, &b->z);
    FE(sqr)(&t, &t);
    FE(sub)(&t, &t, &z1z1);
    FE(sub)(&t, &t, &z2z2);
    FE(mul)(&ret->z, &t, &h);
    FE(sqr)(&ret->x, &r);
    FE(sub)(&ret->x, &ret->x, &j);
    FE(dbl)(&t, &v);
    FE(sub)(&ret->x, &ret->x, &t);
    FE(sub)(&t, &v, &ret->x);
    FE(mul)(&t, &t, &r);
    FE(mul)(&s1, &s1, &j);
    FE(dbl)(&s1, &s1);
    FE(sub)(&ret->y, &t, &s1);
}

/* madd-2007-bl (Bernstein, Lange, EFD), Z2 = 1: 7M + 4S. */
void CURVE_FN(jac_add_mixed)(JAC_T *ret, const JAC_T *a, const AFFINE_T *b)
{
    if (CURVE_FN(affine_is_infinity)(b)) {
        *ret = *a;
        return;
    }
    if (CURVE_FN(jac_is_infinity)(a)) {
        CURVE_FN(jac_from_affine)(ret, b);
        return;
    }
    FE_T z1z1, u2, s2, h, hh, i, j, r, v, t;
    FE(sqr)(&z1z1, &a->z);
    FE(mul)(&u2, &b->x, &z1z1);
    FE(mul)(&s2, &b->y, &a->z);
    FE(mul)(&s2, &s2, &z1z1);
    FE(sub)(&h, &u2, &a->x);
    FE(sub)(&r, &s2, &a->y);
    if (FE(is_zero)(&h)) {
        if (FE(is_zero)(&r))
            CURVE_FN(jac_dbl)(ret, a);
        else
            *ret = CURVE_FN(jac_infinity);
        return;
    }
    FE(sqr)(&hh, &h);
    FE(dbl)(&i, &hh);
    FE(dbl)(&i, &i);
    FE(mul)(&j, &h, &i);
    FE(dbl)(&r, &r);
    FE(mul)(&v, &a->x, &i);
    FE(mul)(&s2, &a->y, &j); /* Y1 J, kept before ret (maybe a) changes */
    FE(add)(&t, &a->z, &h);
    FE(sqr)(&t, &t);
    FE(sub)(&t, &t, &z1z1);
    FE(sub)(&ret->z, &t, &hh);
    FE(sqr)(&ret->x, &r);
    FE(sub)(&ret->x, &ret->x, &j);
    FE(dbl)(&t, &v);
    FE(sub)(&ret->x, &ret->x, &t);
    FE(sub)(&t, &v, &ret->x);
    FE(mul)(&t, &t, &r);
    FE(dbl)(&s2, &s2);
    FE(sub)(&ret->y, &t, &s2);
}

/* Number of significant bits of k (n limbs). */
static size_t CURVE_FN(scalar_bits)(const uint64_t *k, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (k[i])
            return 64 * i + 64 - (size_t)__builtin_clzll(k[i]);
    }
    return 0;
}

static unsigned CURVE_FN(scalar_bit)(const uint64_t *k, size_t i)
{
    return (unsigned)(k[i / 64] >> (i % 64)) & 1;
}

/* Left-to-right sliding window (Menezes, van Oorschot, Vanstone, "Handbook
 * of Applied Cryptography", algorithm 14.85, written additively): a table of
 * the odd multiples P, 3P, ..., (2^w - 1)P and one addition per window.
 * The width minimises table cost 2^(w-1) plus bits/(w+1) additions. */
void CURVE_FN(jac_mul)(JAC_T *ret, const JAC_T *p, const uint64_t *k, size_t n)
{
    enum { MAX_W = 5 };
    size_t bits = CURVE_FN(scalar_bits)(k, n);
    if (bits == 0 || CURVE_FN(jac_is_infinity)(p)) {
        *ret = CURVE_FN(jac_infinity);
        return;
    }
    unsigned w = bits > 240 ? 5 : bits > 80 ? 4 : bits > 24 ? 3 : 1;
    JAC_T table[1 << (MAX_W - 1)], p2;
    table[0] = *p;
    if (w > 1) {
        CURVE_FN(jac_dbl)(&p2, p);
        for (size_t t = 1; t < ((size_t)1 << (w - 1)); t++)
            CURVE_FN(jac_add)(&table[t], &table[t - 1], &p2);
    }
    JAC_T acc = CURVE_FN(jac_infinity);
    bool started = false;
    size_t i = bits; /* bits still to process: i-1 down to 0 */
    while (i > 0) {
        if (!CURVE_FN(scalar_bit)(k, i - 1)) {
            if (started)
                CURVE_FN(jac_dbl)(&acc, &acc);
            i--;
            continue;
        }
        /* The window is bits i-1 .. j, its lowest bit set. */
        size_t j = i >= w ? i - w : 0;
        while (!CURVE_FN(scalar_bit)(k, j))
            j++;
        unsigned val = 0;
        for (size_t b = i; b-- > j;)
            val = (val << 1) | CURVE_FN(scalar_bit)(k, b);
        if (started) {
            for (size_t d = j; d < i; d++)
                CURVE_FN(jac_dbl)(&acc, &acc);
            CURVE_FN(jac_add)(&acc, &acc, &table[val >> 1]);
        } else {
            acc = table[val >> 1];
            started = true;
        }
        i = j;
    }
    *ret = acc;
}

void CURVE_FN(jac_mul_fr)(JAC_T *ret, const JAC_T *p, const fr_t *k)
{
    uint64_t limbs[4];
    fr_to_limbs(limbs, k);
    CURVE_FN(jac_mul)(ret, p, limbs, 4);
}

/* [|x|]P for the BLS parameter x: plain double and add, since |x| has only
 * six bits set and a window table would cost more than it saves. */
static void CURVE_FN(jac_mul_x_abs)(JAC_T *ret, const JAC_T *p)
{
    JAC_T acc = *p;
    for (int bit = 62; bit >= 0; bit--) {
        CURVE_FN(jac_dbl)(&acc, &acc);
        if ((BLS12_381_X_ABS >> bit) & 1)
            CURVE_FN(jac_add)(&acc, &acc, p);
    }
    *ret = acc;
}

/* Montgomery's trick (Montgomery, "Speeding the Pollard and elliptic curve
 * methods of factorization", 1987) with out[i].x holding the prefix products
 * between the passes, so no scratch memory is needed. */
int CURVE_FN(batch_to_affine)(AFFINE_T *out, const JAC_T *in, size_t n)
{
    FE_T acc = FE_ONE, zero = {0};
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!FE(is_zero)(&in[i].z))
            FE(mul)(&acc, &acc, &in[i].z);
    }
    FE(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FE(is_zero)(&in[i].z)) {
            out[i].x = zero;
            out[i].y = zero;
            continue;
        }
        FE_T zinv, zinv2;
        FE(mul)(&zinv, &out[i].x, &acc);
        FE(mul)(&acc, &acc, &in[i].z);
        FE(sqr)(&zinv2, &zinv);
        FE(mul)(&out[i].x, &in[i].x, &zinv2);
        FE(mul)(&zinv2, &zinv2, &zinv);
        FE(mul)(&out[i].y, &in[i].y, &zinv2);
    }
    return 0;
}

/* ---- XYZZ ------------------------------------------------------------ */

void CURVE_FN(xyzz_from_affine)(XYZZ_T *ret, const AFFINE_T *p)
{
    if (CURVE_FN(affine_is_infinity)(p)) {
        *ret = CURVE_FN(xyzz_infinity);
        return;
    }
    ret->x = p->x;
    ret->y = p->y;
    ret->zz = FE_ONE;
    ret->zzz = FE_ONE;
}

bool CURVE_FN(xyzz_is_infinity)(const XYZZ_T *p)
{
    return FE(is_zero)(&p->zz);
}

/* ZZ^3 = ZZZ^2 makes ZZZ a valid Jacobian Z: Z^2 = ZZZ^2 = ZZ^3, so
 * X' = X ZZ^2 and Y' = Y ZZZ^2 give the same point (2M + 2S, no inversion). */
void CURVE_FN(xyzz_to_jac)(JAC_T *ret, const XYZZ_T *p)
{
    if (CURVE_FN(xyzz_is_infinity)(p)) {
        *ret = CURVE_FN(jac_infinity);
        return;
    }
    FE_T t, z = p->zzz;
    FE(sqr)(&t, &p->zz);
    FE(mul)(&ret->x, &p->x, &t);
    FE(sqr)(&t, &p->zzz);
    FE(mul)(&ret->y, &p->y, &t);
    ret->z = z;
}

void CURVE_FN(xyzz_to_affine)(AFFINE_T *ret, const XYZZ_T *p)
{
    if (CURVE_FN(xyzz_is_infinity)(p)) {
        FE_T zero = {0};
        ret->x = zero;
        ret->y = zero;
        return;
    }
    /* 1/ZZ = (ZZ / ZZZ)^2 since ZZ^3 = ZZZ^2: one inversion for both. */
    FE_T zzzinv, zzinv;
    FE(inv)(&zzzinv, &p->zzz);
    FE(mul)(&zzinv, &p->zz, &zzzinv);
    FE(sqr)(&zzinv, &zzinv);
    FE(mul)(&ret->y, &p->y, &zzzinv);
    FE(mul)(&ret->x, &p->x, &zzinv);
}

/* dbl-2008-s-1 (Sutherland, EFD) with a = 0: 6M + 3S. y = 0 gives
 * ZZ3 = 0 (infinity) without a special case. */
void CURVE_FN(xyzz_dbl)(XYZZ_T *ret, const XYZZ_T *p)
{
    FE_T u, v, w, s, m, t;
    FE(dbl)(&u, &p->y);
    FE(sqr)(&v, &u);
    FE(mul)(&w, &u, &v);
    FE(mul)(&s, &p->x, &v);
    FE(sqr)(&m, &p->x);
    FE(dbl)(&t, &m);
    FE(add)(&m, &m, &t);
    FE(mul)(&ret->zz, &v, &p->zz);
    FE(mul)(&ret->zzz, &w, &p->zzz);
    FE(mul)(&w, &w, &p->y); /* W Y1, before ret (maybe p) changes */
    FE(sqr)(&t, &m);
    FE(dbl)(&ret->x, &s);
    FE(sub)(&ret->x, &t, &ret->x);
    FE(sub)(&t, &s, &ret->x);
    FE(mul)(&t, &m, &t);
    FE(sub)(&ret->y, &t, &w);
}

/* mdbl-2008-s-1: the doubling above with ZZ1 = ZZZ1 = 1 (4M + 2S), for
 * the P == Q case of mixed addition. */
static void CURVE_FN(xyzz_dbl_affine)(XYZZ_T *ret, const AFFINE_T *p)
{
    FE_T u, v, w, s, m, t;
    FE(dbl)(&u, &p->y);
    FE(sqr)(&v, &u);
    FE(mul)(&w, &u, &v);
    FE(mul)(&s, &p->x, &v);
    FE(sqr)(&m, &p->x);
    FE(dbl)(&t, &m);
    FE(add)(&m, &m, &t);
    ret->zz = v;
    ret->zzz = w;
    FE(mul)(&w, &w, &p->y);
    FE(sqr)(&t, &m);
    FE(dbl)(&ret->x, &s);
    FE(sub)(&ret->x, &t, &ret->x);
    FE(sub)(&t, &s, &ret->x);
    FE(mul)(&t, &m, &t);
    FE(sub)(&ret->y, &t, &w);
}

/* add-2008-s (Sutherland, EFD): 12M + 2S. */
void CURVE_FN(xyzz_add)(XYZZ_T *ret, const XYZZ_T *a, const XYZZ_T *b)
{
    if (CURVE_FN(xyzz_is_infinity)(a)) {
        *ret = *b;
        return;
    }
    if (CURVE_FN(xyzz_is_infinity)(b)) {
        *ret = *a;
        return;
    }
    FE_T u1, u2, s1, s2, pp, ppp, q, r, t;
    FE(mul)(&u1, &a->x, &b->zz);
    FE(mul)(&u2, &b->x, &a->zz);
    FE(mul)(&s1, &a->y, &b->zzz);
    FE(mul)(&s2, &b->y, &a->zzz);
    FE(sub)(&u2, &u2, &u1); /* P */
    FE(sub)(&r, &s2, &s1);
    if (FE(is_zero)(&u2)) {
        if (FE(is_zero)(&r))
            CURVE_FN(xyzz_dbl)(ret, a);
        else
            *ret = CURVE_FN(xyzz_infinity);
        return;
    }
    FE(sqr)(&pp, &u2);
    FE(mul)(&ppp, &u2, &pp);
    FE(mul)(&q, &u1, &pp);
    FE(mul)(&t, &a->zz, &b->zz);
    FE(mul)(&ret->zz, &t, &pp);
    FE(mul)(&t, &a->zzz, &b->zzz);
    FE(mul)(&ret->zzz, &t, &ppp);
    FE(sqr)(&t, &r);
    FE(sub)(&t, &t, &ppp);
    FE(dbl)(&ret->x, &q);
    FE(sub)(&ret->x, &t, &ret->x);
    FE(sub)(&t, &q, &ret->x);
    FE(mul)(&t, &t, &r);
    FE(mul)(&s1, &s1, &ppp);
    FE(sub)(&ret->y, &t, &s1);
}

/* madd-2008-s (Sutherland, EFD): 8M + 2S. */
void CURVE_FN(xyzz_add_mixed)(XYZZ_T *ret, const XYZZ_T *a, const AFFINE_T *b)
{
    if (CURVE_FN(affine_is_infinity)(b)) {
        *ret = *a;
        return;
    }
    if (CURVE_FN(xyzz_is_infinity)(a)) {
        CURVE_FN(xyzz_from_affine)(ret, b);
        return;
    }
    FE_T p, r, pp, ppp, q, t, y1ppp;
    FE(mul)(&p, &b->x, &a->zz);
    FE(sub)(&p, &p, &a->x);
    FE(mul)(&r, &b->y, &a->zzz);
    FE(sub)(&r, &r, &a->y);
    if (FE(is_zero)(&p)) {
        if (FE(is_zero)(&r))
            CURVE_FN(xyzz_dbl_affine)(ret, b);
        else
            *ret = CURVE_FN(xyzz_infinity);
        return;
    }
    FE(sqr)(&pp, &p);
    FE(mul)(&ppp, &p, &pp);
    FE(mul)(&q, &a->x, &pp);
    FE(mul)(&y1ppp, &a->y, &ppp);
    FE(mul)(&ret->zz, &a->zz, &pp);
    FE(mul)(&ret->zzz, &a->zzz, &ppp);
    FE(sqr)(&t, &r);
    FE(sub)(&t, &t, &ppp);
    FE(dbl)(&ret->x, &q);
    FE(sub)(&ret->x, &t, &ret->x);
    FE(sub)(&t, &q, &ret->x);
    FE(mul)(&t, &t, &r);
    FE(sub)(&ret->y, &t, &y1ppp);
}
