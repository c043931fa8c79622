/*
 * How the GPU MSM cuts scalars into windows (kernels/msm_impl.cuh): the
 * window width for a size and the signed digits of one scalar. Host and
 * device code, so that tests/gpu/test_msm_digits_host.cu checks on any
 * machine with nvcc that the digits add up to the scalar and spread evenly
 * over the buckets. Private to kernels/.
 */
#ifndef ZKB_KERNELS_MSM_DIGITS_CUH
#define ZKB_KERNELS_MSM_DIGITS_CUH

#include <stddef.h>
#include <stdint.h>

#define MSM_MAX_WINDOW 20

/*
 * The window width: a divisor of 256. Scalars are below 2^255, so with
 * c | 256 the top window's signed digits span 0 .. 2^(c-1) like every other
 * window's. With other widths the top window holds only the few bits left
 * over, and a handful of its buckets receive a large share of all points,
 * each bucket summed by one thread: on the H200, c = 15 at 2^20 put half the
 * points in one bucket (16.6 s for the MSM), c = 11 at 2^16 a quarter in
 * each of four (0.65 s). 16 bits give 2^19 buckets, enough threads from
 * 2^13 points up; below that, 8 bits keep the reduction small.
 */
static inline __host__ __device__ unsigned msm_window_for(size_t n)
{
    return n <= 4096 ? 8 : 16;
}

/*
 * Window w's signed digit of the plain scalar s (8 little-endian 32-bit
 * limbs, s < 2^255), windows taken in order w = 0, 1, ... with *carry
 * starting at 0: returns the magnitude (0 .. 2^(c-1)) and sets *neg when the
 * digit is negative. The digits d_w satisfy s = sum_w d_w 2^(w c) once
 * ceil(256 / c) windows are taken (the last leaves no carry). c is 2 ..
 * MSM_MAX_WINDOW.
 */
static inline __host__ __device__ uint32_t msm_signed_digit(const uint32_t *s, int w, int c,
                                                            uint32_t *carry, bool *neg)
{
    int bit = w * c, limb = bit >> 5, off = bit & 31;
    uint64_t v = limb < 8 ? s[limb] : 0;
    if (limb + 1 < 8)
        v |= (uint64_t)s[limb + 1] << 32;
    uint32_t raw = (uint32_t)((v >> off) & ((1u << c) - 1)) + *carry;
    if (raw > (1u << (c - 1))) {
        *neg = true;
        *carry = 1;
        return (1u << c) - raw;
    }
    *neg = false;
    *carry = 0;
    return raw;
}

#endif
