/*
 * Fp and Fr against GMP: every operation on thousands of fresh random inputs
 * plus the edge values 0, 1, m-1, and the Montgomery round trip. The two
 * fields go through one table of operations so both get the same checks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arith/field/bls12_381.h"
#include "arith/field/mont.h"
#include "arith/field/mont_asm.h"
#include "tests/common.h"

#define ROUNDS 4000

/* One field seen through fixed-size byte buffers, so one test body serves
 * both Fp and Fr. */
struct field {
    const char *name;
    size_t limbs;
    mpz_t *mod;
    void (*rand)(void *);
    void (*to_mpz)(mpz_t, const void *);
    void (*from_mpz)(void *, const mpz_t);
    void (*add)(void *, const void *, const void *);
    void (*sub)(void *, const void *, const void *);
    void (*mul)(void *, const void *, const void *);
    void (*sqr)(void *, const void *);
    void (*neg)(void *, const void *);
    void (*dbl)(void *, const void *);
    void (*inv)(void *, const void *);
    bool (*sqrt)(void *, const void *);
    void (*batch_inv)(void *, const void *, size_t);
    int (*from_limbs)(void *, const uint64_t *);
    void (*to_limbs)(uint64_t *, const void *);
    int (*from_bytes)(void *, const uint8_t *);
    void (*to_bytes)(uint8_t *, const void *);
};

#define WRAP(F, T)                                                             \
    static void F##_rand_v(void *r) { test_rand_##F((T *)r); }                 \
    static void F##_to_mpz_v(mpz_t o, const void *a) { test_##F##_to_mpz(o, a); } \
    static void F##_from_mpz_v(void *r, const mpz_t v) { test_##F##_from_mpz(r, v); } \
    static void F##_add_v(void *r, const void *a, const void *b) { F##_add(r, a, b); } \
    static void F##_sub_v(void *r, const void *a, const void *b) { F##_sub(r, a, b); } \
    static void F##_mul_v(void *r, const void *a, const void *b) { F##_mul(r, a, b); } \
    static void F##_sqr_v(void *r, const void *a) { F##_sqr(r, a); }          \
    static void F##_neg_v(void *r, const void *a) { F##_neg(r, a); }          \
    static void F##_dbl_v(void *r, const void *a) { F##_dbl(r, a); }          \
    static void F##_inv_v(void *r, const void *a) { F##_inv(r, a); }          \
    static bool F##_sqrt_v(void *r, const void *a) { return F##_sqrt(r, a); } \
    static void F##_batch_inv_v(void *r, const void *a, size_t n) { F##_batch_inv(r, a, n); } \
    static int F##_from_limbs_v(void *r, const uint64_t *v) { return F##_from_limbs(r, v); } \
    static void F##_to_limbs_v(uint64_t *o, const void *a) { F##_to_limbs(o, a); } \
    static int F##_from_bytes_v(void *r, const uint8_t *b) { return F##_from_bytes_be(r, b); } \
    static void F##_to_bytes_v(uint8_t *o, const void *a) { F##_to_bytes_be(o, a); }

WRAP(fp, fp_t)
WRAP(fr, fr_t)

#define FIELD(F, N)                                                            \
    {#F, N, NULL, F##_rand_v, F##_to_mpz_v, F##_from_mpz_v, F##_add_v,        \
     F##_sub_v, F##_mul_v, F##_sqr_v, F##_neg_v, F##_dbl_v, F##_inv_v,       \
     F##_sqrt_v, F##_batch_inv_v, F##_from_limbs_v, F##_to_limbs_v,           \
     F##_from_bytes_v, F##_to_bytes_v}

typedef struct {
    uint64_t l[6];
} elem_t; /* large enough for either field */

static void check_binary(const struct field *f, const elem_t *a, const elem_t *b)
{
    mpz_t x, y, want, got;
    mpz_inits(x, y, want, got, NULL);
    f->to_mpz(x, a);
    f->to_mpz(y, b);
    elem_t r;

    f->add(&r, a, b);
    mpz_add(want, x, y);
    mpz_mod(want, want, *f->mod);
    f->to_mpz(got, &r);
    CHECK(mpz_cmp(want, got) == 0);

    f->sub(&r, a, b);
    mpz_sub(want, x, y);
    mpz_mod(want, want, *f->mod);
    f->to_mpz(got, &r);
    CHECK(mpz_cmp(want, got) == 0);

    f->mul(&r, a, b);
    mpz_mul(want, x, y);
    mpz_mod(want, want, *f->mod);
    f->to_mpz(got, &r);
    CHECK(mpz_cmp(want, got) == 0);

    mpz_clears(x, y, want, got, NULL);
}

static void check_unary(const struct field *f, const elem_t *a)
{
    mpz_t x, want, got;
    mpz_inits(x, want, got, NULL);
    f->to_mpz(x, a);
    elem_t r;

    f->sqr(&r, a);
    mpz_mul(want, x, x);
    mpz_mod(want, want, *f->mod);
    f->to_mpz(got, &r);
    CHECK(mpz_cmp(want, got) == 0);

    f->neg(&r, a);
    mpz_neg(want, x);
    mpz_mod(want, want, *f->mod);
    f->to_mpz(got, &r);
    CHECK(mpz_cmp(want, got) == 0);

    f->dbl(&r, a);
    mpz_add(want, x, x);
    mpz_mod(want, want, *f->mod);
    f->to_mpz(got, &r);
    CHECK(mpz_cmp(want, got) == 0);

    f->inv(&r, a);
    f->to_mpz(got, &r);
    if (mpz_sgn(x) == 0) {
        CHECK(mpz_sgn(got) == 0);
    } else {
        CHECK(mpz_invert(want, x, *f->mod) != 0);
        CHECK(mpz_cmp(want, got) == 0);
    }

    /* sqrt: exists exactly when the Legendre symbol is not -1, and squares
     * back to a. */
    elem_t s;
    memset(&s, 0xa5, sizeof s);
    bool ok = f->sqrt(&s, a);
    int legendre = mpz_legendre(x, *f->mod);
    CHECK(ok == (legendre != -1));
    if (ok) {
        f->to_mpz(got, &s);
        mpz_mul(want, got, got);
        mpz_mod(want, want, *f->mod);
        CHECK(mpz_cmp(want, x) == 0);
    }

    /* Montgomery round trip through canonical limbs and bytes. */
    uint64_t limbs[6] = {0};
    f->to_limbs(limbs, a);
    mpz_import(got, f->limbs, -1, 8, 0, 0, limbs);
    CHECK(mpz_cmp(got, x) == 0);
    elem_t back;
    CHECK(f->from_limbs(&back, limbs) == 0);
    CHECK(memcmp(&back, a, f->limbs * 8) == 0);
    uint8_t bytes[48];
    f->to_bytes(bytes, a);
    mpz_import(got, f->limbs * 8, 1, 1, 0, 0, bytes);
    CHECK(mpz_cmp(got, x) == 0);
    CHECK(f->from_bytes(&back, bytes) == 0);
    CHECK(memcmp(&back, a, f->limbs * 8) == 0);

    mpz_clears(x, want, got, NULL);
}

static void test_field(const struct field *f)
{
    /* Edge values: 0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2. */
    enum { EDGES = 7 };
    elem_t edge[EDGES];
    mpz_t v;
    mpz_init(v);
    const long offsets[EDGES] = {0, 1, 2, -1, -2};
    for (int i = 0; i < 5; i++) {
        mpz_set_si(v, offsets[i]);
        mpz_mod(v, v, *f->mod);
        f->from_mpz(&edge[i], v);
    }
    mpz_sub_ui(v, *f->mod, 1);
    mpz_fdiv_q_2exp(v, v, 1);
    f->from_mpz(&edge[5], v);
    mpz_add_ui(v, v, 1);
    f->from_mpz(&edge[6], v);
    for (int i = 0; i < EDGES; i++) {
        check_unary(f, &edge[i]);
        for (int j = 0; j < EDGES; j++)
            check_binary(f, &edge[i], &edge[j]);
    }

    for (int i = 0; i < ROUNDS; i++) {
        elem_t a, b;
        f->rand(&a);
        f->rand(&b);
        check_binary(f, &a, &b);
        check_unary(f, &a);
        /* random against edges */
        check_binary(f, &a, &edge[i % EDGES]);
    }

    /* Values >= m are rejected, as limbs and as bytes; ret untouched. */
    uint64_t big[6] = {0};
    mpz_export(big, NULL, -1, 8, 0, 0, *f->mod);
    elem_t r;
    memset(&r, 0x5a, sizeof r);
    elem_t before = r;
    CHECK(f->from_limbs(&r, big) == -EINVAL);
    CHECK(memcmp(&r, &before, sizeof r) == 0);
    uint8_t bytes[48] = {0};
    memset(bytes, 0xff, f->limbs * 8);
    CHECK(f->from_bytes(&r, bytes) == -EINVAL);

    /* Batch inversion with zeros sprinkled in. */
    enum { BATCH = 37 };
    elem_t in[BATCH], out[BATCH], one_by_one;
    for (int i = 0; i < BATCH; i++) {
        if (i % 5 == 2)
            memset(&in[i], 0, sizeof in[i]);
        else
            f->rand(&in[i]);
    }
    /* elements are stored with stride limbs*8 bytes: pack them */
    uint8_t packed_in[BATCH * 48], packed_out[BATCH * 48];
    for (int i = 0; i < BATCH; i++)
        memcpy(packed_in + i * f->limbs * 8, &in[i], f->limbs * 8);
    f->batch_inv(packed_out, packed_in, BATCH);
    for (int i = 0; i < BATCH; i++) {
        memcpy(&out[i], packed_out + i * f->limbs * 8, f->limbs * 8);
        f->inv(&one_by_one, &in[i]);
        CHECK(memcmp(&out[i], &one_by_one, f->limbs * 8) == 0);
    }
    f->batch_inv(packed_out, packed_in, 0); /* empty: no effect, no crash */
    mpz_clear(v);
}

/* When fp.c and fr.c use the assembly of mont_x86_64.S, the portable C of
 * mont.h is still what other machines run: compare the two on random and
 * edge inputs, so both paths stay checked (the C path against GMP through
 * the assembly). */
static void test_asm_matches_c(void)
{
#if MONT_HAVE_X86_ASM
    static const uint64_t edges6[][6] = {
        {0}, {1}, {BLS12_381_P_R(BLS12_381_U64)},
        {0xb9feffffffffaaaaull, 0x1eabfffeb153ffffull, 0x6730d2a0f6b0f624ull,
         0x64774b84f38512bfull, 0x4b1ba7b6434bacd7ull, 0x1a0111ea397fe69aull},
    };
    static const uint64_t edges4[][4] = {
        {0}, {1}, {BLS12_381_R_R(BLS12_381_U64)},
        {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
         0x73eda753299d7d48ull},
    };
    enum { E = 4 };
    for (int i = 0; i < ROUNDS + E * E; i++) {
        fp_t a, b;
        fr_t x, y;
        if (i < E * E) {
            memcpy(a.l, edges6[i / E], sizeof a.l);
            memcpy(b.l, edges6[i % E], sizeof b.l);
            memcpy(x.l, edges4[i / E], sizeof x.l);
            memcpy(y.l, edges4[i % E], sizeof y.l);
        } else {
            test_rand_fp(&a);
            test_rand_fp(&b);
            test_rand_fr(&x);
            test_rand_fr(&y);
        }
        uint64_t c[6], s[6];
        mont_mul(c, a.l, b.l, FP_MODULUS, BLS12_381_P_INV64, 6);
        mont_mul_384_x86(s, a.l, b.l, FP_MODULUS, BLS12_381_P_INV64);
        CHECK(memcmp(c, s, 48) == 0);
        mont_mul(c, a.l, a.l, FP_MODULUS, BLS12_381_P_INV64, 6);
        mont_sqr_384_x86(s, a.l, FP_MODULUS, BLS12_381_P_INV64);
        CHECK(memcmp(c, s, 48) == 0);
        mont_add(c, a.l, b.l, FP_MODULUS, 6);
        mont_add_384_x86(s, a.l, b.l, FP_MODULUS);
        CHECK(memcmp(c, s, 48) == 0);
        mont_sub(c, a.l, b.l, FP_MODULUS, 6);
        mont_sub_384_x86(s, a.l, b.l, FP_MODULUS);
        CHECK(memcmp(c, s, 48) == 0);

        mont_mul(c, x.l, y.l, FR_MODULUS, BLS12_381_R_INV64, 4);
        mont_mul_256_x86(s, x.l, y.l, FR_MODULUS, BLS12_381_R_INV64);
        CHECK(memcmp(c, s, 32) == 0);
        mont_mul(c, x.l, x.l, FR_MODULUS, BLS12_381_R_INV64, 4);
        mont_sqr_256_x86(s, x.l, FR_MODULUS, BLS12_381_R_INV64);
        CHECK(memcmp(c, s, 32) == 0);
        mont_add(c, x.l, y.l, FR_MODULUS, 4);
        mont_add_256_x86(s, x.l, y.l, FR_MODULUS);
        CHECK(memcmp(c, s, 32) == 0);
        mont_sub(c, x.l, y.l, FR_MODULUS, 4);
        mont_sub_256_x86(s, x.l, y.l, FR_MODULUS);
        CHECK(memcmp(c, s, 32) == 0);
    }

    /* The lazy-reduction pieces against GMP: the 768-bit product, the
     * reduction t 2^-384 mod p for t up to p 2^384 - 1, and the 768-bit
     * difference kept below p 2^384. */
    mpz_t x, y, want, got, bound;
    mpz_inits(x, y, want, got, bound, NULL);
    mpz_mul_2exp(bound, test_p, 384); /* p 2^384 */
    for (int i = 0; i < ROUNDS; i++) {
        uint64_t a[6], b[6], t[12], u[12], r[12], w[12];
        fp_t fa, fb;
        test_rand_fp(&fa);
        test_rand_fp(&fb);
        if (i < 4) { /* edges: 0, 1, p - 1 */
            memcpy(a, edges6[i], sizeof a);
            memcpy(b, edges6[3 - i], sizeof b);
        } else {
            memcpy(a, fa.l, sizeof a);
            memcpy(b, fb.l, sizeof b);
        }
        mont_mul_384x384_x86(t, a, b);
        mpz_import(x, 6, -1, 8, 0, 0, a);
        mpz_import(y, 6, -1, 8, 0, 0, b);
        mpz_mul(want, x, y);
        mpz_import(got, 12, -1, 8, 0, 0, t);
        CHECK(mpz_cmp(want, got) == 0);

        /* t below p 2^384: random, and the largest value at i = 4 */
        for (int k = 0; k < 12; k++)
            u[k] = test_rand_u64();
        mpz_import(x, 12, -1, 8, 0, 0, u);
        mpz_mod(x, x, bound);
        if (i == 4)
            mpz_sub_ui(x, bound, 1);
        memset(u, 0, sizeof u);
        mpz_export(u, NULL, -1, 8, 0, 0, x);
        uint64_t red[6];
        mont_redc_768_x86(red, u, FP_MODULUS, BLS12_381_P_INV64);
        mpz_import(got, 6, -1, 8, 0, 0, red);
        mpz_set_ui(want, 1);
        mpz_mul_2exp(want, want, 384);
        CHECK(mpz_invert(want, want, test_p) != 0);
        mpz_mul(want, want, x);
        mpz_mod(want, want, test_p);
        CHECK(mpz_cmp(want, got) == 0);

        /* u - t (either order), also in place */
        mont_sub_768_x86(r, u, t, FP_MODULUS);
        memcpy(w, t, sizeof w);
        mont_sub_768_x86(w, w, u, FP_MODULUS);
        mpz_import(y, 12, -1, 8, 0, 0, t);
        mpz_sub(want, x, y);
        mpz_import(got, 12, -1, 8, 0, 0, r);
        CHECK(mpz_cmp(got, bound) < 0);
        if (mpz_sgn(want) < 0)
            mpz_add(want, want, bound);
        CHECK(mpz_cmp(want, got) == 0);
        mpz_sub(want, y, x);
        mpz_import(got, 12, -1, 8, 0, 0, w);
        CHECK(mpz_cmp(got, bound) < 0);
        if (mpz_sgn(want) < 0)
            mpz_add(want, want, bound);
        CHECK(mpz_cmp(want, got) == 0);
    }
    mpz_clears(x, y, want, got, bound, NULL);
#endif
}

int main(void)
{
    test_init("test_field");
    struct field fields[2] = {FIELD(fp, 6), FIELD(fr, 4)};
    fields[0].mod = &test_p;
    fields[1].mod = &test_r;
    for (int i = 0; i < 2; i++)
        test_field(&fields[i]);
    test_asm_matches_c();

    /* Fr roots of unity: w_n has order exactly n. */
    for (unsigned log_n = 0; log_n <= 32; log_n++) {
        fr_t w, t;
        CHECK(fr_root_of_unity(&w, log_n) == 0);
        t = w;
        for (unsigned i = 0; i < log_n; i++)
            fr_sqr(&t, &t);
        CHECK(fr_is_one(&t));
        if (log_n > 0) {
            t = w;
            for (unsigned i = 0; i + 1 < log_n; i++)
                fr_sqr(&t, &t);
            CHECK(!fr_is_one(&t));
        }
    }
    fr_t w;
    CHECK(fr_root_of_unity(&w, 33) == -EINVAL);
    return test_finish();
}
