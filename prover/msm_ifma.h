/*
 * The batch-affine additions of the CPU MSM (msm_template.h's flush) eight
 * at a time with AVX-512 IFMA (arith/field/fpx8.h): the same batch, the
 * same results, computed in 8 lanes. Private to msm.c; msm_ifma_supported()
 * says whether this build and CPU have it.
 */
#ifndef ZKB_MSM_IFMA_H
#define ZKB_MSM_IFMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"

bool msm_ifma_supported(void);

/* Scratch bytes a flush of up to batch entries needs (64-byte aligned). */
size_t msm_ifma_scratch_g1(size_t batch);
size_t msm_ifma_scratch_g2(size_t batch);

/*
 * aff[bucket[i]] += pt[i] for i < m, every bucket distinct, den[i] =
 * pt[i].x - aff[bucket[i]].x != 0 (canonical), with one inversion: what
 * msm_template.h's scalar flush computes, bit for bit. scratch: 64-byte
 * aligned, msm_ifma_scratch_*(m) bytes. Only where msm_ifma_supported().
 */
void msm_ifma_flush_g1(g1_affine_t *aff, const g1_affine_t *pt, const uint32_t *bucket,
                       const fp_t *den, size_t m, void *scratch);
void msm_ifma_flush_g2(g2_affine_t *aff, const g2_affine_t *pt, const uint32_t *bucket,
                       const fp2_t *den, size_t m, void *scratch);

#endif
