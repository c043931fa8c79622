/*
 * Fr, the BLS12-381 scalar field: constants, Tonelli-Shanks square root and
 * roots of unity for the NTT. Shared operations come from field_template.h.
 */
#include "fr.h"

#include "bls12_381.h"
#include "mont_asm.h"

const uint64_t FR_MODULUS[4] = {BLS12_381_R(BLS12_381_U64)};
const fr_t FR_ZERO = {{0}};
const fr_t FR_ONE = {{BLS12_381_R_R(BLS12_381_U64)}};

#define FIELD_T fr_t
#define FIELD_NAME fr
#define FIELD_N 4
#define FIELD_MOD FR_MODULUS
#define FIELD_INV BLS12_381_R_INV64
#define FIELD_R2 BLS12_381_R_R2(BLS12_381_U64)
#define FIELD_ONE FR_ONE
#if MONT_HAVE_X86_ASM
#define FIELD_ASM(op) mont_##op##_256_x86
#endif
#include "field_template.h"

static const fr_t FR_ROOT_OF_UNITY = {{BLS12_381_R_ROOT_OF_UNITY(BLS12_381_U64)}};

int fr_root_of_unity(fr_t *ret, unsigned log_n)
{
    if (log_n > BLS12_381_R_TWO_ADICITY)
        return -EINVAL;
    fr_t w = FR_ROOT_OF_UNITY;
    for (unsigned i = log_n; i < BLS12_381_R_TWO_ADICITY; i++)
        fr_sqr(&w, &w);
    *ret = w;
    return 0;
}

bool fr_sqrt(fr_t *ret, const fr_t *a)
{
    /* Tonelli-Shanks (Cohen, "A Course in Computational Algebraic Number
     * Theory", algorithm 1.5.1) with r - 1 = 2^S t, S = 32, and the
     * primitive 2^S-th root of unity z = 7^t as the non-residue power. */
    static const uint64_t t_minus_1_half[4] = {
        0x7fff2dff7fffffffull, 0x04d0ec02a9ded201ull, 0x94cebea4199cec04ull,
        0x0000000039f6d3a9ull,
    };
    if (fr_is_zero(a)) {
        *ret = *a;
        return true;
    }
    fr_t w, x, b, z = FR_ROOT_OF_UNITY;
    fr_pow(&w, a, t_minus_1_half, 4); /* a^((t-1)/2) */
    fr_mul(&x, a, &w);                /* a^((t+1)/2) */
    fr_mul(&b, &x, &w);               /* a^t */
    unsigned v = BLS12_381_R_TWO_ADICITY;
    while (!fr_is_one(&b)) {
        /* least k with b^(2^k) = 1 */
        unsigned k = 0;
        fr_t b2k = b;
        while (!fr_is_one(&b2k)) {
            fr_sqr(&b2k, &b2k);
            if (++k >= v)
                return false; /* a is not a square */
        }
        fr_t g = z;
        for (unsigned i = 0; i + k + 1 < v; i++)
            fr_sqr(&g, &g);
        fr_sqr(&z, &g);
        fr_mul(&b, &b, &z);
        fr_mul(&x, &x, &g);
        v = k;
    }
    *ret = x;
    return true;
}
