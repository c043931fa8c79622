/*
 * Fp2 = Fp[u]/(u^2 + 1). Multiplication by Karatsuba (3 Fp products),
 * squaring by the complex method (2 products). With the x86-64 assembly,
 * multiplication reduces lazily: the three products stay 768-bit, are
 * combined, and only the two results are reduced (Aranha, Karabina, Longa,
 * Gebotys, Lopez, "Faster explicit formulas for computing pairings over
 * ordinary curves", Eurocrypt 2011: lazy reduction).
 */
#include "arith/field/fp2.h"

#include "arith/field/bls12_381.h"
#include "arith/field/mont_asm.h"

const fp2_t FP2_ZERO = {{{0}}, {{0}}};
const fp2_t FP2_ONE = {{{BLS12_381_P_R(BLS12_381_U64)}}, {{0}}};

void fp2_add(fp2_t *ret, const fp2_t *a, const fp2_t *b)
{
    fp_add(&ret->c0, &a->c0, &b->c0);
    fp_add(&ret->c1, &a->c1, &b->c1);
}

void fp2_sub(fp2_t *ret, const fp2_t *a, const fp2_t *b)
{
    fp_sub(&ret->c0, &a->c0, &b->c0);
    fp_sub(&ret->c1, &a->c1, &b->c1);
}

void fp2_dbl(fp2_t *ret, const fp2_t *a)
{
    fp_dbl(&ret->c0, &a->c0);
    fp_dbl(&ret->c1, &a->c1);
}

void fp2_neg(fp2_t *ret, const fp2_t *a)
{
    fp_neg(&ret->c0, &a->c0);
    fp_neg(&ret->c1, &a->c1);
}

void fp2_mul(fp2_t *ret, const fp2_t *a, const fp2_t *b)
{
#if MONT_HAVE_X86_ASM
    /* c0 = a0 b0 - a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1, each
     * product below p^2 < p 2^384, kept there by mont_sub_768_x86. */
    uint64_t t0[12], t1[12], t2[12];
    fp_t s, u;
    fp_add(&s, &a->c0, &a->c1);
    fp_add(&u, &b->c0, &b->c1);
    mont_mul_384x384_x86(t0, a->c0.l, b->c0.l);
    mont_mul_384x384_x86(t1, a->c1.l, b->c1.l);
    mont_mul_384x384_x86(t2, s.l, u.l);
    mont_sub_768_x86(t2, t2, t0, FP_MODULUS);
    mont_sub_768_x86(t2, t2, t1, FP_MODULUS);
    mont_sub_768_x86(t0, t0, t1, FP_MODULUS);
    mont_redc_768_x86(ret->c0.l, t0, FP_MODULUS, BLS12_381_P_INV64);
    mont_redc_768_x86(ret->c1.l, t2, FP_MODULUS, BLS12_381_P_INV64);
#else
    fp_t t0, t1, s0, s1;
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    fp_add(&s0, &a->c0, &a->c1);
    fp_add(&s1, &b->c0, &b->c1);
    fp_mul(&s0, &s0, &s1);
    fp_sub(&ret->c0, &t0, &t1);
    fp_sub(&s0, &s0, &t0);
    fp_sub(&ret->c1, &s0, &t1);
#endif
}

void fp2_sqr(fp2_t *ret, const fp2_t *a)
{
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    fp_t s, d, m;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_mul(&m, &a->c0, &a->c1);
    fp_mul(&ret->c0, &s, &d);
    fp_dbl(&ret->c1, &m);
}

void fp2_mul_small(fp2_t *ret, const fp2_t *a, uint64_t small)
{
    fp_mul_small(&ret->c0, &a->c0, small);
    fp_mul_small(&ret->c1, &a->c1, small);
}

void fp2_mul_fp(fp2_t *ret, const fp2_t *a, const fp_t *b)
{
    fp_mul(&ret->c0, &a->c0, b);
    fp_mul(&ret->c1, &a->c1, b);
}

void fp2_mul_by_nonresidue(fp2_t *ret, const fp2_t *a)
{
    /* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
    fp_t t;
    fp_sub(&t, &a->c0, &a->c1);
    fp_add(&ret->c1, &a->c0, &a->c1);
    ret->c0 = t;
}

void fp2_conj(fp2_t *ret, const fp2_t *a)
{
    ret->c0 = a->c0;
    fp_neg(&ret->c1, &a->c1);
}

void fp2_inv(fp2_t *ret, const fp2_t *a)
{
    /* 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2) */
    fp_t n, t;
    fp_sqr(&n, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&n, &n, &t);
    fp_inv(&n, &n);
    fp_mul(&ret->c0, &a->c0, &n);
    fp_mul(&t, &a->c1, &n);
    fp_neg(&ret->c1, &t);
}

void fp2_pow(fp2_t *ret, const fp2_t *a, const uint64_t *e, size_t n)
{
    fp2_t acc = FP2_ONE, base = *a;
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            fp2_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1)
                fp2_mul(&acc, &acc, &base);
        }
    }
    *ret = acc;
}

bool fp2_sqrt(fp2_t *ret, const fp2_t *a)
{
    /* Complex method (Adj, Rodriguez-Henriquez, "Square root computation
     * over even extension fields", 2014, algorithm 8 for q = 3 mod 4):
     * with norm n = a0^2 + a1^2, find s = sqrt(n) in Fp, then
     * x0 = sqrt((a0 + s)/2) (or with -s), x1 = a1 / (2 x0). */
    if (fp2_is_zero(a)) {
        *ret = *a;
        return true;
    }
    fp_t n, t, s;
    fp_sqr(&n, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&n, &n, &t);
    if (!fp_sqrt(&s, &n))
        return false;
    fp_t half, two, x0, x1, d;
    fp_from_u64(&two, 2);
    fp_inv(&half, &two);
    fp_add(&d, &a->c0, &s);
    fp_mul(&d, &d, &half);
    if (!fp_sqrt(&x0, &d)) {
        fp_sub(&d, &a->c0, &s);
        fp_mul(&d, &d, &half);
        if (!fp_sqrt(&x0, &d))
            return false;
    }
    if (fp_is_zero(&x0)) {
        /* a0 + s = 0 and a1 = 0: a = a0 with -a0 a square, root = sqrt(-a0) u */
        fp_t na0;
        fp_neg(&na0, &a->c0);
        if (!fp_sqrt(&x1, &na0))
            return false;
    } else {
        fp_dbl(&t, &x0);
        fp_inv(&t, &t);
        fp_mul(&x1, &a->c1, &t);
    }
    fp2_t r = {x0, x1}, check;
    fp2_sqr(&check, &r);
    if (!fp2_eq(&check, a))
        return false;
    *ret = r;
    return true;
}

bool fp2_is_zero(const fp2_t *a)
{
    return fp_is_zero(&a->c0) && fp_is_zero(&a->c1);
}

bool fp2_is_one(const fp2_t *a)
{
    return fp_is_one(&a->c0) && fp_is_zero(&a->c1);
}

bool fp2_eq(const fp2_t *a, const fp2_t *b)
{
    return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1);
}

bool fp2_is_lexicographically_largest(const fp2_t *a)
{
    if (!fp_is_zero(&a->c1))
        return fp_is_lexicographically_largest(&a->c1);
    return fp_is_lexicographically_largest(&a->c0);
}

void fp2_batch_inv(fp2_t *out, const fp2_t *in, size_t n)
{
    fp2_t acc = FP2_ONE;
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        if (!fp2_is_zero(&in[i]))
            fp2_mul(&acc, &acc, &in[i]);
    }
    fp2_inv(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (fp2_is_zero(&in[i])) {
            out[i] = in[i];
            continue;
        }
        fp2_mul(&out[i], &out[i], &acc);
        fp2_mul(&acc, &acc, &in[i]);
    }
}
