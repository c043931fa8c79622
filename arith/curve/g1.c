/*
 * G1 on E(Fp): y^2 = x^3 + 4. The formulas shared with G2 come from
 * curve_template.h; this file holds the constants and what only G1 has:
 * the endomorphism sigma and the subgroup test built on it.
 */
#include "arith/curve/g1.h"

#include "arith/field/bls12_381.h"

#define CURVE g1
#define FE_T fp_t
#define FE(op) fp_##op
#define FE_ONE FP_ONE
#define FE_ONE_INIT {{BLS12_381_P_R(BLS12_381_U64)}}
#define FE_ZERO_INIT {{0}}
/* b = 4: two doublings are cheaper than a multiplication. */
#define FE_MUL_B(r, a)                                                        \
    do {                                                                      \
        fp_dbl((r), (a));                                                     \
        fp_dbl((r), (r));                                                     \
    } while (0)
#include "arith/curve/curve_template.h"

/* Montgomery form of the generator in the zcash / IETF specification:
 * x = 0x17f1d3a7...22c6bb, y = 0x08b3f481...c5e7e1 (checked against the
 * published hex by tests/curve/test_g1.c). */
const g1_affine_t G1_GENERATOR = {
    {{0x5cb38790fd530c16ull, 0x7817fc679976fff5ull, 0x154f95c7143ba1c1ull,
      0xf0ae6acdf3d0e747ull, 0xedce6ecc21dbf440ull, 0x120177419e0bfb75ull}},
    {{0xbaac93d50ce72271ull, 0x8c22631a7918fd8eull, 0xdd595f13570725ceull,
      0x51ac582950405194ull, 0x0e1c8c3fad0059c0ull, 0x0bbc3efc5008a26aull}},
};
const g1_affine_t G1_INFINITY = {{{0}}, {{0}}};

/* beta: the primitive cube root of unity in Fp for which sigma(x, y) =
 * (beta x, y) acts on G1 as multiplication by -x^2 (the other root gives
 * x^2 - 1). Canonical value 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f8
 * 9688de17d813620a00022e01fffffffefffe; Montgomery form below. */
static const fp_t G1_BETA = {{
    0x30f1361b798a64e8ull, 0xf3b8ddab7ece5a2aull, 0x16a8ca3ac61577f7ull,
    0xc26a2ff874fd029bull, 0x3636b76660701c6eull, 0x051ba4ab241b6160ull,
}};

void g1_jac_sigma(g1_jac_t *ret, const g1_jac_t *p)
{
    /* x = X / Z^2, so scaling X scales x. */
    fp_mul(&ret->x, &p->x, &G1_BETA);
    ret->y = p->y;
    ret->z = p->z;
}

void g1_affine_mul_x2(g1_affine_t *ret, const g1_affine_t *p)
{
    fp_mul(&ret->x, &p->x, &G1_BETA);
    fp_neg(&ret->y, &p->y);
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (ePrint 2021/1130): P is in G1 iff
 * sigma(P) = [-x^2]P. Why it suffices: if sigma acts as lambda = -x^2 on
 * the component of P outside G1, then sigma^2 + sigma + 1 = 0 gives
 * [lambda^2 + lambda + 1] = [x^4 - x^2 + 1] = [r] = O on it, and that
 * component has order prime to r, so it is O. Cost: two 64-bit scalar
 * multiplications instead of one 255-bit one. */
bool g1_jac_in_subgroup(const g1_jac_t *p)
{
    if (g1_jac_is_infinity(p))
        return true;
    g1_jac_t x2p, s;
    g1_jac_mul_x_abs(&x2p, p);
    g1_jac_mul_x_abs(&x2p, &x2p);
    g1_jac_neg(&x2p, &x2p);
    g1_jac_sigma(&s, p);
    return g1_jac_eq(&s, &x2p);
}

bool g1_affine_in_subgroup(const g1_affine_t *p)
{
    g1_jac_t j;
    g1_jac_from_affine(&j, p);
    return g1_jac_in_subgroup(&j);
}

/* The effective cofactor 1 - x = 1 + |x| of the hash-to-curve draft
 * (RFC 9380, section 8.8.1): it maps E(Fp) into G1. */
void g1_jac_clear_cofactor(g1_jac_t *ret, const g1_jac_t *p)
{
    g1_jac_t t;
    g1_jac_mul_x_abs(&t, p);
    g1_jac_add(ret, &t, p);
}
