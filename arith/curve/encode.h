/*
 * Serialization of field elements and curve points, in the two forms the
 * Groth16 tools around this prover exchange:
 *
 * Bytes, as zcash / bellperson / the IETF pairing-friendly-curves draft
 * write them (appendix "ZCash serialization format for BLS12-381"):
 *   G1 compressed 48 bytes: x;  uncompressed 96: x || y
 *   G2 compressed 96 bytes: x.c1 || x.c0;  uncompressed 192: x.c1 || x.c0 ||
 *   y.c1 || y.c0
 *   Every coordinate is 48 bytes big-endian, canonical (< p). The three top
 *   bits of the first byte are flags: 0x80 compressed, 0x40 infinity (the
 *   rest all zero), 0x20 sign: y is the lexicographically largest of y, -y
 *   (compressed only; fp.h / fp2.h define the order).
 *
 * Decimal strings, as snarkjs writes its JSON (proof.json,
 * verification_key.json, public.json): an element is its canonical value in
 * base 10 without sign or leading zeros; a point is a coordinate triple:
 *   G1: "x", "y", "1"                   infinity "0", "1", "0"
 *   G2: "x.c0", "x.c1", "y.c0", "y.c1", "1", "0"
 *                                       infinity "0", "0", "1", "0", "0", "0"
 * i.e. snarkjs's [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]] flattened in
 * order. Callers build or take apart the JSON arrays; these functions only
 * see the strings.
 *
 * Decoders check everything by default: length, flags, range, curve and
 * subgroup. Outputs are left untouched on error.
 */
#ifndef ZKB_ENCODE_H
#define ZKB_ENCODE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fp.h"
#include "arith/field/fr.h"

#define ENCODE_G1_COMPRESSED_BYTES 48
#define ENCODE_G1_UNCOMPRESSED_BYTES 96
#define ENCODE_G2_COMPRESSED_BYTES 96
#define ENCODE_G2_UNCOMPRESSED_BYTES 192

/* Digits of p - 1 and r - 1, the longest canonical decimal strings, and
 * buffer sizes with the terminating NUL. */
#define ENCODE_FP_DEC_DIGITS 115
#define ENCODE_FR_DEC_DIGITS 77
#define ENCODE_FP_DEC_BYTES (ENCODE_FP_DEC_DIGITS + 1)
#define ENCODE_FR_DEC_BYTES (ENCODE_FR_DEC_DIGITS + 1)

/* Errors (each distinct; encode_strerror gives a message):
 *   bytes
 *     ENCODE_ERR_LENGTH      length is neither form's length for the group
 *     ENCODE_ERR_FLAGS       flag bits inconsistent: compression flag does
 *                            not match the length, infinity flag with any
 *                            other bit set, sign flag on an uncompressed
 *                            point
 *   bytes and decimal
 *     ENCODE_ERR_RANGE       a coordinate or value is >= its modulus
 *     ENCODE_ERR_NOT_ON_CURVE the coordinates are not a point of the curve
 *                            (compressed: x^3 + b has no square root)
 *     ENCODE_ERR_NOT_IN_SUBGROUP on the curve, but not in the order-r group
 *   decimal
 *     ENCODE_ERR_NULL        a string pointer is NULL (a missing JSON field)
 *     ENCODE_ERR_EMPTY       the empty string
 *     ENCODE_ERR_SIGN        a leading '+' or '-'
 *     ENCODE_ERR_DIGIT       a character other than '0'..'9'
 *     ENCODE_ERR_TOO_LONG    more characters than the modulus has digits
 *                            (leading zeros within that length are accepted)
 *     ENCODE_ERR_NOT_AFFINE  third coordinate neither one (a point) nor zero
 *                            with the snarkjs infinity coordinates
 *     ENCODE_ERR_NO_SPACE    output buffer too small (to_dec)
 */
#define ENCODE_ERR_LENGTH (-EMSGSIZE)
#define ENCODE_ERR_FLAGS (-EBADMSG)
#define ENCODE_ERR_RANGE (-ERANGE)
#define ENCODE_ERR_NOT_ON_CURVE (-EDOM)
#define ENCODE_ERR_NOT_IN_SUBGROUP (-EKEYREJECTED)
#define ENCODE_ERR_NULL (-EINVAL)
#define ENCODE_ERR_EMPTY (-ENODATA)
#define ENCODE_ERR_SIGN (-EPROTO)
#define ENCODE_ERR_DIGIT (-EILSEQ)
#define ENCODE_ERR_TOO_LONG (-EOVERFLOW)
#define ENCODE_ERR_NOT_AFFINE (-ENOTSUP)
#define ENCODE_ERR_NO_SPACE (-ENOSPC)

/* Decoder flag: skip the subgroup check (curve check still done), for
 * callers that read trusted data in bulk, e.g. their own parameter files. */
#define ENCODE_NO_SUBGROUP_CHECK 1u

/* A short, static, lower-case message for an ENCODE_ERR_* code (and
 * "success" for 0, "unknown error" for anything else). */
const char *encode_strerror(int err);

/* ---- bytes ----------------------------------------------------------- */

/* out: ENCODE_G1_COMPRESSED_BYTES / _UNCOMPRESSED_BYTES bytes. */
void encode_g1_write_compressed(uint8_t *out, const g1_affine_t *p);
void encode_g1_write_uncompressed(uint8_t *out, const g1_affine_t *p);
/* Either form, told apart by len (and checked against the flag). Returns 0
 * or an ENCODE_ERR_* code. flags: 0 or ENCODE_NO_SUBGROUP_CHECK. */
int encode_g1_read(g1_affine_t *ret, const uint8_t *in, size_t len,
                   unsigned flags);

void encode_g2_write_compressed(uint8_t *out, const g2_affine_t *p);
void encode_g2_write_uncompressed(uint8_t *out, const g2_affine_t *p);
int encode_g2_read(g2_affine_t *ret, const uint8_t *in, size_t len,
                   unsigned flags);

/* ---- decimal --------------------------------------------------------- */

/* Writes the canonical decimal string of a and its NUL into out (cap
 * bytes; ENCODE_FP_DEC_BYTES / ENCODE_FR_DEC_BYTES always suffice).
 * Returns the number of digits, or ENCODE_ERR_NO_SPACE (out untouched). */
int encode_fp_to_dec(char *out, size_t cap, const fp_t *a);
int encode_fr_to_dec(char *out, size_t cap, const fr_t *a);
/* Parses a NUL-terminated decimal string. Returns 0 or ENCODE_ERR_NULL,
 * _EMPTY, _SIGN, _DIGIT, _TOO_LONG, _RANGE (checked in that order). */
int encode_fp_from_dec(fp_t *ret, const char *s);
int encode_fr_from_dec(fr_t *ret, const char *s);

/* The snarkjs triple of p (see the top of this file): 3 strings for G1,
 * 6 for G2. */
void encode_g1_to_dec(char out[3][ENCODE_FP_DEC_BYTES], const g1_affine_t *p);
void encode_g2_to_dec(char out[6][ENCODE_FP_DEC_BYTES], const g2_affine_t *p);
/* The inverse: string errors as encode_fp_from_dec (first bad string in
 * order), then ENCODE_ERR_NOT_AFFINE, _NOT_ON_CURVE, _NOT_IN_SUBGROUP.
 * flags: 0 or ENCODE_NO_SUBGROUP_CHECK. */
int encode_g1_from_dec(g1_affine_t *ret, const char *const in[3],
                       unsigned flags);
int encode_g2_from_dec(g2_affine_t *ret, const char *const in[6],
                       unsigned flags);

#endif
