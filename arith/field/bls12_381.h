/*
 * BLS12-381 constants: the one source for host (64-bit limbs) and device
 * (32-bit limbs) arithmetic.
 *
 * Each constant is an X-macro list of 64-bit limbs, least significant first.
 * Host code expands it with BLS12_381_U64, device code with BLS12_381_U32,
 * which splits every 64-bit limb into its low and high 32-bit halves. Both
 * layouts hold the same little-endian integer, and both use the Montgomery
 * radix R = 2^384 (Fp) or 2^256 (Fr), so an element's bytes are identical on
 * host and device: copying an fp_t array to the GPU needs no conversion.
 *
 * Values from the BLS12-381 specification (draft-irtf-cfrg-pairing-friendly-
 * curves, section 4.2.1); the derived Montgomery constants were computed from
 * them and are checked against GMP by tests/field/test_fp.c.
 */
#ifndef ZKB_BLS12_381_H
#define ZKB_BLS12_381_H

#define BLS12_381_U64(x) (x)
#define BLS12_381_U32(x) (uint32_t)((x) & 0xffffffffu), (uint32_t)((x) >> 32)

/* p: the base field modulus, 381 bits. */
#define BLS12_381_P(L)                                                        \
    L(0xb9feffffffffaaabull), L(0x1eabfffeb153ffffull),                       \
    L(0x6730d2a0f6b0f624ull), L(0x64774b84f38512bfull),                       \
    L(0x4b1ba7b6434bacd7ull), L(0x1a0111ea397fe69aull)
/* R mod p with R = 2^384: one in Montgomery form. */
#define BLS12_381_P_R(L)                                                      \
    L(0x760900000002fffdull), L(0xebf4000bc40c0002ull),                       \
    L(0x5f48985753c758baull), L(0x77ce585370525745ull),                       \
    L(0x5c071a97a256ec6dull), L(0x15f65ec3fa80e493ull)
/* R^2 mod p: multiplying by it converts into Montgomery form. */
#define BLS12_381_P_R2(L)                                                     \
    L(0xf4df1f341c341746ull), L(0x0a76e6a609d104f1ull),                       \
    L(0x8de5476c4c95b6d5ull), L(0x67eb88a9939d83c0ull),                       \
    L(0x9a793e85b519952dull), L(0x11988fe592cae3aaull)
/* -p^-1 mod 2^64; its low 32 bits are -p^-1 mod 2^32 for 32-bit limbs. */
#define BLS12_381_P_INV64 0x89f3fffcfffcfffdull
#define BLS12_381_P_INV32 0xfffcfffdu

/* r: the scalar field modulus (group order), 255 bits. */
#define BLS12_381_R(L)                                                        \
    L(0xffffffff00000001ull), L(0x53bda402fffe5bfeull),                       \
    L(0x3339d80809a1d805ull), L(0x73eda753299d7d48ull)
/* 2^256 mod r: one in Montgomery form. */
#define BLS12_381_R_R(L)                                                      \
    L(0x00000001fffffffeull), L(0x5884b7fa00034802ull),                       \
    L(0x998c4fefecbc4ff5ull), L(0x1824b159acc5056full)
/* 2^512 mod r. */
#define BLS12_381_R_R2(L)                                                     \
    L(0xc999e990f3f29c6dull), L(0x2b6cedcb87925c23ull),                       \
    L(0x05d314967254398full), L(0x0748d9d99f59ff11ull)
/* -r^-1 mod 2^64 and mod 2^32. */
#define BLS12_381_R_INV64 0xfffffffeffffffffull
#define BLS12_381_R_INV32 0xffffffffu

/* r - 1 = 2^32 * t with t odd: the two-adicity of Fr. */
#define BLS12_381_R_TWO_ADICITY 32
/* 7 generates Fr^*; 7^t is a primitive 2^32-th root of unity (Montgomery). */
#define BLS12_381_R_GENERATOR 7
#define BLS12_381_R_ROOT_OF_UNITY(L)                                          \
    L(0xb9b58d8c5f0e466aull), L(0x5b1b4c801819d7ecull),                       \
    L(0x0af53ae352a31e64ull), L(0x5bf3adda19e9b27bull)

/* |x| where x = -0xd201000000010000 is the BLS parameter (x is negative). */
#define BLS12_381_X_ABS 0xd201000000010000ull
#define BLS12_381_X_IS_NEGATIVE 1

#define BLS12_381_FP_LIMBS 6
#define BLS12_381_FR_LIMBS 4
#define BLS12_381_FP_BYTES 48
#define BLS12_381_FR_BYTES 32

#endif
