/*
 * Where the heavy stages of a proof run: the quotient H (NTTs) and the
 * MSMs, on the CPU (prover/ntt.c, prover/msm.c) or on a GPU (kernels/).
 * A GPU backend uploads the proving key's query points once and keeps them
 * on the device (the H200 holds a whole production parameter set), reports
 * every device allocation to the tracked-buffer API (gpu_* kinds), and
 * serializes the proofs' use of its device. A NULL backend is the CPU.
 */
#ifndef ZKB_BACKEND_H
#define ZKB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "prover/curve/g1.h"
#include "prover/curve/g2.h"
#include "prover/msm.h"
#include "prover/ntt.h"
#include "prover/params.h"

/* The proving-key queries an MSM runs over. */
enum backend_query { BACKEND_H, BACKEND_L, BACKEND_A, BACKEND_B_G1, BACKEND_B_G2 };

typedef struct backend backend_t;

/*
 * A GPU backend on `device` for the key pk (borrowed: must outlive it).
 * -ENODEV without a usable GPU (or in a build without CUDA), -ENOMEM when
 * the queries do not fit the device; msg (cap bytes) then names the CUDA
 * call that failed.
 */
int backend_gpu_new(backend_t **ret, const groth16_params_t *pk, int device, char *msg, size_t cap);
/* NULL is accepted. */
void backend_free(backend_t *be);

/* The h coefficients (n of them, in place in a) from the evaluations a, b,
 * c over the domain (b and c are consumed: their contents are undefined
 * afterwards). */
int backend_compute_h(const backend_t *be, fr_t *a, fr_t *b, fr_t *c, const ntt_domain_t *d, unsigned threads);
/* sum scalars[i] * query point, density as msm_g1 (NULL: dense). */
int backend_msm_g1(const backend_t *be, g1_jac_t *ret, enum backend_query q, const groth16_params_t *pk,
                   const fr_t *scalars, size_t n_scalars, const uint64_t *density, const struct msm_opts *o);
int backend_msm_g2(const backend_t *be, g2_jac_t *ret, const groth16_params_t *pk, const fr_t *scalars,
                   size_t n_scalars, const uint64_t *density, const struct msm_opts *o);

#endif
