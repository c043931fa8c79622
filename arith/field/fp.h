/*
 * Fp: the BLS12-381 base field, 381-bit elements as 6 x 64-bit limbs in
 * Montgomery form (R = 2^384), least significant limb first.
 *
 * Every function takes fully reduced inputs (< p) and returns fully reduced
 * outputs. Output argument first; outputs may alias inputs.
 */
#ifndef ZKB_FP_H
#define ZKB_FP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t l[6];
} fp_t;

extern const fp_t FP_ZERO;
extern const fp_t FP_ONE;   /* R mod p */
extern const uint64_t FP_MODULUS[6];

void fp_add(fp_t *ret, const fp_t *a, const fp_t *b);
void fp_sub(fp_t *ret, const fp_t *a, const fp_t *b);
void fp_dbl(fp_t *ret, const fp_t *a);
void fp_neg(fp_t *ret, const fp_t *a);
void fp_mul(fp_t *ret, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *ret, const fp_t *a);
/* a * small, for small constants such as 3, 4, 8 in curve formulas. */
void fp_mul_small(fp_t *ret, const fp_t *a, uint64_t small);
/* a^e with e given as n little-endian 64-bit limbs (not Montgomery). */
void fp_pow(fp_t *ret, const fp_t *a, const uint64_t *e, size_t n);
/* a^-1; the inverse of zero is zero. */
void fp_inv(fp_t *ret, const fp_t *a);
/* Square root: true and ret set when a is a square, false (ret untouched)
 * otherwise. p = 3 mod 4, so the root is a^((p+1)/4). */
bool fp_sqrt(fp_t *ret, const fp_t *a);
bool fp_is_square(const fp_t *a);
/* out[i] = in[i]^-1 for n elements with one inversion (Montgomery's trick).
 * Zero inputs give zero outputs. out must not overlap in; no extra memory
 * (out holds the prefix products between the two passes). */
void fp_batch_inv(fp_t *out, const fp_t *in, size_t n);

bool fp_is_zero(const fp_t *a);
bool fp_is_one(const fp_t *a);
bool fp_eq(const fp_t *a, const fp_t *b);
/* True when the canonical value of a is > (p-1)/2 (the zcash "sign"). */
bool fp_is_lexicographically_largest(const fp_t *a);

void fp_from_u64(fp_t *ret, uint64_t v);
/* Canonical little-endian limbs <-> Montgomery form. from_limbs returns
 * -EINVAL (ret untouched) when the value is >= p. */
int fp_from_limbs(fp_t *ret, const uint64_t *v);
void fp_to_limbs(uint64_t *out, const fp_t *a);
/* 48-byte big-endian canonical encoding. from_bytes rejects values >= p
 * with -EINVAL. */
int fp_from_bytes_be(fp_t *ret, const uint8_t *in);
void fp_to_bytes_be(uint8_t *out, const fp_t *a);

#endif
