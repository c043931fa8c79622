/*
 * The MSM's batch-affine flush in 8 lanes with AVX-512 IFMA; see
 * msm_ifma.h for the contract and msm_ifma_template.h for the algorithm.
 * Compiled for AVX-512 function by function (FPX8_TARGET on each, which
 * gcc and clang both honour; clang ignores gcc's target pragma): msm.c
 * calls in only after msm_ifma_supported(), so the rest of the program runs
 * on any x86-64.
 */
#include "prover/msm_ifma.h"

#include "arith/field/fp2x8.h"

#if FPX8_HAVE
bool msm_ifma_supported(void)
{
    return fpx8_supported();
}

/* Byte offsets of 8 consecutive entries of stride bytes, of which only
 * left (>= 1) exist: the spare lanes repeat the last one. */
FPX8_INLINE __m512i msm_ifma_offsets(size_t left, size_t stride)
{
    if (left >= 8)
        return fpx8_stride(stride);
    __m512i k = _mm512_min_epu64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                                 _mm512_set1_epi64((long long)(left - 1)));
    return _mm512_mullo_epi64(k, _mm512_set1_epi64((long long)stride));
}

#define CURVE g1
#define FE_T fp_t
#define V_T fpx8_t
#define FE_BATCH_INV fp_batch_inv
#define V_MUL(r, a, b) fpx8_mul(r, a, b)
#define V_SQR(r, a) fpx8_mul(r, a, a)
#define V_SUB_P(r, a, b) fpx8_sub_lazy(r, a, b, &p1)
#define V_CANON(r, a) fpx8_canon(r, a, &p1)
#define V_CANON4(r, a) fpx8_canon4(r, a, &p1, &p2)
#define V_GATHER fpx8_gather
#define V_SCATTER fpx8_scatter
#include "prover/msm_ifma_template.h"

#define CURVE g2
#define FE_T fp2_t
#define V_T fp2x8_t
#define FE_BATCH_INV fp2_batch_inv
#define V_MUL(r, a, b) fp2x8_mul(r, a, b, &p2)
#define V_SQR(r, a) fp2x8_sqr(r, a, &p2)
#define V_SUB_P(r, a, b) fp2x8_sub_lazy(r, a, b, &p1)
#define V_CANON(r, a) fp2x8_canon(r, a, &p1)
#define V_CANON4(r, a) fp2x8_canon4(r, a, &p1, &p2)
#define V_GATHER fp2x8_gather
#define V_SCATTER fp2x8_scatter
#include "prover/msm_ifma_template.h"

#else /* no AVX-512 build: msm.c never calls the flushes */

bool msm_ifma_supported(void)
{
    return false;
}

size_t msm_ifma_scratch_g1(size_t batch)
{
    (void)batch;
    return 0;
}

size_t msm_ifma_scratch_g2(size_t batch)
{
    (void)batch;
    return 0;
}

void msm_ifma_flush_g1(g1_affine_t *aff, const g1_affine_t *pt, const uint32_t *bucket,
                       const fp_t *den, size_t m, void *scratch)
{
    (void)aff, (void)pt, (void)bucket, (void)den, (void)m, (void)scratch;
}

void msm_ifma_flush_g2(g2_affine_t *aff, const g2_affine_t *pt, const uint32_t *bucket,
                       const fp2_t *den, size_t m, void *scratch)
{
    (void)aff, (void)pt, (void)bucket, (void)den, (void)m, (void)scratch;
}
#endif
