/*
 * The optimal ate pairing on BLS12-381, e: G1 x G2 -> GT (a subgroup of
 * Fp12^*), as a Miller loop over |x| followed by the final exponentiation
 * 3 (p^12 - 1)/r: the exponent of blst and zkcrypto's bls12_381, so GT
 * values agree with theirs (the cube of the textbook (p^12 - 1)/r value,
 * equally bilinear and non-degenerate).
 *
 * Inputs are affine points assumed on their curves and in the order-r
 * subgroups (check them with g1_affine_in_subgroup and friends when they
 * come from outside); infinity, (0, 0), is accepted anywhere.
 */
#ifndef ZKB_PAIRING_H
#define ZKB_PAIRING_H

#include <stdbool.h>
#include <stddef.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fp12.h"

/* Lines of the Miller loop over |x| = 0xd201000000010000: one per doubling
 * (63) and one per addition (5, the other set bits). */
#define PAIRING_LINES 68

/* A G2 point prepared for the Miller loop: the coefficients of its lines,
 * independent of the G1 point, for a verifier that reuses its verifying
 * key. Plain data (about 19 KiB): the caller allocates it, anywhere, and
 * nothing needs freeing. */
typedef struct {
    fp2_t coeff[PAIRING_LINES][3];
    bool infinity;
} g2_prepared_t;

/* e(p, q). Infinity on either side gives one. */
void pairing_compute(fp12_t *ret, const g1_affine_t *p, const g2_affine_t *q);
/* The product of the Miller loops of n pairs, before final exponentiation
 * (pairs with infinity contribute one). */
void pairing_miller_loop(fp12_t *ret, const g1_affine_t *p,
                         const g2_affine_t *q, size_t n);
/* The same with prepared G2 points: q[i] pairs with p[i]. Equal to
 * pairing_miller_loop on the unprepared points. */
void pairing_miller_loop_prepared(fp12_t *ret, const g1_affine_t *p,
                                  const g2_prepared_t *const *q, size_t n);
/* The line coefficients of q. */
void pairing_g2_prepare(g2_prepared_t *ret, const g2_affine_t *q);
/* f^(3 (p^12 - 1)/r); f must be non-zero (every Miller loop value is). */
void pairing_final_exp(fp12_t *ret, const fp12_t *f);
/* prod e(p[i], q[i]) == 1: one final exponentiation for all pairs. */
bool pairing_check(const g1_affine_t *p, const g2_affine_t *q, size_t n);
/* The same with prepared G2 points. */
bool pairing_check_prepared(const g1_affine_t *p,
                            const g2_prepared_t *const *q, size_t n);

#endif
