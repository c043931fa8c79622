/*
 * The GPU MSM's windows (kernels/msm_digits.cuh) run on the host against
 * GMP. For every window width 2 .. MSM_MAX_WINDOW, on edge values and
 * random scalars, the signed digits add up to the scalar, stay within
 * [-2^(c-1), 2^(c-1)] and leave no carry past the last window.
 *
 * For the widths msm_window_for picks, the digits of random scalars spread
 * over every window's buckets, the top window included: no bucket gets
 * more than a few times its share, or more points than one thread sums
 * quickly. The check fails for c = 15, where the top window holds only the
 * carry, and for 13 bits at 2^24. That width once put half of all
 * points in one bucket, and the MSM took 16.6 s at 2^20. Needs nvcc, no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initializer_list>

#include <gmp.h>

#include "kernels/msm_digits.cuh"

/* <math.h>, which the CUDA headers pull in, declares FP_ZERO (a floating-
 * point class) and fp.h (through tests/common.h) a constant of the same
 * name: rename fp.h's, which this file does not use. */
#undef FP_ZERO
#define FP_ZERO fp_zero_unused_here

extern "C" {
#include "arith/field/fr.h"
#include "tests/common.h"
}

/* The scalar as the kernel sees it: 8 little-endian 32-bit limbs. */
static void plain_limbs(uint32_t out[8], const fr_t *a)
{
    uint64_t l[4];
    fr_to_limbs(l, a);
    for (int i = 0; i < 4; i++) {
        out[2 * i] = (uint32_t)l[i];
        out[2 * i + 1] = (uint32_t)(l[i] >> 32);
    }
}

/* Digits of a, recombined with GMP, must give a back. */
static bool digits_add_up(const fr_t *a, int c)
{
    uint32_t s[8];
    int nw = (256 + c - 1) / c;
    plain_limbs(s, a);
    mpz_t want, got;
    mpz_inits(want, got, NULL);
    test_fr_to_mpz(want, a);
    /* sum_w d_w 2^(w c), built from the top window down */
    uint32_t carry = 0, mags[256];
    bool negs[256], in_range = true;
    for (int w = 0; w < nw; w++) {
        mags[w] = msm_signed_digit(s, w, c, &carry, &negs[w]);
        /* (a window of all ones plus a carry gives magnitude 0, sign set
         * and a carry: the digit 0, which the MSM skips) */
        in_range = in_range && mags[w] <= (1u << (c - 1));
    }
    for (int w = nw - 1; w >= 0; w--) {
        mpz_mul_2exp(got, got, (mp_bitcnt_t)c);
        if (negs[w])
            mpz_sub_ui(got, got, mags[w]);
        else
            mpz_add_ui(got, got, mags[w]);
    }
    bool ok = in_range && carry == 0 && mpz_cmp(want, got) == 0;
    mpz_clears(want, got, NULL);
    return ok;
}

static void check_sums(void)
{
    /* edges: 0, 1, 2, r - 1, r - 2, 2^254, and per width digits at the
     * signed boundary (2^(c-1), 2^(c-1) + 1, 2^c - 1) in several windows */
    fr_t edges[8];
    int ne = 0;
    fr_from_u64(&edges[ne++], 0);
    fr_from_u64(&edges[ne++], 1);
    fr_from_u64(&edges[ne++], 2);
    fr_sub(&edges[ne], &FR_ZERO, &FR_ONE);
    ne++;
    fr_sub(&edges[ne], &edges[ne - 1], &FR_ONE);
    ne++;
    uint64_t top[4] = {0, 0, 0, (uint64_t)1 << 62};
    CHECK(fr_from_limbs(&edges[ne++], top) == 0);

    for (int c = 2; c <= MSM_MAX_WINDOW; c++) {
        long bad = 0;
        for (int k = 0; k < ne; k++)
            bad += !digits_add_up(&edges[k], c);
        static const uint64_t lows[] = {0, 1, (uint64_t)-1};
        for (int w = 0; w * c < 250; w += 3)
            for (uint64_t d : {(1ull << (c - 1)), (1ull << (c - 1)) + 1, (1ull << c) - 1})
                for (uint64_t low : lows) {
                    /* d 2^(w c) + low, below r */
                    mpz_t v;
                    mpz_init_set_ui(v, d);
                    mpz_mul_2exp(v, v, (mp_bitcnt_t)(w * c));
                    mpz_add_ui(v, v, low);
                    mpz_mod(v, v, test_r);
                    fr_t x;
                    test_fr_from_mpz(&x, v);
                    bad += !digits_add_up(&x, c);
                    mpz_clear(v);
                }
        for (int k = 0; k < 2000; k++) {
            fr_t x;
            test_rand_fr(&x);
            bad += !digits_add_up(&x, c);
        }
        if (!CHECK(bad == 0))
            fprintf(stderr, "c = %d: %ld scalars whose digits do not add up\n", c, bad);
    }
}

/* The fullest bucket over all windows, for N random scalars, in units of a
 * bucket's fair share N / 2^(c-1). */
static double fullest_bucket(int c, int N)
{
    int nw = (256 + c - 1) / c;
    size_t per = ((size_t)1 << (c - 1)) + 1;
    unsigned *count = (unsigned *)calloc((size_t)nw * per, sizeof *count);
    if (!count)
        abort();
    for (int k = 0; k < N; k++) {
        fr_t x;
        uint32_t s[8], carry = 0;
        test_rand_fr(&x);
        plain_limbs(s, &x);
        for (int w = 0; w < nw; w++) {
            bool neg;
            uint32_t mag = msm_signed_digit(s, w, c, &carry, &neg);
            if (mag)
                count[(size_t)w * per + mag]++;
        }
    }
    unsigned most = 0;
    for (size_t i = 0; i < (size_t)nw * per; i++)
        most = count[i] > most ? count[i] : most;
    free(count);
    return most / ((double)N / (double)(per - 1));
}

/* The points in the fullest bucket of an MSM of n scalars at width c,
 * scaled from a sample of N. */
static double fullest_points(int c, int N, size_t n)
{
    return fullest_bucket(c, N) * (double)n / (double)(1u << (c - 1));
}

static void check_balance(void)
{
    const int N = 1 << 15;
    /* a bucket may hold a few times its share by chance (Poisson tails over
     * up to 2^19 buckets), or, where the top window has fewer live buckets
     * (c = 13: about 118), at most 2^15 points: one thread sums them in
     * well under the MSM's time (the H200's table in msm_window_for) */
    const double limit_share = 4.0, limit_abs = 24.0, limit_points = 32768.0;
    static const struct {
        size_t n;
        bool g2;
    } sizes[] = {{1, false},           {4096, false},          {4097, false},      {(size_t)1 << 17, false},
                 {((size_t)1 << 17) + 1, false}, {(size_t)1 << 20, false}, {4097, true},
                 {(size_t)1 << 21, true}, {((size_t)1 << 21) + 1, true}, {(size_t)1 << 26, false},
                 {(size_t)1 << 26, true}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i].n;
        int c = (int)msm_window_for(n, sizes[i].g2);
        double share = (double)N / (double)(1u << (c - 1));
        double most = fullest_bucket(c, N), points = most * (double)n / (double)(1u << (c - 1));
        bool ok = most <= limit_share || most * share <= limit_abs || points <= limit_points;
        if (!CHECK(ok))
            fprintf(stderr, "%s, n = %zu, c = %d: a bucket holds %.1f times its share (%.0f points)\n",
                    sizes[i].g2 ? "G2" : "G1", n, c, most, points);
        else
            printf("%s, n = %zu: c = %d, fullest bucket %.1f x its share (%.0f points)\n",
                   sizes[i].g2 ? "G2" : "G1", n, c, most, points);
    }
    /* the check has teeth: the old width for 2^20, and 13 bits at 2^24 */
    double most15 = fullest_bucket(15, N);
    CHECK(most15 * ((double)N / (1u << 14)) > limit_abs && most15 > limit_share &&
          fullest_points(15, N, (size_t)1 << 20) > limit_points);
    printf("c = 15 (the old width at 2^20): fullest bucket %.0f x its share\n", most15);
    CHECK(fullest_points(13, N, (size_t)1 << 24) > limit_points);
    fflush(stdout);
}

int main(void)
{
    test_init("test_msm_digits_host");
    check_sums();
    check_balance();
    return test_finish();
}
