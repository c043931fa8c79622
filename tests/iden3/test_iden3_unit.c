/*
 * Unit tests of prover/iden3 that need no snarkjs: snarkjs's roots of unity
 * against GMP (5^((r-1)/2^32), squared down), the exponent between them and
 * the prover's, and the CSR collector (unsorted, duplicate and cancelling
 * terms) against a naive evaluation.
 */
#include <gmp.h>
#include <stdio.h>

#include "prover/iden3/csr.h"
#include "prover/iden3/zkey_file.h"
#include "prover/mem.h"
#include "tests/common.h"

static void test_roots(void)
{
    mpz_t e, w, got;
    mpz_inits(e, w, got, NULL);
    mpz_sub_ui(e, test_r, 1);
    mpz_fdiv_q_2exp(e, e, 32);
    mpz_set_ui(w, 5);
    mpz_powm(w, w, e, test_r); /* a primitive 2^32-th root */
    for (int log = 32; log >= 0; log--) {
        fr_t x;
        CHECK(iden3_snarkjs_root(&x, (unsigned)log) == 0);
        test_fr_to_mpz(got, &x);
        CHECK(mpz_cmp(got, w) == 0);
        mpz_powm_ui(w, w, 2, test_r);
    }
    fr_t x;
    CHECK(iden3_snarkjs_root(&x, 33) < 0);
    uint32_t k = iden3_snarkjs_root_exponent();
    CHECK(k & 1);
    for (unsigned log = 1; log <= 32; log++) {
        fr_t ours, theirs, p;
        fr_root_of_unity(&ours, log);
        iden3_snarkjs_root(&theirs, log);
        uint64_t kk = log == 32 ? k : k & ((1u << log) - 1);
        fr_pow(&p, &ours, &kk, 1);
        CHECK(fr_eq(&p, &theirs));
    }
    mpz_clears(e, w, got, NULL);
}

static void test_csr(void)
{
    enum { ROWS = 7, INPUTS = 3, AUX = 5, NV = INPUTS + AUX, TERMS = 60 };
    fr_t dense[3][ROWS][NV];
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < ROWS; i++)
            for (int j = 0; j < NV; j++)
                dense[m][i][j] = FR_ZERO;
    iden3_csr_t *b;
    CHECK(iden3_csr_new(&b, ROWS, INPUTS, AUX) == 0);
    for (int t = 0; t < TERMS; t++) {
        int m = (int)test_rand_below(3), i = (int)test_rand_below(ROWS), j = (int)test_rand_below(NV);
        fr_t v;
        if (t % 7 == 0)
            fr_from_u64(&v, 1 + test_rand_below(3)); /* repeated small constants */
        else
            test_rand_fr(&v);
        CHECK(iden3_csr_add(b, (enum r1cs_matrix_id)m, (uint32_t)i, (uint32_t)j, &v) == 0);
        fr_add(&dense[m][i][j], &dense[m][i][j], &v);
        if (t % 11 == 0) { /* a cancelling term: the entry must vanish */
            fr_t neg;
            fr_neg(&neg, &dense[m][i][j]);
            CHECK(iden3_csr_add(b, (enum r1cs_matrix_id)m, (uint32_t)i, (uint32_t)j, &neg) == 0);
            dense[m][i][j] = FR_ZERO;
        }
    }
    r1cs_t *r;
    CHECK(iden3_csr_finish(&r, b) == 0);
    iden3_csr_free(b);
    CHECK(r->num_inputs == INPUTS && r->num_aux == AUX && r->num_constraints == ROWS);
    CHECK(fr_is_one(&r->coeffs[0]));
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < ROWS; i++)
            for (uint64_t q = r->m[m].row_ptr[i]; q + 1 < r->m[m].row_ptr[i + 1]; q++)
                CHECK(r->m[m].col[q] < r->m[m].col[q + 1]); /* sorted, merged */
    fr_t w[NV], out[3][ROWS];
    w[0] = FR_ONE;
    for (int j = 1; j < NV; j++)
        test_rand_fr(&w[j]);
    CHECK(r1cs_eval(out[0], out[1], out[2], r, w, 1) == 0);
    for (int m = 0; m < 3; m++)
        for (int i = 0; i < ROWS; i++) {
            fr_t s = FR_ZERO, t;
            for (int j = 0; j < NV; j++) {
                fr_mul(&t, &dense[m][i][j], &w[j]);
                fr_add(&s, &s, &t);
            }
            CHECK(fr_eq(&s, &out[m][i]));
        }
    r1cs_free(r);
}

int main(void)
{
    test_init("iden3");
    test_roots();
    test_csr();
    CHECK(mem_bad_frees() == 0);
    return test_finish();
}
