/*
 * Fp and Fr against GMP: every operation on thousands of fresh random inputs
 * plus the edge values 0, 1, m-1, and the Montgomery round trip. The two
 * fields go through one table of operations so both get the same checks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    test_init("test_field");
    struct field fields[2] = {FIELD(fp, 6), FIELD(fr, 4)};
    fields[0].mod = &test_p;
    fields[1].mod = &test_r;
    for (int i = 0; i < 2; i++)
        test_field(&fields[i]);

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
