/*
 * Device arithmetic for the BLS12-381 fields: Fr (8 x 32-bit limbs), Fp
 * (12 x 32-bit limbs) and Fp2 = Fp[u]/(u^2 + 1), all in Montgomery form with
 * the host's radix (R = 2^256 for Fr, 2^384 for Fp). An element has the same
 * bytes as the host's fr_t / fp_t / fp2_t, so arrays copy between host and
 * device unchanged.
 *
 * Fr and Fp share one template, field_t<P>, whose parameter P gives the limb
 * count and the constants; every loop runs over a compile-time limb count and
 * is fully unrolled. Constants come from arith/field/bls12_381.h only
 * (expanded with BLS12_381_U32); they become immediates in the instructions.
 *
 * Carry chains are inline PTX (add.cc/addc, sub.cc/subc, mad.lo.cc/madc.hi.cc).
 * The same functions compile for the host too, where the carry flag is
 * emulated (field_host_cc below): tests/gpu/test_gpu_field_host.cu runs the
 * device algorithms on a machine without a GPU.
 *
 * Every function takes reduced inputs (< modulus) and returns reduced outputs;
 * outputs may alias inputs. Private to kernels/ (C++ only; the C API is
 * kernels.h).
 */
#ifndef ZKB_KERNELS_FIELD_CUH
#define ZKB_KERNELS_FIELD_CUH

#include <stdint.h>

#include "arith/field/bls12_381.h"

#define FIELD_INLINE __host__ __device__ __forceinline__
/* Full unrolling: device code depends on it (limb indices must be constants
 * to stay in registers). The host compiler, which would warn about the
 * pragma, decides for itself (the host path only serves tests). */
#ifdef __CUDA_ARCH__
#define FIELD_UNROLL _Pragma("unroll")
#else
#define FIELD_UNROLL
#endif

/* ---- carry-chain primitives ------------------------------------------- */
/*
 * Each wraps one PTX instruction. A chain is a run of calls that starts with
 * a *_cc form (carry out only) and continues with *c_cc forms (carry in and
 * out), ending with a *c form (carry in only); nothing between the calls of
 * one chain may touch the carry flag, which holds in straight-line code that
 * uses only these primitives and plain C arithmetic.
 */
#ifndef __CUDA_ARCH__
/* The host's stand-in for the condition code register (carry or borrow). */
static thread_local uint32_t field_host_cc;
#endif

FIELD_INLINE uint32_t ptx_add_cc(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    uint64_t s = (uint64_t)a + b;
    field_host_cc = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

FIELD_INLINE uint32_t ptx_addc_cc(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    uint64_t s = (uint64_t)a + b + field_host_cc;
    field_host_cc = (uint32_t)(s >> 32);
    return (uint32_t)s;
#endif
}

FIELD_INLINE uint32_t ptx_addc(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    return a + b + field_host_cc;
#endif
}

FIELD_INLINE uint32_t ptx_sub_cc(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    uint64_t d = (uint64_t)a - b;
    field_host_cc = (uint32_t)(d >> 63);
    return (uint32_t)d;
#endif
}

FIELD_INLINE uint32_t ptx_subc_cc(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    uint64_t d = (uint64_t)a - b - field_host_cc;
    field_host_cc = (uint32_t)(d >> 63);
    return (uint32_t)d;
#endif
}

FIELD_INLINE uint32_t ptx_subc(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
#else
    return a - b - field_host_cc;
#endif
}

/* lo(a * b) + c and hi(a * b) + c, with the carry variants as above. */
FIELD_INLINE uint32_t ptx_mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;"
                 : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return ptx_add_cc((uint32_t)((uint64_t)a * b), c);
#endif
}

FIELD_INLINE uint32_t ptx_madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;"
                 : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return ptx_addc_cc((uint32_t)((uint64_t)a * b), c);
#endif
}

FIELD_INLINE uint32_t ptx_mad_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;"
                 : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return ptx_add_cc((uint32_t)(((uint64_t)a * b) >> 32), c);
#endif
}

FIELD_INLINE uint32_t ptx_madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;"
                 : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return ptx_addc_cc((uint32_t)(((uint64_t)a * b) >> 32), c);
#endif
}

FIELD_INLINE uint32_t ptx_madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm volatile("madc.hi.u32 %0, %1, %2, %3;"
                 : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return ptx_addc((uint32_t)(((uint64_t)a * b) >> 32), c);
#endif
}

/* ---- field parameters --------------------------------------------------- */
/*
 * N: 32-bit limbs; INV: -m^-1 mod 2^32; mod(i), one(i): limb i of the modulus
 * and of R mod m. mod() and one() are constexpr functions over a local array
 * so that, with i a compile-time constant after unrolling, every limb folds
 * into an immediate operand (no constant-memory or local-memory array).
 *
 * Both moduli leave a spare top bit (2m < 2^(32N)), which the algorithms
 * below rely on: sums of two reduced values and the Montgomery accumulator
 * never carry out of their words.
 */
struct field_fr_params {
    static constexpr int N = 8;
    static constexpr uint32_t INV = BLS12_381_R_INV32;
    static FIELD_INLINE constexpr uint32_t mod(int i)
    {
        constexpr uint32_t m[N] = {BLS12_381_R(BLS12_381_U32)};
        return m[i];
    }
    static FIELD_INLINE constexpr uint32_t one(int i)
    {
        constexpr uint32_t r[N] = {BLS12_381_R_R(BLS12_381_U32)};
        return r[i];
    }
};

struct field_fp_params {
    static constexpr int N = 12;
    static constexpr uint32_t INV = BLS12_381_P_INV32;
    static FIELD_INLINE constexpr uint32_t mod(int i)
    {
        constexpr uint32_t m[N] = {BLS12_381_P(BLS12_381_U32)};
        return m[i];
    }
    static FIELD_INLINE constexpr uint32_t one(int i)
    {
        constexpr uint32_t r[N] = {BLS12_381_P_R(BLS12_381_U32)};
        return r[i];
    }
};

static_assert(field_fr_params::mod(field_fr_params::N - 1) < 0x7fffffffu,
              "Fr: the algorithms need a spare top bit");
static_assert(field_fp_params::mod(field_fp_params::N - 1) < 0x7fffffffu,
              "Fp: the algorithms need a spare top bit");
static_assert((uint32_t)(field_fr_params::INV * field_fr_params::mod(0)) ==
                  0xffffffffu, "Fr: INV is not -m^-1 mod 2^32");
static_assert((uint32_t)(field_fp_params::INV * field_fp_params::mod(0)) ==
                  0xffffffffu, "Fp: INV is not -m^-1 mod 2^32");

template <class P>
struct __align__(16) field_t {
    uint32_t l[P::N];
};

typedef field_t<field_fr_params> dev_fr_t;
typedef field_t<field_fp_params> dev_fp_t;

static_assert(sizeof(dev_fr_t) == BLS12_381_FR_BYTES, "fr layout");
static_assert(sizeof(dev_fp_t) == BLS12_381_FP_BYTES, "fp layout");

/* ---- Fr and Fp ---------------------------------------------------------- */

template <class P>
FIELD_INLINE void field_zero(field_t<P> &ret)
{
FIELD_UNROLL
    for (int i = 0; i < P::N; i++)
        ret.l[i] = 0;
}

/* One (R mod m) in Montgomery form. */
template <class P>
FIELD_INLINE void field_one(field_t<P> &ret)
{
FIELD_UNROLL
    for (int i = 0; i < P::N; i++)
        ret.l[i] = P::one(i);
}

template <class P>
FIELD_INLINE bool field_is_zero(const field_t<P> &a)
{
    uint32_t acc = 0;
FIELD_UNROLL
    for (int i = 0; i < P::N; i++)
        acc |= a.l[i];
    return acc == 0;
}

/* ret = t mod m for t < 2m: subtract m, keep t where that borrows. */
template <class P>
FIELD_INLINE void field_reduce_once(uint32_t *ret, const uint32_t *t)
{
    uint32_t d[P::N];
    d[0] = ptx_sub_cc(t[0], P::mod(0));
FIELD_UNROLL
    for (int i = 1; i < P::N; i++)
        d[i] = ptx_subc_cc(t[i], P::mod(i));
    uint32_t keep = ptx_subc(0, 0); /* all ones when t < m */
FIELD_UNROLL
    for (int i = 0; i < P::N; i++)
        ret[i] = (t[i] & keep) | (d[i] & ~keep);
}

template <class P>
FIELD_INLINE void field_add(field_t<P> &ret, const field_t<P> &a,
                            const field_t<P> &b)
{
    /* a + b < 2m < 2^(32N): no carry out of the top limb. */
    uint32_t t[P::N];
    t[0] = ptx_add_cc(a.l[0], b.l[0]);
FIELD_UNROLL
    for (int i = 1; i < P::N - 1; i++)
        t[i] = ptx_addc_cc(a.l[i], b.l[i]);
    t[P::N - 1] = ptx_addc(a.l[P::N - 1], b.l[P::N - 1]);
    field_reduce_once<P>(ret.l, t);
}

template <class P>
FIELD_INLINE void field_dbl(field_t<P> &ret, const field_t<P> &a)
{
    field_add(ret, a, a);
}

template <class P>
FIELD_INLINE void field_sub(field_t<P> &ret, const field_t<P> &a,
                            const field_t<P> &b)
{
    uint32_t t[P::N];
    t[0] = ptx_sub_cc(a.l[0], b.l[0]);
FIELD_UNROLL
    for (int i = 1; i < P::N; i++)
        t[i] = ptx_subc_cc(a.l[i], b.l[i]);
    uint32_t mask = ptx_subc(0, 0); /* all ones when a < b: add m back */
    ret.l[0] = ptx_add_cc(t[0], P::mod(0) & mask);
FIELD_UNROLL
    for (int i = 1; i < P::N - 1; i++)
        ret.l[i] = ptx_addc_cc(t[i], P::mod(i) & mask);
    ret.l[P::N - 1] = ptx_addc(t[P::N - 1], P::mod(P::N - 1) & mask);
}

template <class P>
FIELD_INLINE void field_neg(field_t<P> &ret, const field_t<P> &a)
{
    /* m - a, except that -0 is 0 (not m). */
    uint32_t nz = field_is_zero(a) ? 0u : 0xffffffffu;
    uint32_t t[P::N];
    t[0] = ptx_sub_cc(P::mod(0), a.l[0]);
FIELD_UNROLL
    for (int i = 1; i < P::N - 1; i++)
        t[i] = ptx_subc_cc(P::mod(i), a.l[i]);
    t[P::N - 1] = ptx_subc(P::mod(P::N - 1), a.l[P::N - 1]);
FIELD_UNROLL
    for (int i = 0; i < P::N; i++)
        ret.l[i] = t[i] & nz;
}

/* One Montgomery round's reduction of the N + 1 word accumulator t: t +=
 * k m with k = t[0] INV (which zeroes t[0]), then t /= 2^32; the caller
 * keeps t + k m below 2^(32(N+1)). */
template <class P>
FIELD_INLINE void field_mont_step(uint32_t *t)
{
    constexpr int N = P::N;
    uint32_t k = t[0] * P::INV;
    (void)ptx_mad_lo_cc(k, P::mod(0), t[0]);
FIELD_UNROLL
    for (int j = 1; j < N; j++)
        t[j] = ptx_madc_lo_cc(k, P::mod(j), t[j]);
    t[N] = ptx_addc(t[N], 0);
    t[1] = ptx_mad_hi_cc(k, P::mod(0), t[1]);
FIELD_UNROLL
    for (int j = 1; j < N - 1; j++)
        t[j + 1] = ptx_madc_hi_cc(k, P::mod(j), t[j + 1]);
    t[N] = ptx_madc_hi(k, P::mod(N - 1), t[N]);
FIELD_UNROLL
    for (int j = 0; j < N; j++)
        t[j] = t[j + 1];
}

/*
 * ret = a * b / 2^(32N) mod m: CIOS Montgomery multiplication (Koc, Acar,
 * Kaliski 1996) on 32-bit limbs with an N+1 word accumulator t.
 *
 * Each round adds a * b[i] and then k * m (k = t[0] * INV, which zeroes
 * t[0]) and shifts t down one word. A 32 x 32-bit product has a low half for
 * word j and a high half for word j+1, so each addition is two carry chains:
 * the low halves into t[0..N-1] (carry into t[N]), then the high halves into
 * t[1..N]. With t < 2m on entry (inductively; 0 at the start), t + a*b[i] +
 * k*m < 2m * 2^32 < 2^(32(N+1)) because 2m < 2^(32N), so neither chain
 * carries out of t[N], and after the shift t < 2m again: one conditional
 * subtraction at the end gives the reduced result.
 */
template <class P>
FIELD_INLINE void field_mul(field_t<P> &ret, const field_t<P> &a,
                            const field_t<P> &b)
{
    constexpr int N = P::N;
    uint32_t t[N + 1];

    /* Round 0: t = a * b[0], the low halves need no carries. */
    uint32_t bi = b.l[0];
FIELD_UNROLL
    for (int j = 0; j < N; j++)
        t[j] = a.l[j] * bi;
    t[1] = ptx_mad_hi_cc(a.l[0], bi, t[1]);
FIELD_UNROLL
    for (int j = 1; j < N - 1; j++)
        t[j + 1] = ptx_madc_hi_cc(a.l[j], bi, t[j + 1]);
    t[N] = ptx_madc_hi(a.l[N - 1], bi, 0);

FIELD_UNROLL
    for (int i = 0; i < N; i++) {
        if (i > 0) {
            /* t += a * b[i] */
            bi = b.l[i];
            t[0] = ptx_mad_lo_cc(a.l[0], bi, t[0]);
FIELD_UNROLL
            for (int j = 1; j < N; j++)
                t[j] = ptx_madc_lo_cc(a.l[j], bi, t[j]);
            t[N] = ptx_addc(0, 0);
            t[1] = ptx_mad_hi_cc(a.l[0], bi, t[1]);
FIELD_UNROLL
            for (int j = 1; j < N - 1; j++)
                t[j + 1] = ptx_madc_hi_cc(a.l[j], bi, t[j + 1]);
            t[N] = ptx_madc_hi(a.l[N - 1], bi, t[N]);
        }
        field_mont_step<P>(t);
    }
    field_reduce_once<P>(ret.l, t);
}

/* t[0..N] += a * w (w one word): the low halves into t[0..N-1] (carry into
 * t[N]), then the high halves into t[1..N]. The caller keeps the sum below
 * 2^(32(N+1)). */
template <class P>
FIELD_INLINE void field_mad_word(uint32_t *t, const field_t<P> &a, uint32_t w)
{
    constexpr int N = P::N;
    t[0] = ptx_mad_lo_cc(a.l[0], w, t[0]);
FIELD_UNROLL
    for (int j = 1; j < N; j++)
        t[j] = ptx_madc_lo_cc(a.l[j], w, t[j]);
    t[N] = ptx_addc(t[N], 0);
    t[1] = ptx_mad_hi_cc(a.l[0], w, t[1]);
FIELD_UNROLL
    for (int j = 1; j < N - 1; j++)
        t[j + 1] = ptx_madc_hi_cc(a.l[j], w, t[j + 1]);
    t[N] = ptx_madc_hi(a.l[N - 1], w, t[N]);
}

/*
 * ret = (a b + c d) / 2^(32N) mod m: field_mul's CIOS with two products a
 * round (t += a b[i] + c d[i] + k m, then the shift), so a sum of two
 * products costs one reduction, 1.5 multiplications instead of 2 and an
 * addition. With t < 3m at a round's start, the round's sum is below
 * 3m 2^32 (each product below m 2^32), so it fits N + 1 words when
 * 3m < 2^(32N), and t < 3m after the shift: two conditional subtractions
 * at the end. Fp only (3r > 2^256).
 */
template <class P>
FIELD_INLINE void field_mul_sum(field_t<P> &ret, const field_t<P> &a, const field_t<P> &b,
                                const field_t<P> &c, const field_t<P> &d)
{
    constexpr int N = P::N;
    static_assert(P::mod(N - 1) < 0x55555555u, "field_mul_sum needs 3m < 2^(32N)");
    uint32_t t[N + 1];
FIELD_UNROLL
    for (int j = 0; j <= N; j++)
        t[j] = 0;
FIELD_UNROLL
    for (int i = 0; i < N; i++) {
        t[N] = 0; /* the shift left the top word stale */
        field_mad_word(t, a, b.l[i]);
        field_mad_word(t, c, d.l[i]);
        field_mont_step<P>(t);
    }
    field_reduce_once<P>(t, t);
    field_reduce_once<P>(ret.l, t);
}

/* Squaring is a multiplication for now; a dedicated squaring (each cross
 * product once, doubled) saves about a quarter of the products. */
template <class P>
FIELD_INLINE void field_sqr(field_t<P> &ret, const field_t<P> &a)
{
    field_mul(ret, a, a);
}

/* ---- Fp2 = Fp[u] / (u^2 + 1) ------------------------------------------- */

struct __align__(16) dev_fp2_t {
    dev_fp_t c0, c1;
};

static_assert(sizeof(dev_fp2_t) == 2 * BLS12_381_FP_BYTES, "fp2 layout");

FIELD_INLINE void field_add(dev_fp2_t &ret, const dev_fp2_t &a,
                            const dev_fp2_t &b)
{
    field_add(ret.c0, a.c0, b.c0);
    field_add(ret.c1, a.c1, b.c1);
}

FIELD_INLINE void field_sub(dev_fp2_t &ret, const dev_fp2_t &a,
                            const dev_fp2_t &b)
{
    field_sub(ret.c0, a.c0, b.c0);
    field_sub(ret.c1, a.c1, b.c1);
}

FIELD_INLINE void field_dbl(dev_fp2_t &ret, const dev_fp2_t &a)
{
    field_dbl(ret.c0, a.c0);
    field_dbl(ret.c1, a.c1);
}

FIELD_INLINE void field_neg(dev_fp2_t &ret, const dev_fp2_t &a)
{
    field_neg(ret.c0, a.c0);
    field_neg(ret.c1, a.c1);
}

/* Karatsuba: three Fp products. (a0 + a1 u)(b0 + b1 u) =
 * (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u. */
FIELD_INLINE void field_mul(dev_fp2_t &ret, const dev_fp2_t &a,
                            const dev_fp2_t &b)
{
    dev_fp_t t0, t1, s0, s1;
    field_mul(t0, a.c0, b.c0);
    field_mul(t1, a.c1, b.c1);
    field_add(s0, a.c0, a.c1);
    field_add(s1, b.c0, b.c1);
    field_mul(s0, s0, s1);
    field_sub(ret.c0, t0, t1);
    field_sub(s0, s0, t0);
    field_sub(ret.c1, s0, t1);
}

/* Complex squaring: (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
FIELD_INLINE void field_sqr(dev_fp2_t &ret, const dev_fp2_t &a)
{
    dev_fp_t s, d, m;
    field_add(s, a.c0, a.c1);
    field_sub(d, a.c0, a.c1);
    field_mul(m, a.c0, a.c1);
    field_mul(ret.c0, s, d);
    field_dbl(ret.c1, m);
}

#endif
