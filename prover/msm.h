/*
 * Multi-scalar multiplication on the CPU: ret = sum_i s_i P_i over G1 or
 * G2, by Pippenger's bucket method with signed digits, threaded (see
 * msm.c for the algorithm and its sources).
 *
 * Scalars are Montgomery fr_t, one per variable (n_scalars of them).
 * Bases are affine points, infinity as (0, 0). Density follows
 * bellperson's proving keys, which omit the points of variables that never
 * occur in a query: density (may be NULL) is a bitmap over the n_scalars
 * variables, bit i (word i / 64, bit i % 64) set when variable i has a
 * base; bases holds the bases of the set bits only, in order, so n_bases
 * must equal the number of set bits among the first n_scalars. With
 * density NULL every variable has a base: variable i uses bases[i], and
 * n_bases >= n_scalars (extra bases are ignored, as bellperson's dense
 * queries allow).
 */
#ifndef ZKB_MSM_H
#define ZKB_MSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fr.h"

/* Largest window the callers may force (buckets: 2^(c-1) per thread). */
#define MSM_MAX_WINDOW 20

struct msm_opts {
    unsigned threads;     /* 0: parallel_default_threads() */
    unsigned window;      /* bits per window, 0: chosen from the size;
                             otherwise 1 .. MSM_MAX_WINDOW */
    int proof, partition; /* tags of the scratch buffers (MEM_KIND_MSM) */
    bool scalar_only;     /* the scalar field code even where AVX-512 IFMA
                             would run (tests; so does ZKB_MSM_SCALAR set) */
    unsigned split;       /* parts of each scalar (msm.c: the scalar split),
                             0: chosen from the size; 1; 2; 4 (G2 only).
                             Above 1 it runs the scalar path (tests) */
};

/* threads 0, window 0, proof and partition -1, scalar_only false,
 * split 0. */
void msm_opts_default(struct msm_opts *opts);

/*
 * ret = sum_i scalars[i] * base(i) over the variables i < n_scalars that
 * have a base (see above); n_scalars = 0 gives infinity. opts NULL means
 * the defaults. Scratch memory (scalar copies, buckets) is tracked as
 * MEM_KIND_MSM and freed before returning (with the scalar split, below
 * 2^19 points, the bases' endomorphism images too: one point a base for
 * G1, up to three for G2).
 * Returns 0; -EINVAL (ret untouched) for ret NULL, bases or scalars NULL
 * where elements are needed, an n_bases that does not match, a window
 * out of range or a split the group does not have; -ENOMEM when scratch
 * memory could not be had (nothing stays allocated).
 */
int msm_g1(g1_jac_t *ret, const g1_affine_t *bases, size_t n_bases, const fr_t *scalars,
           size_t n_scalars, const uint64_t *density, const struct msm_opts *opts);
int msm_g2(g2_jac_t *ret, const g2_affine_t *bases, size_t n_bases, const fr_t *scalars,
           size_t n_scalars, const uint64_t *density, const struct msm_opts *opts);

#endif
