/*
 * Fp2 on a pair of lanes: the even lane of a warp's pair holds c0 of an
 * element, the odd lane c1, and the two exchange halves by shuffles. The
 * G2 bucket accumulation runs on it (msm_kernels.cuh): on one thread, an
 * XYZZ accumulator and a point of Fp2 need more than the 255 registers a
 * thread has (ptxas spilled them, and G2 took 4.5x G1's time at 2^24 where
 * the arithmetic is 3x); split over two lanes, each holds what a G1 thread
 * holds. sppark runs its G2 the same way (a field "degree" of 2 lanes).
 *
 * A product is c0 = a0 b0 - a1 b1, c1 = a0 b1 + a1 b0: each lane computes
 * its half as one sum of two products with one Montgomery reduction
 * (field_mul_sum), a1 (-b1) standing for -a1 b1, so both lanes run the same
 * instructions on different operands (selects, not branches). A square
 * takes one product a lane: (a0 + a1)(a0 - a1) on the even lane, a1 2a0 on
 * the odd one.
 *
 * The lane formulas are plain functions of a lane's own and its partner's
 * values (fp2_pair_mul_lane, fp2_pair_sqr_lane), so they run on the host
 * in tests/gpu/test_gpu_field_host.cu; the operations on dev_fp2_pair_t,
 * which the curve templates call, exchange the halves on the device and
 * must be called by both lanes of a pair together, with pair-uniform
 * control flow (field_is_zero answers for the whole element, so the curve
 * formulas' branches are). They exist for device code only: the host pass
 * of nvcc compiles them, and they abort there. Private to kernels/.
 */
#ifndef ZKB_KERNELS_FP2_PAIR_CUH
#define ZKB_KERNELS_FP2_PAIR_CUH

#include <stdlib.h>

#include "kernels/curve.cuh"

/* This lane's half of an Fp2 element: c0 on even lanes, c1 on odd ones. */
struct __align__(16) dev_fp2_pair_t {
    dev_fp_t v;
};

/* The loads and stores below index a point's Fp words one after the other. */
static_assert(sizeof(dev_affine_t<dev_fp2_t>) == 4 * sizeof(dev_fp_t), "G2 affine layout");
static_assert(sizeof(dev_xyzz_t<dev_fp2_t>) == 8 * sizeof(dev_fp_t), "G2 XYZZ layout");

/* ---- the lane formulas (host and device) ------------------------------- */

template <class P>
FIELD_INLINE void field_select(field_t<P> &r, bool which, const field_t<P> &if_true, const field_t<P> &if_false)
{
FIELD_UNROLL
    for (int i = 0; i < P::N; i++)
        r.l[i] = which ? if_true.l[i] : if_false.l[i];
}

/* This lane's half of a b, from its halves (a, b) and its partner's (pa,
 * pb): odd lanes c1 = a1 b0 + a0 b1, even lanes c0 = a0 b0 + a1 (-b1). */
FIELD_INLINE void fp2_pair_mul_lane(dev_fp_t &r, bool odd, const dev_fp_t &a, const dev_fp_t &b,
                                    const dev_fp_t &pa, const dev_fp_t &pb)
{
    dev_fp_t y, w, npb;
    field_neg(npb, pb);
    field_select(y, odd, pb, b);
    field_select(w, odd, b, npb);
    field_mul_sum(r, a, y, pa, w);
}

/* This lane's half of a^2: even (a0 + a1)(a0 - a1), odd a1 (2 a0). */
FIELD_INLINE void fp2_pair_sqr_lane(dev_fp_t &r, bool odd, const dev_fp_t &a, const dev_fp_t &pa)
{
    dev_fp_t s, d, x, y;
    field_add(s, a, pa);
    field_sub(d, a, pa);
    field_dbl(y, pa);
    field_select(x, odd, a, s);
    field_select(y, odd, y, d);
    field_mul(r, x, y);
}

/* ---- the exchange (device) --------------------------------------------- */

FIELD_INLINE bool fp2_pair_odd(void)
{
#ifdef __CUDA_ARCH__
    return threadIdx.x & 1;
#else
    abort(); /* paired lanes exist on the device only */
#endif
}

/* The partner's words: a shuffle within the pair (both lanes call it). */
FIELD_INLINE uint32_t fp2_pair_swap_word(uint32_t x)
{
#ifdef __CUDA_ARCH__
    unsigned mask = 3u << (threadIdx.x & 30);
    return __shfl_xor_sync(mask, x, 1);
#else
    (void)x;
    abort();
#endif
}

FIELD_INLINE void fp2_pair_partner(dev_fp_t &r, const dev_fp_t &a)
{
FIELD_UNROLL
    for (int i = 0; i < 12; i++)
        r.l[i] = fp2_pair_swap_word(a.l[i]);
}

/* ---- the field interface the curve templates use ------------------------ */

FIELD_INLINE void field_add(dev_fp2_pair_t &r, const dev_fp2_pair_t &a, const dev_fp2_pair_t &b)
{
    field_add(r.v, a.v, b.v);
}

FIELD_INLINE void field_sub(dev_fp2_pair_t &r, const dev_fp2_pair_t &a, const dev_fp2_pair_t &b)
{
    field_sub(r.v, a.v, b.v);
}

FIELD_INLINE void field_dbl(dev_fp2_pair_t &r, const dev_fp2_pair_t &a)
{
    field_dbl(r.v, a.v);
}

FIELD_INLINE void field_neg(dev_fp2_pair_t &r, const dev_fp2_pair_t &a)
{
    field_neg(r.v, a.v);
}

FIELD_INLINE void field_mul(dev_fp2_pair_t &r, const dev_fp2_pair_t &a, const dev_fp2_pair_t &b)
{
    dev_fp_t pa, pb;
    fp2_pair_partner(pa, a.v);
    fp2_pair_partner(pb, b.v);
    fp2_pair_mul_lane(r.v, fp2_pair_odd(), a.v, b.v, pa, pb);
}

FIELD_INLINE void field_sqr(dev_fp2_pair_t &r, const dev_fp2_pair_t &a)
{
    dev_fp_t pa;
    fp2_pair_partner(pa, a.v);
    fp2_pair_sqr_lane(r.v, fp2_pair_odd(), a.v, pa);
}

/* Zero as an element: both halves (the same answer on both lanes). */
FIELD_INLINE bool field_is_zero(const dev_fp2_pair_t &a)
{
    uint32_t z = field_is_zero(a.v);
    return (z & fp2_pair_swap_word(z)) != 0;
}

FIELD_INLINE void field_set_zero(dev_fp2_pair_t &a)
{
    field_zero(a.v);
}

FIELD_INLINE void field_set_one(dev_fp2_pair_t &a)
{
    if (fp2_pair_odd())
        field_zero(a.v);
    else
        field_one(a.v);
}

/* ---- points: this lane's halves of a G2 point in memory ---------------- */

/* The coordinates of a G2 point are Fp2 elements one after the other, each
 * c0 then c1: coordinate j's half of this lane is Fp word block 2j + odd. */
FIELD_INLINE void fp2_pair_load(dev_affine_t<dev_fp2_pair_t> &r, const dev_affine_t<dev_fp2_t> &p)
{
    const dev_fp_t *f = &p.x.c0;
    int odd = fp2_pair_odd();
    r.x.v = f[odd];
    r.y.v = f[2 + odd];
}

FIELD_INLINE void fp2_pair_store(dev_xyzz_t<dev_fp2_t> &r, const dev_xyzz_t<dev_fp2_pair_t> &p)
{
    dev_fp_t *f = &r.x.c0;
    int odd = fp2_pair_odd();
    f[odd] = p.x.v;
    f[2 + odd] = p.y.v;
    f[4 + odd] = p.zz.v;
    f[6 + odd] = p.zzz.v;
}

/* The inverse of fp2_pair_store. */
FIELD_INLINE void fp2_pair_fetch(dev_xyzz_t<dev_fp2_pair_t> &r, const dev_xyzz_t<dev_fp2_t> &p)
{
    const dev_fp_t *f = &p.x.c0;
    int odd = fp2_pair_odd();
    r.x.v = f[odd];
    r.y.v = f[2 + odd];
    r.zz.v = f[4 + odd];
    r.zzz.v = f[6 + odd];
}

#endif
