/*
 * The NTT against independent references: a naive O(n^2) DFT for small
 * sizes, Horner evaluation at sampled points for large ones (these cross
 * the streaming/in-cache stage split), round trips, thread-count
 * independence, the Groth16 quotient identity, bad sizes and arguments,
 * and tracked-memory balance.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arith/field/bls12_381.h"
#include "prover/mem.h"
#include "prover/ntt.h"
#include "tests/common.h"

static fr_t *rand_vec(size_t n)
{
    fr_t *v = malloc(n * sizeof *v);
    if (!v)
        abort();
    for (size_t i = 0; i < n; i++)
        test_rand_fr(&v[i]);
    return v;
}

static fr_t *copy_vec(const fr_t *a, size_t n)
{
    fr_t *v = malloc(n * sizeof *v);
    if (!v)
        abort();
    memcpy(v, a, n * sizeof *v);
    return v;
}

static bool vec_eq(const fr_t *a, const fr_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!fr_eq(&a[i], &b[i]))
            return false;
    return true;
}

/* sum_j a_j x^j (Horner). */
static void poly_eval(fr_t *ret, const fr_t *a, size_t n, const fr_t *x)
{
    fr_t acc = FR_ZERO;
    for (size_t j = n; j-- > 0;) {
        fr_mul(&acc, &acc, x);
        fr_add(&acc, &acc, &a[j]);
    }
    *ret = acc;
}

static void pow_u64(fr_t *ret, const fr_t *a, uint64_t e)
{
    fr_pow(ret, a, &e, 1);
}

/* The primitive n-th root computed independently of fr_root_of_unity:
 * 7^((r-1)/n), checked to have order exactly n. */
static void root_ref(fr_t *ret, unsigned log_n)
{
    mpz_t e;
    mpz_init(e);
    mpz_sub_ui(e, test_r, 1);
    mpz_tdiv_q_2exp(e, e, log_n);
    uint64_t limbs[4] = {0};
    mpz_export(limbs, NULL, -1, 8, 0, 0, e);
    fr_t g;
    fr_from_u64(&g, BLS12_381_R_GENERATOR);
    fr_pow(ret, &g, limbs, 4);
    mpz_clear(e);
    fr_t t = *ret;
    for (unsigned i = 0; i < log_n; i++) {
        CHECK(!fr_is_one(&t)); /* order exactly 2^log_n, not smaller */
        fr_sqr(&t, &t);
    }
    CHECK(fr_is_one(&t));
}

/* out[i] = c * sum_j a_j (s w^i)^j: the naive DFT, evaluation at s w^i. */
static void naive_dft(fr_t *out, const fr_t *a, size_t n, const fr_t *w, const fr_t *s,
                      const fr_t *c)
{
    fr_t x = *s;
    for (size_t i = 0; i < n; i++) {
        poly_eval(&out[i], a, n, &x);
        fr_mul(&out[i], &out[i], c);
        fr_mul(&x, &x, w);
    }
}

/* Small sizes: all four transforms against the naive DFT. The domain's
 * root must be a primitive root; the transform matches only if it equals
 * the reference root, which test the consistency of the whole chain. */
static void test_naive(void)
{
    static const size_t sizes[] = {1, 2, 4, 8, 64, 256};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        unsigned log_n = (unsigned)__builtin_ctzll(n);
        ntt_domain_t d;
        if (!CHECK(ntt_domain_init(&d, n, NTT_DOMAIN_TWIDDLES, 1, 2) == 0))
            continue;
        fr_t w, winv, g, ginv, ninv, one = FR_ONE;
        root_ref(&w, log_n);
        CHECK(fr_eq(&w, &d.root));
        fr_inv(&winv, &w);
        fr_from_u64(&g, 7);
        fr_inv(&ginv, &g);
        fr_from_u64(&ninv, n);
        fr_inv(&ninv, &ninv);

        fr_t *a = rand_vec(n), *x = copy_vec(a, n), *ref = malloc(n * sizeof *ref);
        if (!ref)
            abort();
        naive_dft(ref, a, n, &w, &one, &one);
        CHECK(ntt_forward(&d, x, 1) == 0);
        CHECK(vec_eq(x, ref, n));

        memcpy(x, a, n * sizeof *x);
        naive_dft(ref, a, n, &winv, &one, &ninv);
        CHECK(ntt_inverse(&d, x, 2) == 0);
        CHECK(vec_eq(x, ref, n));

        memcpy(x, a, n * sizeof *x);
        naive_dft(ref, a, n, &w, &g, &one);
        CHECK(ntt_coset_forward(&d, x, 2) == 0);
        CHECK(vec_eq(x, ref, n));

        /* coset inverse: coefficients c with c(g w^i) = a_i, i.e.
         * c_j = g^-j / n sum_i a_i w^-ij */
        memcpy(x, a, n * sizeof *x);
        naive_dft(ref, a, n, &winv, &one, &ninv);
        fr_t p = FR_ONE;
        for (size_t j = 0; j < n; j++) {
            fr_mul(&ref[j], &ref[j], &p);
            fr_mul(&p, &p, &ginv);
        }
        CHECK(ntt_coset_inverse(&d, x, 1) == 0);
        CHECK(vec_eq(x, ref, n));
        free(a);
        free(x);
        free(ref);
        ntt_domain_free(&d);
    }
}

/* Larger sizes: forward and coset forward at sampled indices against
 * Horner evaluation; inverse and coset round trips; flags and thread
 * counts give identical results. */
static void test_large(size_t n)
{
    ntt_domain_t d, dt;
    if (!CHECK(ntt_domain_init(&d, n, 0, -1, -1) == 0))
        return;
    if (!CHECK(ntt_domain_init(&dt, n, NTT_DOMAIN_TWIDDLES, -1, -1) == 0)) {
        ntt_domain_free(&d);
        return;
    }
    fr_t *a = rand_vec(n), *x = copy_vec(a, n), *y = copy_vec(a, n);
    CHECK(ntt_forward(&d, x, 1) == 0);
    CHECK(ntt_forward(&dt, y, 2) == 0);
    CHECK(vec_eq(x, y, n));
    for (int s = 0; s < 12; s++) {
        size_t i = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)test_rand_below(n);
        fr_t pt, v;
        pow_u64(&pt, &d.root, i);
        poly_eval(&v, a, n, &pt);
        CHECK(fr_eq(&v, &x[i]));
    }
    CHECK(ntt_inverse(&dt, x, 1) == 0);
    CHECK(vec_eq(x, a, n));
    CHECK(ntt_inverse(&d, y, 2) == 0);
    CHECK(vec_eq(y, a, n));

    memcpy(x, a, n * sizeof *x);
    memcpy(y, a, n * sizeof *y);
    CHECK(ntt_coset_forward(&dt, x, 2) == 0);
    CHECK(ntt_coset_forward(&d, y, 1) == 0);
    CHECK(vec_eq(x, y, n));
    for (int s = 0; s < 12; s++) {
        size_t i = s == 0 ? 0 : s == 1 ? n - 1 : (size_t)test_rand_below(n);
        fr_t pt, v, g;
        fr_from_u64(&g, 7);
        pow_u64(&pt, &d.root, i);
        fr_mul(&pt, &pt, &g);
        poly_eval(&v, a, n, &pt);
        CHECK(fr_eq(&v, &x[i]));
    }
    CHECK(ntt_coset_inverse(&d, x, 2) == 0);
    CHECK(vec_eq(x, a, n));
    CHECK(ntt_coset_inverse(&dt, y, 1) == 0);
    CHECK(vec_eq(y, a, n));
    free(a);
    free(x);
    free(y);
    ntt_domain_free(&d);
    ntt_domain_free(&dt);
}

/* The Groth16 flow: for evaluations a, b on H and c = a*b, the quotient
 * h = (A B - C) / Z computed on the coset satisfies
 * A(x) B(x) - C(x) = h(x) (x^n - 1) at a random x. */
static void test_quotient(size_t n)
{
    ntt_domain_t d;
    if (!CHECK(ntt_domain_init(&d, n, NTT_DOMAIN_TWIDDLES, 0, 0) == 0))
        return;
    fr_t *a = rand_vec(n), *b = rand_vec(n), *c = malloc(n * sizeof *c);
    if (!c)
        abort();
    for (size_t i = 0; i < n; i++)
        fr_mul(&c[i], &a[i], &b[i]);
    CHECK(ntt_inverse(&d, a, 2) == 0);
    CHECK(ntt_inverse(&d, b, 2) == 0);
    CHECK(ntt_inverse(&d, c, 2) == 0);
    fr_t *ea = copy_vec(a, n), *eb = copy_vec(b, n), *ec = copy_vec(c, n);
    CHECK(ntt_coset_forward(&d, ea, 2) == 0);
    CHECK(ntt_coset_forward(&d, eb, 2) == 0);
    CHECK(ntt_coset_forward(&d, ec, 2) == 0);
    /* the pointwise step by hand, and through the helper in two steps */
    fr_t *ref = malloc(n * sizeof *ref);
    if (!ref)
        abort();
    for (size_t i = 0; i < n; i++) {
        fr_mul(&ref[i], &ea[i], &eb[i]);
        fr_sub(&ref[i], &ref[i], &ec[i]);
        fr_mul(&ref[i], &ref[i], &d.z_coset_inv);
    }
    CHECK(ntt_pointwise_mul_sub(ea, eb, NULL, NULL, n, 2) == 0);
    CHECK(ntt_pointwise_mul_sub(ea, NULL, ec, &d.z_coset_inv, n, 1) == 0);
    CHECK(vec_eq(ea, ref, n));
    free(ref);
    CHECK(ntt_coset_inverse(&d, ea, 2) == 0);
    /* deg h <= n - 2 */
    CHECK(fr_is_zero(&ea[n - 1]));
    fr_t x, va, vb, vc, vh, z, lhs, rhs;
    test_rand_fr(&x);
    poly_eval(&va, a, n, &x);
    poly_eval(&vb, b, n, &x);
    poly_eval(&vc, c, n, &x);
    poly_eval(&vh, ea, n, &x);
    pow_u64(&z, &x, n);
    fr_sub(&z, &z, &FR_ONE);
    fr_mul(&lhs, &va, &vb);
    fr_sub(&lhs, &lhs, &vc);
    fr_mul(&rhs, &vh, &z);
    CHECK(fr_eq(&lhs, &rhs));
    free(a);
    free(b);
    free(c);
    free(ea);
    free(eb);
    free(ec);
    ntt_domain_free(&d);
}

static void test_bad_input(void)
{
    ntt_domain_t d;
    memset(&d, 0x5a, sizeof d);
    ntt_domain_t before = d;
    static const size_t bad[] = {0, 3, 6, 12, 1000, ((size_t)1 << 27) + 1,
                                 (size_t)1 << 28, (size_t)1 << 40, SIZE_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(ntt_domain_init(&d, bad[i], 0, -1, -1) == -EINVAL);
    CHECK(ntt_domain_init(&d, 16, 1u << 7, -1, -1) == -EINVAL);
    CHECK(ntt_domain_init(NULL, 16, 0, -1, -1) == -EINVAL);
    CHECK(memcmp(&d, &before, sizeof d) == 0);

    /* the largest size is accepted (without the big table it costs one
     * block of local twiddles) */
    CHECK(ntt_domain_init(&d, (size_t)1 << NTT_MAX_LOG, 0, -1, -1) == 0);
    CHECK(d.log_n == NTT_MAX_LOG && d.twiddles == NULL);
    ntt_domain_free(&d);
    ntt_domain_free(&d); /* a freed domain may be freed again */
    ntt_domain_free(NULL);

    fr_t v[4] = {FR_ONE, FR_ONE, FR_ONE, FR_ONE};
    CHECK(ntt_domain_init(&d, 4, 0, -1, -1) == 0);
    CHECK(ntt_forward(NULL, v, 1) == -EINVAL);
    CHECK(ntt_forward(&d, NULL, 1) == -EINVAL);
    CHECK(ntt_inverse(NULL, v, 1) == -EINVAL);
    CHECK(ntt_inverse(&d, NULL, 1) == -EINVAL);
    CHECK(ntt_coset_forward(NULL, v, 1) == -EINVAL);
    CHECK(ntt_coset_forward(&d, NULL, 1) == -EINVAL);
    CHECK(ntt_coset_inverse(NULL, v, 1) == -EINVAL);
    CHECK(ntt_coset_inverse(&d, NULL, 1) == -EINVAL);
    ntt_domain_free(&d);
    /* a freed domain is rejected rather than used */
    CHECK(ntt_forward(&d, v, 1) == -EINVAL);

    /* pointwise: a NULL a is refused unless n = 0; all-NULL is a no-op */
    CHECK(ntt_pointwise_mul_sub(NULL, v, v, v, 4, 1) == -EINVAL);
    CHECK(ntt_pointwise_mul_sub(NULL, NULL, NULL, NULL, 0, 1) == 0);
    fr_t two;
    fr_from_u64(&two, 2);
    CHECK(ntt_pointwise_mul_sub(v, NULL, NULL, NULL, 4, 1) == 0);
    CHECK(fr_is_one(&v[3]));
    /* aliasing: a = (a a - a) 2 = 0 for a = 1 */
    CHECK(ntt_pointwise_mul_sub(v, v, v, &two, 4, 2) == 0);
    CHECK(fr_is_zero(&v[0]) && fr_is_zero(&v[3]));
}

int main(void)
{
    test_init("test_ntt");
    uint64_t allocs0, frees0;
    mem_counts(&allocs0, &frees0);
    uint64_t live0 = mem_live_bytes(MEM_KIND_NTT);

    test_naive();
    test_large((size_t)1 << 10);
    test_large((size_t)1 << 13); /* one streaming stage */
    test_large((size_t)1 << 14); /* one streaming pair */
    test_large((size_t)1 << 16);
    test_quotient(64);
    test_quotient((size_t)1 << 13);
    test_bad_input();

    uint64_t allocs1, frees1;
    mem_counts(&allocs1, &frees1);
    CHECK(allocs1 - allocs0 == frees1 - frees0);
    CHECK(allocs1 > allocs0);
    CHECK(mem_live_bytes(MEM_KIND_NTT) == live0);
    CHECK(mem_bad_frees() == 0);
    return test_finish();
}
