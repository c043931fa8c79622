/*
 * G2: the shared group-law tests (group_test_template.h) plus what is
 * G2's own: the published generator, the endomorphism psi behind the
 * subgroup test, and cofactor clearing.
 */
#include "arith/curve/g2.h"

#include "tests/common.h"
#include "arith/field/bls12_381.h"
#include "tests/curve/hex.h"

static void rand_fp2(fp2_t *r)
{
    test_rand_fp(&r->c0);
    test_rand_fp(&r->c1);
}

#define CURVE g2
#define FE_T fp2_t
#define FE(op) fp2_##op
#define FE_ONE FP2_ONE
#define FE_RAND(r) rand_fp2(r)
#define GENERATOR G2_GENERATOR
#define INFINITY_PT G2_INFINITY
/* #E'(Fp2) = h r with h = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9
 * = 13^2 23^2 2713 11953 262069 q, q a 448-bit prime. */
#define COFACTOR_HEX \
    "5d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef21537e293a6691ae1616ec6e786f0c70cf1c38e31c7238e5"
#define COFACTOR_PRIMES \
    {"13", "13", "23", "23", "2713", "11953", "262069", "402096035359507321594726366720466575392706800671181159425656785868777272553337714697862511267018014931937703598282857976535744623203249"}
#include "tests/curve/group_test_template.h"

/* Coordinates from the zcash BLS12-381 specification and the IETF
 * pairing-friendly-curves draft (section 4.2.1): x = x0 + x1 u. */
static const char *const GEN[4] = {
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e",
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be",
};

static void test_published_generator(void)
{
    g2_affine_t g;
    CHECK(hex_to_fp(&g.x.c0, GEN[0]) == 0);
    CHECK(hex_to_fp(&g.x.c1, GEN[1]) == 0);
    CHECK(hex_to_fp(&g.y.c0, GEN[2]) == 0);
    CHECK(hex_to_fp(&g.y.c1, GEN[3]) == 0);
    CHECK(g2_affine_eq(&g, &G2_GENERATOR));
}

/* x (negative for BLS12-381) as a GMP value. */
static void bls_x(mpz_t out)
{
    mpz_set_ui(out, 0);
    mpz_import(out, 1, -1, 8, 0, 0, (uint64_t[]){BLS12_381_X_ABS});
    if (BLS12_381_X_IS_NEGATIVE)
        mpz_neg(out, out);
}

static void ref_mul_signed(g2_affine_t *ret, const g2_affine_t *p,
                           const mpz_t k)
{
    mpz_t a;
    mpz_init(a);
    mpz_abs(a, k);
    ref_mul_mpz(ret, p, a);
    if (mpz_sgn(k) < 0)
        g2_affine_neg(ret, ret);
    mpz_clear(a);
}

static void test_psi(int rounds)
{
    mpz_t x, t;
    mpz_inits(x, t, NULL);
    bls_x(x);

    /* On G2, psi is [x] (= [p] mod r). */
    g2_affine_t want, got;
    g2_jac_t j;
    ref_mul_signed(&want, &G2_GENERATOR, x);
    g2_jac_from_affine(&j, &G2_GENERATOR);
    g2_jac_psi(&j, &j);
    g2_jac_to_affine(&got, &j);
    CHECK(g2_affine_eq(&got, &want));

    /* On the whole twist: psi^2 - [t] psi + [p] = 0 with the trace
     * t = x + 1 (the Frobenius characteristic polynomial). */
    mpz_add_ui(t, x, 1);
    for (int i = 0; i < rounds; i++) {
        g2_affine_t p, ps, ps2, a, b, c;
        rand_curve_point(&p);
        g2_jac_t jp, j1, j2;
        rand_jac(&jp, &p);
        g2_jac_psi(&j1, &jp);
        CHECK(g2_jac_is_on_curve(&j1));
        g2_jac_psi(&j2, &j1);
        g2_jac_to_affine(&ps, &j1);
        g2_jac_to_affine(&ps2, &j2);
        ref_mul_signed(&a, &ps, t);
        g2_affine_neg(&a, &a);
        ref_mul_mpz(&b, &p, test_p);
        ref_add(&c, &ps2, &a);
        ref_add(&c, &c, &b);
        CHECK(g2_affine_is_infinity(&c));
    }
    mpz_clears(x, t, NULL);
}

/* g2_affine_mul_x_abs and g2_affine_mul_x2 (the MSM's split) against
 * [|x|] and [x^2] by the reference multiplication, on the generator,
 * random points of G2 and infinity. */
static void test_mul_x(int rounds)
{
    mpz_t x2;
    mpz_init(x2);
    bls_x(x2);
    mpz_mul(x2, x2, x2);
    const uint64_t x_abs = BLS12_381_X_ABS;
    for (int i = 0; i <= rounds; i++) {
        g2_affine_t p = G2_GENERATOR, want, got;
        if (i > 0) {
            uint64_t k[4];
            for (int l = 0; l < 4; l++)
                k[l] = test_rand_u64();
            ref_mul(&p, &G2_GENERATOR, k, 4);
        }
        ref_mul(&want, &p, &x_abs, 1);
        g2_affine_mul_x_abs(&got, &p);
        CHECK(g2_affine_eq(&got, &want));
        ref_mul_mpz(&want, &p, x2);
        g2_affine_mul_x2(&got, &p);
        CHECK(g2_affine_eq(&got, &want));
    }
    g2_affine_t got;
    g2_affine_mul_x_abs(&got, &G2_INFINITY);
    CHECK(g2_affine_is_infinity(&got));
    g2_affine_mul_x2(&got, &G2_INFINITY);
    CHECK(g2_affine_is_infinity(&got));
    mpz_clear(x2);
}

/* clear_cofactor (Budroni-Pintore with psi) against the plain effective
 * cofactor h_eff = 3 (x^2 - 1) h2 of RFC 9380, with the G2 cofactor
 * h2 = (x^8 - 4x^7 + 5x^6 - 4x^4 + 6x^3 - 4x^2 - 4x + 13) / 9. */
static void test_clear_cofactor(int rounds)
{
    mpz_t x, h, t, xp;
    mpz_inits(x, h, t, xp, NULL);
    bls_x(x);
    static const long coef[9] = {13, -4, -4, 6, -4, 0, 5, -4, 1};
    mpz_set_ui(h, 0);
    mpz_set_ui(xp, 1);
    for (int i = 0; i < 9; i++) {
        mpz_mul_si(t, xp, coef[i]);
        mpz_add(h, h, t);
        mpz_mul(xp, xp, x);
    }
    CHECK(mpz_divisible_ui_p(h, 9));
    mpz_divexact_ui(h, h, 9);
    mpz_mul(t, x, x);
    mpz_sub_ui(t, t, 1);
    mpz_mul_ui(t, t, 3);
    mpz_mul(h, h, t);
    CHECK(mpz_sizeinbase(h, 2) == 636);

    for (int i = 0; i < rounds; i++) {
        g2_affine_t p, want, got;
        rand_curve_point(&p);
        ref_mul_mpz(&want, &p, h);
        g2_jac_t j;
        rand_jac(&j, &p);
        g2_jac_clear_cofactor(&j, &j);
        g2_jac_to_affine(&got, &j);
        CHECK(g2_affine_eq(&got, &want));
    }
    mpz_clears(x, h, t, xp, NULL);
}

int main(void)
{
    test_init("test_g2");
    test_published_generator();
    run_group_tests(32);
    test_psi(4);
    test_mul_x(4);
    test_clear_cofactor(2);
    return test_finish();
}
