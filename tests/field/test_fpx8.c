/*
 * The 8-way Fp and Fp2 of arith/field/fpx8.h and fp2x8.h against GMP:
 * every operation on fresh random inputs, canonical (below p) and lazy
 * (p .. 2p), with edge values 0, 1, p - 1, p, 2^381 - 1, 2^381, 2p - 1 in
 * every lane position; the conversions from and to fp_t, gathers and
 * scatters. Exits 77 (skipped) on a CPU without AVX-512 IFMA.
 */
#include <stdlib.h>
#include <string.h>

#include "arith/field/fp2x8.h"
#include "tests/common.h"

#if FPX8_HAVE

#define ROUNDS 3000

static mpz_t r_inv; /* 2^-384 mod p */

/* Lane k of a as an integer (limbs may be any 64-bit value). */
FPX8_TARGET static void lane_to_mpz(mpz_t out, const fpx8_t *a, int k)
{
    mpz_set_ui(out, 0);
    for (int i = 7; i >= 0; i--) {
        uint64_t v[8];
        _mm512_storeu_si512((void *)v, a->l[i]);
        mpz_mul_2exp(out, out, 52);
        mpz_add_ui(out, out, v[k]);
    }
}

FPX8_TARGET static bool limbs_normal(const fpx8_t *a)
{
    for (int i = 0; i < 8; i++) {
        uint64_t v[8];
        _mm512_storeu_si512((void *)v, a->l[i]);
        for (int k = 0; k < 8; k++)
            if (v[k] >> 52)
                return false;
    }
    return true;
}

/* Lanes from 8 integers below 2^384, through the 64-bit conversion. */
FPX8_TARGET static void load(fpx8_t *ret, mpz_t *const x)
{
    uint64_t w[6][8];
    memset(w, 0, sizeof w);
    for (int k = 0; k < 8; k++) {
        size_t cnt;
        uint64_t tmp[6] = {0};
        mpz_export(tmp, &cnt, -1, 8, 0, 0, x[k]);
        for (int j = 0; j < 6; j++)
            w[j][k] = tmp[j];
    }
    __m512i v[6];
    for (int j = 0; j < 6; j++)
        v[j] = _mm512_loadu_si512((const void *)w[j]);
    fpx8_from_w64(ret, v);
}

/* A value below 2p: an edge value (0, 1, p - 1, p, 2^381 - 1, 2^381,
 * 2p - 1), a canonical one or a lazy one (canonical + p). */
FPX8_TARGET static void rand_input(mpz_t out)
{
    uint64_t kind = test_rand_below(10);
    if (kind < 3) {
        switch (test_rand_below(7)) {
        case 0: mpz_set_ui(out, 0); break;
        case 1: mpz_set_ui(out, 1); break;
        case 2: mpz_sub_ui(out, test_p, 1); break;
        case 3: mpz_set(out, test_p); break;
        case 4: mpz_ui_pow_ui(out, 2, 381); mpz_sub_ui(out, out, 1); break;
        case 5: mpz_ui_pow_ui(out, 2, 381); break;
        default: mpz_mul_2exp(out, test_p, 1); mpz_sub_ui(out, out, 1); break;
        }
        return;
    }
    fp_t a;
    test_rand_fp(&a);
    test_fp_to_mpz(out, &a);
    if (kind >= 7)
        mpz_add(out, out, test_p);
}

/* Lane by lane: got = want mod p, got < bound (in units of p), limbs < 2^52. */
FPX8_TARGET static void expect(const fpx8_t *got, mpz_t *const want, unsigned bound, const char *op)
{
    mpz_t g, lim;
    mpz_inits(g, lim, NULL);
    mpz_mul_ui(lim, test_p, bound);
    CHECK(limbs_normal(got));
    for (int k = 0; k < 8; k++) {
        lane_to_mpz(g, got, k);
        bool ok = mpz_cmp(g, lim) < 0;
        mpz_mod(g, g, test_p);
        mpz_mod(want[k], want[k], test_p);
        if (!CHECK(ok && mpz_cmp(g, want[k]) == 0))
            fprintf(stderr, "  %s lane %d\n", op, k);
    }
    mpz_clears(g, lim, NULL);
}

FPX8_TARGET static void check_ops(void)
{
    mpz_t x[8], y[8], w[8];
    for (int k = 0; k < 8; k++)
        mpz_inits(x[k], y[k], w[k], NULL);
    fpx8_t p1, p2, a, b, r;
    fpx8_kp(&p1, 1);
    fpx8_kp(&p2, 2);
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < 8; k++) {
            rand_input(x[k]);
            rand_input(y[k]);
        }
        load(&a, x);
        load(&b, y);

        fpx8_mul(&r, &a, &b);
        for (int k = 0; k < 8; k++) {
            mpz_mul(w[k], x[k], y[k]);
            mpz_mul(w[k], w[k], r_inv);
        }
        expect(&r, w, 2, "mul");

        fpx8_mul(&r, &a, &a);
        for (int k = 0; k < 8; k++) {
            mpz_mul(w[k], x[k], x[k]);
            mpz_mul(w[k], w[k], r_inv);
        }
        expect(&r, w, 2, "sqr");

        fpx8_add(&r, &a, &b, &p2);
        for (int k = 0; k < 8; k++)
            mpz_add(w[k], x[k], y[k]);
        expect(&r, w, 2, "add");

        fpx8_sub(&r, &a, &b, &p2);
        for (int k = 0; k < 8; k++)
            mpz_sub(w[k], x[k], y[k]);
        expect(&r, w, 2, "sub");

        fpx8_canon(&r, &a, &p1);
        for (int k = 0; k < 8; k++)
            mpz_set(w[k], x[k]);
        expect(&r, w, 1, "canon");

        fpx8_add_lazy(&r, &a, &b);
        for (int k = 0; k < 8; k++)
            mpz_add(w[k], x[k], y[k]);
        expect(&r, w, 4, "add_lazy");
        fpx8_canon4(&r, &r, &p1, &p2);
        expect(&r, w, 1, "canon4 of a sum");

        fpx8_sub_lazy(&r, &a, &b, &p2);
        for (int k = 0; k < 8; k++)
            mpz_sub(w[k], x[k], y[k]);
        expect(&r, w, 4, "sub_lazy");
        fpx8_canon4(&r, &r, &p1, &p2);
        expect(&r, w, 1, "canon4 of a difference");
    }
    for (int k = 0; k < 8; k++)
        mpz_clears(x[k], y[k], w[k], NULL);
}

/* Fp2 = Fp[u]/(u^2 + 1): (x0 + x1 u)(y0 + y1 u) = (x0 y0 - x1 y1) +
 * (x0 y1 + x1 y0) u, each component times 2^-384; components below 2p. */
FPX8_TARGET static void check_fp2(void)
{
    mpz_t x0[8], x1[8], y0[8], y1[8], w0[8], w1[8];
    for (int k = 0; k < 8; k++)
        mpz_inits(x0[k], x1[k], y0[k], y1[k], w0[k], w1[k], NULL);
    fpx8_t p1, p2;
    fpx8_kp(&p1, 1);
    fpx8_kp(&p2, 2);
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < 8; k++) {
            rand_input(x0[k]);
            rand_input(x1[k]);
            rand_input(y0[k]);
            rand_input(y1[k]);
        }
        fp2x8_t a, b, r;
        load(&a.c0, x0);
        load(&a.c1, x1);
        load(&b.c0, y0);
        load(&b.c1, y1);

        fp2x8_mul(&r, &a, &b, &p2);
        for (int k = 0; k < 8; k++) {
            mpz_mul(w0[k], x0[k], y0[k]);
            mpz_submul(w0[k], x1[k], y1[k]);
            mpz_mul(w0[k], w0[k], r_inv);
            mpz_mul(w1[k], x0[k], y1[k]);
            mpz_addmul(w1[k], x1[k], y0[k]);
            mpz_mul(w1[k], w1[k], r_inv);
        }
        expect(&r.c0, w0, 2, "fp2 mul c0");
        expect(&r.c1, w1, 2, "fp2 mul c1");

        fp2x8_sqr(&r, &a, &p2);
        for (int k = 0; k < 8; k++) {
            mpz_mul(w0[k], x0[k], x0[k]);
            mpz_submul(w0[k], x1[k], x1[k]);
            mpz_mul(w0[k], w0[k], r_inv);
            mpz_mul(w1[k], x0[k], x1[k]);
            mpz_mul_2exp(w1[k], w1[k], 1);
            mpz_mul(w1[k], w1[k], r_inv);
        }
        expect(&r.c0, w0, 2, "fp2 sqr c0");
        expect(&r.c1, w1, 2, "fp2 sqr c1");

        fp2x8_sub_lazy(&r, &a, &b, &p2);
        for (int k = 0; k < 8; k++) {
            mpz_sub(w0[k], x0[k], y0[k]);
            mpz_sub(w1[k], x1[k], y1[k]);
        }
        expect(&r.c0, w0, 4, "fp2 sub_lazy c0");
        expect(&r.c1, w1, 4, "fp2 sub_lazy c1");
        fp2x8_canon4(&r, &r, &p1, &p2);
        expect(&r.c0, w0, 1, "fp2 canon4 c0");
        expect(&r.c1, w1, 1, "fp2 canon4 c1");

        fp2x8_canon(&r, &a, &p1);
        for (int k = 0; k < 8; k++) {
            mpz_set(w0[k], x0[k]);
            mpz_set(w1[k], x1[k]);
        }
        expect(&r.c0, w0, 1, "fp2 canon c0");
        expect(&r.c1, w1, 1, "fp2 canon c1");
    }
    for (int k = 0; k < 8; k++)
        mpz_clears(x0[k], x1[k], y0[k], y1[k], w0[k], w1[k], NULL);
}

/* fp_t in and out through gathers and scatters at scattered offsets;
 * fpx8_mul agrees with fp_mul, the scalar code of the same radix. */
FPX8_TARGET static void check_fp_t(void)
{
    enum { N = 64 };
    fp_t in[N], out[N], got[N];
    uint64_t order[8];
    for (int round = 0; round < 200; round++) {
        for (int i = 0; i < N; i++)
            test_rand_fp(&in[i]);
        in[0] = FP_ZERO;
        in[1] = FP_ONE;
        fp_neg(&in[2], &FP_ONE);
        for (int k = 0; k < 8; k++)
            order[k] = test_rand_below(N) * sizeof(fp_t);
        __m512i idx = _mm512_loadu_si512((const void *)order);
        fpx8_t a, b, r, p1;
        fpx8_kp(&p1, 1);
        fpx8_gather(&a, in, idx);
        fpx8_gather(&b, in + 3, fpx8_stride(sizeof(fp_t)));
        fpx8_mul(&r, &a, &b);
        fpx8_canon(&r, &r, &p1);
        memset(got, 0, sizeof got);
        /* lanes 0 and 5 masked off: their entries stay zero */
        __mmask8 mask = 0xde;
        fpx8_scatter(got, fpx8_stride(2 * sizeof(fp_t)), mask, &r);
        for (int k = 0; k < 8; k++) {
            fp_mul(&out[k], &in[order[k] / sizeof(fp_t)], &in[3 + k]);
            if (mask >> k & 1)
                CHECK(fp_eq(&got[2 * k], &out[k]));
            else
                CHECK(fp_is_zero(&got[2 * k]));
            CHECK(fp_is_zero(&got[2 * k + 1]));
        }
    }
}

int main(void)
{
    test_init("test_fpx8");
    if (!fpx8_supported()) {
        printf("test_fpx8: no AVX-512 IFMA here, skipped\n");
        return 77;
    }
    mpz_init(r_inv);
    mpz_set_ui(r_inv, 0);
    mpz_setbit(r_inv, 384);
    mpz_invert(r_inv, r_inv, test_p);
    /* the checks are compiled for AVX-512 (FPX8_TARGET), main is not: it
     * must run, and skip, on any x86-64 */
    check_ops();
    check_fp2();
    check_fp_t();
    mpz_clear(r_inv);
    return test_finish();
}

#else
int main(void)
{
    printf("test_fpx8: not an x86-64 build, skipped\n");
    return 77;
}
#endif
