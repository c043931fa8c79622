/*
 * G2 on the sextic twist E'(Fp2): y^2 = x^3 + 4(u + 1). The formulas shared
 * with G1 come from curve_template.h; this file holds the constants and what
 * only G2 has: the untwist-Frobenius-twist endomorphism psi, the subgroup
 * test and cofactor clearing built on it.
 */
#include "arith/curve/g2.h"

#include "arith/field/bls12_381.h"

#define CURVE g2
#define FE_T fp2_t
#define FE(op) fp2_##op
#define FE_ONE FP2_ONE
#define FE_ONE_INIT {{{BLS12_381_P_R(BLS12_381_U64)}}, {{0}}}
#define FE_ZERO_INIT {{{0}}, {{0}}}
/* b = 4(u + 1): the non-residue product and two doublings, no
 * multiplication. */
#define FE_MUL_B(r, a)                                                        \
    do {                                                                      \
        fp2_mul_by_nonresidue((r), (a));                                      \
        fp2_dbl((r), (r));                                                    \
        fp2_dbl((r), (r));                                                    \
    } while (0)
#include "arith/curve/curve_template.h"

/* Montgomery form of the generator in the zcash / IETF specification
 * (x = x0 + x1 u, y = y0 + y1 u; checked against the published hex by
 * tests/curve/test_g2.c). */
const g2_affine_t G2_GENERATOR = {
    {{{0xf5f28fa202940a10ull, 0xb3f5fb2687b4961aull, 0xa1a893b53e2ae580ull,
       0x9894999d1a3caee9ull, 0x6f67b7631863366bull, 0x058191924350bcd7ull}},
     {{0xa5a9c0759e23f606ull, 0xaaa0c59dbccd60c3ull, 0x3bb17e18e2867806ull,
       0x1b1ab6cc8541b367ull, 0xc2b6ed0ef2158547ull, 0x11922a097360edf3ull}}},
    {{{0x4c730af860494c4aull, 0x597cfa1f5e369c5aull, 0xe7e6856caa0a635aull,
       0xbbefb5e96e0d495full, 0x07d3a975f0ef25a2ull, 0x0083fd8e7e80dae5ull}},
     {{0xadc0fc92df64b05dull, 0x18aa270a2b1461dcull, 0x86adac6a3be4eba0ull,
       0x79495c4ec93da33aull, 0xe7175850a43ccaedull, 0x0b2bc2a163de1bf2ull}}},
};
const g2_affine_t G2_INFINITY = {{{{0}}, {{0}}}, {{{0}}, {{0}}}};

/* psi = untwist, Frobenius, twist. With the twist (x, y) -> (x w^2, y w^3)
 * and w^6 = u + 1, it is psi(x, y) = (conj(x) PSI_CX, conj(y) PSI_CY) with
 * PSI_CX = 1 / (u + 1)^((p - 1) / 3) and PSI_CY = 1 / (u + 1)^((p - 1) / 2)
 * (Galbraith, Scott, "Exponentiation in pairing-friendly groups using
 * homomorphisms", 2008). Montgomery forms; tests check psi(P) = [p]P on G2. */
static const fp2_t PSI_CX = {
    {{0}},
    {{0x890dc9e4867545c3ull, 0x2af322533285a5d5ull, 0x50880866309b7e2cull,
      0xa20d1b8c7e881024ull, 0x14e4f04fe2db9068ull, 0x14e56d3f1564853aull}},
};
static const fp2_t PSI_CY = {
    {{0x3e2f585da55c9ad1ull, 0x4294213d86c18183ull, 0x382844c88b623732ull,
      0x92ad2afd19103e18ull, 0x1d794e4fac7cf0b9ull, 0x0bd592fc7d825ec8ull}},
    {{0x7bcfa7a25aa30fdaull, 0xdc17dec12a927e7cull, 0x2f088dd86b4ebef1ull,
      0xd1ca2087da74d4a7ull, 0x2da2596696cebc1dull, 0x0e2b7eedbbfd87d2ull}},
};

void g2_jac_psi(g2_jac_t *ret, const g2_jac_t *p)
{
    /* conj is a field automorphism, so it commutes with x = X / Z^2:
     * conjugate all three and scale X and Y. */
    fp2_conj(&ret->x, &p->x);
    fp2_mul(&ret->x, &ret->x, &PSI_CX);
    fp2_conj(&ret->y, &p->y);
    fp2_mul(&ret->y, &ret->y, &PSI_CY);
    fp2_conj(&ret->z, &p->z);
}

void g2_affine_mul_x_abs(g2_affine_t *ret, const g2_affine_t *p)
{
    fp2_t t;
    fp2_conj(&t, &p->x);
    fp2_mul(&ret->x, &t, &PSI_CX);
    fp2_conj(&t, &p->y);
    fp2_mul(&t, &t, &PSI_CY);
    fp2_neg(&ret->y, &t);
}

/* psi^2(x, y) = (x N(PSI_CX), y N(PSI_CY)) (conj o conj = id): N(PSI_CY)
 * = 1 / 2^((p - 1) / 2) = -1, 2 being no square mod p (p = 3 mod 8), and
 * N(PSI_CX) = 0x1a0111ea...8bfd00000000aaac, a cube root of unity in Fp
 * (the square of G1's beta); Montgomery form below. */
static const fp_t PSI2_CX = {{
    0xcd03c9e48671f071ull, 0x5dab22461fcda5d2ull, 0x587042afd3851b95ull,
    0x8eb60ebe01bacb9eull, 0x03f97d6e83d050d2ull, 0x18f0206554638741ull,
}};

void g2_affine_mul_x2(g2_affine_t *ret, const g2_affine_t *p)
{
    fp2_mul_fp(&ret->x, &p->x, &PSI2_CX);
    fp2_neg(&ret->y, &p->y);
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves" (ePrint 2021/1130): on BLS12 curves
 * Q is in G2 iff psi(Q) = [x]Q. One 64-bit multiplication instead of a
 * 255-bit one. */
bool g2_jac_in_subgroup(const g2_jac_t *p)
{
    if (g2_jac_is_infinity(p))
        return true;
    g2_jac_t xp, s;
    g2_jac_mul_x_abs(&xp, p);
#if BLS12_381_X_IS_NEGATIVE
    g2_jac_neg(&xp, &xp);
#endif
    g2_jac_psi(&s, p);
    return g2_jac_eq(&s, &xp);
}

bool g2_affine_in_subgroup(const g2_affine_t *p)
{
    g2_jac_t j;
    g2_jac_from_affine(&j, p);
    return g2_jac_in_subgroup(&j);
}

/* Budroni, Pintore, "Efficient hash maps to G2 on BLS curves" (ePrint
 * 2017/419): [h_eff]P = [x^2 - x - 1]P + [x - 1]psi(P) + psi^2([2]P), the
 * map of the hash-to-curve draft, section 8.8.2. Grouped as
 * [x]([x]P + psi(P)) - [x]P - P - psi(P) + psi^2([2]P). */
void g2_jac_clear_cofactor(g2_jac_t *ret, const g2_jac_t *p)
{
    g2_jac_t xp, ps, t, acc;
    g2_jac_mul_x_abs(&xp, p);
#if BLS12_381_X_IS_NEGATIVE
    g2_jac_neg(&xp, &xp);
#endif
    g2_jac_psi(&ps, p);
    g2_jac_add(&t, &xp, &ps);
    g2_jac_mul_x_abs(&acc, &t);
#if BLS12_381_X_IS_NEGATIVE
    g2_jac_neg(&acc, &acc);
#endif
    g2_jac_neg(&xp, &xp);
    g2_jac_add(&acc, &acc, &xp);
    g2_jac_neg(&t, p);
    g2_jac_add(&acc, &acc, &t);
    g2_jac_neg(&t, &ps);
    g2_jac_add(&acc, &acc, &t);
    g2_jac_dbl(&t, p);
    g2_jac_psi(&t, &t);
    g2_jac_psi(&t, &t);
    g2_jac_add(ret, &acc, &t);
}
