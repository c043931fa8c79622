/* Shared test helpers; see common.h. */
#include "tests/common.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

mpz_t test_p, test_r;
unsigned long test_failures;
static uint64_t seed;
static uint64_t state[4];
static const char *test_name;

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman, Vigna), seeded through splitmix64. */
uint64_t test_rand_u64(void)
{
    uint64_t r = rotl(state[1] * 5, 7) * 9, t = state[1] << 17;
    state[2] ^= state[0];
    state[3] ^= state[1];
    state[1] ^= state[2];
    state[0] ^= state[3];
    state[2] ^= t;
    state[3] = rotl(state[3], 45);
    return r;
}

uint64_t test_rand_below(uint64_t bound)
{
    return test_rand_u64() % bound;
}

void test_init(const char *name)
{
    test_name = name;
    const char *env = getenv("ZKB_SEED");
    if (env && *env) {
        seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
    }
    uint64_t z = seed;
    for (int i = 0; i < 4; i++) {
        z += 0x9e3779b97f4a7c15ull;
        uint64_t x = z;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        state[i] = x ^ (x >> 31);
    }
    mpz_init(test_p);
    mpz_init(test_r);
    mpz_import(test_p, 6, -1, 8, 0, 0, FP_MODULUS);
    mpz_import(test_r, 4, -1, 8, 0, 0, FR_MODULUS);
}

static void rand_mod(uint64_t *out, size_t n, const mpz_t m)
{
    mpz_t v;
    mpz_init(v);
    uint64_t w[8];
    for (size_t i = 0; i < n; i++)
        w[i] = test_rand_u64();
    mpz_import(v, n, -1, 8, 0, 0, w);
    mpz_mod(v, v, m);
    memset(out, 0, n * 8);
    mpz_export(out, NULL, -1, 8, 0, 0, v);
    mpz_clear(v);
}

void test_rand_fp(fp_t *ret)
{
    uint64_t v[6];
    rand_mod(v, 6, test_p);
    fp_from_limbs(ret, v);
}

void test_rand_fr(fr_t *ret)
{
    uint64_t v[4];
    rand_mod(v, 4, test_r);
    fr_from_limbs(ret, v);
}

void test_fp_to_mpz(mpz_t out, const fp_t *a)
{
    uint64_t v[6];
    fp_to_limbs(v, a);
    mpz_import(out, 6, -1, 8, 0, 0, v);
}

void test_fp_from_mpz(fp_t *ret, const mpz_t v)
{
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, v, test_p);
    uint64_t w[6] = {0};
    mpz_export(w, NULL, -1, 8, 0, 0, t);
    fp_from_limbs(ret, w);
    mpz_clear(t);
}

void test_fr_to_mpz(mpz_t out, const fr_t *a)
{
    uint64_t v[4];
    fr_to_limbs(v, a);
    mpz_import(out, 4, -1, 8, 0, 0, v);
}

void test_fr_from_mpz(fr_t *ret, const mpz_t v)
{
    mpz_t t;
    mpz_init(t);
    mpz_mod(t, v, test_r);
    uint64_t w[4] = {0};
    mpz_export(w, NULL, -1, 8, 0, 0, t);
    fr_from_limbs(ret, w);
    mpz_clear(t);
}

int test_check(int cond, const char *expr, const char *file, int line)
{
    if (!cond) {
        if (test_failures < 20)
            fprintf(stderr, "%s: FAIL %s:%d: %s (ZKB_SEED=0x%016" PRIx64 ")\n",
                    test_name, file, line, expr, seed);
        test_failures++;
    }
    return cond;
}

int test_finish(void)
{
    if (test_failures) {
        fprintf(stderr, "%s: %lu check(s) failed; replay with ZKB_SEED=0x%016" PRIx64 "\n",
                test_name, test_failures, seed);
        return 1;
    }
    return 0;
}
