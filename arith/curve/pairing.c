/*
 * The optimal ate pairing on BLS12-381 (Vercauteren, "Optimal pairings",
 * 2010): f = f_{|x|,Q}(P) by a Miller loop over the bits of |x|,
 * conjugated because x < 0, then raised to (p^12 - 1)/r.
 *
 * Miller loop: Q stays on the twist E'(Fp2): y^2 = x^3 + 4 xi in homogeneous
 * projective coordinates (X : Y : Z); the doubling and mixed addition steps
 * with their lines are those of Costello, Lange, Naehrig, "Faster pairing
 * computations on curves with high-degree twists" (PKC 2010), in the form
 * of Aranha, Karabina, Longa, Gebotys, Lopez, "Faster explicit formulas for
 * computing pairings over ordinary curves" (Eurocrypt 2011).
 * BLS12-381's twist is an M-type one: psi(x', y') = (x' / w^2, y' / w^3),
 * so a line, scaled by w^3 and an Fp2 factor (both are killed by the final
 * exponentiation), is l0 + (l1 xP) w^2 + (l4 yP) w^3: the sparse shape of
 * fp12_mul_by_014.
 *
 * Final exponentiation: the easy part f^((p^6 - 1)(p^2 + 1)) by a
 * conjugation, an inversion and a Frobenius map; the hard part by the
 * decomposition of Hayashida, Hayasaka, Teruya, "Efficient final
 * exponentiation via cyclotomic structure for pairings over families of
 * elliptic curves" (eprint 2020/875):
 *   3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3.
 * The result is thus f^(3 (p^12 - 1)/r), the cube of the textbook value:
 * still a non-degenerate bilinear pairing (3 does not divide r), and the
 * value blst and zkcrypto's bls12_381 compute, so GT elements agree with
 * theirs (tests/pairing checks e(G1, G2) against their published value).
 */
#include "arith/curve/pairing.h"

#include "arith/field/bls12_381.h"

/* A point of the twist in homogeneous projective coordinates. */
typedef struct {
    fp2_t x, y, z;
} twist_t;

/* Pairs processed together by the unprepared loop: their points live on
 * the stack (no VLA, no allocation); larger n runs in several groups. */
#define PAIRING_GROUP 8

static bool g1_is_inf(const g1_affine_t *p)
{
    return fp_is_zero(&p->x) && fp_is_zero(&p->y);
}

static bool g2_is_inf(const g2_affine_t *q)
{
    return fp2_is_zero(&q->x) && fp2_is_zero(&q->y);
}

/* l = the tangent at T (coefficients l0, l1, l4, see the top), T = 2T.
 * Aranha et al. (2011), with every output scaled by 4 (the same
 * projective point) so that no halving is needed:
 *   B = Y^2, C = Z^2, E = 3 b' C, F = 3 E, H = (Y + Z)^2 - B - C = 2 Y Z,
 *   X3 = 2 X Y (B - F), Y3 = (B + F)^2 - 12 E^2, Z3 = 4 B H,
 *   l0 = E - B, l1 = 3 X^2, l4 = -H. */
static void line_dbl(fp2_t l[3], twist_t *t)
{
    fp2_t b, c, e, f, h, xy, x2, s;
    fp2_sqr(&b, &t->y);
    fp2_sqr(&c, &t->z);
    /* b' = 4 xi: E = 12 xi C */
    fp2_mul_by_nonresidue(&e, &c);
    fp2_dbl(&e, &e);
    fp2_dbl(&e, &e);
    fp2_dbl(&s, &e);
    fp2_add(&e, &e, &s);
    fp2_dbl(&f, &e);
    fp2_add(&f, &f, &e);
    fp2_add(&h, &t->y, &t->z);
    fp2_sqr(&h, &h);
    fp2_sub(&h, &h, &b);
    fp2_sub(&h, &h, &c);
    fp2_mul(&xy, &t->x, &t->y);
    fp2_sqr(&x2, &t->x);

    fp2_sub(&l[0], &e, &b);
    fp2_dbl(&l[1], &x2);
    fp2_add(&l[1], &l[1], &x2);
    fp2_neg(&l[2], &h);

    fp2_sub(&s, &b, &f);
    fp2_mul(&t->x, &xy, &s);
    fp2_dbl(&t->x, &t->x);
    fp2_add(&s, &b, &f);
    fp2_sqr(&s, &s);
    fp2_sqr(&e, &e);
    fp2_mul_small(&e, &e, 12);
    fp2_sub(&t->y, &s, &e);
    fp2_mul(&t->z, &b, &h);
    fp2_dbl(&t->z, &t->z);
    fp2_dbl(&t->z, &t->z);
}

/* l = the line through T and Q, T = T + Q (Q affine, T != +-Q).
 * Aranha et al. (2011):
 *   theta = Y - yQ Z, lambda = X - xQ Z, C = theta^2, D = lambda^2,
 *   E = lambda D, F = Z C, G = X D, H = E + F - 2 G,
 *   X3 = lambda H, Y3 = theta (G - H) - Y E, Z3 = Z E,
 *   l0 = theta xQ - lambda yQ, l1 = -theta, l4 = lambda. */
static void line_add(fp2_t l[3], twist_t *t, const g2_affine_t *q)
{
    fp2_t theta, lambda, c, d, e, f, g, h, s;
    fp2_mul(&theta, &q->y, &t->z);
    fp2_sub(&theta, &t->y, &theta);
    fp2_mul(&lambda, &q->x, &t->z);
    fp2_sub(&lambda, &t->x, &lambda);
    fp2_sqr(&c, &theta);
    fp2_sqr(&d, &lambda);
    fp2_mul(&e, &lambda, &d);
    fp2_mul(&f, &t->z, &c);
    fp2_mul(&g, &t->x, &d);
    fp2_add(&h, &e, &f);
    fp2_sub(&h, &h, &g);
    fp2_sub(&h, &h, &g);

    fp2_mul(&t->x, &lambda, &h);
    fp2_sub(&s, &g, &h);
    fp2_mul(&s, &theta, &s);
    fp2_mul(&t->y, &t->y, &e);
    fp2_sub(&t->y, &s, &t->y);
    fp2_mul(&t->z, &t->z, &e);

    fp2_mul(&l[0], &theta, &q->x);
    fp2_mul(&s, &lambda, &q->y);
    fp2_sub(&l[0], &l[0], &s);
    fp2_neg(&l[1], &theta);
    l[2] = lambda;
}

/* f = f * l(P). */
static void line_eval(fp12_t *f, const fp2_t l[3], const g1_affine_t *p)
{
    fp2_t l1, l4;
    fp2_mul_fp(&l1, &l[1], &p->x);
    fp2_mul_fp(&l4, &l[2], &p->y);
    fp12_mul_by_014(f, f, &l[0], &l1, &l4);
}

static void twist_from_affine(twist_t *t, const g2_affine_t *q)
{
    t->x = q->x;
    t->y = q->y;
    t->z = FP2_ONE;
}

/* The bits of |x| below the top one, from bit 62 down. */
#define X_TOP_BIT 63

static bool x_bit(int i)
{
    return (BLS12_381_X_ABS >> i) & 1;
}

/* f *= prod of the Miller loops of up to PAIRING_GROUP pairs, all finite. */
static void miller_group(fp12_t *f, const g1_affine_t *const *p,
                         const g2_affine_t *const *q, size_t n)
{
    twist_t t[PAIRING_GROUP];
    fp2_t l[3];
    fp12_t acc = FP12_ONE;
    for (size_t k = 0; k < n; k++)
        twist_from_affine(&t[k], q[k]);
    for (int i = X_TOP_BIT - 1; i >= 0; i--) {
        if (i != X_TOP_BIT - 1) /* acc is one before the first lines */
            fp12_sqr(&acc, &acc);
        for (size_t k = 0; k < n; k++) {
            line_dbl(l, &t[k]);
            line_eval(&acc, l, p[k]);
        }
        if (x_bit(i)) {
            for (size_t k = 0; k < n; k++) {
                line_add(l, &t[k], q[k]);
                line_eval(&acc, l, p[k]);
            }
        }
    }
    fp12_mul(f, f, &acc);
}

void pairing_miller_loop(fp12_t *ret, const g1_affine_t *p,
                         const g2_affine_t *q, size_t n)
{
    const g1_affine_t *gp[PAIRING_GROUP];
    const g2_affine_t *gq[PAIRING_GROUP];
    fp12_t f = FP12_ONE;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (g1_is_inf(&p[i]) || g2_is_inf(&q[i]))
            continue;
        gp[m] = &p[i];
        gq[m] = &q[i];
        if (++m == PAIRING_GROUP) {
            miller_group(&f, gp, gq, m);
            m = 0;
        }
    }
    if (m > 0)
        miller_group(&f, gp, gq, m);
    /* x < 0: f_{x,Q} = 1 / f_{|x|,Q} up to factors the final
     * exponentiation kills, and 1/f is conj(f) there as well. */
    fp12_conj(ret, &f);
}

void pairing_g2_prepare(g2_prepared_t *ret, const g2_affine_t *q)
{
    ret->infinity = g2_is_inf(q);
    if (ret->infinity)
        return;
    twist_t t;
    twist_from_affine(&t, q);
    int j = 0;
    for (int i = X_TOP_BIT - 1; i >= 0; i--) {
        line_dbl(ret->coeff[j++], &t);
        if (x_bit(i))
            line_add(ret->coeff[j++], &t, q);
    }
}

void pairing_miller_loop_prepared(fp12_t *ret, const g1_affine_t *p,
                                  const g2_prepared_t *const *q, size_t n)
{
    fp12_t f = FP12_ONE;
    int j = 0;
    for (int i = X_TOP_BIT - 1; i >= 0; i--) {
        if (i != X_TOP_BIT - 1)
            fp12_sqr(&f, &f);
        int lines = x_bit(i) ? 2 : 1;
        for (size_t k = 0; k < n; k++) {
            if (q[k]->infinity || g1_is_inf(&p[k]))
                continue;
            for (int s = 0; s < lines; s++)
                line_eval(&f, q[k]->coeff[j + s], &p[k]);
        }
        j += lines;
    }
    fp12_conj(ret, &f);
}

/* f^x for f in the cyclotomic subgroup: x < 0, and there the inverse is
 * the conjugate. */
static void cyclotomic_exp_x(fp12_t *ret, const fp12_t *f)
{
    static const uint64_t x_abs = BLS12_381_X_ABS;
    fp12_cyclotomic_pow(ret, f, &x_abs, 1);
    fp12_conj(ret, ret);
}

void pairing_final_exp(fp12_t *ret, const fp12_t *f)
{
    /* Easy part: g = f^((p^6 - 1)(p^2 + 1)) lies in the cyclotomic
     * subgroup. f = 0 never comes out of a Miller loop; its inverse is
     * zero and the result zero, not one. */
    fp12_t g, t;
    fp12_inv(&t, f);
    fp12_conj(&g, f);
    fp12_mul(&g, &g, &t);
    fp12_frobenius_map(&t, &g, 2);
    fp12_mul(&g, &g, &t);

    /* Hard part, see the top. */
    fp12_t a, b, c;
    cyclotomic_exp_x(&a, &g);
    fp12_conj(&t, &g);
    fp12_mul(&a, &a, &t);              /* g^(x - 1) */
    cyclotomic_exp_x(&b, &a);
    fp12_conj(&t, &a);
    fp12_mul(&a, &b, &t);              /* g^((x - 1)^2) */
    cyclotomic_exp_x(&b, &a);
    fp12_frobenius_map(&t, &a, 1);
    fp12_mul(&b, &b, &t);              /* a^(x + p) */
    cyclotomic_exp_x(&c, &b);
    cyclotomic_exp_x(&c, &c);
    fp12_frobenius_map(&t, &b, 2);
    fp12_mul(&c, &c, &t);
    fp12_conj(&t, &b);
    fp12_mul(&c, &c, &t);              /* b^(x^2 + p^2 - 1) */
    fp12_cyclotomic_sqr(&t, &g);
    fp12_mul(&t, &t, &g);
    fp12_mul(ret, &c, &t);             /* ... g^3 */
}

void pairing_compute(fp12_t *ret, const g1_affine_t *p, const g2_affine_t *q)
{
    fp12_t f;
    pairing_miller_loop(&f, p, q, 1);
    pairing_final_exp(ret, &f);
}

bool pairing_check(const g1_affine_t *p, const g2_affine_t *q, size_t n)
{
    fp12_t f;
    pairing_miller_loop(&f, p, q, n);
    pairing_final_exp(&f, &f);
    return fp12_is_one(&f);
}

bool pairing_check_prepared(const g1_affine_t *p,
                            const g2_prepared_t *const *q, size_t n)
{
    fp12_t f;
    pairing_miller_loop_prepared(&f, p, q, n);
    pairing_final_exp(&f, &f);
    return fp12_is_one(&f);
}
