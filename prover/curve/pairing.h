/*
 * The optimal ate pairing on BLS12-381, e: G1 x G2 -> GT (a subgroup of
 * Fp12^*), as a Miller loop over |x| followed by the final exponentiation
 * (p^12 - 1)/r.
 */
#ifndef ZKB_PAIRING_H
#define ZKB_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "prover/curve/g1.h"
#include "prover/curve/g2.h"
#include "prover/field/fp12.h"

/* e(p, q). Infinity on either side gives one. */
void pairing_compute(fp12_t *ret, const g1_affine_t *p, const g2_affine_t *q);
/* The product of the Miller loops of n pairs, before final exponentiation
 * (pairs with infinity contribute one). */
void pairing_miller_loop(fp12_t *ret, const g1_affine_t *p,
                         const g2_affine_t *q, size_t n);
void pairing_final_exp(fp12_t *ret, const fp12_t *f);
/* prod e(p[i], q[i]) == 1: one final exponentiation for all pairs. */
bool pairing_check(const g1_affine_t *p, const g2_affine_t *q, size_t n);

#endif
