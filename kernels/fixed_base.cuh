/*
 * One fixed-base multiplication with prover/setup.c's window table, on the
 * device or (for tests/gpu/test_fixed_base_host.cu) on the host: the scalar
 * out of Montgomery form, then for each c-bit window w with digit d != 0
 * the table point d 2^(w c) G added (XYZZ mixed addition), the sum as a
 * Jacobian point (infinity as (1, 1, 0)); and the conversion of a group of
 * such points to affine with one inversion, as the host's batch_to_affine
 * does it. Private to kernels/.
 */
#ifndef ZKB_KERNELS_FIXED_BASE_CUH
#define ZKB_KERNELS_FIXED_BASE_CUH

#include <stdint.h>

#include "kernels/curve.cuh"

/* The c-bit digit of window w of the plain scalar s (8 little-endian 32-bit
 * limbs), c <= 16: the CPU's fb_mul reads the same bits from 64-bit limbs. */
FIELD_INLINE uint32_t fixed_base_digit(const uint32_t *s, unsigned w, unsigned c)
{
    unsigned bit = w * c, limb = bit / 32, shift = bit % 32;
    uint64_t v = limb < 8 ? s[limb] : 0;
    if (limb + 1 < 8)
        v |= (uint64_t)s[limb + 1] << 32;
    return (uint32_t)(v >> shift) & ((1u << c) - 1);
}

template <class F>
FIELD_INLINE void fixed_base_one(dev_jac_t<F> &out, const dev_affine_t<F> *table, unsigned windows, unsigned c,
                                 const dev_fr_t &scalar)
{
    const size_t row = ((size_t)1 << c) - 1;
    dev_fr_t s, one_plain = {};
    one_plain.l[0] = 1;
    field_mul(s, scalar, one_plain); /* out of Montgomery form */
    dev_xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (unsigned w = 0; w < windows; w++) {
        uint32_t d = fixed_base_digit(s.l, w, c);
        if (d)
            xyzz_add_mixed(acc, acc, table[(size_t)w * row + (d - 1)]);
    }
    xyzz_to_jac(out, acc);
}

/* Exponent loops run a bit at a time; unrolling them would only grow the
 * code (the host compiler decides for itself, as with FIELD_UNROLL). */
#ifdef __CUDA_ARCH__
#define FIXED_BASE_NO_UNROLL _Pragma("unroll 1")
#else
#define FIXED_BASE_NO_UNROLL
#endif

/* ret = 1/a by Fermat, a^(m - 2) (0 for a = 0), Montgomery form in and out:
 * about 380 squarings and 190 products, paid once per group of points. */
template <class P>
FIELD_INLINE void fixed_base_inv(field_t<P> &ret, const field_t<P> &a)
{
    field_t<P> r;
    field_one(r);
FIELD_UNROLL
    for (int li = P::N - 1; li >= 0; li--) {
        const uint32_t e = P::mod(li) - (li == 0 ? 2u : 0u); /* m is odd and > 2: no borrow */
FIXED_BASE_NO_UNROLL
        for (int b = 31; b >= 0; b--) {
            field_sqr(r, r);
            if ((e >> b) & 1)
                field_mul(r, r, a);
        }
    }
    ret = r;
}

/* In Fp2 = Fp[u]/(u^2 + 1): 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2). */
FIELD_INLINE void fixed_base_inv(dev_fp2_t &ret, const dev_fp2_t &a)
{
    dev_fp_t t0, t1;
    field_sqr(t0, a.c0);
    field_sqr(t1, a.c1);
    field_add(t0, t0, t1);
    fixed_base_inv(t0, t0);
    field_mul(ret.c0, a.c0, t0);
    field_mul(t1, a.c1, t0);
    field_neg(ret.c1, t1);
}

/* out[i] = in[i] as an affine point (x / z^2, y / z^3; z = 0 gives the
 * affine infinity (0, 0)) for i < n, with one inversion (Montgomery's
 * trick): out[i].x holds the prefix products between the two passes, so
 * no scratch is needed. The results are canonical, so they equal the
 * host's batch_to_affine byte for byte. */
template <class F>
FIELD_INLINE void fixed_base_to_affine(dev_affine_t<F> *out, const dev_jac_t<F> *in, size_t n)
{
    F acc;
    field_set_one(acc);
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!field_is_zero(in[i].z))
            field_mul(acc, acc, in[i].z);
    }
    fixed_base_inv(acc, acc);
    for (size_t i = n; i-- > 0;) {
        if (field_is_zero(in[i].z)) {
            field_set_zero(out[i].x);
            field_set_zero(out[i].y);
            continue;
        }
        F zinv, zinv2;
        field_mul(zinv, out[i].x, acc);
        field_mul(acc, acc, in[i].z);
        field_sqr(zinv2, zinv);
        field_mul(out[i].x, in[i].x, zinv2);
        field_mul(zinv2, zinv2, zinv);
        field_mul(out[i].y, in[i].y, zinv2);
    }
}

#endif
