/*
 * Montgomery arithmetic on N x 64-bit limbs, shared by Fp (N = 6) and
 * Fr (N = 4). Internal to arith/field: every function is static inline with
 * N a compile-time constant at each call, so the compiler unrolls the loops
 * into straight-line code for each field.
 *
 * Multiplication is CIOS (Koc, Acar, Kaliski, "Analyzing and comparing
 * Montgomery multiplication algorithms", 1996) without the extra carry word:
 * both BLS12-381 moduli have a top limb below 2^63 - 1, so the running sum
 * never overflows N + 1 words (the "no-carry" observation used by gnark).
 */
#ifndef ZKB_MONT_H
#define ZKB_MONT_H

#include <stdbool.h>
#include <stdint.h>

__extension__ typedef unsigned __int128 mont_u128;

#define MONT_INLINE static inline __attribute__((always_inline))

/* ret = a + b, returning the carry out. */
MONT_INLINE uint64_t mont_add_raw(uint64_t *ret, const uint64_t *a,
                                  const uint64_t *b, int n)
{
    uint64_t c = 0;
    for (int i = 0; i < n; i++) {
        mont_u128 s = (mont_u128)a[i] + b[i] + c;
        ret[i] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
    return c;
}

/* ret = a - b, returning the borrow out (1 when a < b). */
MONT_INLINE uint64_t mont_sub_raw(uint64_t *ret, const uint64_t *a,
                                  const uint64_t *b, int n)
{
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        mont_u128 d = (mont_u128)a[i] - b[i] - borrow;
        ret[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
    return borrow;
}

/* a >= m as integers. */
MONT_INLINE bool mont_geq(const uint64_t *a, const uint64_t *m, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (a[i] != m[i])
            return a[i] > m[i];
    }
    return true;
}

/* ret = t mod m for t < 2m: one conditional subtraction, branch-free. */
MONT_INLINE void mont_reduce_once(uint64_t *ret, const uint64_t *t,
                                  const uint64_t *m, int n)
{
    uint64_t d[8];
    uint64_t borrow = mont_sub_raw(d, t, m, n);
    uint64_t keep = (uint64_t)0 - borrow; /* all ones: t < m, keep t */
    for (int i = 0; i < n; i++)
        ret[i] = (t[i] & keep) | (d[i] & ~keep);
}

/* Moduli below 2^(64n - 1): a + b < 2^(64n), no carry word needed. */
MONT_INLINE void mont_add(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                          const uint64_t *m, int n)
{
    uint64_t t[8];
    mont_add_raw(t, a, b, n);
    mont_reduce_once(ret, t, m, n);
}

MONT_INLINE void mont_sub(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                          const uint64_t *m, int n)
{
    uint64_t t[8], u[8];
    uint64_t borrow = mont_sub_raw(t, a, b, n);
    uint64_t mask = (uint64_t)0 - borrow;
    for (int i = 0; i < n; i++)
        u[i] = m[i] & mask;
    mont_add_raw(ret, t, u, n);
}

MONT_INLINE void mont_neg(uint64_t *ret, const uint64_t *a, const uint64_t *m,
                          int n)
{
    uint64_t nz = 0;
    for (int i = 0; i < n; i++)
        nz |= a[i];
    uint64_t mask = (uint64_t)0 - (uint64_t)(nz != 0);
    uint64_t t[8];
    mont_sub_raw(t, m, a, n);
    for (int i = 0; i < n; i++)
        ret[i] = t[i] & mask;
}

/* ret = a * b * 2^(-64n) mod m (no-carry CIOS). */
MONT_INLINE void mont_mul(uint64_t *ret, const uint64_t *a, const uint64_t *b,
                          const uint64_t *m, uint64_t inv, int n)
{
    uint64_t t[8] = {0};
    for (int i = 0; i < n; i++) {
        mont_u128 s = (mont_u128)a[0] * b[i] + t[0];
        uint64_t A = (uint64_t)(s >> 64);
        t[0] = (uint64_t)s;
        uint64_t k = t[0] * inv;
        mont_u128 u = (mont_u128)k * m[0] + t[0];
        uint64_t C = (uint64_t)(u >> 64);
        for (int j = 1; j < n; j++) {
            s = (mont_u128)a[j] * b[i] + t[j] + A;
            A = (uint64_t)(s >> 64);
            u = (mont_u128)k * m[j] + (uint64_t)s + C;
            C = (uint64_t)(u >> 64);
            t[j - 1] = (uint64_t)u;
        }
        t[n - 1] = C + A;
    }
    mont_reduce_once(ret, t, m, n);
}

/* Canonical value of Montgomery a: a * 1 * 2^(-64n). */
MONT_INLINE void mont_from(uint64_t *ret, const uint64_t *a, const uint64_t *m,
                           uint64_t inv, int n)
{
    uint64_t one[8] = {1};
    mont_mul(ret, a, one, m, inv, n);
}

MONT_INLINE bool mont_is_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

MONT_INLINE bool mont_eq(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++)
        acc |= a[i] ^ b[i];
    return acc == 0;
}

MONT_INLINE void mont_bytes_be_to_limbs(uint64_t *ret, const uint8_t *in,
                                        int n)
{
    for (int i = 0; i < n; i++) {
        uint64_t w = 0;
        for (int k = 0; k < 8; k++)
            w = (w << 8) | in[(n - 1 - i) * 8 + k];
        ret[i] = w;
    }
}

MONT_INLINE void mont_limbs_to_bytes_be(uint8_t *out, const uint64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 8; k++)
            out[(n - 1 - i) * 8 + k] = (uint8_t)(v[i] >> (56 - 8 * k));
}

#endif
