/*
 * R1CS builder, CSR layout, evaluation, satisfaction and density, checked
 * against hand-made circuits and, for random sparse systems, a GMP
 * evaluation of the original term lists (duplicates and zeros included) and
 * a dense per-row accumulation for the densities.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prover/mem.h"
#include "prover/r1cs.h"
#include "tests/common.h"

static fr_t fr_small(int64_t v)
{
    fr_t r;
    fr_from_u64(&r, (uint64_t)(v < 0 ? -v : v));
    if (v < 0)
        fr_neg(&r, &r);
    return r;
}

static r1cs_term_t term(r1cs_var_t v, int64_t c)
{
    return (r1cs_term_t){v, fr_small(c)};
}

/* x^3 + x + 5 = out, with aux x allocated before the input out. */
static void test_cubic(void)
{
    r1cs_builder_t *b;
    CHECK(r1cs_builder_new(&b) == 0);
    r1cs_var_t x, out, x2, x3;
    CHECK(r1cs_alloc_aux(&x, b) == 0);
    CHECK(r1cs_alloc_input(&out, b) == 0);
    CHECK(r1cs_alloc_aux(&x2, b) == 0);
    CHECK(r1cs_alloc_aux(&x3, b) == 0);
    r1cs_term_t tx = term(x, 1), tx2 = term(x2, 1), tx3 = term(x3, 1), one = term(R1CS_ONE, 1);
    CHECK(r1cs_enforce(b, &tx, 1, &tx, 1, &tx2, 1) == 0);
    CHECK(r1cs_enforce(b, &tx2, 1, &tx, 1, &tx3, 1) == 0);
    r1cs_term_t sum[3] = {term(x3, 1), term(x, 1), term(R1CS_ONE, 5)};
    r1cs_term_t tout = term(out, 1);
    CHECK(r1cs_enforce(b, sum, 3, &one, 1, &tout, 1) == 0);
    CHECK(r1cs_builder_num_constraints(b) == 3);
    r1cs_t *r;
    CHECK(r1cs_builder_finish(&r, b) == 0);
    CHECK(r->num_inputs == 2 && r->num_aux == 3 && r->num_constraints == 3);
    /* Renumbering: out is column 1, x the first aux (column 2). */
    CHECK(r1cs_var_index(out, r->num_inputs) == 1);
    CHECK(r1cs_var_index(x, r->num_inputs) == 2);
    CHECK(r1cs_var_index(x3, r->num_inputs) == 4);
    /* Row 2 of A: ONE (5), x (1), x3 (1) in column order. */
    const r1cs_matrix_t *A = &r->m[R1CS_A];
    CHECK(A->row_ptr[2] == 2 && A->row_ptr[3] == 5);
    CHECK(A->col[2] == 0 && A->col[3] == 2 && A->col[4] == 4);
    fr_t five = fr_small(5);
    CHECK(fr_eq(&r->coeffs[A->coeff[2]], &five));
    CHECK(A->coeff[3] == 0 && A->coeff[4] == 0);

    fr_t w[5] = {FR_ONE, fr_small(35), fr_small(3), fr_small(9), fr_small(27)};
    uint64_t bad = 99;
    CHECK(r1cs_is_satisfied(&bad, r, w) == 1);
    CHECK(bad == 99);
    w[1] = fr_small(36);
    CHECK(r1cs_is_satisfied(&bad, r, w) == 0 && bad == 2);
    w[1] = fr_small(35);
    w[3] = fr_small(10);
    CHECK(r1cs_is_satisfied(&bad, r, w) == 0 && bad == 0);
    CHECK(r1cs_is_satisfied(NULL, r, w) == 0);
    /* x = p - 1: (-1)^3 - 1 + 5 = 3. */
    fr_t m1 = fr_small(-1);
    fr_t w2[5] = {FR_ONE, fr_small(3), m1, FR_ONE, m1};
    CHECK(r1cs_is_satisfied(&bad, r, w2) == 1);

    /* The builder is empty again and reusable. */
    CHECK(r1cs_builder_num_constraints(b) == 0 && r1cs_builder_num_inputs(b) == 1 &&
          r1cs_builder_num_aux(b) == 0);
    r1cs_t *r2;
    CHECK(r1cs_enforce(b, &one, 1, &one, 1, &one, 1) == 0);
    CHECK(r1cs_builder_finish(&r2, b) == 0);
    CHECK(r2->num_constraints == 1 && r2->num_inputs == 1 && r2->num_aux == 0);
    fr_t w1 = FR_ONE;
    CHECK(r1cs_is_satisfied(&bad, r2, &w1) == 1);
    r1cs_free(r2);
    r1cs_free(r);
    r1cs_builder_free(b);
}

/* Duplicates merged, zeros dropped, cancellation leaves nothing. */
static void test_merge(void)
{
    r1cs_builder_t *b;
    CHECK(r1cs_builder_new(&b) == 0);
    r1cs_var_t x, y, in;
    CHECK(r1cs_alloc_aux(&x, b) == 0);
    CHECK(r1cs_alloc_aux(&y, b) == 0);
    CHECK(r1cs_alloc_input(&in, b) == 0);
    r1cs_term_t a[6] = {term(y, 2), term(x, 2), term(R1CS_ONE, 0), term(y, -2), term(x, 3), term(in, 7)};
    r1cs_term_t bb[2] = {term(x, 1), term(x, -1)};
    CHECK(r1cs_enforce(b, a, 6, bb, 2, NULL, 0) == 0);
    r1cs_t *r;
    CHECK(r1cs_builder_finish(&r, b) == 0);
    const r1cs_matrix_t *A = &r->m[R1CS_A];
    CHECK(A->nnz == 2 && A->row_ptr[1] == 2);
    CHECK(A->col[0] == 1 && A->col[1] == 2); /* in, then x (first aux) */
    fr_t seven = fr_small(7), five = fr_small(5);
    CHECK(fr_eq(&r->coeffs[A->coeff[0]], &seven));
    CHECK(fr_eq(&r->coeffs[A->coeff[1]], &five));
    CHECK(r->m[R1CS_B].nnz == 0 && r->m[R1CS_C].nnz == 0);
    /* 0 * 0 = 0 for any w. */
    fr_t w[4];
    for (int i = 0; i < 4; i++)
        test_rand_fr(&w[i]);
    w[0] = FR_ONE;
    CHECK(r1cs_is_satisfied(NULL, r, w) == 1);
    /* Coefficients are interned: 1, 7, 5 and nothing else. */
    CHECK(r->num_coeffs == 3);
    r1cs_free(r);
    r1cs_builder_free(b);
}

struct rand_lc {
    r1cs_term_t *t;
    size_t n;
};

/* A random sparse system from term lists kept for the references. */
static void test_random(uint32_t ni, uint32_t na, uint64_t m, unsigned max_terms)
{
    r1cs_builder_t *b;
    CHECK(r1cs_builder_new(&b) == 0);
    uint32_t nv = 1 + ni + na;
    /* Allocation in random order; handles[k] for column k. */
    r1cs_var_t *handles = malloc(nv * sizeof(*handles));
    handles[0] = R1CS_ONE;
    uint32_t ai = 0, ii = 0;
    while (ai < na || ii < ni) {
        int pick_input = ii < ni && (ai == na || test_rand_below(2));
        r1cs_var_t v;
        if (pick_input) {
            CHECK(r1cs_alloc_input(&v, b) == 0);
            handles[1 + ii++] = v;
        } else {
            CHECK(r1cs_alloc_aux(&v, b) == 0);
            handles[1 + ni + ai++] = v;
        }
    }
    /* A small pool of coefficients (1, small, random) with repeats. */
    fr_t pool[8];
    pool[0] = FR_ONE;
    pool[1] = fr_small(2);
    pool[2] = fr_small(-1);
    pool[3] = FR_ZERO;
    for (int i = 4; i < 8; i++)
        test_rand_fr(&pool[i]);
    struct rand_lc *lcs = calloc(3 * m, sizeof(*lcs));
    for (uint64_t i = 0; i < m; i++) {
        for (int k = 0; k < 3; k++) {
            struct rand_lc *lc = &lcs[3 * i + k];
            lc->n = test_rand_below(max_terms + 1);
            lc->t = malloc((lc->n + 2) * sizeof(r1cs_term_t));
            for (size_t j = 0; j < lc->n; j++) {
                uint32_t col = (uint32_t)test_rand_below(nv);
                lc->t[j].var = handles[col];
                if (test_rand_below(4) == 0)
                    test_rand_fr(&lc->t[j].coeff);
                else
                    lc->t[j].coeff = pool[test_rand_below(8)];
            }
            /* Sometimes a term and its negation: a column that cancels. */
            if (lc->n && test_rand_below(5) == 0) {
                lc->t[lc->n] = lc->t[0];
                fr_neg(&lc->t[lc->n].coeff, &lc->t[0].coeff);
                lc->n++;
            }
        }
        CHECK(r1cs_enforce(b, lcs[3 * i].t, lcs[3 * i].n, lcs[3 * i + 1].t, lcs[3 * i + 1].n,
                           lcs[3 * i + 2].t, lcs[3 * i + 2].n) == 0);
    }
    uint64_t nnz[3];
    for (int k = 0; k < 3; k++)
        nnz[k] = r1cs_builder_nnz(b, (enum r1cs_matrix_id)k);
    r1cs_t *r;
    CHECK(r1cs_builder_finish(&r, b) == 0);
    CHECK(r->num_inputs == 1 + ni && r->num_aux == na && r->num_constraints == m);
    for (int k = 0; k < 3; k++)
        CHECK(r->m[k].nnz == nnz[k] && r->m[k].row_ptr[m] == nnz[k]);

    /* The same system again in the reused builder with exact capacities
     * reserved (arrays handed over by finish) gives identical arrays. */
    r1cs_var_t v;
    for (uint32_t i = 0; i < ni; i++)
        CHECK(r1cs_alloc_input(&v, b) == 0);
    CHECK(r1cs_alloc_aux_n(&v, b, na) == 0);
    /* Inputs first, then aux: handles follow the columns; map them. */
    CHECK(r1cs_builder_reserve(b, m, nnz) == 0);
    r1cs_term_t *tmp = malloc((3 * max_terms + 8) * sizeof(r1cs_term_t));
    for (uint64_t i = 0; i < m; i++) {
        r1cs_term_t *lc3[3];
        size_t off = 0;
        for (int k = 0; k < 3; k++) {
            const struct rand_lc *lc = &lcs[3 * i + k];
            lc3[k] = tmp + off;
            for (size_t j = 0; j < lc->n; j++) {
                r1cs_var_t h = lc->t[j].var;
                lc3[k][j] = lc->t[j];
                if (h & R1CS_AUX_BIT)
                    lc3[k][j].var = r1cs_var_index(h, r->num_inputs) - r->num_inputs + R1CS_AUX_BIT;
                else
                    lc3[k][j].var = r1cs_var_index(h, r->num_inputs);
            }
            off += lc->n;
        }
        CHECK(r1cs_enforce(b, lc3[0], lcs[3 * i].n, lc3[1], lcs[3 * i + 1].n, lc3[2],
                           lcs[3 * i + 2].n) == 0);
    }
    free(tmp);
    r1cs_t *r2;
    CHECK(r1cs_builder_finish(&r2, b) == 0);
    r1cs_builder_free(b);
    CHECK(r2->num_constraints == m && r2->num_coeffs == r->num_coeffs);
    for (int k = 0; k < 3; k++) {
        CHECK(r2->m[k].nnz == nnz[k]);
        CHECK(memcmp(r2->m[k].row_ptr, r->m[k].row_ptr, (m + 1) * sizeof(uint64_t)) == 0);
        CHECK(nnz[k] == 0 || memcmp(r2->m[k].col, r->m[k].col, nnz[k] * sizeof(uint32_t)) == 0);
        CHECK(nnz[k] == 0 || memcmp(r2->m[k].coeff, r->m[k].coeff, nnz[k] * sizeof(uint32_t)) == 0);
    }
    CHECK(memcmp(r2->coeffs, r->coeffs, r->num_coeffs * sizeof(fr_t)) == 0);
    r1cs_free(r2);

    fr_t *w = malloc(nv * sizeof(fr_t));
    w[0] = FR_ONE;
    for (uint32_t j = 1; j < nv; j++)
        test_rand_fr(&w[j]);
    fr_t *ev[3];
    for (int k = 0; k < 3; k++)
        ev[k] = malloc((m + 1) * sizeof(fr_t));
    unsigned threads = 1 + (unsigned)test_rand_below(4);
    CHECK(r1cs_eval(ev[0], ev[1], ev[2], r, w, threads) == 0);

    /* GMP: <lc, w> from the raw terms. Column of a handle found by search
     * in handles[] (not through r1cs_var_index). */
    mpz_t acc, x, y;
    mpz_init(acc);
    mpz_init(x);
    mpz_init(y);
    unsigned long mism = 0;
    for (uint64_t i = 0; i < m; i++) {
        for (int k = 0; k < 3; k++) {
            const struct rand_lc *lc = &lcs[3 * i + k];
            mpz_set_ui(acc, 0);
            for (size_t j = 0; j < lc->n; j++) {
                uint32_t col = 0;
                while (handles[col] != lc->t[j].var)
                    col++;
                test_fr_to_mpz(x, &lc->t[j].coeff);
                test_fr_to_mpz(y, &w[col]);
                mpz_addmul(acc, x, y);
            }
            mpz_mod(acc, acc, test_r);
            test_fr_to_mpz(x, &ev[k][i]);
            mism += mpz_cmp(acc, x) != 0;
        }
    }
    CHECK(mism == 0);

    /* Partial evaluation: only b. */
    fr_t *b2 = malloc((m + 1) * sizeof(fr_t));
    CHECK(r1cs_eval(NULL, b2, NULL, r, w, 2) == 0);
    CHECK(m == 0 || memcmp(b2, ev[1], m * sizeof(fr_t)) == 0);
    free(b2);

    /* Satisfaction: set c := a * b by replacing C? Instead: a system is
     * satisfied iff a*b = c row by row; compare with the eval. */
    uint64_t first = UINT64_MAX;
    for (uint64_t i = 0; i < m && first == UINT64_MAX; i++) {
        fr_t t;
        fr_mul(&t, &ev[0][i], &ev[1][i]);
        if (!fr_eq(&t, &ev[2][i]))
            first = i;
    }
    uint64_t bad = UINT64_MAX;
    int sat = r1cs_is_satisfied(&bad, r, w);
    CHECK(sat == (first == UINT64_MAX));
    CHECK(sat == 1 || bad == first);

    /* Densities against a dense per-row accumulation of the raw terms. */
    fr_t *row = calloc(nv, sizeof(fr_t));
    uint8_t *dense[3];
    for (int k = 0; k < 3; k++) {
        dense[k] = calloc(nv, 1);
        for (uint64_t i = 0; i < m; i++) {
            const struct rand_lc *lc = &lcs[3 * i + k];
            for (size_t j = 0; j < lc->n; j++) {
                uint32_t col = 0;
                while (handles[col] != lc->t[j].var)
                    col++;
                fr_add(&row[col], &row[col], &lc->t[j].coeff);
            }
            for (uint32_t col = 0; col < nv; col++) {
                if (!fr_is_zero(&row[col]))
                    dense[k][col] = 1;
                row[col] = FR_ZERO;
            }
        }
        uint64_t *bits = malloc(r1cs_density_words(r) * sizeof(uint64_t) + 8);
        uint64_t cin = 7, caux = 7, ein = 0, eaux = 0;
        CHECK(r1cs_density(bits, &cin, &caux, r, (enum r1cs_matrix_id)k) == 0);
        unsigned long bad_bits = 0;
        for (uint32_t col = 0; col < nv; col++) {
            int got = (bits[col / 64] >> (col % 64)) & 1;
            bad_bits += got != dense[k][col];
            if (dense[k][col])
                *(col < 1 + ni ? &ein : &eaux) += 1;
        }
        CHECK(bad_bits == 0);
        CHECK(cin == ein && caux == eaux);
        /* Bits past the last variable stay clear. */
        if (nv % 64)
            CHECK((bits[nv / 64] >> (nv % 64)) == 0);
        free(bits);
        free(dense[k]);
    }
    free(row);
    mpz_clear(acc);
    mpz_clear(x);
    mpz_clear(y);
    for (int k = 0; k < 3; k++)
        free(ev[k]);
    for (uint64_t i = 0; i < 3 * m; i++)
        free(lcs[i].t);
    free(lcs);
    free(w);
    free(handles);
    r1cs_free(r);
}

static void test_bad_args(void)
{
    r1cs_builder_t *b;
    CHECK(r1cs_builder_new(NULL) == -EINVAL);
    CHECK(r1cs_builder_new(&b) == 0);
    r1cs_var_t x, in;
    CHECK(r1cs_alloc_aux(NULL, b) == -EINVAL);
    CHECK(r1cs_alloc_aux(&x, NULL) == -EINVAL);
    CHECK(r1cs_alloc_input(NULL, b) == -EINVAL);
    CHECK(r1cs_alloc_input(&in, NULL) == -EINVAL);
    CHECK(r1cs_alloc_aux_n(NULL, b, 2) == -EINVAL);
    CHECK(r1cs_alloc_aux_n(&x, b, R1CS_MAX_VARS) == 0);
    CHECK(r1cs_alloc_aux(&x, b) == -ERANGE);
    r1cs_builder_free(b);

    CHECK(r1cs_builder_new(&b) == 0);
    CHECK(r1cs_alloc_aux(&x, b) == 0);
    CHECK(r1cs_alloc_input(&in, b) == 0);
    r1cs_term_t ok = term(x, 1);
    r1cs_term_t unknown_aux = term(x + 1, 1);
    r1cs_term_t unknown_in = term(in + 1, 1);
    r1cs_term_t stray = term(0x7fffffffu, 1);
    CHECK(r1cs_enforce(b, &ok, 1, &ok, 1, &ok, 1) == 0);
    CHECK(r1cs_enforce(b, &unknown_aux, 1, &ok, 1, &ok, 1) == -EINVAL);
    CHECK(r1cs_enforce(b, &ok, 1, &unknown_in, 1, &ok, 1) == -EINVAL);
    CHECK(r1cs_enforce(b, &ok, 1, &ok, 1, &stray, 1) == -EINVAL);
    CHECK(r1cs_enforce(b, NULL, 1, &ok, 1, &ok, 1) == -EINVAL);
    CHECK(r1cs_enforce(b, &ok, 1, NULL, 2, &ok, 1) == -EINVAL);
    CHECK(r1cs_enforce(b, &ok, 1, &ok, 1, NULL, 1) == -EINVAL);
    CHECK(r1cs_enforce(NULL, &ok, 1, &ok, 1, &ok, 1) == -EINVAL);
    /* Failed calls leave the builder as it was. */
    CHECK(r1cs_builder_num_constraints(b) == 1);
    CHECK(r1cs_builder_num_constraints(NULL) == 0 && r1cs_builder_num_inputs(NULL) == 0 &&
          r1cs_builder_num_aux(NULL) == 0);
    CHECK(r1cs_builder_nnz(b, R1CS_A) == 1 && r1cs_builder_nnz(NULL, R1CS_A) == 0);
    CHECK(r1cs_builder_nnz(b, (enum r1cs_matrix_id)3) == 0);
    uint64_t res[3] = {4, 4, 4};
    CHECK(r1cs_builder_reserve(NULL, 4, res) == -EINVAL);
    CHECK(r1cs_builder_reserve(b, 4, NULL) == -EINVAL);
    CHECK(r1cs_builder_reserve(b, UINT64_MAX, res) == -ENOMEM);
    /* Less than what is there changes nothing. */
    CHECK(r1cs_builder_reserve(b, 0, (uint64_t[3]){0, 0, 0}) == 0);
    r1cs_t *r = NULL;
    CHECK(r1cs_builder_finish(NULL, b) == -EINVAL);
    CHECK(r1cs_builder_finish(&r, NULL) == -EINVAL && r == NULL);
    CHECK(r1cs_builder_finish(&r, b) == 0);
    CHECK(r->num_constraints == 1 && r->m[R1CS_A].nnz == 1);
    fr_t w[3] = {FR_ONE, FR_ONE, FR_ONE}, out[1];
    uint64_t bits[1];
    CHECK(r1cs_eval(out, out, out, NULL, w, 1) == -EINVAL);
    CHECK(r1cs_eval(out, out, out, r, NULL, 1) == -EINVAL);
    CHECK(r1cs_is_satisfied(NULL, NULL, w) == -EINVAL);
    CHECK(r1cs_is_satisfied(NULL, r, NULL) == -EINVAL);
    CHECK(r1cs_density(bits, NULL, NULL, r, (enum r1cs_matrix_id)3) == -EINVAL);
    CHECK(r1cs_density(bits, NULL, NULL, r, (enum r1cs_matrix_id)-1) == -EINVAL);
    CHECK(r1cs_density(NULL, NULL, NULL, r, R1CS_A) == -EINVAL);
    CHECK(r1cs_density(bits, NULL, NULL, NULL, R1CS_A) == -EINVAL);
    CHECK(r1cs_density(bits, NULL, NULL, r, R1CS_B) == 0);
    CHECK(bits[0] == 1u << 2); /* only x (column 2) */
    r1cs_free(r);
    r1cs_free(NULL);
    r1cs_builder_free(b);
    r1cs_builder_free(NULL);
}

int main(void)
{
    test_init("r1cs");
    test_cubic();
    test_merge();
    test_bad_args();
    test_random(0, 0, 0, 3);
    test_random(0, 1, 1, 3);
    test_random(3, 5, 17, 4);
    test_random(1 + (uint32_t)test_rand_below(10), 1 + (uint32_t)test_rand_below(200), 300, 8);
    /* More rows than one evaluation block, on several threads. */
    test_random(5, 90, 9000 + test_rand_below(1000), 5);
    CHECK(mem_live_bytes(MEM_KIND_CIRCUIT) == 0);
    CHECK(mem_bad_frees() == 0);
    return test_finish();
}
