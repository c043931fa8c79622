/*
 * G1: the order-r subgroup of E(Fp): y^2 = x^3 + 4.
 *
 * Forms:
 *   g1_affine_t  (x, y); the point at infinity is (0, 0), which is not on
 *                the curve. 96 bytes: the layout of MSM bases, host and device.
 *   g1_jac_t     Jacobian (X, Y, Z): x = X/Z^2, y = Y/Z^3; infinity Z = 0.
 *   g1_xyzz_t    (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2;
 *                infinity ZZ = 0. Cheapest mixed addition, used for
 *                Pippenger buckets.
 * Scalars are canonical little-endian 64-bit limbs (not Montgomery) unless
 * the function takes an fr_t. Output argument first; outputs may alias
 * inputs unless a function says otherwise. Inputs are public, so the code
 * is not constant-time.
 */
#ifndef ZKB_G1_H
#define ZKB_G1_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/field/fp.h"
#include "arith/field/fr.h"

typedef struct {
    fp_t x, y;
} g1_affine_t;

typedef struct {
    fp_t x, y, z;
} g1_jac_t;

typedef struct {
    fp_t x, y, zz, zzz;
} g1_xyzz_t;

/* The standard generator (zcash / IETF draft). */
extern const g1_affine_t G1_GENERATOR;
extern const g1_affine_t G1_INFINITY;

bool g1_affine_is_infinity(const g1_affine_t *p);
/* On the curve (infinity counts as on the curve). */
bool g1_affine_is_on_curve(const g1_affine_t *p);
/* In the order-r subgroup (infinity is). Assumes p is on the curve. */
bool g1_affine_in_subgroup(const g1_affine_t *p);
bool g1_affine_eq(const g1_affine_t *a, const g1_affine_t *b);
void g1_affine_neg(g1_affine_t *ret, const g1_affine_t *p);
/* The point with abscissa x whose y has the zcash sign y_largest (see
 * fp_is_lexicographically_largest): false (ret untouched) when x^3 + b is
 * not a square, i.e. no point has this x. */
bool g1_affine_from_x(g1_affine_t *ret, const fp_t *x, bool y_largest);

void g1_jac_from_affine(g1_jac_t *ret, const g1_affine_t *p);
void g1_jac_to_affine(g1_affine_t *ret, const g1_jac_t *p);
bool g1_jac_is_infinity(const g1_jac_t *p);
bool g1_jac_is_on_curve(const g1_jac_t *p);
/* Equality as points (different Z allowed). */
bool g1_jac_eq(const g1_jac_t *a, const g1_jac_t *b);
void g1_jac_neg(g1_jac_t *ret, const g1_jac_t *p);
void g1_jac_dbl(g1_jac_t *ret, const g1_jac_t *p);
/* Complete for every input pair (equal points, inverses, infinity). */
void g1_jac_add(g1_jac_t *ret, const g1_jac_t *a, const g1_jac_t *b);
void g1_jac_add_mixed(g1_jac_t *ret, const g1_jac_t *a, const g1_affine_t *b);
/* [k]p, k given as n canonical 64-bit limbs, little-endian. */
void g1_jac_mul(g1_jac_t *ret, const g1_jac_t *p, const uint64_t *k, size_t n);
void g1_jac_mul_fr(g1_jac_t *ret, const g1_jac_t *p, const fr_t *k);

/* sigma(x, y) = (beta x, y), beta a cube root of unity in Fp: an
 * endomorphism acting on G1 as [-x^2] (x the BLS parameter). */
void g1_jac_sigma(g1_jac_t *ret, const g1_jac_t *p);
/* [x^2]p for p in G1, by the endomorphism: -sigma(p) = (beta x, -y), one
 * field multiplication (the MSM's scalar split); infinity stays (0, 0). */
void g1_affine_mul_x2(g1_affine_t *ret, const g1_affine_t *p);
/* In the order-r subgroup; as g1_affine_in_subgroup. */
bool g1_jac_in_subgroup(const g1_jac_t *p);
/* [1 - x]p: maps any point of E(Fp) into G1 (the hash-to-curve effective
 * cofactor). */
void g1_jac_clear_cofactor(g1_jac_t *ret, const g1_jac_t *p);

/* Jacobian to affine for n points with one field inversion; infinity
 * gives (0, 0). Returns 0, or -ENOMEM (out untouched) when scratch memory
 * could not be had (the current code keeps its scratch in out and never
 * fails). out and in must not overlap. */
int g1_batch_to_affine(g1_affine_t *out, const g1_jac_t *in, size_t n);

void g1_xyzz_from_affine(g1_xyzz_t *ret, const g1_affine_t *p);
void g1_xyzz_to_jac(g1_jac_t *ret, const g1_xyzz_t *p);
void g1_xyzz_to_affine(g1_affine_t *ret, const g1_xyzz_t *p);
bool g1_xyzz_is_infinity(const g1_xyzz_t *p);
void g1_xyzz_dbl(g1_xyzz_t *ret, const g1_xyzz_t *p);
void g1_xyzz_add(g1_xyzz_t *ret, const g1_xyzz_t *a, const g1_xyzz_t *b);
void g1_xyzz_add_mixed(g1_xyzz_t *ret, const g1_xyzz_t *a, const g1_affine_t *b);

#endif
