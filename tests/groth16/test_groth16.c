/*
 * Groth16 end to end through the library: keys from setup, proofs from the
 * split and monolithic APIs with each release mode, single and batch
 * verification, rejection of altered proofs, inputs and keys, the parameter
 * file round trip, and the tracked-buffer balance afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/mem.h"
#include "tests/common.h"

/* x^3 + x + 5 = out, out public: the smallest interesting circuit, built
 * by hand so the prover is also tested off the porep family. */
static r1cs_t *cubic_circuit(void)
{
    r1cs_builder_t *b;
    r1cs_var_t x, x2, x3, out;
    CHECK(r1cs_builder_new(&b) == 0);
    CHECK(r1cs_alloc_aux(&x, b) == 0);
    CHECK(r1cs_alloc_aux(&x2, b) == 0);
    CHECK(r1cs_alloc_input(&out, b) == 0);
    CHECK(r1cs_alloc_aux(&x3, b) == 0);
    fr_t one = FR_ONE, five;
    fr_from_u64(&five, 5);
    r1cs_term_t tx = {x, one}, tx2 = {x2, one}, tx3 = {x3, one};
    CHECK(r1cs_enforce(b, &tx, 1, &tx, 1, &tx2, 1) == 0);
    CHECK(r1cs_enforce(b, &tx2, 1, &tx, 1, &tx3, 1) == 0);
    r1cs_term_t lhs[3] = {{x3, one}, {x, one}, {R1CS_ONE, five}};
    r1cs_term_t rhs = {out, one}, unit = {R1CS_ONE, one};
    CHECK(r1cs_enforce(b, lhs, 3, &unit, 1, &rhs, 1) == 0);
    r1cs_t *r = NULL;
    CHECK(r1cs_builder_finish(&r, b) == 0);
    r1cs_builder_free(b);
    return r;
}

/* w = [1, out, x, x^2, x^3] for x. */
static void cubic_witness(fr_t w[5], uint64_t xv)
{
    fr_t x, x2, x3, out, five;
    fr_from_u64(&x, xv);
    fr_sqr(&x2, &x);
    fr_mul(&x3, &x2, &x);
    fr_from_u64(&five, 5);
    fr_add(&out, &x3, &x);
    fr_add(&out, &out, &five);
    w[0] = FR_ONE;
    w[1] = out;
    w[2] = x;
    w[3] = x2;
    w[4] = x3;
}

static void check_rejections(const groth16_pvk_t *pvk, const groth16_proof_t *good, const fr_t *inputs,
                             size_t ni)
{
    groth16_proof_t bad = *good;
    g1_affine_neg(&bad.a, &good->a);
    CHECK(groth16_verify(pvk, &bad, inputs, ni) == 0);
    bad = *good;
    g2_affine_neg(&bad.b, &good->b);
    CHECK(groth16_verify(pvk, &bad, inputs, ni) == 0);
    bad = *good;
    bad.c = G1_GENERATOR;
    CHECK(groth16_verify(pvk, &bad, inputs, ni) == 0);
    fr_t *in2 = malloc((ni + 1) * sizeof *in2);
    for (size_t j = 0; j < ni; j++) {
        memcpy(in2, inputs, ni * sizeof *in2);
        fr_add(&in2[j], &in2[j], &FR_ONE);
        CHECK(groth16_verify(pvk, good, in2, ni) == 0);
    }
    CHECK(groth16_verify(pvk, good, inputs, ni + 1) == -EINVAL);
    free(in2);
}

static void test_cubic(void)
{
    r1cs_t *cs = cubic_circuit();
    groth16_shape_t *shape;
    groth16_params_t *pk;
    CHECK(groth16_shape_new(&shape, cs) == 0);
    CHECK(shape->n == 8); /* 3 constraints + 2 input constraints (ONE, out) */
    CHECK(groth16_setup(&pk, shape, test_rand_u64(), 2) == 0);
    groth16_pvk_t *pvk;
    CHECK(groth16_pvk_new(&pvk, &pk->vk) == 0);
    fr_t w[5];
    cubic_witness(w, 3 + test_rand_below(1000));
    groth16_proof_t proof;
    struct groth16_prove_opts o;
    groth16_prove_opts_default(&o);
    o.threads = 2;
    CHECK(groth16_prove(&proof, pk, shape, w, &o) == 0);
    CHECK(groth16_verify(pvk, &proof, &w[1], 1) == 1);
    check_rejections(pvk, &proof, &w[1], 1);
    /* a witness that does not satisfy the system gives a proof that fails */
    fr_add(&w[4], &w[4], &FR_ONE);
    CHECK(groth16_prove(&proof, pk, shape, w, &o) == 0);
    CHECK(groth16_verify(pvk, &proof, &w[1], 1) == 0);
    /* w[0] must be one */
    w[0] = FR_ZERO;
    CHECK(groth16_prove(&proof, pk, shape, w, &o) == -EINVAL);
    groth16_pvk_free(pvk);
    params_free(pk);
    groth16_shape_free(shape);
    r1cs_free(cs);
}

/* Given the blinding r, s (opts.blind), a proof is a function of the key and
 * the witness alone: the same bytes from the split and monolithic APIs and
 * from 1 and 2 threads; fresh blinding gives other bytes, and all verify. */
static void check_blind(const groth16_params_t *pk, const groth16_shape_t *shape, const groth16_pvk_t *pvk,
                        const circuit_t *circ, uint64_t seed, size_t ni)
{
    fr_t *w;
    if (!CHECK(circuit_witness_alloc(&w, circ, seed, 0, 0, 2) == 0))
        return;
    fr_t blind[2];
    test_rand_fr(&blind[0]);
    test_rand_fr(&blind[1]);
    uint8_t bytes[3][GROTH16_PROOF_BYTES];
    for (int i = 0; i < 3; i++) {
        struct groth16_prove_opts o;
        groth16_prove_opts_default(&o);
        o.threads = 1 + (unsigned)(i % 2);
        o.split = i == 0;
        o.blind = i < 2 ? blind : NULL;
        groth16_proof_t proof;
        CHECK(groth16_prove(&proof, pk, shape, w, &o) == 0);
        CHECK(groth16_verify(pvk, &proof, &w[1], ni) == 1);
        groth16_proof_write(bytes[i], &proof);
    }
    CHECK(memcmp(bytes[0], bytes[1], GROTH16_PROOF_BYTES) == 0);
    CHECK(memcmp(bytes[0], bytes[2], GROTH16_PROOF_BYTES) != 0);
    mem_free(w);
}

static void test_porep(const char *spec, unsigned partitions)
{
    char err[256];
    circuit_t *circ;
    CHECK(circuit_from_spec(&circ, spec, partitions, err, sizeof err) == 0);
    groth16_shape_t *shape;
    groth16_params_t *pk, *pk2;
    CHECK(groth16_shape_new(&shape, circ->r1cs) == 0);
    CHECK(groth16_setup(&pk, shape, test_rand_u64(), 0) == 0);
    CHECK(groth16_params_check(pk, shape, err, sizeof err) == 0);

    /* the parameter file round trip reproduces every point */
    char path[] = "/tmp/zkb-test-params-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    params_error_t perr;
    CHECK(params_write(path, pk, &perr) == 0);
    CHECK(params_read(&pk2, path, 0, 2, &perr) == 0);
    CHECK(pk2->n_h == pk->n_h && pk2->n_l == pk->n_l && pk2->n_a == pk->n_a && pk2->n_b_g2 == pk->n_b_g2);
    CHECK(memcmp(pk2->h, pk->h, pk->n_h * sizeof *pk->h) == 0);
    CHECK(memcmp(pk2->l, pk->l, pk->n_l * sizeof *pk->l) == 0);
    CHECK(memcmp(pk2->a, pk->a, pk->n_a * sizeof *pk->a) == 0);
    CHECK(memcmp(pk2->b_g1, pk->b_g1, pk->n_b_g1 * sizeof *pk->b_g1) == 0);
    CHECK(memcmp(pk2->b_g2, pk->b_g2, pk->n_b_g2 * sizeof *pk->b_g2) == 0);
    CHECK(memcmp(pk2->vk.ic, pk->vk.ic, pk->vk.n_ic * sizeof *pk->vk.ic) == 0);
    CHECK(g2_affine_eq(&pk2->vk.delta_g2, &pk->vk.delta_g2));
    unlink(path);
    params_free(pk);
    pk = pk2;

    groth16_pvk_t *pvk;
    CHECK(groth16_pvk_new(&pvk, &pk->vk) == 0);
    size_t k = circ->partitions, ni = circ->r1cs->num_inputs - 1;
    groth16_proof_t *proofs = calloc(k, sizeof *proofs);
    fr_t *inputs = calloc(k * ni + 1, sizeof *inputs);
    uint64_t seed = test_rand_u64();
    static const enum dealloc_mode modes[3] = {DEALLOC_SYNC, DEALLOC_ASYNC, DEALLOC_ASYNC_SERIAL};
    for (size_t i = 0; i < k; i++) {
        fr_t *w;
        CHECK(circuit_witness_alloc(&w, circ, seed, 0, (unsigned)i, 2) == 0);
        memcpy(&inputs[i * ni], &w[1], ni * sizeof *inputs);
        struct groth16_prove_opts o;
        groth16_prove_opts_default(&o);
        o.threads = 1 + (unsigned)(i % 2);
        o.proof = 0;
        o.partition = (int)i;
        o.dealloc = modes[i % 3];
        o.split = i % 2 == 0;
        if (i % 2 == 0) {
            groth16_pending_t *p;
            CHECK(groth16_prove_start(&p, pk, shape, w, &o) == 0);
            mem_free(w); /* the pending handle owns what finishing needs */
            CHECK(groth16_prove_finish(&proofs[i], p) == 0);
        } else {
            CHECK(groth16_prove(&proofs[i], pk, shape, w, &o) == 0);
            mem_free(w);
        }
        CHECK(groth16_verify(pvk, &proofs[i], &inputs[i * ni], ni) == 1);
    }
    CHECK(groth16_verify_batch(pvk, proofs, inputs, k, ni) == 1);
    check_rejections(pvk, &proofs[0], inputs, ni);
    if (k > 1) {
        /* one partition's inputs with another's proof */
        CHECK(groth16_verify(pvk, &proofs[1], &inputs[0], ni) == 0);
        groth16_proof_t saved = proofs[k - 1];
        proofs[k - 1].c = proofs[0].c;
        CHECK(groth16_verify_batch(pvk, proofs, inputs, k, ni) == 0);
        proofs[k - 1] = saved;
        /* the batch's inputs go through one MSM over IC: a changed input
         * of the last partition must still be caught */
        if (ni) {
            fr_t x = inputs[(k - 1) * ni + ni - 1];
            fr_add(&inputs[(k - 1) * ni + ni - 1], &x, &FR_ONE);
            CHECK(groth16_verify_batch(pvk, proofs, inputs, k, ni) == 0);
            inputs[(k - 1) * ni + ni - 1] = x;
            CHECK(groth16_verify_batch(pvk, proofs, inputs, k, ni) == 1);
        }
    }
    check_blind(pk, shape, pvk, circ, seed, ni);
    dealloc_drain();
    CHECK(dealloc_pending() == 0);
    CHECK(mem_live_bytes(MEM_KIND_PENDING) == 0);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == 0);
    CHECK(mem_live_bytes(MEM_KIND_ABC) == 0);
    CHECK(mem_live_bytes(MEM_KIND_H) == 0);
    CHECK(mem_live_bytes(MEM_KIND_MSM) == 0);
    free(proofs);
    free(inputs);
    groth16_pvk_free(pvk);
    params_free(pk);
    groth16_shape_free(shape);
    circuit_free(circ);
}

int main(void)
{
    test_init("test_groth16");
    test_cubic();
    test_porep("porep:constraints=2^10", 3);
    test_porep("porep:constraints=2^11,depth=3", 2);
    test_porep("porep:constraints=1500", 1);
    /* every tracked allocation has its free */
    uint64_t allocs, frees;
    mem_counts(&allocs, &frees);
    CHECK(allocs == frees);
    CHECK(mem_bad_frees() == 0);
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        CHECK(mem_live_bytes((enum mem_kind)k) == 0);
    return test_finish();
}
