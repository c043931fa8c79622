/* The MSM's last step on the host (msm_final.h). The device's reduction is
 * latency-bound, one thread's chain of dependent additions (about 35 us each
 * for G1 on the H200); here an addition takes about a microsecond, so the
 * c nw doublings of Horner cost under a millisecond instead of 9 (G1). */
#include "kernels/msm_final.h"

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/bls12_381.h"

_Static_assert(sizeof(g1_xyzz_t) == 4 * BLS12_381_FP_BYTES, "G1 XYZZ layout");
_Static_assert(sizeof(g2_xyzz_t) == 8 * BLS12_381_FP_BYTES, "G2 XYZZ layout");

#define MSM_FINAL(CURVE)                                                                                  \
    void msm_final_##CURVE(void *ret, const void *sums, int nw, uint32_t m, const void *ones, uint32_t k, \
                           int c)                                                                         \
    {                                                                                                     \
        const CURVE##_xyzz_t *s = sums, *o = ones;                                                        \
        CURVE##_xyzz_t acc;                                                                               \
        CURVE##_xyzz_from_affine(&acc, &(CURVE##_affine_t){0}); /* infinity */                            \
        for (int w = nw - 1; w >= 0; w--) {                                                               \
            if (w < nw - 1)                                                                               \
                for (int i = 0; i < c; i++)                                                               \
                    CURVE##_xyzz_dbl(&acc, &acc);                                                         \
            for (uint32_t i = 0; i < m; i++)                                                              \
                CURVE##_xyzz_add(&acc, &acc, &s[(size_t)w * m + i]);                                      \
        }                                                                                                 \
        for (uint32_t i = 0; i < k; i++)                                                                  \
            CURVE##_xyzz_add(&acc, &acc, &o[i]);                                                          \
        CURVE##_xyzz_to_jac(ret, &acc);                                                                   \
    }

MSM_FINAL(g1)
MSM_FINAL(g2)
