/*
 * Fp, the BLS12-381 base field: constants and the operations that only Fp
 * has (square root for p = 3 mod 4, the zcash sign, small multiples). The
 * shared Montgomery operations come from field_template.h.
 */
#include "fp.h"

#include "bls12_381.h"
#include "mont_asm.h"

const uint64_t FP_MODULUS[6] = {BLS12_381_P(BLS12_381_U64)};
const fp_t FP_ZERO = {{0}};
const fp_t FP_ONE = {{BLS12_381_P_R(BLS12_381_U64)}};

#define FIELD_T fp_t
#define FIELD_NAME fp
#define FIELD_N 6
#define FIELD_MOD FP_MODULUS
#define FIELD_INV BLS12_381_P_INV64
#define FIELD_R2 BLS12_381_P_R2(BLS12_381_U64)
#define FIELD_ONE FP_ONE
#if MONT_HAVE_X86_ASM
#define FIELD_ASM(op) mont_##op##_384_x86
#endif
#include "field_template.h"

void fp_mul_small(fp_t *ret, const fp_t *a, uint64_t small)
{
    /* Double and add: the constants used (2..12) take a few additions,
     * cheaper than a Montgomery multiplication. */
    fp_t acc = FP_ZERO, base = *a;
    while (small) {
        if (small & 1)
            fp_add(&acc, &acc, &base);
        small >>= 1;
        if (small)
            fp_dbl(&base, &base);
    }
    *ret = acc;
}

bool fp_sqrt(fp_t *ret, const fp_t *a)
{
    /* (p + 1) / 4 */
    static const uint64_t e[6] = {
        0xee7fbfffffffeaabull, 0x07aaffffac54ffffull, 0xd9cc34a83dac3d89ull,
        0xd91dd2e13ce144afull, 0x92c6e9ed90d2eb35ull, 0x0680447a8e5ff9a6ull,
    };
    fp_t root, check;
    fp_pow(&root, a, e, 6);
    fp_sqr(&check, &root);
    if (!fp_eq(&check, a))
        return false;
    *ret = root;
    return true;
}

bool fp_is_square(const fp_t *a)
{
    fp_t r;
    return fp_sqrt(&r, a);
}

bool fp_is_lexicographically_largest(const fp_t *a)
{
    /* (p - 1) / 2 */
    static const uint64_t half[6] = {
        0xdcff7fffffffd555ull, 0x0f55ffff58a9ffffull, 0xb39869507b587b12ull,
        0xb23ba5c279c2895full, 0x258dd3db21a5d66bull, 0x0d0088f51cbff34dull,
    };
    uint64_t v[6];
    fp_to_limbs(v, a);
    return !mont_geq(half, v, 6);
}
