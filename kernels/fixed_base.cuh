/*
 * One fixed-base multiplication with prover/setup.c's window table, on the
 * device or (for tests/gpu/test_fixed_base_host.cu) on the host: the scalar
 * out of Montgomery form, then for each c-bit window w with digit d != 0
 * the table point d 2^(w c) G added (XYZZ mixed addition), the sum as a
 * Jacobian point (infinity as (1, 1, 0)). Private to kernels/.
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

#endif
