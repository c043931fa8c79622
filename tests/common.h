/*
 * Shared test helpers: a seeded random generator whose seed is printed on
 * failure (set ZKB_SEED to replay), GMP conversions for field elements, and
 * CHECK macros that count failures instead of stopping at the first.
 */
#ifndef ZKB_TESTS_COMMON_H
#define ZKB_TESTS_COMMON_H

#include <gmp.h>
#include <stdint.h>
#include <stdio.h>

#include "arith/field/fp.h"
#include "arith/field/fr.h"

/* Seed from ZKB_SEED or the clock; prints nothing unless a check fails. */
void test_init(const char *name);
uint64_t test_rand_u64(void);
/* Uniform in [0, bound) (bound > 0). */
uint64_t test_rand_below(uint64_t bound);
void test_rand_fp(fp_t *ret);
void test_rand_fr(fr_t *ret);

/* Canonical value of a field element as an mpz, and back (reduced mod m). */
void test_fp_to_mpz(mpz_t out, const fp_t *a);
void test_fp_from_mpz(fp_t *ret, const mpz_t v);
void test_fr_to_mpz(mpz_t out, const fr_t *a);
void test_fr_from_mpz(fr_t *ret, const mpz_t v);
/* p and r as mpz (initialised by test_init). */
extern mpz_t test_p, test_r;

/* Records a failure with its location and the seed; returns cond. */
int test_check(int cond, const char *expr, const char *file, int line);
#define CHECK(cond) test_check(!!(cond), #cond, __FILE__, __LINE__)
/* 0 when every check passed, 1 otherwise (the exit status of main). */
int test_finish(void);
extern unsigned long test_failures;

#endif
