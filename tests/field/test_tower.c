/*
 * Fp2, Fp6 and Fp12 against an independent reference: GMP polynomials.
 *
 * With w^6 = xi = u + 1 and u^2 = -1, u = w^6 - 1, so (w^6 - 1)^2 = -1 and
 * Fp12 = Fp[X] / (X^12 - 2 X^6 + 2), X = w. The reference multiplies
 * polynomials schoolbook and reduces with X^12 = 2 X^6 - 2; Fp6 and Fp2 are
 * its subfields (Fp6: the even powers of w; Fp2: w^0 and w^6). The tower
 * code is compared with it on random inputs for every operation, the
 * Frobenius maps with x -> x^p computed by exponentiation in the reference,
 * the cyclotomic squaring on elements of the cyclotomic subgroup computed
 * in the reference as f^((p^6 - 1)(p^2 + 1)).
 */
#include <string.h>

#include "arith/field/fp12.h"
#include "tests/common.h"
#include "tests/field/ref12.h"

#define ROUNDS 200

static bool fp12_matches(const fp12_t *a, const ref_t *want)
{
    ref_t got;
    ref_init(&got);
    ref_from_fp12(&got, a);
    bool ok = ref_eq(&got, want);
    ref_clear(&got);
    return ok;
}

static bool fp6_matches(const fp6_t *a, const ref_t *want)
{
    fp12_t t = {*a, FP6_ZERO};
    return fp12_matches(&t, want);
}

static bool fp2_matches(const fp2_t *a, const ref_t *want)
{
    fp6_t t = {*a, FP2_ZERO, FP2_ZERO};
    return fp6_matches(&t, want);
}

static void rand_fp2(fp2_t *r)
{
    test_rand_fp(&r->c0);
    test_rand_fp(&r->c1);
}

static void rand_fp6(fp6_t *r)
{
    rand_fp2(&r->c0);
    rand_fp2(&r->c1);
    rand_fp2(&r->c2);
}

static void rand_fp12(fp12_t *r)
{
    rand_fp6(&r->c0);
    rand_fp6(&r->c1);
}

/* ---------------------------------------------------------------- Fp2 */

static void test_fp2_ops(const fp2_t *a, const fp2_t *b)
{
    ref_t ra, rb, want, t;
    ref_init(&ra);
    ref_init(&rb);
    ref_init(&want);
    ref_init(&t);
    ref_from_fp2(&ra, a);
    ref_from_fp2(&rb, b);
    fp2_t r;

    fp2_mul(&r, a, b);
    ref_mul(&want, &ra, &rb);
    CHECK(fp2_matches(&r, &want));
    fp2_sqr(&r, a);
    ref_mul(&want, &ra, &ra);
    CHECK(fp2_matches(&r, &want));
    fp2_t xi = {FP_ONE, FP_ONE};
    fp2_mul_by_nonresidue(&r, a);
    ref_from_fp2(&t, &xi);
    ref_mul(&want, &ra, &t);
    CHECK(fp2_matches(&r, &want));

    fp2_inv(&r, a);
    if (fp2_is_zero(a)) {
        CHECK(fp2_is_zero(&r));
    } else {
        ref_from_fp2(&t, &r);
        ref_mul(&want, &ra, &t);
        CHECK(ref_is_one(&want));
    }

    /* sqrt exists exactly when a^((p^2 - 1)/2) is not -1 (Euler), and
     * squares back to a. */
    mpz_t e;
    mpz_init(e);
    mpz_mul(e, test_p, test_p);
    mpz_sub_ui(e, e, 1);
    mpz_fdiv_q_2exp(e, e, 1);
    ref_pow(&want, &ra, e);
    bool square = fp2_is_zero(a) || ref_is_one(&want);
    fp2_t s;
    memset(&s, 0x5a, sizeof s);
    fp2_t before = s;
    bool ok = fp2_sqrt(&s, a);
    CHECK(ok == square);
    if (ok) {
        ref_from_fp2(&t, &s);
        ref_mul(&want, &t, &t);
        CHECK(ref_eq(&want, &ra));
    } else {
        CHECK(memcmp(&s, &before, sizeof s) == 0);
    }
    /* a^2 always has a root */
    fp2_sqr(&r, a);
    CHECK(fp2_sqrt(&s, &r));
    fp2_sqr(&s, &s);
    CHECK(fp2_eq(&s, &r));

    mpz_clear(e);
    ref_clear(&ra);
    ref_clear(&rb);
    ref_clear(&want);
    ref_clear(&t);
}

/* ---------------------------------------------------------------- Fp6 */

static void test_fp6_ops(const fp6_t *a, const fp6_t *b, bool frobenius)
{
    ref_t ra, rb, want, t;
    ref_init(&ra);
    ref_init(&rb);
    ref_init(&want);
    ref_init(&t);
    ref_from_fp6(&ra, a);
    ref_from_fp6(&rb, b);
    fp6_t r;

    fp6_mul(&r, a, b);
    ref_mul(&want, &ra, &rb);
    CHECK(fp6_matches(&r, &want));
    fp6_sqr(&r, a);
    ref_mul(&want, &ra, &ra);
    CHECK(fp6_matches(&r, &want));

    fp6_add(&r, a, b);
    ref_from_fp6(&t, &r);
    for (int i = 0; i < 12; i++) {
        mpz_add(want.c[i], ra.c[i], rb.c[i]);
        mpz_mod(want.c[i], want.c[i], test_p);
    }
    CHECK(ref_eq(&t, &want));
    fp6_sub(&r, a, b);
    ref_from_fp6(&t, &r);
    for (int i = 0; i < 12; i++) {
        mpz_sub(want.c[i], ra.c[i], rb.c[i]);
        mpz_mod(want.c[i], want.c[i], test_p);
    }
    CHECK(ref_eq(&t, &want));
    fp6_t n;
    fp6_neg(&n, a);
    fp6_add(&r, &n, a);
    CHECK(fp6_is_zero(&r));
    fp6_dbl(&r, a);
    fp6_add(&n, a, a);
    CHECK(fp6_eq(&r, &n));

    /* times v = w^2 */
    fp6_t v = {FP2_ZERO, FP2_ONE, FP2_ZERO};
    fp6_mul_by_nonresidue(&r, a);
    ref_from_fp6(&t, &v);
    ref_mul(&want, &ra, &t);
    CHECK(fp6_matches(&r, &want));

    /* sparse products against the full product */
    fp6_t sparse = {b->c0, b->c1, FP2_ZERO}, full;
    fp6_mul_by_01(&r, a, &b->c0, &b->c1);
    fp6_mul(&full, a, &sparse);
    CHECK(fp6_eq(&r, &full));
    sparse.c0 = FP2_ZERO;
    fp6_mul_by_1(&r, a, &b->c1);
    fp6_mul(&full, a, &sparse);
    CHECK(fp6_eq(&r, &full));
    fp6_mul_fp2(&r, a, &b->c2);
    ref_from_fp2(&t, &b->c2);
    ref_mul(&want, &ra, &t);
    CHECK(fp6_matches(&r, &want));

    fp6_inv(&r, a);
    if (fp6_is_zero(a)) {
        CHECK(fp6_is_zero(&r));
    } else {
        ref_from_fp6(&t, &r);
        ref_mul(&want, &ra, &t);
        CHECK(ref_is_one(&want));
    }

    /* Frobenius: x^p in the reference, powers 0..6 */
    if (frobenius) {
        ref_from_fp6(&want, a);
        for (unsigned k = 0; k <= 6; k++) {
            fp6_frobenius_map(&r, a, k);
            CHECK(fp6_matches(&r, &want));
            ref_pow(&want, &want, test_p);
        }
    }

    ref_clear(&ra);
    ref_clear(&rb);
    ref_clear(&want);
    ref_clear(&t);
}

/* ---------------------------------------------------------------- Fp12 */

static void test_fp12_ops(const fp12_t *a, const fp12_t *b, bool frobenius)
{
    ref_t ra, rb, want, t;
    ref_init(&ra);
    ref_init(&rb);
    ref_init(&want);
    ref_init(&t);
    ref_from_fp12(&ra, a);
    ref_from_fp12(&rb, b);
    fp12_t r;

    fp12_mul(&r, a, b);
    ref_mul(&want, &ra, &rb);
    CHECK(fp12_matches(&r, &want));
    r = *a;
    fp12_mul(&r, &r, &r); /* aliasing */
    ref_mul(&want, &ra, &ra);
    CHECK(fp12_matches(&r, &want));
    fp12_sqr(&r, a);
    CHECK(fp12_matches(&r, &want));

    fp12_add(&r, a, b);
    fp12_sub(&r, &r, b);
    CHECK(fp12_eq(&r, a));
    fp12_neg(&r, a);
    fp12_add(&r, &r, a);
    CHECK(fp12_is_zero(&r));

    /* a line l0 + l1 w^2 + l4 w^3 */
    fp12_t line = {{b->c0.c0, b->c0.c1, FP2_ZERO},
                   {FP2_ZERO, b->c1.c1, FP2_ZERO}};
    fp12_mul_by_014(&r, a, &b->c0.c0, &b->c0.c1, &b->c1.c1);
    ref_from_fp12(&t, &line);
    ref_mul(&want, &ra, &t);
    CHECK(fp12_matches(&r, &want));

    fp12_inv(&r, a);
    if (fp12_is_zero(a)) {
        CHECK(fp12_is_zero(&r));
    } else {
        ref_from_fp12(&t, &r);
        ref_mul(&want, &ra, &t);
        CHECK(ref_is_one(&want));
    }

    /* conj = x^(p^6) */
    mpz_t e;
    mpz_init(e);
    mpz_pow_ui(e, test_p, 6);
    fp12_conj(&r, a);
    ref_pow(&want, &ra, e);
    CHECK(fp12_matches(&r, &want));

    if (frobenius) {
        ref_from_fp12(&want, a);
        for (unsigned k = 0; k <= 12; k++) {
            fp12_frobenius_map(&r, a, k);
            CHECK(fp12_matches(&r, &want));
            ref_pow(&want, &want, test_p);
        }
    }

    /* a^e for a 130-bit e */
    uint64_t ex[3] = {test_rand_u64(), test_rand_u64(), 3};
    mpz_import(e, 3, -1, 8, 0, 0, ex);
    fp12_pow(&r, a, ex, 3);
    ref_pow(&want, &ra, e);
    CHECK(fp12_matches(&r, &want));

    mpz_clear(e);
    ref_clear(&ra);
    ref_clear(&rb);
    ref_clear(&want);
    ref_clear(&t);
}

/* Elements of the cyclotomic subgroup, made in the reference. */
static void test_cyclotomic(const fp12_t *f)
{
    ref_t rf, g, want;
    ref_init(&rf);
    ref_init(&g);
    ref_init(&want);
    ref_from_fp12(&rf, f);

    mpz_t e, q;
    mpz_inits(e, q, NULL);
    /* (p^6 - 1)(p^2 + 1) */
    mpz_pow_ui(e, test_p, 6);
    mpz_sub_ui(e, e, 1);
    mpz_mul(q, test_p, test_p);
    mpz_add_ui(q, q, 1);
    mpz_mul(e, e, q);
    ref_pow(&g, &rf, e);
    /* g^(p^4 - p^2 + 1) = 1: g is in the subgroup */
    mpz_pow_ui(e, test_p, 4);
    mpz_mul(q, test_p, test_p);
    mpz_sub(e, e, q);
    mpz_add_ui(e, e, 1);
    ref_pow(&want, &g, e);
    CHECK(ref_is_one(&want));

    fp12_t gt, r;
    ref_to_fp12(&gt, &g);
    CHECK(fp12_matches(&gt, &g)); /* the conversion round trip */

    /* the same element through the tower: conj(f)/f, then ^(p^2) * itself */
    fp12_t easy, t;
    fp12_inv(&t, f);
    fp12_conj(&easy, f);
    fp12_mul(&easy, &easy, &t);
    fp12_frobenius_map(&t, &easy, 2);
    fp12_mul(&easy, &easy, &t);
    CHECK(fp12_eq(&easy, &gt));

    fp12_cyclotomic_sqr(&r, &gt);
    ref_mul(&want, &g, &g);
    CHECK(fp12_matches(&r, &want));
    /* in place, a few times */
    r = gt;
    for (int i = 0; i < 5; i++)
        fp12_cyclotomic_sqr(&r, &r);
    mpz_set_ui(e, 32);
    ref_pow(&want, &g, e);
    CHECK(fp12_matches(&r, &want));
    /* the inverse is the conjugate */
    fp12_conj(&r, &gt);
    fp12_mul(&r, &r, &gt);
    CHECK(fp12_is_one(&r));
    /* cyclotomic_pow against the reference */
    uint64_t ex[2] = {test_rand_u64(), test_rand_u64()};
    mpz_import(e, 2, -1, 8, 0, 0, ex);
    fp12_cyclotomic_pow(&r, &gt, ex, 2);
    ref_pow(&want, &g, e);
    CHECK(fp12_matches(&r, &want));
    uint64_t zero = 0;
    fp12_cyclotomic_pow(&r, &gt, &zero, 1);
    CHECK(fp12_is_one(&r));

    /* must fail outside the subgroup: a random f is not in it */
    fp12_cyclotomic_sqr(&r, f);
    ref_mul(&want, &rf, &rf);
    CHECK(!fp12_matches(&r, &want));

    mpz_clears(e, q, NULL);
    ref_clear(&rf);
    ref_clear(&g);
    ref_clear(&want);
}

/* The Frobenius table against GMP: xi^(k (p^j - 1)/6). */
static void test_frobenius_coeffs(void)
{
    fp2_t xi = {FP_ONE, FP_ONE};
    ref_t rxi, want;
    ref_init(&rxi);
    ref_init(&want);
    ref_from_fp2(&rxi, &xi);
    mpz_t e, pj;
    mpz_inits(e, pj, NULL);
    for (unsigned j = 1; j <= 3; j++) {
        mpz_pow_ui(pj, test_p, j);
        for (unsigned k = 1; k <= 5; k++) {
            mpz_sub_ui(e, pj, 1);
            mpz_mul_ui(e, e, k);
            CHECK(mpz_divisible_ui_p(e, 6));
            mpz_divexact_ui(e, e, 6);
            ref_pow(&want, &rxi, e);
            CHECK(fp2_matches(&FP6_FROBENIUS_COEFF[j - 1][k - 1], &want));
        }
    }
    mpz_clears(e, pj, NULL);
    ref_clear(&rxi);
    ref_clear(&want);
}

int main(void)
{
    test_init("test_tower");

    /* The reference itself: in it u = w^6 - 1 squares to -1, and w^6 is
     * xi = u + 1, so X^12 - 2 X^6 + 2 is the right modulus. */
    {
        ref_t u, t, x6;
        ref_init(&u);
        ref_init(&t);
        ref_init(&x6);
        fp2_t uu = {FP_ZERO, FP_ONE}, xi = {FP_ONE, FP_ONE};
        ref_from_fp2(&u, &uu);
        ref_mul(&t, &u, &u);
        mpz_add_ui(t.c[0], t.c[0], 1);
        mpz_mod(t.c[0], t.c[0], test_p);
        for (int i = 0; i < 12; i++)
            CHECK(mpz_sgn(t.c[i]) == 0);
        ref_from_fp2(&t, &xi);
        mpz_set_ui(x6.c[6], 1);
        CHECK(ref_eq(&t, &x6));
        ref_clear(&u);
        ref_clear(&t);
        ref_clear(&x6);
    }

    test_frobenius_coeffs();

    fp2_t e2[] = {FP2_ZERO, FP2_ONE, {FP_ZERO, FP_ONE}};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++)
            test_fp2_ops(&e2[i], &e2[j]);
    for (int i = 0; i < ROUNDS; i++) {
        fp2_t a, b;
        rand_fp2(&a);
        rand_fp2(&b);
        test_fp2_ops(&a, &b);
    }

    fp6_t zero6 = FP6_ZERO, one6 = FP6_ONE;
    test_fp6_ops(&zero6, &one6, true);
    test_fp6_ops(&one6, &zero6, true);
    for (int i = 0; i < ROUNDS; i++) {
        fp6_t a, b;
        rand_fp6(&a);
        rand_fp6(&b);
        test_fp6_ops(&a, &b, i < 8);
    }

    fp12_t zero12 = {FP6_ZERO, FP6_ZERO}, one12 = FP12_ONE;
    test_fp12_ops(&zero12, &one12, true);
    test_fp12_ops(&one12, &zero12, true);
    for (int i = 0; i < ROUNDS; i++) {
        fp12_t a, b;
        rand_fp12(&a);
        rand_fp12(&b);
        test_fp12_ops(&a, &b, i < 4);
    }

    for (int i = 0; i < 3; i++) {
        fp12_t f;
        rand_fp12(&f);
        test_cyclotomic(&f);
    }
    return test_finish();
}
