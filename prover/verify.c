/*
 * Groth16 verification with a prepared verifying key:
 *   e(A, B) = e(alpha, beta) e(sum x_j IC_j, gamma) e(C, delta)
 * checked as one product of four Miller loops against one final
 * exponentiation, with -beta, -gamma, -delta prepared once per key.
 * Batch verification of k proofs (the partitions of one proof) takes a
 * random linear combination with 128-bit coefficients rho_i (rho_0 = 1):
 *   prod e(rho_i A_i, B_i) e(-sum rho_i ACC_i, gamma) e(-sum rho_i C_i, delta)
 *     e(-(sum rho_i) alpha, beta) = 1
 * k + 3 Miller loops and one final exponentiation; a false proof passes
 * with probability about 2^-128 (Bellare, Garay, Rabin, "Fast batch
 * verification for modular exponentiation and digital signatures", 1998).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>


#include "prover/groth16.h"
#include "prover/rand.h"

int groth16_pvk_new(groth16_pvk_t **ret, const groth16_vk_t *vk)
{
    groth16_pvk_t *p = malloc(sizeof *p);
    if (!p)
        return -ENOMEM;
    p->vk = vk;
    g2_affine_t t;
    g2_affine_neg(&t, &vk->gamma_g2);
    pairing_g2_prepare(&p->neg_gamma, &t);
    g2_affine_neg(&t, &vk->delta_g2);
    pairing_g2_prepare(&p->neg_delta, &t);
    g2_affine_neg(&t, &vk->beta_g2);
    pairing_g2_prepare(&p->neg_beta, &t);
    *ret = p;
    return 0;
}

void groth16_pvk_free(groth16_pvk_t *pvk)
{
    free(pvk);
}

/* sum_j x_j IC_j with IC_0 for the ONE. */
static void input_acc(g1_jac_t *acc, const groth16_vk_t *vk, const fr_t *inputs)
{
    g1_jac_from_affine(acc, &vk->ic[0]);
    for (size_t j = 1; j < vk->n_ic; j++) {
        g1_jac_t t;
        g1_jac_from_affine(&t, &vk->ic[j]);
        g1_jac_mul_fr(&t, &t, &inputs[j - 1]);
        g1_jac_add(acc, acc, &t);
    }
}

int groth16_verify_batch(const groth16_pvk_t *pvk, const groth16_proof_t *proofs, const fr_t *inputs,
                         size_t n, size_t n_inputs)
{
    const groth16_vk_t *vk = pvk->vk;
    if (vk->n_ic == 0 || n_inputs != vk->n_ic - 1)
        return -EINVAL;
    if (n == 0)
        return 1;
    /* pairs: n proofs, then ACC, C, alpha */
    g1_affine_t *p = malloc((n + 3) * sizeof *p);
    g2_prepared_t *bq = malloc(n * sizeof *bq);
    const g2_prepared_t **q = malloc((n + 3) * sizeof *q);
    if (!p || !bq || !q) {
        free(p);
        free(bq);
        free(q);
        return -ENOMEM;
    }
    g1_jac_t acc_sum, c_sum, t;
    memset(&acc_sum, 0, sizeof acc_sum);
    memset(&c_sum, 0, sizeof c_sum);
    fr_t rho_sum = FR_ZERO;
    for (size_t i = 0; i < n; i++) {
        fr_t rho = FR_ONE;
        if (i > 0 && rand_fr128(&rho) < 0) {
            free(p);
            free(bq);
            free(q);
            return -EIO; /* no randomness: no verdict */
        }
        fr_add(&rho_sum, &rho_sum, &rho);
        g1_jac_from_affine(&t, &proofs[i].a);
        g1_jac_mul_fr(&t, &t, &rho);
        g1_jac_to_affine(&p[i], &t);
        pairing_g2_prepare(&bq[i], &proofs[i].b);
        q[i] = &bq[i];
        input_acc(&t, vk, inputs + i * n_inputs);
        g1_jac_mul_fr(&t, &t, &rho);
        g1_jac_add(&acc_sum, &acc_sum, &t);
        g1_jac_from_affine(&t, &proofs[i].c);
        g1_jac_mul_fr(&t, &t, &rho);
        g1_jac_add(&c_sum, &c_sum, &t);
    }
    g1_jac_to_affine(&p[n], &acc_sum);
    q[n] = &pvk->neg_gamma;
    g1_jac_to_affine(&p[n + 1], &c_sum);
    q[n + 1] = &pvk->neg_delta;
    g1_jac_from_affine(&t, &vk->alpha_g1);
    g1_jac_mul_fr(&t, &t, &rho_sum);
    g1_jac_to_affine(&p[n + 2], &t);
    q[n + 2] = &pvk->neg_beta;
    bool ok = pairing_check_prepared(p, q, n + 3);
    free(p);
    free(bq);
    free(q);
    return ok ? 1 : 0;
}

int groth16_verify(const groth16_pvk_t *pvk, const groth16_proof_t *proof, const fr_t *inputs, size_t n_inputs)
{
    return groth16_verify_batch(pvk, proof, inputs, 1, n_inputs);
}
