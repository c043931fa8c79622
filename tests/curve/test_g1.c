/*
 * G1: the shared group-law tests (group_test_template.h) plus what is
 * G1's own: the published generator, the endomorphism sigma behind the
 * subgroup test, and cofactor clearing.
 */
#include "arith/curve/g1.h"

#include "tests/common.h"
#include "arith/field/bls12_381.h"
#include "tests/curve/hex.h"

#define CURVE g1
#define FE_T fp_t
#define FE(op) fp_##op
#define FE_ONE FP_ONE
#define FE_RAND(r) test_rand_fp(r)
#define GENERATOR G1_GENERATOR
#define INFINITY_PT G1_INFINITY
/* #E(Fp) = h r with h = (x - 1)^2 / 3 = 3 11^2 10177^2 859267^2 52437899^2. */
#define COFACTOR_HEX "396c8c005555e1568c00aaab0000aaab"
#define COFACTOR_PRIMES {"3", "11", "11", "10177", "10177", "859267", "859267", "52437899", "52437899"}
#include "tests/curve/group_test_template.h"

/* Coordinates from the zcash BLS12-381 specification and the IETF
 * pairing-friendly-curves draft (section 4.2.1). */
static const char *const GEN_X =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char *const GEN_Y =
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";

static void test_published_generator(void)
{
    fp_t x, y;
    CHECK(hex_to_fp(&x, GEN_X) == 0);
    CHECK(hex_to_fp(&y, GEN_Y) == 0);
    CHECK(fp_eq(&x, &G1_GENERATOR.x));
    CHECK(fp_eq(&y, &G1_GENERATOR.y));
}

/* [|x|] as a one-limb scalar and x^2 as a GMP value. */
static void x_squared(mpz_t out)
{
    mpz_set_ui(out, 0);
    mpz_import(out, 1, -1, 8, 0, 0, (uint64_t[]){BLS12_381_X_ABS});
    mpz_mul(out, out, out);
}

static void test_sigma(int rounds)
{
    mpz_t x2, t;
    mpz_inits(x2, t, NULL);
    x_squared(x2);
    /* x^4 - x^2 + 1 = r, the identity the subgroup test rests on. */
    mpz_mul(t, x2, x2);
    mpz_sub(t, t, x2);
    mpz_add_ui(t, t, 1);
    CHECK(mpz_cmp(t, test_r) == 0);

    /* On G1, sigma is [-x^2] (reference multiplication). */
    g1_affine_t want, got;
    g1_jac_t j;
    ref_mul_mpz(&want, &G1_GENERATOR, x2);
    g1_affine_neg(&want, &want);
    g1_jac_from_affine(&j, &G1_GENERATOR);
    g1_jac_sigma(&j, &j);
    g1_jac_to_affine(&got, &j);
    CHECK(g1_affine_eq(&got, &want));

    /* On the whole curve: an automorphism of order 3 with
     * sigma^2 + sigma + 1 = 0. */
    for (int i = 0; i < rounds; i++) {
        g1_affine_t p;
        rand_curve_point(&p);
        g1_jac_t jp, s1, s2, s3, sum;
        rand_jac(&jp, &p);
        g1_jac_sigma(&s1, &jp);
        g1_jac_sigma(&s2, &s1);
        g1_jac_sigma(&s3, &s2);
        CHECK(g1_jac_is_on_curve(&s1));
        CHECK(!g1_jac_eq(&s1, &jp));
        CHECK(g1_jac_eq(&s3, &jp));
        g1_jac_add(&sum, &s1, &s2);
        g1_jac_add(&sum, &sum, &jp);
        CHECK(g1_jac_is_infinity(&sum));
    }
    mpz_clears(x2, t, NULL);
}

/* g1_affine_mul_x2 (the MSM's split) against [x^2] by the reference
 * multiplication, on the generator, random points of G1 and infinity. */
static void test_mul_x2(int rounds)
{
    mpz_t x2;
    mpz_init(x2);
    x_squared(x2);
    for (int i = 0; i <= rounds; i++) {
        g1_affine_t p = G1_GENERATOR, want, got;
        if (i > 0) {
            uint64_t k[4];
            for (int l = 0; l < 4; l++)
                k[l] = test_rand_u64();
            ref_mul(&p, &G1_GENERATOR, k, 4);
        }
        ref_mul_mpz(&want, &p, x2);
        g1_affine_mul_x2(&got, &p);
        CHECK(g1_affine_eq(&got, &want));
    }
    g1_affine_t got;
    g1_affine_mul_x2(&got, &G1_INFINITY);
    CHECK(g1_affine_is_infinity(&got));
    mpz_clear(x2);
}

/* clear_cofactor is [1 - x] = [1 + |x|] by definition. */
static void test_clear_cofactor(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        g1_affine_t p, want, got;
        rand_curve_point(&p);
        uint64_t h = BLS12_381_X_ABS + 1;
        ref_mul(&want, &p, &h, 1);
        g1_jac_t j;
        rand_jac(&j, &p);
        g1_jac_clear_cofactor(&j, &j);
        g1_jac_to_affine(&got, &j);
        CHECK(g1_affine_eq(&got, &want));
    }
}

int main(void)
{
    test_init("test_g1");
    test_published_generator();
    run_group_tests(64);
    test_sigma(16);
    test_mul_x2(8);
    test_clear_cofactor(4);
    return test_finish();
}
