/* The Fp12 reference of tests; see ref12.h. */
#include "tests/field/ref12.h"

void ref_init(ref_t *r)
{
    for (int i = 0; i < 12; i++)
        mpz_init(r->c[i]);
}

void ref_clear(ref_t *r)
{
    for (int i = 0; i < 12; i++)
        mpz_clear(r->c[i]);
}

void ref_set_one(ref_t *r)
{
    for (int i = 0; i < 12; i++)
        mpz_set_ui(r->c[i], i == 0);
}

bool ref_eq(const ref_t *a, const ref_t *b)
{
    for (int i = 0; i < 12; i++)
        if (mpz_cmp(a->c[i], b->c[i]) != 0)
            return false;
    return true;
}

bool ref_is_one(const ref_t *a)
{
    for (int i = 0; i < 12; i++)
        if (mpz_cmp_ui(a->c[i], i == 0) != 0)
            return false;
    return true;
}

void ref_mul(ref_t *r, const ref_t *a, const ref_t *b)
{
    mpz_t t[23];
    for (int i = 0; i < 23; i++)
        mpz_init(t[i]);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            mpz_addmul(t[i + j], a->c[i], b->c[j]);
    /* X^i = X^(i-12) (2 X^6 - 2), from the top down */
    for (int i = 22; i >= 12; i--) {
        mpz_addmul_ui(t[i - 6], t[i], 2);
        mpz_submul_ui(t[i - 12], t[i], 2);
    }
    for (int i = 0; i < 12; i++)
        mpz_mod(r->c[i], t[i], test_p);
    for (int i = 0; i < 23; i++)
        mpz_clear(t[i]);
}

void ref_pow(ref_t *r, const ref_t *a, const mpz_t e)
{
    ref_t acc, base;
    ref_init(&acc);
    ref_init(&base);
    ref_set_one(&acc);
    for (int i = 0; i < 12; i++)
        mpz_set(base.c[i], a->c[i]);
    for (long bit = (long)mpz_sizeinbase(e, 2) - 1; bit >= 0; bit--) {
        ref_mul(&acc, &acc, &acc);
        if (mpz_tstbit(e, (mp_bitcnt_t)bit))
            ref_mul(&acc, &acc, &base);
    }
    for (int i = 0; i < 12; i++)
        mpz_set(r->c[i], acc.c[i]);
    ref_clear(&acc);
    ref_clear(&base);
}

/* a_k w^k with a_k = x + y u = (x - y) w^k + y w^(k+6). */
static void ref_add_fp2(ref_t *r, const fp2_t *a, int k)
{
    mpz_t x, y;
    mpz_inits(x, y, NULL);
    test_fp_to_mpz(x, &a->c0);
    test_fp_to_mpz(y, &a->c1);
    mpz_add(r->c[k], r->c[k], x);
    mpz_sub(r->c[k], r->c[k], y);
    mpz_mod(r->c[k], r->c[k], test_p);
    mpz_add(r->c[k + 6], r->c[k + 6], y);
    mpz_mod(r->c[k + 6], r->c[k + 6], test_p);
    mpz_clears(x, y, NULL);
}

void ref_from_fp12(ref_t *r, const fp12_t *a)
{
    for (int i = 0; i < 12; i++)
        mpz_set_ui(r->c[i], 0);
    /* c0 = (w^0, w^2, w^4), c1 = (w^1, w^3, w^5) */
    ref_add_fp2(r, &a->c0.c0, 0);
    ref_add_fp2(r, &a->c0.c1, 2);
    ref_add_fp2(r, &a->c0.c2, 4);
    ref_add_fp2(r, &a->c1.c0, 1);
    ref_add_fp2(r, &a->c1.c1, 3);
    ref_add_fp2(r, &a->c1.c2, 5);
}

void ref_from_fp6(ref_t *r, const fp6_t *a)
{
    fp12_t t = {*a, FP6_ZERO};
    ref_from_fp12(r, &t);
}

void ref_from_fp2(ref_t *r, const fp2_t *a)
{
    fp12_t t = {{*a, FP2_ZERO, FP2_ZERO}, FP6_ZERO};
    ref_from_fp12(r, &t);
}

/* The tower element whose reference is r (r known to be in Fp12). */
void ref_to_fp12(fp12_t *ret, const ref_t *r)
{
    fp2_t *out[6] = {&ret->c0.c0, &ret->c1.c0, &ret->c0.c1,
                     &ret->c1.c1, &ret->c0.c2, &ret->c1.c2};
    mpz_t x;
    mpz_init(x);
    for (int k = 0; k < 6; k++) {
        /* coefficient of X^k is x - y, of X^(k+6) is y */
        test_fp_from_mpz(&out[k]->c1, r->c[k + 6]);
        mpz_add(x, r->c[k], r->c[k + 6]);
        test_fp_from_mpz(&out[k]->c0, x);
    }
    mpz_clear(x);
}
