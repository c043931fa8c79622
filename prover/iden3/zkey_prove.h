/*
 * Groth16 proofs with a snarkjs proving key (zkey_file.h), the same proof
 * snarkjs src/groth16_prove.js computes, on the prover's NTT and MSM:
 *
 *   a, b   <- the key's A and B rows at w, one value per row of the domain
 *   c      <- a * b pointwise (snarkjs's buildABC1: C need not be stored)
 *   on the odd coset w2 <w> (zkey_file.h): a, b, c <- iNTT, coefficient i
 *          times w2^i, NTT; p = a b - c
 *   pi_a   = alpha_1 + sum w_j A_j + r delta_1
 *   pi_b   = beta_2 + sum w_j B2_j + s delta_2
 *   pi_c   = sum_private w_j C_j + sum_i p_i H_i + s pi_a + r (beta_1 +
 *            sum w_j B1_j + s delta_1) - r s delta_1
 *
 * Rows are evaluated in snarkjs's order (constraint c at snarkjs's w^c) and
 * gathered into the prover's (index j at our w^j = snarkjs's w^(j/k)); the
 * key's H points were stored in the prover's order when read.
 */
#ifndef ZKB_IDEN3_ZKEY_PROVE_H
#define ZKB_IDEN3_ZKEY_PROVE_H

#include <stddef.h>

#include "arith/field/fr.h"
#include "prover/groth16.h"
#include "prover/iden3/zkey_file.h"

struct iden3_prove_opts {
    unsigned threads;         /* 0: all cores */
    int proof, partition;     /* tags of the tracked buffers (-1: none) */
    groth16_times_t *times;   /* NULL, or the stage times (eval, ntt, msm_*) */
    const fr_t *r, *s;        /* blinding; NULL: drawn from getrandom */
    groth16_stage_fn *on_stage; /* NULL, or as groth16_prove_opts's (b_g2 inline) */
    void *stage_ctx;
};

/* threads 0, tags -1, no times, random blinding. */
void iden3_prove_opts_default(struct iden3_prove_opts *o);

/*
 * A proof for witness w (n_w = z->n_vars elements, [1, public, private],
 * Montgomery) with key z. Scratch buffers are tracked (MEM_KIND_ABC,
 * MEM_KIND_H, MEM_KIND_NTT, MEM_KIND_MSM) and freed before returning.
 * 0; -EINVAL (n_w does not match, w[0] != 1), -ENOMEM. A witness that does
 * not satisfy the circuit gives a proof that does not verify.
 */
int iden3_zkey_prove(groth16_proof_t *proof, const iden3_zkey_t *z, const fr_t *w, size_t n_w,
                     const struct iden3_prove_opts *opts);

#endif
