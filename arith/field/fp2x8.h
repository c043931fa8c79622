/*
 * Fp2 = Fp[u]/(u^2 + 1) eight elements at a time, over the 8-way Fp of
 * fpx8.h (same lanes, radix, Montgomery R and lazy bound: every component
 * below 2p). Multiplication as two sums of two products with one
 * reduction each, squaring by the complex method (2 products). Internal
 * to the library.
 */
#ifndef ZKB_FP2X8_H
#define ZKB_FP2X8_H

#include "arith/field/fp2.h"
#include "arith/field/fpx8.h"

#if FPX8_HAVE

typedef struct {
    fpx8_t c0, c1;
} fp2x8_t;

/* p2 = fpx8_kp(2) everywhere below. */
FPX8_INLINE void fp2x8_mul(fp2x8_t *ret, const fp2x8_t *a, const fp2x8_t *b, const fpx8_t *p2)
{
    /* c0 = a0 b0 - a1 b1 = a0 b0 + (2p - a1) b1 mod p and c1 = a0 b1 + a1 b0,
     * each a sum of two products reduced once (lazy reduction: Aranha et
     * al., Eurocrypt 2011), both below 8p^2 < p 2^384 */
    __m512i t[16], u[16];
    fpx8_t n1;
    for (int i = 0; i < 16; i++)
        t[i] = u[i] = _mm512_setzero_si512();
    fpx8_neg_lazy(&n1, &a->c1, p2);
    fpx8_mul_acc(t, &a->c0, &b->c0);
    fpx8_mul_acc(t, &n1, &b->c1);
    fpx8_mul_acc(u, &a->c0, &b->c1);
    fpx8_mul_acc(u, &a->c1, &b->c0);
    fpx8_redc(&ret->c0, t);
    fpx8_redc(&ret->c1, u);
}

FPX8_INLINE void fp2x8_sqr(fp2x8_t *ret, const fp2x8_t *a, const fpx8_t *p2)
{
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u; one factor of each
     * product below 4p, the other below 2p: below 8p^2 < p 2^384 */
    fpx8_t s, d, a02;
    fpx8_add_lazy(&s, &a->c0, &a->c1);
    fpx8_sub(&d, &a->c0, &a->c1, p2);
    fpx8_add_lazy(&a02, &a->c0, &a->c0);
    fpx8_mul(&ret->c1, &a02, &a->c1);
    fpx8_mul(&ret->c0, &s, &d);
}

/* ret = a - b + kp per component (see fpx8_sub_lazy). */
FPX8_INLINE void fp2x8_sub_lazy(fp2x8_t *ret, const fp2x8_t *a, const fp2x8_t *b,
                                const fpx8_t *kp)
{
    fpx8_sub_lazy(&ret->c0, &a->c0, &b->c0, kp);
    fpx8_sub_lazy(&ret->c1, &a->c1, &b->c1, kp);
}

/* Canonical components of components below 4p. */
FPX8_INLINE void fp2x8_canon4(fp2x8_t *ret, const fp2x8_t *a, const fpx8_t *p1,
                              const fpx8_t *p2)
{
    fpx8_canon4(&ret->c0, &a->c0, p1, p2);
    fpx8_canon4(&ret->c1, &a->c1, p1, p2);
}

/* Canonical components (below p); p1 = fpx8_kp(1). */
FPX8_INLINE void fp2x8_canon(fp2x8_t *ret, const fp2x8_t *a, const fpx8_t *p1)
{
    fpx8_canon(&ret->c0, &a->c0, p1);
    fpx8_canon(&ret->c1, &a->c1, p1);
}

/* Lane k from the fp2_t at byte offset idx[k] from base; see fpx8_gather. */
FPX8_INLINE void fp2x8_gather(fp2x8_t *ret, const fp2_t *base, __m512i idx)
{
    fpx8_gather(&ret->c0, &base->c0, idx);
    fpx8_gather(&ret->c1, &base->c1, idx);
}

FPX8_INLINE void fp2x8_scatter(fp2_t *base, __m512i idx, __mmask8 mask, const fp2x8_t *a)
{
    fpx8_scatter(&base->c0, idx, mask, &a->c0);
    fpx8_scatter(&base->c1, idx, mask, &a->c1);
}

#endif

#endif
