/*
 * Which Montgomery code fp.c and fr.c use, chosen at compile time: the
 * x86-64 assembly in mont_x86_64.S when the compiler may assume BMI2 and
 * ADX (build with -mbmi2 -madx, or -march=native on such a machine), the
 * portable C of mont.h otherwise (also when ZKB_NO_ASM is defined, to
 * test or time the C on such a machine). Internal to arith/field.
 */
#ifndef ZKB_MONT_ASM_H
#define ZKB_MONT_ASM_H

#include <stdint.h>

#if defined(__x86_64__) && !defined(__ILP32__) && defined(__ELF__) && \
    defined(__BMI2__) && defined(__ADX__) && !defined(ZKB_NO_ASM)
#define MONT_HAVE_X86_ASM 1

/* ret = a b 2^(-384) mod m for a, b < m, inv = -m^-1 mod 2^64, the top limb
 * of m below 2^63 - 1. Here and below ret may alias the inputs, except in
 * mont_mul_384x384_x86. */
void mont_mul_384_x86(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                      const uint64_t *m, uint64_t inv);
void mont_sqr_384_x86(uint64_t *ret, const uint64_t *a, const uint64_t *m,
                      uint64_t inv);
/* ret = a + b mod m and a - b mod m for a, b < m. */
void mont_add_384_x86(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                      const uint64_t *m);
void mont_sub_384_x86(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                      const uint64_t *m);
/* Lazy reduction pieces (mont_x86_64.S): the 768-bit product a b (ret, 12
 * words, must not overlap a or b); the Montgomery reduction t 2^-384 mod m
 * of t < m 2^384; and a - b for 768-bit a, b < m 2^384, plus m 2^384 when
 * it borrows (ret stays < m 2^384). */
void mont_mul_384x384_x86(uint64_t *ret, const uint64_t *a, const uint64_t *b);
void mont_redc_768_x86(uint64_t *ret, const uint64_t *t, const uint64_t *m,
                       uint64_t inv);
void mont_sub_768_x86(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                      const uint64_t *m);
/* The same on 4 limbs, m < 2^255. */
void mont_mul_256_x86(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                      const uint64_t *m, uint64_t inv);
void mont_sqr_256_x86(uint64_t *ret, const uint64_t *a, const uint64_t *m,
                      uint64_t inv);
void mont_add_256_x86(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                      const uint64_t *m);
void mont_sub_256_x86(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                      const uint64_t *m);
#else
#define MONT_HAVE_X86_ASM 0
#endif

#endif
