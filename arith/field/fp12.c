/*
 * Fp12 = Fp6[w] / (w^2 - v): Karatsuba multiplication and complex squaring
 * (Devegili et al., "Multiplication and squaring on pairing-friendly
 * fields", 2006), the sparse product with Miller loop lines, Frobenius maps,
 * and the cyclotomic squaring of Granger and Scott (PKC 2010) used by the
 * final exponentiation.
 */
#include "arith/field/fp12.h"

#include "arith/field/bls12_381.h"

const fp12_t FP12_ONE = {
    {{{{BLS12_381_P_R(BLS12_381_U64)}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}},
    {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}},
};

void fp12_add(fp12_t *ret, const fp12_t *a, const fp12_t *b)
{
    fp6_add(&ret->c0, &a->c0, &b->c0);
    fp6_add(&ret->c1, &a->c1, &b->c1);
}

void fp12_sub(fp12_t *ret, const fp12_t *a, const fp12_t *b)
{
    fp6_sub(&ret->c0, &a->c0, &b->c0);
    fp6_sub(&ret->c1, &a->c1, &b->c1);
}

void fp12_neg(fp12_t *ret, const fp12_t *a)
{
    fp6_neg(&ret->c0, &a->c0);
    fp6_neg(&ret->c1, &a->c1);
}

void fp12_mul(fp12_t *ret, const fp12_t *a, const fp12_t *b)
{
    /* c0 = t0 + v t1, c1 = (a0 + a1)(b0 + b1) - t0 - t1, ti = ai bi */
    fp6_t t0, t1, s, u;
    fp6_mul(&t0, &a->c0, &b->c0);
    fp6_mul(&t1, &a->c1, &b->c1);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_add(&u, &b->c0, &b->c1);
    fp6_mul(&s, &s, &u);
    fp6_sub(&s, &s, &t0);
    fp6_sub(&ret->c1, &s, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&ret->c0, &t0, &t1);
}

void fp12_sqr(fp12_t *ret, const fp12_t *a)
{
    /* (a0 + a1 w)^2 = (a0 + a1)(a0 + v a1) - t - v t + 2 t w, t = a0 a1 */
    fp6_t t, s, u;
    fp6_mul(&t, &a->c0, &a->c1);
    fp6_add(&s, &a->c0, &a->c1);
    fp6_mul_by_nonresidue(&u, &a->c1);
    fp6_add(&u, &u, &a->c0);
    fp6_mul(&s, &s, &u);
    fp6_sub(&s, &s, &t);
    fp6_dbl(&ret->c1, &t);
    fp6_mul_by_nonresidue(&t, &t);
    fp6_sub(&ret->c0, &s, &t);
}

void fp12_mul_by_014(fp12_t *ret, const fp12_t *a, const fp2_t *l0,
                     const fp2_t *l1, const fp2_t *l4)
{
    /* l = L0 + L1 w with L0 = l0 + l1 v, L1 = l4 v; Karatsuba as in
     * fp12_mul with the sparse Fp6 products. */
    fp6_t t0, t1, s;
    fp2_t m;
    fp6_mul_by_01(&t0, &a->c0, l0, l1);
    fp6_mul_by_1(&t1, &a->c1, l4);
    fp6_add(&s, &a->c0, &a->c1);
    fp2_add(&m, l1, l4);
    fp6_mul_by_01(&s, &s, l0, &m);
    fp6_sub(&s, &s, &t0);
    fp6_sub(&ret->c1, &s, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&ret->c0, &t0, &t1);
}

void fp12_inv(fp12_t *ret, const fp12_t *a)
{
    /* 1 / (a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2) */
    fp6_t t0, t1;
    fp6_sqr(&t0, &a->c0);
    fp6_sqr(&t1, &a->c1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_sub(&t0, &t0, &t1);
    fp6_inv(&t0, &t0);
    fp6_mul(&ret->c0, &a->c0, &t0);
    fp6_mul(&t1, &a->c1, &t0);
    fp6_neg(&ret->c1, &t1);
}

void fp12_conj(fp12_t *ret, const fp12_t *a)
{
    ret->c0 = a->c0;
    fp6_neg(&ret->c1, &a->c1);
}

/* a^(p^j), j = 1, 2, 3. With a = sum a_k w^k (a_k in Fp2; c0 holds w^0,
 * w^2, w^4 and c1 w^1, w^3, w^5), (a_k w^k)^(p^j) = a_k^(p^j) g_jk w^k with
 * g_jk = w^(k (p^j - 1)) = xi^(k (p^j - 1)/6). */
static void fp12_frobenius_once(fp12_t *ret, const fp12_t *a, unsigned j)
{
    const fp2_t *g = FP6_FROBENIUS_COEFF[j - 1];
    fp2_t *out[6] = {&ret->c0.c0, &ret->c1.c0, &ret->c0.c1,
                     &ret->c1.c1, &ret->c0.c2, &ret->c1.c2};
    const fp2_t *in[6] = {&a->c0.c0, &a->c1.c0, &a->c0.c1,
                          &a->c1.c1, &a->c0.c2, &a->c1.c2};
    for (int k = 0; k < 6; k++) {
        fp2_t t = *in[k];
        if (j & 1)
            fp2_conj(&t, &t);
        if (k == 0)
            *out[k] = t;
        else if (j == 2)
            fp2_mul_fp(out[k], &t, &g[k - 1].c0); /* g in Fp for p^2 */
        else
            fp2_mul(out[k], &t, &g[k - 1]);
    }
}

void fp12_frobenius_map(fp12_t *ret, const fp12_t *a, unsigned power)
{
    power %= 12; /* x^(p^12) = x on Fp12 */
    *ret = *a;
    while (power > 0) {
        unsigned j = power > 3 ? 3 : power;
        fp12_frobenius_once(ret, ret, j);
        power -= j;
    }
}

/* (x + y s)^2 in Fp4 = Fp2[s] / (s^2 - xi): x^2 + xi y^2 + 2 x y s. */
static void fp4_sqr(fp2_t *r0, fp2_t *r1, const fp2_t *x, const fp2_t *y)
{
    fp2_t t0, t1, t2;
    fp2_sqr(&t0, x);
    fp2_sqr(&t1, y);
    fp2_add(&t2, x, y);
    fp2_sqr(&t2, &t2);
    fp2_sub(&t2, &t2, &t0);
    fp2_sub(r1, &t2, &t1);
    fp2_mul_by_nonresidue(&t1, &t1);
    fp2_add(r0, &t0, &t1);
}

void fp12_cyclotomic_sqr(fp12_t *ret, const fp12_t *a)
{
    /* Granger-Scott: with s = w^3 (s^2 = xi), Fp12 =
     * Fp4[w] / (w^3 - s) and a = A + B w + C w^2, where A = a0 + a3 s,
     * B = a1 + a4 s, C = a2 + a5 s (a_k the coefficient of w^k). For a in
     * the cyclotomic subgroup,
     *   a^2 = (3 A^2 - 2 conj(A)) + (3 s C^2 + 2 conj(B)) w
     *       + (3 B^2 - 2 conj(C)) w^2,  conj(x + y s) = x - y s. */
    const fp2_t *a0 = &a->c0.c0, *a1 = &a->c1.c0, *a2 = &a->c0.c1;
    const fp2_t *a3 = &a->c1.c1, *a4 = &a->c0.c2, *a5 = &a->c1.c2;
    fp2_t A0, A1, B0, B1, C0, C1, t;
    fp12_t r;

    fp4_sqr(&A0, &A1, a0, a3);
    fp4_sqr(&B0, &B1, a1, a4);
    fp4_sqr(&C0, &C1, a2, a5);

    /* A: 3 A0 - 2 a0, 3 A1 + 2 a3 */
    fp2_sub(&t, &A0, a0);
    fp2_dbl(&t, &t);
    fp2_add(&r.c0.c0, &t, &A0);
    fp2_add(&t, &A1, a3);
    fp2_dbl(&t, &t);
    fp2_add(&r.c1.c1, &t, &A1);

    /* B: s C^2 = xi C1 + C0 s; 3 xi C1 + 2 a1, 3 C0 - 2 a4 */
    fp2_mul_by_nonresidue(&C1, &C1);
    fp2_add(&t, &C1, a1);
    fp2_dbl(&t, &t);
    fp2_add(&r.c1.c0, &t, &C1);
    fp2_sub(&t, &C0, a4);
    fp2_dbl(&t, &t);
    fp2_add(&r.c0.c2, &t, &C0);

    /* C: 3 B0 - 2 a2, 3 B1 + 2 a5 */
    fp2_sub(&t, &B0, a2);
    fp2_dbl(&t, &t);
    fp2_add(&r.c0.c1, &t, &B0);
    fp2_add(&t, &B1, a5);
    fp2_dbl(&t, &t);
    fp2_add(&r.c1.c2, &t, &B1);

    *ret = r;
}

void fp12_pow(fp12_t *ret, const fp12_t *a, const uint64_t *e, size_t n)
{
    fp12_t acc = FP12_ONE, base = *a;
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            fp12_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1)
                fp12_mul(&acc, &acc, &base);
        }
    }
    *ret = acc;
}

void fp12_cyclotomic_pow(fp12_t *ret, const fp12_t *a, const uint64_t *e,
                         size_t n)
{
    fp12_t acc = FP12_ONE, base = *a;
    bool started = false; /* skip squarings of one */
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            if (started)
                fp12_cyclotomic_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) {
                if (started)
                    fp12_mul(&acc, &acc, &base);
                else
                    acc = base;
                started = true;
            }
        }
    }
    *ret = acc;
}

bool fp12_is_one(const fp12_t *a)
{
    return fp6_is_one(&a->c0) && fp6_is_zero(&a->c1);
}

bool fp12_is_zero(const fp12_t *a)
{
    return fp6_is_zero(&a->c0) && fp6_is_zero(&a->c1);
}

bool fp12_eq(const fp12_t *a, const fp12_t *b)
{
    return fp6_eq(&a->c0, &b->c0) && fp6_eq(&a->c1, &b->c1);
}
