/*
 * A reference for Fp12 independent of arith/field's tower: polynomials over
 * GMP integers modulo X^12 - 2 X^6 + 2 (X = w, w^6 = u + 1, u^2 = -1, so
 * u = w^6 - 1). Used by tests/field/test_tower.c and
 * tests/pairing/test_pairing.c.
 */
#ifndef ZKB_TESTS_REF12_H
#define ZKB_TESTS_REF12_H

#include <stdbool.h>

#include "arith/field/fp12.h"
#include "tests/common.h"

/* An element of Fp[X] / (X^12 - 2 X^6 + 2): coefficients of X^0..X^11. */
typedef struct {
    mpz_t c[12];
} ref_t;

void ref_init(ref_t *r);
void ref_clear(ref_t *r);
void ref_set_one(ref_t *r);
bool ref_eq(const ref_t *a, const ref_t *b);
bool ref_is_one(const ref_t *a);
/* r = a b (r may alias a or b). */
void ref_mul(ref_t *r, const ref_t *a, const ref_t *b);
void ref_pow(ref_t *r, const ref_t *a, const mpz_t e);
/* Tower element <-> reference. */
void ref_from_fp12(ref_t *r, const fp12_t *a);
void ref_from_fp6(ref_t *r, const fp6_t *a);
void ref_from_fp2(ref_t *r, const fp2_t *a);
void ref_to_fp12(fp12_t *ret, const ref_t *r);

#endif
