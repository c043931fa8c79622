/*
 * The MSM's last step on the host (msm_impl.cuh, step 5), in C over the
 * prover's curve code: the window sums the device left, Horner over the
 * windows, plus the ones. Points have the device's layout, which is the
 * host's (Montgomery limbs, XYZZ and Jacobian; msm_impl.cuh checks sizes).
 */
#ifndef ZKB_KERNELS_MSM_FINAL_H
#define ZKB_KERNELS_MSM_FINAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ret (Jacobian) = sum_w 2^(c w) W_w + sum of the k ones, where W_w is the
 * sum of sums[w m .. w m + m) (XYZZ) and ones has k XYZZ points. */
void msm_final_g1(void *ret, const void *sums, int nw, uint32_t m, const void *ones, uint32_t k, int c);
void msm_final_g2(void *ret, const void *sums, int nw, uint32_t m, const void *ones, uint32_t k, int c);

#ifdef __cplusplus
}
#endif

#endif
