/*
 * Fp6 = Fp2[v] / (v^3 - (u + 1)). Element c0 + c1*v + c2*v^2.
 * The middle level of the pairing's tower; conventions as in fp.h (output
 * first, outputs may alias inputs).
 */
#ifndef ZKB_FP6_H
#define ZKB_FP6_H

#include <stdbool.h>

#include "arith/field/fp2.h"

typedef struct {
    fp2_t c0, c1, c2;
} fp6_t;

extern const fp6_t FP6_ZERO;
extern const fp6_t FP6_ONE;
/* FP6_FROBENIUS_COEFF[j-1][k-1] = xi^(k (p^j - 1) / 6), xi = u + 1: the
 * factor w^k picks up under x -> x^(p^j) in Fp12 (w^6 = xi), j = 1..3,
 * k = 1..5. Fp6 uses k = 2, 4 (v = w^2); Fp12 all of them. */
extern const fp2_t FP6_FROBENIUS_COEFF[3][5];

void fp6_add(fp6_t *ret, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *ret, const fp6_t *a, const fp6_t *b);
void fp6_dbl(fp6_t *ret, const fp6_t *a);
void fp6_neg(fp6_t *ret, const fp6_t *a);
/* Karatsuba: 6 Fp2 multiplications. */
void fp6_mul(fp6_t *ret, const fp6_t *a, const fp6_t *b);
/* Chung-Hasan SQR2: 3 Fp2 squarings and 2 multiplications. */
void fp6_sqr(fp6_t *ret, const fp6_t *a);
/* a * v, the non-residue of the Fp12 level: (xi c2, c0, c1). */
void fp6_mul_by_nonresidue(fp6_t *ret, const fp6_t *a);
/* a * b with b in Fp2. */
void fp6_mul_fp2(fp6_t *ret, const fp6_t *a, const fp2_t *b);
/* a * (b0 + b1 v): the sparse product of line evaluations (5 Fp2 mul). */
void fp6_mul_by_01(fp6_t *ret, const fp6_t *a, const fp2_t *b0,
                   const fp2_t *b1);
/* a * (b1 v) (3 Fp2 mul). */
void fp6_mul_by_1(fp6_t *ret, const fp6_t *a, const fp2_t *b1);
/* The inverse of zero is zero. */
void fp6_inv(fp6_t *ret, const fp6_t *a);
/* a^(p^power) for any power >= 0. */
void fp6_frobenius_map(fp6_t *ret, const fp6_t *a, unsigned power);
bool fp6_is_zero(const fp6_t *a);
bool fp6_is_one(const fp6_t *a);
bool fp6_eq(const fp6_t *a, const fp6_t *b);

#endif
