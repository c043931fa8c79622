/*
 * The setup's fixed-base multiplication on the GPU (kernels/fixed_base.cuh,
 * one scalar) run on the host, where field.cuh emulates its PTX, against
 * the prover's own scalar multiplication (g1_jac_mul_fr, g2_jac_mul_fr):
 * G1 and G2, window tables of 8 and 12 bits built as prover/setup.c builds
 * them, on edge scalars (0, 1, 2, r - 1, 2^k) and random ones; the
 * conversion of those points to affine in groups with one inversion
 * (fixed_base_to_affine, Fermat inversion in Fp and Fp2). Also the
 * digit of every window width 1 .. 16 against the 64-bit-limb reading of
 * setup.c's fb_mul. Needs nvcc, no GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <gmp.h>

#include "kernels/fixed_base.cuh"

/* <math.h>, which the CUDA headers pull in, declares FP_ZERO (a floating-
 * point class) and fp.h a constant of the same name: rename fp.h's. */
#undef FP_ZERO
#define FP_ZERO fp_zero_unused_here

extern "C" {
#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fr.h"
#include "tests/common.h"
}

static_assert(sizeof(g1_jac_t) == sizeof(dev_jac_t<dev_fp_t>), "G1 Jacobian layout");
static_assert(sizeof(g2_jac_t) == sizeof(dev_jac_t<dev_fp2_t>), "G2 Jacobian layout");
static_assert(sizeof(g1_affine_t) == sizeof(dev_affine_t<dev_fp_t>), "G1 affine layout");
static_assert(sizeof(g2_affine_t) == sizeof(dev_affine_t<dev_fp2_t>), "G2 affine layout");

/* The window digit as setup.c's fb_mul reads it. */
static uint32_t cpu_digit(const uint64_t k[4], unsigned w, unsigned c)
{
    unsigned bit = w * c, limb = bit / 64, shift = bit % 64;
    uint64_t d = limb < 4 ? k[limb] >> shift : 0;
    if (shift + c > 64 && limb + 1 < 4)
        d |= k[limb + 1] << (64 - shift);
    return (uint32_t)(d & (((uint64_t)1 << c) - 1));
}

static void test_digits(const std::vector<fr_t> &scalars)
{
    unsigned bad = 0;
    for (const fr_t &a : scalars) {
        uint64_t k[4];
        uint32_t s[8];
        fr_to_limbs(k, &a);
        for (int i = 0; i < 4; i++) {
            s[2 * i] = (uint32_t)k[i];
            s[2 * i + 1] = (uint32_t)(k[i] >> 32);
        }
        for (unsigned c = 1; c <= 16; c++)
            for (unsigned w = 0; w < (255 + c - 1) / c; w++)
                bad += fixed_base_digit(s, w, c) != cpu_digit(k, w, c);
    }
    if (!CHECK(bad == 0))
        fprintf(stderr, "%u window digits differ from setup.c's\n", bad);
}

/* One group: the table of setup.c (row w: d 2^(w c) G, d = 1 .. 2^c - 1),
 * each scalar's point against the prover's k G. */
#define GROUP_TEST(G, F, GEN)                                                                                       \
    static void test_##G(const std::vector<fr_t> &scalars, unsigned c)                                      \
    {                                                                                                          \
        unsigned windows = (255 + c - 1) / c;                                                                  \
        size_t row = ((size_t)1 << c) - 1;                                                                     \
        std::vector<G##_jac_t> jac((size_t)windows * row);                                                     \
        std::vector<G##_affine_t> table(jac.size());                                                           \
        G##_jac_t base;                                                                                        \
        G##_affine_t base_aff;                                                                                 \
        G##_jac_from_affine(&base, &GEN);                                                            \
        for (unsigned w = 0; w < windows; w++) {                                                               \
            G##_batch_to_affine(&base_aff, &base, 1);                                                          \
            G##_jac_from_affine(&jac[(size_t)w * row], &base_aff);                                             \
            for (size_t d = 1; d < row; d++)                                                                   \
                G##_jac_add_mixed(&jac[(size_t)w * row + d], &jac[(size_t)w * row + d - 1], &base_aff);        \
            for (unsigned i = 0; i < c; i++)                                                                   \
                G##_jac_dbl(&base, &base);                                                                     \
        }                                                                                                      \
        G##_batch_to_affine(table.data(), jac.data(), jac.size());                                             \
        G##_jac_t gen;                                                                                         \
        G##_jac_from_affine(&gen, &GEN);                                                             \
        unsigned same = 0;                                                                                     \
        std::vector<dev_jac_t<F>> dev_jac;                                                                     \
        std::vector<G##_affine_t> want_all;                                                                    \
        for (const fr_t &k : scalars) {                                                                        \
            dev_jac_t<F> d;                                                                                    \
            G##_jac_t got, want;                                                                               \
            G##_affine_t got_aff, want_aff;                                                                    \
            fixed_base_one(d, (const dev_affine_t<F> *)table.data(), windows, c, *(const dev_fr_t *)&k);       \
            memcpy(&got, &d, sizeof got);                                                                      \
            G##_jac_mul_fr(&want, &gen, &k);                                                                   \
            G##_batch_to_affine(&got_aff, &got, 1);                                                            \
            G##_batch_to_affine(&want_aff, &want, 1);                                                          \
            if (CHECK(memcmp(&got_aff, &want_aff, sizeof got_aff) == 0))                                       \
                same++;                                                                                        \
            dev_jac.push_back(d);                                                                              \
            want_all.push_back(want_aff);                                                                      \
        }                                                                                                      \
        printf(#G ", %u-bit windows: %u of %zu points equal k G\n", c, same, scalars.size());                  \
        /* the device's conversion to affine, in groups of several sizes (the last group short), against     \
         * the prover's k G made affine one by one; scalar 0 gives the infinity inside a group */            \
        for (size_t group : {(size_t)1, (size_t)5, (size_t)16, dev_jac.size()}) {                              \
            std::vector<dev_affine_t<F>> aff(dev_jac.size());                                                  \
            for (size_t b = 0; b < dev_jac.size(); b += group)                                                 \
                fixed_base_to_affine(&aff[b], &dev_jac[b], dev_jac.size() - b < group ? dev_jac.size() - b : group); \
            if (!CHECK(memcmp(aff.data(), want_all.data(), aff.size() * sizeof aff[0]) == 0))                  \
                fprintf(stderr, #G ": the conversion to affine in groups of %zu differs from k G\n", group);   \
        }                                                                                                      \
    }
GROUP_TEST(g1, dev_fp_t, G1_GENERATOR)
GROUP_TEST(g2, dev_fp2_t, G2_GENERATOR)

int main(void)
{
    test_init("fixed-base-host");
    std::vector<fr_t> scalars;
    fr_t x;
    for (uint64_t v : {0ull, 1ull, 2ull, 3ull, 255ull, 256ull, 4095ull, 65535ull, 65536ull}) {
        fr_from_u64(&x, v);
        scalars.push_back(x);
    }
    fr_from_u64(&x, 1);
    fr_neg(&x, &x); /* r - 1 */
    scalars.push_back(x);
    for (int k = 60; k < 255; k += 37) {
        uint64_t l[4] = {0, 0, 0, 0};
        l[k / 64] = (uint64_t)1 << (k % 64);
        if (fr_from_limbs(&x, l) == 0)
            scalars.push_back(x);
    }
    for (int i = 0; i < 12; i++) {
        test_rand_fr(&x);
        scalars.push_back(x);
    }
    test_digits(scalars);
    test_g1(scalars, 8);
    test_g1(scalars, 12);
    test_g2(scalars, 8);
    return test_finish();
}
