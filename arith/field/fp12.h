/*
 * Fp12 = Fp6[w] / (w^2 - v), the target group's field.
 * Element c0 + c1*w. Conventions as in fp.h (output first, outputs may
 * alias inputs).
 *
 * GT, the pairing's image, lies in the cyclotomic subgroup (the elements
 * with f^(p^4 - p^2 + 1) = 1 after the easy part of the final
 * exponentiation): there the inverse is the conjugate and squaring has a
 * cheaper form, fp12_cyclotomic_sqr.
 */
#ifndef ZKB_FP12_H
#define ZKB_FP12_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/field/fp6.h"

typedef struct {
    fp6_t c0, c1;
} fp12_t;

extern const fp12_t FP12_ONE;

void fp12_add(fp12_t *ret, const fp12_t *a, const fp12_t *b);
void fp12_sub(fp12_t *ret, const fp12_t *a, const fp12_t *b);
void fp12_neg(fp12_t *ret, const fp12_t *a);
/* Karatsuba over Fp6: 18 Fp2 multiplications. */
void fp12_mul(fp12_t *ret, const fp12_t *a, const fp12_t *b);
/* Complex squaring: 2 Fp6 multiplications. */
void fp12_sqr(fp12_t *ret, const fp12_t *a);
/* a * l for the sparse l = (l0 + l1 v) + (l4 v) w, the shape of a Miller
 * loop line on BLS12-381's M-type twist (13 Fp2 multiplications). */
void fp12_mul_by_014(fp12_t *ret, const fp12_t *a, const fp2_t *l0,
                     const fp2_t *l1, const fp2_t *l4);
/* The inverse of zero is zero. */
void fp12_inv(fp12_t *ret, const fp12_t *a);
/* c0 - c1 w = a^(p^6); the inverse in the cyclotomic subgroup. */
void fp12_conj(fp12_t *ret, const fp12_t *a);
/* a^(p^power) for any power >= 0. */
void fp12_frobenius_map(fp12_t *ret, const fp12_t *a, unsigned power);
/* a^2 for a in the cyclotomic subgroup (Granger, Scott, "Faster squaring
 * in the cyclotomic subgroup of sixth degree extensions", PKC 2010):
 * 9 Fp2 squarings. Wrong for other elements. */
void fp12_cyclotomic_sqr(fp12_t *ret, const fp12_t *a);
/* a^e, e as n little-endian 64-bit limbs (square and multiply; e public). */
void fp12_pow(fp12_t *ret, const fp12_t *a, const uint64_t *e, size_t n);
/* a^e for a in the cyclotomic subgroup, with cyclotomic squarings. */
void fp12_cyclotomic_pow(fp12_t *ret, const fp12_t *a, const uint64_t *e,
                         size_t n);
bool fp12_is_one(const fp12_t *a);
bool fp12_is_zero(const fp12_t *a);
bool fp12_eq(const fp12_t *a, const fp12_t *b);

#endif
