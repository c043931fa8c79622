/*
 * Fp2 = Fp[u] / (u^2 + 1), the field of G2's coordinates.
 * Element c0 + c1*u. Conventions as in fp.h.
 */
#ifndef ZKB_FP2_H
#define ZKB_FP2_H

#include <stdbool.h>

#include "arith/field/fp.h"

typedef struct {
    fp_t c0, c1;
} fp2_t;

extern const fp2_t FP2_ZERO;
extern const fp2_t FP2_ONE;

void fp2_add(fp2_t *ret, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *ret, const fp2_t *a, const fp2_t *b);
void fp2_dbl(fp2_t *ret, const fp2_t *a);
void fp2_neg(fp2_t *ret, const fp2_t *a);
void fp2_mul(fp2_t *ret, const fp2_t *a, const fp2_t *b);
void fp2_sqr(fp2_t *ret, const fp2_t *a);
/* a * small (small constants of curve formulas). */
void fp2_mul_small(fp2_t *ret, const fp2_t *a, uint64_t small);
/* a * b with b in Fp. */
void fp2_mul_fp(fp2_t *ret, const fp2_t *a, const fp_t *b);
/* a * (u + 1), the non-residue of the Fp6 tower. */
void fp2_mul_by_nonresidue(fp2_t *ret, const fp2_t *a);
/* Complex conjugate c0 - c1*u (the p-power Frobenius). */
void fp2_conj(fp2_t *ret, const fp2_t *a);
/* The inverse of zero is zero. */
void fp2_inv(fp2_t *ret, const fp2_t *a);
void fp2_pow(fp2_t *ret, const fp2_t *a, const uint64_t *e, size_t n);
/* True and ret set when a is a square in Fp2. */
bool fp2_sqrt(fp2_t *ret, const fp2_t *a);
bool fp2_is_zero(const fp2_t *a);
bool fp2_is_one(const fp2_t *a);
bool fp2_eq(const fp2_t *a, const fp2_t *b);
/* The zcash sign of an Fp2 element: c1's sign, or c0's when c1 = 0. */
bool fp2_is_lexicographically_largest(const fp2_t *a);
/* out must not overlap in; zeros give zeros. */
void fp2_batch_inv(fp2_t *out, const fp2_t *in, size_t n);

#endif
