/*
 * G2: the order-r subgroup of the sextic twist E'(Fp2): y^2 = x^3 + 4(u + 1).
 *
 * Forms:
 *   g2_affine_t  (x, y); the point at infinity is (0, 0), which is not on
 *                the curve. 192 bytes: the layout of MSM bases, host and device.
 *   g2_jac_t     Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3; infinity Z = 0.
 *   g2_xyzz_t    (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2;
 *                infinity ZZ = 0. Cheapest mixed addition, used for
 *                Pippenger buckets.
 * Scalars are canonical little-endian 64-bit limbs (not Montgomery) unless
 * the function takes an fr_t. Output argument first; outputs may alias
 * inputs unless a function says otherwise. Inputs are public, so the code
 * is not constant-time.
 */
#ifndef ZKB_G2_H
#define ZKB_G2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/field/fp2.h"
#include "arith/field/fr.h"

typedef struct {
    fp2_t x, y;
} g2_affine_t;

typedef struct {
    fp2_t x, y, z;
} g2_jac_t;

typedef struct {
    fp2_t x, y, zz, zzz;
} g2_xyzz_t;

/* The standard generator (zcash / IETF draft). */
extern const g2_affine_t G2_GENERATOR;
extern const g2_affine_t G2_INFINITY;

bool g2_affine_is_infinity(const g2_affine_t *p);
/* On the curve (infinity counts as on the curve). */
bool g2_affine_is_on_curve(const g2_affine_t *p);
/* In the order-r subgroup (infinity is). Assumes p is on the curve. */
bool g2_affine_in_subgroup(const g2_affine_t *p);
bool g2_affine_eq(const g2_affine_t *a, const g2_affine_t *b);
void g2_affine_neg(g2_affine_t *ret, const g2_affine_t *p);
/* The point with abscissa x whose y has the zcash sign y_largest (see
 * fp2_is_lexicographically_largest): false (ret untouched) when x^3 + b is
 * not a square, i.e. no point has this x. */
bool g2_affine_from_x(g2_affine_t *ret, const fp2_t *x, bool y_largest);

void g2_jac_from_affine(g2_jac_t *ret, const g2_affine_t *p);
void g2_jac_to_affine(g2_affine_t *ret, const g2_jac_t *p);
bool g2_jac_is_infinity(const g2_jac_t *p);
bool g2_jac_is_on_curve(const g2_jac_t *p);
/* Equality as points (different Z allowed). */
bool g2_jac_eq(const g2_jac_t *a, const g2_jac_t *b);
void g2_jac_neg(g2_jac_t *ret, const g2_jac_t *p);
void g2_jac_dbl(g2_jac_t *ret, const g2_jac_t *p);
/* Complete for every input pair (equal points, inverses, infinity). */
void g2_jac_add(g2_jac_t *ret, const g2_jac_t *a, const g2_jac_t *b);
void g2_jac_add_mixed(g2_jac_t *ret, const g2_jac_t *a, const g2_affine_t *b);
/* [k]p, k given as n canonical 64-bit limbs, little-endian. */
void g2_jac_mul(g2_jac_t *ret, const g2_jac_t *p, const uint64_t *k, size_t n);
void g2_jac_mul_fr(g2_jac_t *ret, const g2_jac_t *p, const fr_t *k);

/* psi = untwist o Frobenius o twist: an endomorphism of E'(Fp2) acting on
 * G2 as [p] = [x] (x the BLS parameter). */
void g2_jac_psi(g2_jac_t *ret, const g2_jac_t *p);
/* For p in G2, by psi (the MSM's scalar split): [|x|]p = -psi(p), two Fp2
 * multiplications, and [x^2]p = psi^2(p) = (c x, -y) with c in Fp, two Fp
 * multiplications. Infinity stays (0, 0). */
void g2_affine_mul_x_abs(g2_affine_t *ret, const g2_affine_t *p);
void g2_affine_mul_x2(g2_affine_t *ret, const g2_affine_t *p);
/* In the order-r subgroup; as g2_affine_in_subgroup. */
bool g2_jac_in_subgroup(const g2_jac_t *p);
/* [h_eff]p: maps any point of E'(Fp2) into G2 (the hash-to-curve effective
 * cofactor, computed with psi). */
void g2_jac_clear_cofactor(g2_jac_t *ret, const g2_jac_t *p);

/* Jacobian to affine for n points with one field inversion; infinity
 * gives (0, 0). Returns 0, or -ENOMEM (out untouched) when scratch memory
 * could not be had (the current code keeps its scratch in out and never
 * fails). out and in must not overlap. */
int g2_batch_to_affine(g2_affine_t *out, const g2_jac_t *in, size_t n);

void g2_xyzz_from_affine(g2_xyzz_t *ret, const g2_affine_t *p);
void g2_xyzz_to_jac(g2_jac_t *ret, const g2_xyzz_t *p);
void g2_xyzz_to_affine(g2_affine_t *ret, const g2_xyzz_t *p);
bool g2_xyzz_is_infinity(const g2_xyzz_t *p);
void g2_xyzz_dbl(g2_xyzz_t *ret, const g2_xyzz_t *p);
void g2_xyzz_add(g2_xyzz_t *ret, const g2_xyzz_t *a, const g2_xyzz_t *b);
void g2_xyzz_add_mixed(g2_xyzz_t *ret, const g2_xyzz_t *a, const g2_affine_t *b);

#endif
