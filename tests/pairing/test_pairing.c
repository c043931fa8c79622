/*
 * The optimal ate pairing: a known answer (e(G1, G2) as published with
 * zkcrypto's and blst's test vectors), the final exponentiation against the
 * GMP reference f^(3 (p^12 - 1)/r), bilinearity on random multiples,
 * non-degeneracy, order r, negation, pairing_check true and false, prepared
 * against unprepared loops, infinity inputs, and more pairs than one group.
 *
 * Points are built here with a plain affine double-and-add over GMP-checked
 * field code, independent of arith/curve's G1/G2 arithmetic.
 */
#include <string.h>

#include "arith/curve/pairing.h"
#include "tests/common.h"
#include "tests/field/ref12.h"

/* ------------------------------------------------------- test points */

static void fp_from_hex(fp_t *ret, const char *hex)
{
    mpz_t v;
    mpz_init_set_str(v, hex, 16);
    test_fp_from_mpz(ret, v);
    mpz_clear(v);
}

/* The standard generators (zcash / IETF draft). */
static void g1_gen(g1_affine_t *g)
{
    fp_from_hex(&g->x,
                "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905"
                "a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    fp_from_hex(&g->y,
                "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af6"
                "00db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
}

static void g2_gen(g2_affine_t *g)
{
    fp_from_hex(&g->x.c0,
                "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02"
                "b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    fp_from_hex(&g->x.c1,
                "13e02b6052719f607dacd3a088274f65596bd0d09920b61a"
                "b5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
    fp_from_hex(&g->y.c0,
                "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a7"
                "6d429a695160d12c923ac9cc3baca289e193548608b82801");
    fp_from_hex(&g->y.c1,
                "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af"
                "267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
}

static bool g1_inf(const g1_affine_t *p)
{
    return fp_is_zero(&p->x) && fp_is_zero(&p->y);
}

static bool g2_inf(const g2_affine_t *p)
{
    return fp2_is_zero(&p->x) && fp2_is_zero(&p->y);
}

static bool g1_on_curve(const g1_affine_t *p)
{
    fp_t l, r, b;
    fp_sqr(&l, &p->y);
    fp_sqr(&r, &p->x);
    fp_mul(&r, &r, &p->x);
    fp_from_u64(&b, 4);
    fp_add(&r, &r, &b);
    return fp_eq(&l, &r);
}

static bool g2_on_curve(const g2_affine_t *p)
{
    fp2_t l, r, b = {FP_ONE, FP_ONE};
    fp2_mul_small(&b, &b, 4); /* 4 (u + 1) */
    fp2_sqr(&l, &p->y);
    fp2_sqr(&r, &p->x);
    fp2_mul(&r, &r, &p->x);
    fp2_add(&r, &r, &b);
    return fp2_eq(&l, &r);
}

/* Affine chord-and-tangent addition, complete (infinity, doubling, P-P). */
static void g1_add(g1_affine_t *ret, const g1_affine_t *a, const g1_affine_t *b)
{
    if (g1_inf(a)) {
        *ret = *b;
        return;
    }
    if (g1_inf(b)) {
        *ret = *a;
        return;
    }
    fp_t m, t, x3, y3;
    if (fp_eq(&a->x, &b->x)) {
        fp_add(&t, &a->y, &b->y);
        if (fp_is_zero(&t)) {
            memset(ret, 0, sizeof *ret);
            return;
        }
        fp_sqr(&m, &a->x);
        fp_mul_small(&m, &m, 3);
        fp_dbl(&t, &a->y);
    } else {
        fp_sub(&m, &b->y, &a->y);
        fp_sub(&t, &b->x, &a->x);
    }
    fp_inv(&t, &t);
    fp_mul(&m, &m, &t);
    fp_sqr(&x3, &m);
    fp_sub(&x3, &x3, &a->x);
    fp_sub(&x3, &x3, &b->x);
    fp_sub(&t, &a->x, &x3);
    fp_mul(&y3, &m, &t);
    fp_sub(&y3, &y3, &a->y);
    ret->x = x3;
    ret->y = y3;
}

static void g2_add(g2_affine_t *ret, const g2_affine_t *a, const g2_affine_t *b)
{
    if (g2_inf(a)) {
        *ret = *b;
        return;
    }
    if (g2_inf(b)) {
        *ret = *a;
        return;
    }
    fp2_t m, t, x3, y3;
    if (fp2_eq(&a->x, &b->x)) {
        fp2_add(&t, &a->y, &b->y);
        if (fp2_is_zero(&t)) {
            memset(ret, 0, sizeof *ret);
            return;
        }
        fp2_sqr(&m, &a->x);
        fp2_mul_small(&m, &m, 3);
        fp2_dbl(&t, &a->y);
    } else {
        fp2_sub(&m, &b->y, &a->y);
        fp2_sub(&t, &b->x, &a->x);
    }
    fp2_inv(&t, &t);
    fp2_mul(&m, &m, &t);
    fp2_sqr(&x3, &m);
    fp2_sub(&x3, &x3, &a->x);
    fp2_sub(&x3, &x3, &b->x);
    fp2_sub(&t, &a->x, &x3);
    fp2_mul(&y3, &m, &t);
    fp2_sub(&y3, &y3, &a->y);
    ret->x = x3;
    ret->y = y3;
}

/* [k]p for k >= 0, double and add from the top bit. */
static void g1_mul(g1_affine_t *ret, const g1_affine_t *p, const mpz_t k)
{
    g1_affine_t acc;
    memset(&acc, 0, sizeof acc);
    for (long i = (long)mpz_sizeinbase(k, 2) - 1; i >= 0; i--) {
        g1_add(&acc, &acc, &acc);
        if (mpz_tstbit(k, (mp_bitcnt_t)i))
            g1_add(&acc, &acc, p);
    }
    *ret = acc;
}

static void g2_mul(g2_affine_t *ret, const g2_affine_t *p, const mpz_t k)
{
    g2_affine_t acc;
    memset(&acc, 0, sizeof acc);
    for (long i = (long)mpz_sizeinbase(k, 2) - 1; i >= 0; i--) {
        g2_add(&acc, &acc, &acc);
        if (mpz_tstbit(k, (mp_bitcnt_t)i))
            g2_add(&acc, &acc, p);
    }
    *ret = acc;
}

static void g2_neg(g2_affine_t *ret, const g2_affine_t *p)
{
    ret->x = p->x;
    fp2_neg(&ret->y, &p->y);
}

static void g1_neg(g1_affine_t *ret, const g1_affine_t *p)
{
    ret->x = p->x;
    fp_neg(&ret->y, &p->y);
}

static void rand_scalar(mpz_t k)
{
    fr_t s;
    test_rand_fr(&s);
    test_fr_to_mpz(k, &s);
}

static void fp12_pow_mpz(fp12_t *ret, const fp12_t *a, const mpz_t e)
{
    uint64_t limbs[8] = {0};
    size_t n = 0;
    mpz_export(limbs, &n, -1, 8, 0, 0, e);
    fp12_pow(ret, a, limbs, n);
}

/* ------------------------------------------------------------- tests */

/* e(G1, G2), canonical hex of c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1:
 * the value zkcrypto's bls12_381 and blst publish as GT's generator. */
static const char *const KAT_E_G1_G2[12] = {
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c50"
    "3dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6",
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7"
    "af5af689452eafabf1a8943e50439f1d59882a98eaa0170f",
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b2"
    "16da0e22a5031b54ddff57309396b38c881c4c849ec23e87",
    "193502b86edb8857c273fa075a50512937e0794e1e65a761"
    "7c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f",
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74"
    "185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5",
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a"
    "8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6",
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2db"
    "dea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d",
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95"
    "a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a",
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a67"
    "7d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57",
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab59733"
    "20c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2",
    "04c581234d086a9902249b64728ffd21a189e87935a95405"
    "1c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef",
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544"
    "deff686bfd6df543d48eaa24afe47e1efde449383b676631",
};

static void test_generators(const g1_affine_t *g1, const g2_affine_t *g2)
{
    CHECK(g1_on_curve(g1));
    CHECK(g2_on_curve(g2));
    /* order r: [r]G = infinity, [r - 1]G = -G */
    g1_affine_t p;
    g2_affine_t q;
    g1_mul(&p, g1, test_r);
    CHECK(g1_inf(&p));
    g2_mul(&q, g2, test_r);
    CHECK(g2_inf(&q));
    mpz_t k;
    mpz_init(k);
    mpz_sub_ui(k, test_r, 1);
    g2_mul(&q, g2, k);
    g2_add(&q, &q, g2);
    CHECK(g2_inf(&q));
    mpz_clear(k);
}

static void test_known_answer(const g1_affine_t *g1, const g2_affine_t *g2)
{
    fp12_t e, want;
    fp2_t *w[6] = {&want.c0.c0, &want.c0.c1, &want.c0.c2,
                   &want.c1.c0, &want.c1.c1, &want.c1.c2};
    for (int i = 0; i < 6; i++) {
        fp_from_hex(&w[i]->c0, KAT_E_G1_G2[2 * i]);
        fp_from_hex(&w[i]->c1, KAT_E_G1_G2[2 * i + 1]);
    }
    pairing_compute(&e, g1, g2);
    CHECK(fp12_eq(&e, &want));
    CHECK(!fp12_is_one(&e)); /* non-degenerate */

    /* e^r = 1, in the tower and in the reference */
    fp12_t t;
    fp12_pow_mpz(&t, &e, test_r);
    CHECK(fp12_is_one(&t));
    ref_t re, rt;
    ref_init(&re);
    ref_init(&rt);
    ref_from_fp12(&re, &e);
    ref_pow(&rt, &re, test_r);
    CHECK(ref_is_one(&rt));
    /* but not e^((r - 1)/2): the order is r, not a divisor */
    mpz_t h;
    mpz_init(h);
    mpz_sub_ui(h, test_r, 1);
    mpz_fdiv_q_2exp(h, h, 1);
    ref_pow(&rt, &re, h);
    CHECK(!ref_is_one(&rt));
    mpz_clear(h);
    ref_clear(&re);
    ref_clear(&rt);

    /* A wrong answer is rejected: e(2 G1, G2) differs from the KAT. */
    g1_affine_t g1x2;
    g1_add(&g1x2, g1, g1);
    pairing_compute(&e, &g1x2, g2);
    CHECK(!fp12_eq(&e, &want));
}

/* pairing_final_exp(f) = f^(3 (p^12 - 1)/r) computed by GMP, for random f
 * (the exponent of blst and zkcrypto, see pairing.h). */
static void test_final_exp_reference(void)
{
    mpz_t e;
    mpz_init(e);
    mpz_pow_ui(e, test_p, 12);
    mpz_sub_ui(e, e, 1);
    CHECK(mpz_divisible_p(e, test_r));
    mpz_divexact(e, e, test_r);
    mpz_mul_ui(e, e, 3);
    ref_t rf, want;
    ref_init(&rf);
    ref_init(&want);
    for (int i = 0; i < 2; i++) {
        fp12_t f, got;
        for (int k = 0; k < 12; k++)
            test_rand_fp(&((fp_t *)&f)[k]);
        pairing_final_exp(&got, &f);
        ref_from_fp12(&rf, &f);
        ref_pow(&want, &rf, e);
        ref_from_fp12(&rf, &got);
        CHECK(ref_eq(&rf, &want));
    }
    ref_clear(&rf);
    ref_clear(&want);
    mpz_clear(e);
}

static void test_bilinearity(const g1_affine_t *g1, const g2_affine_t *g2)
{
    fp12_t e, eab, t;
    pairing_compute(&e, g1, g2);
    mpz_t a, b, ab;
    mpz_inits(a, b, ab, NULL);
    for (int round = 0; round < 3; round++) {
        rand_scalar(a);
        rand_scalar(b);
        mpz_mul(ab, a, b);
        mpz_mod(ab, ab, test_r);
        g1_affine_t pa;
        g2_affine_t qb, qa;
        g1_mul(&pa, g1, a);
        g2_mul(&qb, g2, b);
        g2_mul(&qa, g2, a);

        /* e(aP, bQ) = e(P, Q)^(ab) */
        pairing_compute(&eab, &pa, &qb);
        fp12_pow_mpz(&t, &e, ab);
        CHECK(fp12_eq(&eab, &t));
        /* e(aP, Q) = e(P, aQ) */
        pairing_compute(&eab, &pa, g2);
        pairing_compute(&t, g1, &qa);
        CHECK(fp12_eq(&eab, &t));
        /* ... and e(P, Q)^(ab + 1) is a different value */
        mpz_add_ui(ab, ab, 1);
        pairing_compute(&eab, &pa, &qb);
        fp12_pow_mpz(&t, &e, ab);
        CHECK(!fp12_eq(&eab, &t));

        /* e(P, -Q) e(P, Q) = 1, and e(-P, Q) = e(P, Q)^-1 = conj */
        g2_affine_t nq;
        g2_neg(&nq, &qb);
        fp12_t e1, e2;
        pairing_compute(&e1, &pa, &qb);
        pairing_compute(&e2, &pa, &nq);
        fp12_mul(&t, &e1, &e2);
        CHECK(fp12_is_one(&t));
        g1_affine_t np;
        g1_neg(&np, &pa);
        pairing_compute(&e2, &np, &qb);
        fp12_conj(&t, &e1);
        CHECK(fp12_eq(&e2, &t));

        /* pairing_check: e(aP, bQ) e(-abP, Q) = 1, not with ab + 1 */
        mpz_sub_ui(ab, ab, 1);
        g1_affine_t ps[2];
        g2_affine_t qs[2] = {qb, *g2};
        ps[0] = pa;
        g1_mul(&ps[1], g1, ab);
        g1_neg(&ps[1], &ps[1]);
        CHECK(pairing_check(ps, qs, 2));
        g1_add(&ps[1], &ps[1], g1);
        CHECK(!pairing_check(ps, qs, 2));

        /* prepared: the same Miller loop values and checks */
        static g2_prepared_t prep[2]; /* 19 KiB each: not on the stack */
        pairing_g2_prepare(&prep[0], &qs[0]);
        pairing_g2_prepare(&prep[1], &qs[1]);
        const g2_prepared_t *pq[2] = {&prep[0], &prep[1]};
        fp12_t m1, m2;
        pairing_miller_loop(&m1, ps, qs, 2);
        pairing_miller_loop_prepared(&m2, ps, pq, 2);
        CHECK(fp12_eq(&m1, &m2));
        pairing_miller_loop(&m1, ps, qs, 1);
        pairing_miller_loop_prepared(&m2, ps, pq, 1);
        CHECK(fp12_eq(&m1, &m2));
        CHECK(!pairing_check_prepared(ps, pq, 2));
        g1_mul(&ps[1], g1, ab);
        g1_neg(&ps[1], &ps[1]);
        CHECK(pairing_check_prepared(ps, pq, 2));
    }
    mpz_clears(a, b, ab, NULL);
}

static void test_infinity(const g1_affine_t *g1, const g2_affine_t *g2)
{
    g1_affine_t o1;
    g2_affine_t o2;
    memset(&o1, 0, sizeof o1);
    memset(&o2, 0, sizeof o2);
    fp12_t e;
    pairing_compute(&e, &o1, g2);
    CHECK(fp12_is_one(&e));
    pairing_compute(&e, g1, &o2);
    CHECK(fp12_is_one(&e));
    pairing_compute(&e, &o1, &o2);
    CHECK(fp12_is_one(&e));
    CHECK(pairing_check(&o1, g2, 1));
    CHECK(pairing_check(g1, &o2, 1));
    CHECK(pairing_check(NULL, NULL, 0)); /* the empty product */
    CHECK(!pairing_check(g1, g2, 1));

    /* infinity among finite pairs contributes one */
    g1_affine_t ps[3] = {*g1, o1, *g1};
    g2_affine_t qs[3] = {*g2, *g2, o2};
    fp12_t m1, m2;
    pairing_miller_loop(&m1, ps, qs, 3);
    pairing_miller_loop(&m2, ps, qs, 1);
    CHECK(fp12_eq(&m1, &m2));

    static g2_prepared_t prep[3];
    for (int i = 0; i < 3; i++)
        pairing_g2_prepare(&prep[i], &qs[i]);
    CHECK(prep[2].infinity && !prep[0].infinity);
    const g2_prepared_t *pq[3] = {&prep[0], &prep[1], &prep[2]};
    pairing_miller_loop_prepared(&m2, ps, pq, 3);
    CHECK(fp12_eq(&m1, &m2));
    CHECK(!pairing_check_prepared(ps, pq, 3));
    CHECK(pairing_check_prepared(ps + 1, pq + 1, 2));
    CHECK(pairing_check_prepared(NULL, NULL, 0));
}

/* More pairs than the loop's group of 8: sum a_i = 0 across 11 pairs. */
static void test_many_pairs(const g1_affine_t *g1, const g2_affine_t *g2)
{
    enum { N = 11 };
    g1_affine_t ps[N];
    g2_affine_t qs[N];
    mpz_t a, sum;
    mpz_inits(a, sum, NULL);
    for (int i = 0; i < N - 1; i++) {
        rand_scalar(a);
        mpz_add(sum, sum, a);
        g1_mul(&ps[i], g1, a);
        qs[i] = *g2;
    }
    mpz_mod(sum, sum, test_r);
    mpz_sub(sum, test_r, sum);
    g1_mul(&ps[N - 1], g1, sum);
    qs[N - 1] = *g2;
    CHECK(pairing_check(ps, qs, N));

    /* the grouped loop is exactly the product of single loops */
    fp12_t all, one, prod = FP12_ONE;
    pairing_miller_loop(&all, ps, qs, N);
    for (int i = 0; i < N; i++) {
        pairing_miller_loop(&one, &ps[i], &qs[i], 1);
        fp12_mul(&prod, &prod, &one);
    }
    CHECK(fp12_eq(&all, &prod));

    g1_add(&ps[3], &ps[3], g1);
    CHECK(!pairing_check(ps, qs, N));
    mpz_clears(a, sum, NULL);
}

int main(void)
{
    test_init("test_pairing");
    g1_affine_t g1;
    g2_affine_t g2;
    g1_gen(&g1);
    g2_gen(&g2);
    test_generators(&g1, &g2);
    test_known_answer(&g1, &g2);
    test_final_exp_reference();
    test_bilinearity(&g1, &g2);
    test_infinity(&g1, &g2);
    test_many_pairs(&g1, &g2);
    return test_finish();
}
