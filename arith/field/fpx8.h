/*
 * Fp eight elements at a time with AVX-512 IFMA (vpmadd52luq/huq): the
 * vector engine of the MSM's batch-affine additions (prover/msm_ifma.c).
 *
 * An fpx8_t holds 8 independent elements, lane k being element k, in radix
 * 2^52: l[i] holds limb i (bits 52i .. 52i + 51) of every lane, 8 limbs
 * for 381 bits. Values are Montgomery with the scalar code's R = 2^384, so
 * fp_t converts by regrouping bits alone: the reduction runs 7 digits of
 * 52 bits and one of 20 (7 * 52 + 20 = 384) instead of 8 x 52 = 416.
 *
 * Invariant of every function: inputs and outputs have limbs below 2^52
 * and values below 2p (lazy: one conditional subtraction per addition
 * instead of a full reduction); fpx8_canon gives values below p.
 * Montgomery multiplication of a, b < 2p gives ab 2^-384 + qp / 2^384 <
 * (4p / 2^384 + 1) p < 1.5 p, so products need no final subtraction.
 *
 * Functions are static inline with a target attribute: the includer calls
 * them only from functions compiled for the same target (FPX8_TARGET), and
 * only after fpx8_supported() said yes. Internal to the library.
 */
#ifndef ZKB_FPX8_H
#define ZKB_FPX8_H

#include <stdbool.h>
#include <stdint.h>

#include "arith/field/bls12_381.h"
#include "arith/field/fp.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(ZKB_NO_IFMA)
#define FPX8_HAVE 1

#include <immintrin.h>

#define FPX8_TARGET __attribute__((target("avx512f,avx512ifma,avx512dq,avx512vl")))
#define FPX8_INLINE static inline __attribute__((always_inline)) FPX8_TARGET

typedef struct {
    __m512i l[8];
} fpx8_t;

#define FPX8_MASK52 ((1ull << 52) - 1)

/* The CPU runs the instructions used here. */
static inline bool fpx8_supported(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}

/* Limb i (radix 2^52) of the 6 x 64-bit little-endian integer w. */
static inline uint64_t fpx8_limb52(const uint64_t *w, int i)
{
    int bit = 52 * i, word = bit / 64, sh = bit % 64;
    uint64_t x = w[word] >> sh;
    if (sh > 12 && word + 1 < 6)
        x |= w[word + 1] << (64 - sh);
    return x & FPX8_MASK52;
}

/* k p in radix 2^52, every lane: k = 1, 2, 4 (below 2^384). */
FPX8_INLINE void fpx8_kp(fpx8_t *ret, unsigned k)
{
    static const uint64_t p[6] = {BLS12_381_P(BLS12_381_U64)};
    uint64_t kp[6], carry = 0;
    for (int i = 0; i < 6; i++) {
        __extension__ unsigned __int128 v = (unsigned __int128)p[i] * k + carry;
        kp[i] = (uint64_t)v;
        carry = (uint64_t)(v >> 64);
    }
    for (int i = 0; i < 8; i++)
        ret->l[i] = _mm512_set1_epi64((long long)fpx8_limb52(kp, i));
}

/* Signed limbs (each |x| < 2^62) to limbs below 2^52 by carrying upwards;
 * the value must be non-negative. */
FPX8_INLINE void fpx8_carry(fpx8_t *a)
{
    const __m512i mask = _mm512_set1_epi64((long long)FPX8_MASK52);
    for (int i = 0; i < 7; i++) {
        a->l[i + 1] = _mm512_add_epi64(a->l[i + 1], _mm512_srai_epi64(a->l[i], 52));
        a->l[i] = _mm512_and_si512(a->l[i], mask);
    }
}

/* ret = a - kp where a >= kp, else a (kp: fpx8_kp). */
FPX8_INLINE void fpx8_csub(fpx8_t *ret, const fpx8_t *a, const fpx8_t *kp)
{
    fpx8_t d;
    for (int i = 0; i < 8; i++)
        d.l[i] = _mm512_sub_epi64(a->l[i], kp->l[i]);
    fpx8_carry(&d);
    /* the top limb is negative exactly when a < kp */
    __mmask8 keep = _mm512_movepi64_mask(d.l[7]);
    for (int i = 0; i < 8; i++)
        ret->l[i] = _mm512_mask_blend_epi64(keep, d.l[i], a->l[i]);
}

/* ret = a + b (a, b < 2p; p2 = fpx8_kp(2)). */
FPX8_INLINE void fpx8_add(fpx8_t *ret, const fpx8_t *a, const fpx8_t *b, const fpx8_t *p2)
{
    fpx8_t s;
    for (int i = 0; i < 8; i++)
        s.l[i] = _mm512_add_epi64(a->l[i], b->l[i]);
    fpx8_carry(&s);
    fpx8_csub(ret, &s, p2);
}

/* ret = a - b, as a - b + 2p in (0, 4p) brought below 2p. */
FPX8_INLINE void fpx8_sub(fpx8_t *ret, const fpx8_t *a, const fpx8_t *b, const fpx8_t *p2)
{
    fpx8_t d;
    for (int i = 0; i < 8; i++)
        d.l[i] = _mm512_add_epi64(_mm512_sub_epi64(a->l[i], b->l[i]), p2->l[i]);
    fpx8_carry(&d);
    fpx8_csub(ret, &d, p2);
}

/* The canonical representative (below p); p1 = fpx8_kp(1). */
FPX8_INLINE void fpx8_canon(fpx8_t *ret, const fpx8_t *a, const fpx8_t *p1)
{
    fpx8_csub(ret, a, p1);
}

/* Lazy forms for callers that track bounds themselves (msm_ifma): no
 * conditional subtraction. ret = a + b (below 4p for a, b < 2p). */
FPX8_INLINE void fpx8_add_lazy(fpx8_t *ret, const fpx8_t *a, const fpx8_t *b)
{
    for (int i = 0; i < 8; i++)
        ret->l[i] = _mm512_add_epi64(a->l[i], b->l[i]);
    fpx8_carry(ret);
}

/* ret = a - b + kp for b <= kp (kp: fpx8_kp), so below a + kp. */
FPX8_INLINE void fpx8_sub_lazy(fpx8_t *ret, const fpx8_t *a, const fpx8_t *b, const fpx8_t *kp)
{
    for (int i = 0; i < 8; i++)
        ret->l[i] = _mm512_add_epi64(_mm512_sub_epi64(a->l[i], b->l[i]), kp->l[i]);
    fpx8_carry(ret);
}

/* The canonical representative of a < 4p. */
FPX8_INLINE void fpx8_canon4(fpx8_t *ret, const fpx8_t *a, const fpx8_t *p1, const fpx8_t *p2)
{
    fpx8_csub(ret, a, p2);
    fpx8_csub(ret, ret, p1);
}

/* t += a b in 16 columns of radix 2^52 (schoolbook, each column a sum of
 * up to 16 terms below 2^52 per product: several products can share t). */
FPX8_INLINE void fpx8_mul_acc(__m512i *t, const fpx8_t *a, const fpx8_t *b)
{
    /* fully unrolled, so that the columns live in registers */
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++)
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a->l[i], b->l[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a->l[i], b->l[j]);
        }
}

/* ret = T 2^-384 mod p for the value T of the 16 columns t (each below
 * 2^60), T < p 2^384, so ret < T / 2^384 + p < 2p: Montgomery reduction
 * digit by digit (REDC, Montgomery 1985), 7 digits of 52 bits and a last
 * one of 20, so that R = 2^384 as in fp_mul. t is consumed. */
FPX8_INLINE void fpx8_redc(fpx8_t *ret, __m512i *t)
{
    static const uint64_t p64[6] = {BLS12_381_P(BLS12_381_U64)};
    const __m512i zero = _mm512_setzero_si512();
    const __m512i inv = _mm512_set1_epi64((long long)(BLS12_381_P_INV64 & FPX8_MASK52));
    __m512i p[8];
    for (int i = 0; i < 8; i++)
        p[i] = _mm512_set1_epi64((long long)fpx8_limb52(p64, i));
    /* digit k: q = t_k (-1/p) mod 2^52 makes t_k + q p_0 = 0 mod 2^52;
     * its carry moves up (madd52 reads only the low 52 bits of t_k) */
#pragma GCC unroll 7
    for (int k = 0; k < 7; k++) {
        __m512i q = _mm512_madd52lo_epu64(zero, t[k], inv);
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            t[k + j] = _mm512_madd52lo_epu64(t[k + j], q, p[j]);
            t[k + j + 1] = _mm512_madd52hi_epu64(t[k + j + 1], q, p[j]);
        }
        t[k + 1] = _mm512_add_epi64(t[k + 1], _mm512_srli_epi64(t[k], 52));
    }
    /* the 20-bit digit, then t / 2^20: limb i takes t_(7+i) >> 20 and the
     * low 20 bits of t_(8+i) at bit 32 (limbs below 2^53 until the carry;
     * t_15 < 2^20 as the result is below 2^416) */
    const __m512i mask20 = _mm512_set1_epi64((1ll << 20) - 1);
    __m512i q = _mm512_and_si512(_mm512_madd52lo_epu64(zero, t[7], inv), mask20);
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++) {
        t[7 + j] = _mm512_madd52lo_epu64(t[7 + j], q, p[j]);
        t[8 + j] = _mm512_madd52hi_epu64(t[8 + j], q, p[j]);
    }
    fpx8_t r;
    for (int i = 0; i < 8; i++)
        r.l[i] = _mm512_add_epi64(_mm512_srli_epi64(t[7 + i], 20),
                                  _mm512_slli_epi64(_mm512_and_si512(t[8 + i], mask20), 32));
    fpx8_carry(&r);
    *ret = r;
}

/* ret = a b 2^-384 mod p, lane by lane, for ab < p 2^384 (a, b < 2p do). */
FPX8_INLINE void fpx8_mul(fpx8_t *ret, const fpx8_t *a, const fpx8_t *b)
{
    __m512i t[16];
    for (int i = 0; i < 16; i++)
        t[i] = _mm512_setzero_si512();
    fpx8_mul_acc(t, a, b);
    fpx8_redc(ret, t);
}

/* ret = 2p - a in (0, 2p]: a negation whose result may be 2p, for the
 * products that accept it (see fp2x8_mul). */
FPX8_INLINE void fpx8_neg_lazy(fpx8_t *ret, const fpx8_t *a, const fpx8_t *p2)
{
    for (int i = 0; i < 8; i++)
        ret->l[i] = _mm512_sub_epi64(p2->l[i], a->l[i]);
    fpx8_carry(ret);
}

/* From 64-bit limbs, one vector per limb (w[j] lane k = limb j of element
 * k), to radix 2^52. */
FPX8_INLINE void fpx8_from_w64(fpx8_t *ret, const __m512i *w)
{
    const __m512i mask = _mm512_set1_epi64((long long)FPX8_MASK52);
#define FPX8_JOIN(lo, sl, hi, sh)                                              \
    _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[lo], sl), _mm512_slli_epi64(w[hi], sh)), mask)
    ret->l[0] = _mm512_and_si512(w[0], mask);
    ret->l[1] = FPX8_JOIN(0, 52, 1, 12);
    ret->l[2] = FPX8_JOIN(1, 40, 2, 24);
    ret->l[3] = FPX8_JOIN(2, 28, 3, 36);
    ret->l[4] = FPX8_JOIN(3, 16, 4, 48);
    ret->l[5] = _mm512_and_si512(_mm512_srli_epi64(w[4], 4), mask);
    ret->l[6] = FPX8_JOIN(4, 56, 5, 8);
    ret->l[7] = _mm512_srli_epi64(w[5], 44);
#undef FPX8_JOIN
}

/* Radix 2^52 (limbs below 2^52, value below 2^384) to 64-bit limbs. */
FPX8_INLINE void fpx8_to_w64(__m512i *w, const fpx8_t *a)
{
    const __m512i *l = a->l;
    w[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 12), _mm512_slli_epi64(l[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 24), _mm512_slli_epi64(l[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(l[3], 36), _mm512_slli_epi64(l[4], 16));
    w[4] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi64(l[4], 48), _mm512_slli_epi64(l[5], 4)),
                           _mm512_slli_epi64(l[6], 56));
    w[5] = _mm512_or_si512(_mm512_srli_epi64(l[6], 8), _mm512_slli_epi64(l[7], 44));
}

/* Lane k from the fp_t at byte offset idx[k] from base (any alignment,
 * e.g. the x of point k: base = &pts[0].x, idx[k] = k * sizeof pts[0]). */
FPX8_INLINE void fpx8_gather(fpx8_t *ret, const fp_t *base, __m512i idx)
{
    __m512i w[6];
    for (int j = 0; j < 6; j++)
        w[j] = _mm512_i64gather_epi64(idx, (const void *)&base->l[j], 1);
    fpx8_from_w64(ret, w);
}

/* The reverse for the lanes of mask; a must be below 2^384 (canonical for
 * the scalar code: below p). */
FPX8_INLINE void fpx8_scatter(fp_t *base, __m512i idx, __mmask8 mask, const fpx8_t *a)
{
    __m512i w[6];
    fpx8_to_w64(w, a);
    for (int j = 0; j < 6; j++)
        _mm512_mask_i64scatter_epi64((void *)&base->l[j], mask, idx, w[j], 1);
}

/* Byte offsets k * stride of 8 consecutive array entries. */
FPX8_INLINE __m512i fpx8_stride(uint64_t stride)
{
    return _mm512_mullo_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                              _mm512_set1_epi64((long long)stride));
}

#else
#define FPX8_HAVE 0
#endif

#endif
