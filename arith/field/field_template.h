/*
 * The operations Fp and Fr share, written once. fp.c and fr.c define
 *   FIELD_T       the element type (fp_t, fr_t)
 *   FIELD_NAME    the function prefix (fp, fr)
 *   FIELD_N       limbs
 *   FIELD_MOD     the modulus limbs;  FIELD_INV  -m^-1 mod 2^64
 *   FIELD_R2      R^2 mod m;          FIELD_ONE  R mod m (an element)
 *   FIELD_ASM(op) optional: the assembly routine for op (mul, sqr, add,
 *                 sub), used instead of the C of mont.h
 * and then include this file once. It is not a public header.
 */
#include <errno.h>
#include <string.h>

#include "mont.h"

#define FIELD_CAT_(a, b) a##_##b
#define FIELD_CAT(a, b) FIELD_CAT_(a, b)
#define FIELD_FN(name) FIELD_CAT(FIELD_NAME, name)

static const uint64_t FIELD_R2_LIMBS[FIELD_N] = {FIELD_R2};

void FIELD_FN(add)(FIELD_T *ret, const FIELD_T *a, const FIELD_T *b)
{
#ifdef FIELD_ASM
    FIELD_ASM(add)(ret->l, a->l, b->l, FIELD_MOD);
#else
    mont_add(ret->l, a->l, b->l, FIELD_MOD, FIELD_N);
#endif
}

void FIELD_FN(sub)(FIELD_T *ret, const FIELD_T *a, const FIELD_T *b)
{
#ifdef FIELD_ASM
    FIELD_ASM(sub)(ret->l, a->l, b->l, FIELD_MOD);
#else
    mont_sub(ret->l, a->l, b->l, FIELD_MOD, FIELD_N);
#endif
}

void FIELD_FN(dbl)(FIELD_T *ret, const FIELD_T *a)
{
    FIELD_FN(add)(ret, a, a);
}

void FIELD_FN(neg)(FIELD_T *ret, const FIELD_T *a)
{
    mont_neg(ret->l, a->l, FIELD_MOD, FIELD_N);
}

void FIELD_FN(mul)(FIELD_T *ret, const FIELD_T *a, const FIELD_T *b)
{
#ifdef FIELD_ASM
    FIELD_ASM(mul)(ret->l, a->l, b->l, FIELD_MOD, FIELD_INV);
#else
    mont_mul(ret->l, a->l, b->l, FIELD_MOD, FIELD_INV, FIELD_N);
#endif
}

void FIELD_FN(sqr)(FIELD_T *ret, const FIELD_T *a)
{
#ifdef FIELD_ASM
    FIELD_ASM(sqr)(ret->l, a->l, FIELD_MOD, FIELD_INV);
#else
    mont_mul(ret->l, a->l, a->l, FIELD_MOD, FIELD_INV, FIELD_N);
#endif
}

/* Left-to-right with a fixed 4-bit window: 14 products up front, then one
 * product per non-zero nibble instead of one per set bit (inversion and
 * square roots: about 95 instead of 190 products). Exponents here are
 * public (field constants, test values), so branching on them leaks
 * nothing. */
void FIELD_FN(pow)(FIELD_T *ret, const FIELD_T *a, const uint64_t *e, size_t n)
{
    FIELD_T table[16], acc = FIELD_ONE;
    table[1] = *a;
    for (int i = 2; i < 16; i++)
        FIELD_FN(mul)(&table[i], &table[i - 1], a);
    bool started = false; /* no squarings of one */
    for (size_t i = n; i-- > 0;) {
        for (int shift = 60; shift >= 0; shift -= 4) {
            unsigned nibble = (unsigned)(e[i] >> shift) & 15;
            if (started)
                for (int k = 0; k < 4; k++)
                    FIELD_FN(sqr)(&acc, &acc);
            if (nibble) {
                if (started)
                    FIELD_FN(mul)(&acc, &acc, &table[nibble]);
                else
                    acc = table[nibble];
                started = true;
            }
        }
    }
    *ret = acc;
}

/* Fermat: a^(m-2). */
void FIELD_FN(inv)(FIELD_T *ret, const FIELD_T *a)
{
    uint64_t e[FIELD_N];
    static const uint64_t two[FIELD_N] = {2};
    mont_sub_raw(e, FIELD_MOD, two, FIELD_N);
    FIELD_FN(pow)(ret, a, e, FIELD_N);
}

void FIELD_FN(batch_inv)(FIELD_T *out, const FIELD_T *in, size_t n)
{
    /* out[i] holds the prefix product of the non-zero in[0..i-1]; then one
     * inversion of the total and a backward pass that reads in[] again. */
    FIELD_T acc = FIELD_ONE;
    for (size_t i = 0; i < n; i++) {
        FIELD_T x = in[i];
        out[i] = acc;
        if (!FIELD_FN(is_zero)(&x))
            FIELD_FN(mul)(&acc, &acc, &x);
    }
    FIELD_FN(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        FIELD_T x = in[i];
        if (FIELD_FN(is_zero)(&x)) {
            out[i] = x;
            continue;
        }
        FIELD_FN(mul)(&out[i], &out[i], &acc);
        FIELD_FN(mul)(&acc, &acc, &x);
    }
}

bool FIELD_FN(is_zero)(const FIELD_T *a)
{
    return mont_is_zero(a->l, FIELD_N);
}

bool FIELD_FN(is_one)(const FIELD_T *a)
{
    return mont_eq(a->l, FIELD_ONE.l, FIELD_N);
}

bool FIELD_FN(eq)(const FIELD_T *a, const FIELD_T *b)
{
    return mont_eq(a->l, b->l, FIELD_N);
}

void FIELD_FN(from_u64)(FIELD_T *ret, uint64_t v)
{
    uint64_t t[FIELD_N] = {v};
    /* v < 2^64 < m: no reduction needed before the conversion. */
    mont_mul(ret->l, t, FIELD_R2_LIMBS, FIELD_MOD, FIELD_INV, FIELD_N);
}

int FIELD_FN(from_limbs)(FIELD_T *ret, const uint64_t *v)
{
    if (mont_geq(v, FIELD_MOD, FIELD_N))
        return -EINVAL;
    mont_mul(ret->l, v, FIELD_R2_LIMBS, FIELD_MOD, FIELD_INV, FIELD_N);
    return 0;
}

void FIELD_FN(to_limbs)(uint64_t *out, const FIELD_T *a)
{
    mont_from(out, a->l, FIELD_MOD, FIELD_INV, FIELD_N);
}

int FIELD_FN(from_bytes_be)(FIELD_T *ret, const uint8_t *in)
{
    uint64_t v[FIELD_N];
    mont_bytes_be_to_limbs(v, in, FIELD_N);
    return FIELD_FN(from_limbs)(ret, v);
}

void FIELD_FN(to_bytes_be)(uint8_t *out, const FIELD_T *a)
{
    uint64_t v[FIELD_N];
    FIELD_FN(to_limbs)(v, a);
    mont_limbs_to_bytes_be(out, v, FIELD_N);
}
