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
 * The window width for n scalars, G1's or G2's (g2). The top window holds
 * the bits of 256 / c windows' worth left over below 2^255. With c | 256
 * its signed digits span 0 .. 2^(c-1) like every other window's. With
 * c = 13 it holds 8 bits, and about 1/118 of the points fall in each of its
 * live buckets, each bucket summed by one thread; with fewer bits left the
 * share grows: on the H200, c = 15 at 2^20 put half the points in one bucket
 * (16.6 s for the MSM), c = 11 at 2^16 a quarter in each of four (0.65 s).
 * Widths measured on the H200 at 2^16 .. 2^24 over c = 10 .. 20
 * (results/h200/msm-windows.md): 13 bits win where the reduction of 16
 * bits' 2^19 buckets dominates, up to 2^17 scalars for G1 (6.3 against
 * 10.8 ms at 2^16) and 2^21 for G2 (90 against 97 ms at 2^20), whose
 * reduction costs more; 16 bits above (G1 at 2^24: 228 ms against 283);
 * 8 bits for 4096 scalars and fewer, where 13 bits leave buckets empty.
 */
static inline __host__ __device__ unsigned msm_window_for(size_t n, bool g2)
{
    if (n <= 4096)
        return 8;
    return n <= (g2 ? ((size_t)1 << 21) : ((size_t)1 << 17)) ? 13 : 16;
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
