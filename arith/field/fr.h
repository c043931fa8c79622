/*
 * Fr: the BLS12-381 scalar field (the group order r), 255-bit elements as
 * 4 x 64-bit limbs in Montgomery form (R = 2^256), least significant first.
 *
 * Same conventions as fp.h: reduced inputs and outputs, output first,
 * aliasing allowed.
 */
#ifndef ZKB_FR_H
#define ZKB_FR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t l[4];
} fr_t;

extern const fr_t FR_ZERO;
extern const fr_t FR_ONE;
extern const uint64_t FR_MODULUS[4];

void fr_add(fr_t *ret, const fr_t *a, const fr_t *b);
void fr_sub(fr_t *ret, const fr_t *a, const fr_t *b);
void fr_dbl(fr_t *ret, const fr_t *a);
void fr_neg(fr_t *ret, const fr_t *a);
void fr_mul(fr_t *ret, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *ret, const fr_t *a);
void fr_pow(fr_t *ret, const fr_t *a, const uint64_t *e, size_t n);
/* The inverse of zero is zero. */
void fr_inv(fr_t *ret, const fr_t *a);
/* Tonelli-Shanks (r - 1 = 2^32 t): true and ret set when a is a square. */
bool fr_sqrt(fr_t *ret, const fr_t *a);
/* As fp_batch_inv: out must not overlap in. */
void fr_batch_inv(fr_t *out, const fr_t *in, size_t n);

bool fr_is_zero(const fr_t *a);
bool fr_is_one(const fr_t *a);
bool fr_eq(const fr_t *a, const fr_t *b);

void fr_from_u64(fr_t *ret, uint64_t v);
/* Returns -EINVAL (ret untouched) when v >= r. */
int fr_from_limbs(fr_t *ret, const uint64_t *v);
void fr_to_limbs(uint64_t *out, const fr_t *a);
/* 32-byte big-endian canonical encoding; values >= r are rejected. */
int fr_from_bytes_be(fr_t *ret, const uint8_t *in);
void fr_to_bytes_be(uint8_t *out, const fr_t *a);
/* A primitive 2^log_n-th root of unity; -EINVAL when log_n > 32. */
int fr_root_of_unity(fr_t *ret, unsigned log_n);

#endif
