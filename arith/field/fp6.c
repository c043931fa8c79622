/*
 * Fp6 = Fp2[v] / (v^3 - xi), xi = u + 1. Formulas from Devegili,
 * O hEigeartaigh, Scott, Dahab, "Multiplication and squaring on
 * pairing-friendly fields" (2006): Karatsuba multiplication and the
 * Chung-Hasan SQR2 squaring; inversion by the adjugate, as in Scott's
 * "Implementing cryptographic pairings" (2007).
 */
#include "arith/field/fp6.h"

#include "arith/field/bls12_381.h"

#define FP_R_LIMBS {BLS12_381_P_R(BLS12_381_U64)}

const fp6_t FP6_ZERO = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
const fp6_t FP6_ONE = {{{FP_R_LIMBS}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};

/* Computed with Python's integers from the definition, in Montgomery form;
 * tests/field/test_tower.c recomputes them with GMP. */
const fp2_t FP6_FROBENIUS_COEFF[3][5] = {
{   /* p^1 */
    /* w^1: xi^(1 (p^1 - 1) / 6) */
    {{{0x07089552b319d465ull, 0xc6695f92b50a8313ull, 0x97e83cccd117228full,
       0xa35baecab2dc29eeull, 0x1ce393ea5daace4dull, 0x08f2220fb0fb66ebull}},
     {{0xb2f66aad4ce5d646ull, 0x5842a06bfc497cecull, 0xcf4895d42599d394ull,
       0xc11b9cba40a8e8d0ull, 0x2e3813cbe5a0de89ull, 0x110eefda88847fafull}}},
    /* w^2: xi^(2 (p^1 - 1) / 6) */
    {{{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}},
     {{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
       0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}}},
    /* w^3: xi^(3 (p^1 - 1) / 6) */
    {{{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
       0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}},
     {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
       0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}},
    /* w^4: xi^(4 (p^1 - 1) / 6) */
    {{{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
       0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* w^5: xi^(5 (p^1 - 1) / 6) */
    {{{0x82d83cf50dbce43full, 0xa2813e53df9d018full, 0xc6f0caa53c65e181ull,
       0x7525cf528d50fe95ull, 0x4a85ed50f4798a6bull, 0x171da0fd6cf8eebdull}},
     {{0x3726c30af242c66cull, 0x7c2ac1aad1b6fe70ull, 0xa04007fbba4b14a2ull,
       0xef517c3266341429ull, 0x0095ba654ed2226bull, 0x02e370eccc86f7ddull}}},
},
{   /* p^2 */
    /* w^1: xi^(1 (p^2 - 1) / 6) */
    {{{0xecfb361b798dba3aull, 0xc100ddb891865a2cull, 0x0ec08ff1232bda8eull,
       0xd5c13cc6f1ca4721ull, 0x47222a47bf7b5c04ull, 0x0110f184e51c5f59ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* w^2: xi^(2 (p^2 - 1) / 6) */
    {{{0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
       0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* w^3: xi^(3 (p^2 - 1) / 6) */
    {{{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull, 0x07e83a49a2e99d69ull,
       0xeca8f3318332bb7aull, 0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* w^4: xi^(4 (p^2 - 1) / 6) */
    {{{0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
       0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* w^5: xi^(5 (p^2 - 1) / 6) */
    {{{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
       0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
},
{   /* p^3 */
    /* w^1: xi^(1 (p^3 - 1) / 6) */
    {{{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
       0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
     {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
       0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}}},
    /* w^2: xi^(2 (p^3 - 1) / 6) */
    {{{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}},
     {{0x760900000002fffdull, 0xebf4000bc40c0002ull, 0x5f48985753c758baull,
       0x77ce585370525745ull, 0x5c071a97a256ec6dull, 0x15f65ec3fa80e493ull}}},
    /* w^3: xi^(3 (p^3 - 1) / 6) */
    {{{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
       0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
     {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
       0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}},
    /* w^4: xi^(4 (p^3 - 1) / 6) */
    {{{0x43f5fffffffcaaaeull, 0x32b7fff2ed47fffdull, 0x07e83a49a2e99d69ull,
       0xeca8f3318332bb7aull, 0xef148d1ea0f4c069ull, 0x040ab3263eff0206ull}},
     {{0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull,
       0x0000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull}}},
    /* w^5: xi^(5 (p^3 - 1) / 6) */
    {{{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
       0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}},
     {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
       0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}}},
},
};

void fp6_add(fp6_t *ret, const fp6_t *a, const fp6_t *b)
{
    fp2_add(&ret->c0, &a->c0, &b->c0);
    fp2_add(&ret->c1, &a->c1, &b->c1);
    fp2_add(&ret->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *ret, const fp6_t *a, const fp6_t *b)
{
    fp2_sub(&ret->c0, &a->c0, &b->c0);
    fp2_sub(&ret->c1, &a->c1, &b->c1);
    fp2_sub(&ret->c2, &a->c2, &b->c2);
}

void fp6_dbl(fp6_t *ret, const fp6_t *a)
{
    fp2_dbl(&ret->c0, &a->c0);
    fp2_dbl(&ret->c1, &a->c1);
    fp2_dbl(&ret->c2, &a->c2);
}

void fp6_neg(fp6_t *ret, const fp6_t *a)
{
    fp2_neg(&ret->c0, &a->c0);
    fp2_neg(&ret->c1, &a->c1);
    fp2_neg(&ret->c2, &a->c2);
}

void fp6_mul(fp6_t *ret, const fp6_t *a, const fp6_t *b)
{
    /* c0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2)
     * c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2
     * c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1,  ti = ai bi */
    fp2_t t0, t1, t2, s, u, c0, c1, c2;
    fp2_mul(&t0, &a->c0, &b->c0);
    fp2_mul(&t1, &a->c1, &b->c1);
    fp2_mul(&t2, &a->c2, &b->c2);

    fp2_add(&s, &a->c1, &a->c2);
    fp2_add(&u, &b->c1, &b->c2);
    fp2_mul(&c0, &s, &u);
    fp2_sub(&c0, &c0, &t1);
    fp2_sub(&c0, &c0, &t2);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_add(&c0, &c0, &t0);

    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&u, &b->c0, &b->c1);
    fp2_mul(&c1, &s, &u);
    fp2_sub(&c1, &c1, &t0);
    fp2_sub(&c1, &c1, &t1);
    fp2_mul_by_nonresidue(&s, &t2);
    fp2_add(&c1, &c1, &s);

    fp2_add(&s, &a->c0, &a->c2);
    fp2_add(&u, &b->c0, &b->c2);
    fp2_mul(&c2, &s, &u);
    fp2_sub(&c2, &c2, &t0);
    fp2_sub(&c2, &c2, &t2);
    fp2_add(&c2, &c2, &t1);

    ret->c0 = c0;
    ret->c1 = c1;
    ret->c2 = c2;
}

void fp6_sqr(fp6_t *ret, const fp6_t *a)
{
    /* SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2,
     * s4 = a2^2; c0 = s0 + xi s3, c1 = s1 + xi s4,
     * c2 = s1 + s2 + s3 - s0 - s4. */
    fp2_t s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    fp2_dbl(&s1, &s1);
    fp2_sub(&t, &a->c0, &a->c1);
    fp2_add(&t, &t, &a->c2);
    fp2_sqr(&s2, &t);
    fp2_mul(&s3, &a->c1, &a->c2);
    fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);

    fp2_add(&ret->c2, &s1, &s2);
    fp2_add(&ret->c2, &ret->c2, &s3);
    fp2_sub(&ret->c2, &ret->c2, &s0);
    fp2_sub(&ret->c2, &ret->c2, &s4);
    fp2_mul_by_nonresidue(&t, &s3);
    fp2_add(&ret->c0, &s0, &t);
    fp2_mul_by_nonresidue(&t, &s4);
    fp2_add(&ret->c1, &s1, &t);
}

void fp6_mul_by_nonresidue(fp6_t *ret, const fp6_t *a)
{
    fp2_t t;
    fp2_mul_by_nonresidue(&t, &a->c2);
    ret->c2 = a->c1;
    ret->c1 = a->c0;
    ret->c0 = t;
}

void fp6_mul_fp2(fp6_t *ret, const fp6_t *a, const fp2_t *b)
{
    fp2_mul(&ret->c0, &a->c0, b);
    fp2_mul(&ret->c1, &a->c1, b);
    fp2_mul(&ret->c2, &a->c2, b);
}

void fp6_mul_by_01(fp6_t *ret, const fp6_t *a, const fp2_t *b0,
                   const fp2_t *b1)
{
    /* (a0 + a1 v + a2 v^2)(b0 + b1 v):
     * c0 = a0 b0 + xi a2 b1, c1 = a0 b1 + a1 b0, c2 = a1 b1 + a2 b0,
     * with Karatsuba for each pair that shares t0 = a0 b0, t1 = a1 b1. */
    fp2_t t0, t1, s, u, c0, c1, c2;
    fp2_mul(&t0, &a->c0, b0);
    fp2_mul(&t1, &a->c1, b1);

    /* xi a2 b1 = xi ((a1 + a2) b1 - t1) */
    fp2_add(&s, &a->c1, &a->c2);
    fp2_mul(&c0, &s, b1);
    fp2_sub(&c0, &c0, &t1);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_add(&c0, &c0, &t0);

    fp2_add(&s, &a->c0, &a->c1);
    fp2_add(&u, b0, b1);
    fp2_mul(&c1, &s, &u);
    fp2_sub(&c1, &c1, &t0);
    fp2_sub(&c1, &c1, &t1);

    /* a2 b0 = (a0 + a2) b0 - t0 */
    fp2_add(&s, &a->c0, &a->c2);
    fp2_mul(&c2, &s, b0);
    fp2_sub(&c2, &c2, &t0);
    fp2_add(&c2, &c2, &t1);

    ret->c0 = c0;
    ret->c1 = c1;
    ret->c2 = c2;
}

void fp6_mul_by_1(fp6_t *ret, const fp6_t *a, const fp2_t *b1)
{
    /* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
    fp2_t c0, c1, c2;
    fp2_mul(&c0, &a->c2, b1);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_mul(&c1, &a->c0, b1);
    fp2_mul(&c2, &a->c1, b1);
    ret->c0 = c0;
    ret->c1 = c1;
    ret->c2 = c2;
}

void fp6_inv(fp6_t *ret, const fp6_t *a)
{
    /* a^-1 = adj(a) / N(a): with c0 = a0^2 - xi a1 a2, c1 = xi a2^2 - a0 a1,
     * c2 = a1^2 - a0 a2, a (c0 + c1 v + c2 v^2) = a0 c0 + xi (a2 c1 + a1 c2),
     * an element of Fp2. */
    fp2_t c0, c1, c2, t, n;
    fp2_sqr(&c0, &a->c0);
    fp2_mul(&t, &a->c1, &a->c2);
    fp2_mul_by_nonresidue(&t, &t);
    fp2_sub(&c0, &c0, &t);

    fp2_sqr(&c1, &a->c2);
    fp2_mul_by_nonresidue(&c1, &c1);
    fp2_mul(&t, &a->c0, &a->c1);
    fp2_sub(&c1, &c1, &t);

    fp2_sqr(&c2, &a->c1);
    fp2_mul(&t, &a->c0, &a->c2);
    fp2_sub(&c2, &c2, &t);

    fp2_mul(&n, &a->c2, &c1);
    fp2_mul(&t, &a->c1, &c2);
    fp2_add(&n, &n, &t);
    fp2_mul_by_nonresidue(&n, &n);
    fp2_mul(&t, &a->c0, &c0);
    fp2_add(&n, &n, &t);
    fp2_inv(&n, &n); /* zero for a = 0, and then so is the result */

    fp2_mul(&ret->c0, &c0, &n);
    fp2_mul(&ret->c1, &c1, &n);
    fp2_mul(&ret->c2, &c2, &n);
}

/* a^(p^j) for j = 1, 2, 3: conjugate the coefficients when j is odd (u^p =
 * -u), then v^(p^j) = xi^((p^j - 1)/3) v. */
static void fp6_frobenius_once(fp6_t *ret, const fp6_t *a, unsigned j)
{
    const fp2_t *g = FP6_FROBENIUS_COEFF[j - 1];
    fp2_t c1 = a->c1, c2 = a->c2;
    if (j & 1) {
        fp2_conj(&ret->c0, &a->c0);
        fp2_conj(&c1, &c1);
        fp2_conj(&c2, &c2);
    } else {
        ret->c0 = a->c0;
    }
    if (j == 2) {
        /* the p^2 factors lie in Fp */
        fp2_mul_fp(&ret->c1, &c1, &g[1].c0);
        fp2_mul_fp(&ret->c2, &c2, &g[3].c0);
    } else {
        fp2_mul(&ret->c1, &c1, &g[1]);
        fp2_mul(&ret->c2, &c2, &g[3]);
    }
}

void fp6_frobenius_map(fp6_t *ret, const fp6_t *a, unsigned power)
{
    power %= 6; /* x^(p^6) = x on Fp6 */
    *ret = *a;
    while (power > 0) {
        unsigned j = power > 3 ? 3 : power;
        fp6_frobenius_once(ret, ret, j);
        power -= j;
    }
}

bool fp6_is_zero(const fp6_t *a)
{
    return fp2_is_zero(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

bool fp6_is_one(const fp6_t *a)
{
    return fp2_is_one(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

bool fp6_eq(const fp6_t *a, const fp6_t *b)
{
    return fp2_eq(&a->c0, &b->c0) && fp2_eq(&a->c1, &b->c1) &&
           fp2_eq(&a->c2, &b->c2);
}
