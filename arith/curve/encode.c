/*
 * Byte (zcash) and decimal (snarkjs) encodings of field elements and points;
 * encode.h describes both formats. Decimal conversion is done here on
 * canonical limbs (the library does not link GMP).
 */
#include "arith/curve/encode.h"

#include <stdbool.h>
#include <string.h>

#include "arith/field/bls12_381.h"

#define FLAG_COMPRESSED 0x80u
#define FLAG_INFINITY 0x40u
#define FLAG_SIGN 0x20u
#define FLAG_MASK 0xe0u

const char *encode_strerror(int err)
{
    switch (err) {
    case 0:
        return "success";
    case ENCODE_ERR_LENGTH:
        return "wrong encoded length";
    case ENCODE_ERR_FLAGS:
        return "invalid flag bits";
    case ENCODE_ERR_RANGE:
        return "value not below the field modulus";
    case ENCODE_ERR_NOT_ON_CURVE:
        return "point not on the curve";
    case ENCODE_ERR_NOT_IN_SUBGROUP:
        return "point not in the prime-order subgroup";
    case ENCODE_ERR_NULL:
        return "missing string";
    case ENCODE_ERR_EMPTY:
        return "empty decimal string";
    case ENCODE_ERR_SIGN:
        return "sign character in decimal string";
    case ENCODE_ERR_DIGIT:
        return "non-digit character in decimal string";
    case ENCODE_ERR_TOO_LONG:
        return "decimal string too long";
    case ENCODE_ERR_NOT_AFFINE:
        return "third coordinate is not 1 or a valid infinity";
    case ENCODE_ERR_NO_SPACE:
        return "output buffer too small";
    default:
        return "unknown error";
    }
}

/* ---- bytes ----------------------------------------------------------- */

/* Checks the flag bits of in[0] against the length; sets *compressed and
 * *infinity, and *sign for a compressed finite point. */
static int flags_parse(bool *compressed, bool *infinity, bool *sign,
                       const uint8_t *in, size_t len, size_t len_compressed,
                       size_t len_uncompressed)
{
    if (len != len_compressed && len != len_uncompressed)
        return ENCODE_ERR_LENGTH;
    bool c = (in[0] & FLAG_COMPRESSED) != 0;
    bool i = (in[0] & FLAG_INFINITY) != 0;
    bool s = (in[0] & FLAG_SIGN) != 0;
    if (c != (len == len_compressed))
        return ENCODE_ERR_FLAGS;
    if (i) {
        /* Infinity has exactly one encoding per form: no sign, all other
         * bits zero. */
        if (s || (in[0] & ~FLAG_MASK) != 0)
            return ENCODE_ERR_FLAGS;
        for (size_t k = 1; k < len; k++) {
            if (in[k] != 0)
                return ENCODE_ERR_FLAGS;
        }
    }
    if (!c && s)
        return ENCODE_ERR_FLAGS;
    *compressed = c;
    *infinity = i;
    *sign = s;
    return 0;
}

/* A 48-byte coordinate; the first may carry flags, which are masked. */
static int coord_read(fp_t *ret, const uint8_t *in, bool has_flags)
{
    uint8_t buf[BLS12_381_FP_BYTES];
    memcpy(buf, in, sizeof buf);
    if (has_flags)
        buf[0] &= (uint8_t)~FLAG_MASK;
    return fp_from_bytes_be(ret, buf) < 0 ? ENCODE_ERR_RANGE : 0;
}

void encode_g1_write_compressed(uint8_t *out, const g1_affine_t *p)
{
    if (g1_affine_is_infinity(p)) {
        memset(out, 0, ENCODE_G1_COMPRESSED_BYTES);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp_to_bytes_be(out, &p->x);
    out[0] |= FLAG_COMPRESSED;
    if (fp_is_lexicographically_largest(&p->y))
        out[0] |= FLAG_SIGN;
}

void encode_g1_write_uncompressed(uint8_t *out, const g1_affine_t *p)
{
    if (g1_affine_is_infinity(p)) {
        memset(out, 0, ENCODE_G1_UNCOMPRESSED_BYTES);
        out[0] = FLAG_INFINITY;
        return;
    }
    fp_to_bytes_be(out, &p->x);
    fp_to_bytes_be(out + BLS12_381_FP_BYTES, &p->y);
}

int encode_g1_read(g1_affine_t *ret, const uint8_t *in, size_t len,
                   unsigned flags)
{
    bool compressed, infinity, sign;
    int err = flags_parse(&compressed, &infinity, &sign, in, len,
                          ENCODE_G1_COMPRESSED_BYTES,
                          ENCODE_G1_UNCOMPRESSED_BYTES);
    if (err < 0)
        return err;
    if (infinity) {
        *ret = G1_INFINITY;
        return 0;
    }
    g1_affine_t p;
    if ((err = coord_read(&p.x, in, true)) < 0)
        return err;
    if (compressed) {
        if (!g1_affine_from_x(&p, &p.x, sign))
            return ENCODE_ERR_NOT_ON_CURVE;
    } else {
        if ((err = coord_read(&p.y, in + BLS12_381_FP_BYTES, false)) < 0)
            return err;
        /* (0, 0) is this library's infinity, but without the flag it is
         * the off-curve point it looks like. */
        if (g1_affine_is_infinity(&p) || !g1_affine_is_on_curve(&p))
            return ENCODE_ERR_NOT_ON_CURVE;
    }
    if (!(flags & ENCODE_NO_SUBGROUP_CHECK) && !g1_affine_in_subgroup(&p))
        return ENCODE_ERR_NOT_IN_SUBGROUP;
    *ret = p;
    return 0;
}

void encode_g2_write_compressed(uint8_t *out, const g2_affine_t *p)
{
    if (g2_affine_is_infinity(p)) {
        memset(out, 0, ENCODE_G2_COMPRESSED_BYTES);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp_to_bytes_be(out, &p->x.c1);
    fp_to_bytes_be(out + BLS12_381_FP_BYTES, &p->x.c0);
    out[0] |= FLAG_COMPRESSED;
    if (fp2_is_lexicographically_largest(&p->y))
        out[0] |= FLAG_SIGN;
}

void encode_g2_write_uncompressed(uint8_t *out, const g2_affine_t *p)
{
    if (g2_affine_is_infinity(p)) {
        memset(out, 0, ENCODE_G2_UNCOMPRESSED_BYTES);
        out[0] = FLAG_INFINITY;
        return;
    }
    fp_to_bytes_be(out, &p->x.c1);
    fp_to_bytes_be(out + BLS12_381_FP_BYTES, &p->x.c0);
    fp_to_bytes_be(out + 2 * BLS12_381_FP_BYTES, &p->y.c1);
    fp_to_bytes_be(out + 3 * BLS12_381_FP_BYTES, &p->y.c0);
}

int encode_g2_read(g2_affine_t *ret, const uint8_t *in, size_t len,
                   unsigned flags)
{
    bool compressed, infinity, sign;
    int err = flags_parse(&compressed, &infinity, &sign, in, len,
                          ENCODE_G2_COMPRESSED_BYTES,
                          ENCODE_G2_UNCOMPRESSED_BYTES);
    if (err < 0)
        return err;
    if (infinity) {
        *ret = G2_INFINITY;
        return 0;
    }
    g2_affine_t p;
    if ((err = coord_read(&p.x.c1, in, true)) < 0 ||
        (err = coord_read(&p.x.c0, in + BLS12_381_FP_BYTES, false)) < 0)
        return err;
    if (compressed) {
        if (!g2_affine_from_x(&p, &p.x, sign))
            return ENCODE_ERR_NOT_ON_CURVE;
    } else {
        if ((err = coord_read(&p.y.c1, in + 2 * BLS12_381_FP_BYTES,
                              false)) < 0 ||
            (err = coord_read(&p.y.c0, in + 3 * BLS12_381_FP_BYTES,
                              false)) < 0)
            return err;
        if (g2_affine_is_infinity(&p) || !g2_affine_is_on_curve(&p))
            return ENCODE_ERR_NOT_ON_CURVE;
    }
    if (!(flags & ENCODE_NO_SUBGROUP_CHECK) && !g2_affine_in_subgroup(&p))
        return ENCODE_ERR_NOT_IN_SUBGROUP;
    *ret = p;
    return 0;
}

/* ---- decimal --------------------------------------------------------- */

__extension__ typedef unsigned __int128 u128;

/* 10^19, the largest power of ten below 2^64. */
#define DEC_CHUNK 10000000000000000000ull
#define DEC_CHUNK_DIGITS 19

/* Canonical limbs (n of them) to decimal, by repeated division by 10^19.
 * Returns the digit count, or ENCODE_ERR_NO_SPACE. */
static int limbs_to_dec(char *out, size_t cap, const uint64_t *v, size_t n)
{
    /* 384 bits < 10^(19 * 7): at most 7 chunks. */
    uint64_t t[BLS12_381_FP_LIMBS], chunks[7];
    size_t nchunks = 0;
    memcpy(t, v, n * sizeof *t);
    bool nonzero;
    do {
        uint64_t rem = 0;
        nonzero = false;
        for (size_t i = n; i-- > 0;) {
            u128 cur = ((u128)rem << 64) | t[i];
            t[i] = (uint64_t)(cur / DEC_CHUNK);
            rem = (uint64_t)(cur % DEC_CHUNK);
            nonzero |= t[i] != 0;
        }
        chunks[nchunks++] = rem;
    } while (nonzero);

    /* Most significant chunk unpadded, the others as 19 digits each. */
    char buf[ENCODE_FP_DEC_BYTES + DEC_CHUNK_DIGITS];
    size_t len = 0;
    for (size_t c = nchunks; c-- > 0;) {
        char digits[DEC_CHUNK_DIGITS];
        uint64_t x = chunks[c];
        int nd = 0;
        do {
            digits[nd++] = (char)('0' + x % 10);
            x /= 10;
        } while (x != 0);
        if (c != nchunks - 1) {
            for (; nd < DEC_CHUNK_DIGITS; nd++)
                digits[nd] = '0';
        }
        while (nd > 0)
            buf[len++] = digits[--nd];
    }
    if (cap < len + 1)
        return ENCODE_ERR_NO_SPACE;
    memcpy(out, buf, len);
    out[len] = '\0';
    return (int)len;
}

/* Decimal to n canonical limbs, at most max_digits digits. The range
 * check against the modulus is left to fp/fr_from_limbs. */
static int limbs_from_dec(uint64_t *v, const char *s, size_t n,
                          size_t max_digits)
{
    if (s == NULL)
        return ENCODE_ERR_NULL;
    if (s[0] == '\0')
        return ENCODE_ERR_EMPTY;
    if (s[0] == '+' || s[0] == '-')
        return ENCODE_ERR_SIGN;
    /* Scan no further than one past the longest valid length: a huge
     * input costs no more than a valid one. */
    size_t len = 0;
    for (; s[len] != '\0' && len <= max_digits; len++) {
        if (s[len] < '0' || s[len] > '9')
            return ENCODE_ERR_DIGIT;
    }
    if (len > max_digits)
        return ENCODE_ERR_TOO_LONG;

    /* max_digits digits fit in n limbs (10^115 < 2^384, 10^77 < 2^256),
     * so the running value never overflows. */
    uint64_t acc[BLS12_381_FP_LIMBS] = {0};
    for (size_t k = 0; k < len; k++) {
        uint64_t carry = (uint64_t)(s[k] - '0');
        for (size_t i = 0; i < n; i++) {
            u128 cur = (u128)acc[i] * 10 + carry;
            acc[i] = (uint64_t)cur;
            carry = (uint64_t)(cur >> 64);
        }
    }
    memcpy(v, acc, n * sizeof *v);
    return 0;
}

int encode_fp_to_dec(char *out, size_t cap, const fp_t *a)
{
    uint64_t v[BLS12_381_FP_LIMBS];
    fp_to_limbs(v, a);
    return limbs_to_dec(out, cap, v, BLS12_381_FP_LIMBS);
}

int encode_fr_to_dec(char *out, size_t cap, const fr_t *a)
{
    uint64_t v[BLS12_381_FR_LIMBS];
    fr_to_limbs(v, a);
    return limbs_to_dec(out, cap, v, BLS12_381_FR_LIMBS);
}

int encode_fp_from_dec(fp_t *ret, const char *s)
{
    uint64_t v[BLS12_381_FP_LIMBS];
    int err = limbs_from_dec(v, s, BLS12_381_FP_LIMBS,
                             ENCODE_FP_DEC_DIGITS);
    if (err < 0)
        return err;
    return fp_from_limbs(ret, v) < 0 ? ENCODE_ERR_RANGE : 0;
}

int encode_fr_from_dec(fr_t *ret, const char *s)
{
    uint64_t v[BLS12_381_FR_LIMBS];
    int err = limbs_from_dec(v, s, BLS12_381_FR_LIMBS,
                             ENCODE_FR_DEC_DIGITS);
    if (err < 0)
        return err;
    return fr_from_limbs(ret, v) < 0 ? ENCODE_ERR_RANGE : 0;
}

/* Elements below p always fit ENCODE_FP_DEC_BYTES, so these cannot fail. */
static void fp_dec(char *out, const fp_t *a)
{
    (void)encode_fp_to_dec(out, ENCODE_FP_DEC_BYTES, a);
}

static void small_dec(char *out, unsigned v)
{
    out[0] = (char)('0' + v);
    out[1] = '\0';
}

void encode_g1_to_dec(char out[3][ENCODE_FP_DEC_BYTES], const g1_affine_t *p)
{
    if (g1_affine_is_infinity(p)) {
        small_dec(out[0], 0);
        small_dec(out[1], 1);
        small_dec(out[2], 0);
        return;
    }
    fp_dec(out[0], &p->x);
    fp_dec(out[1], &p->y);
    small_dec(out[2], 1);
}

void encode_g2_to_dec(char out[6][ENCODE_FP_DEC_BYTES], const g2_affine_t *p)
{
    if (g2_affine_is_infinity(p)) {
        static const unsigned inf[6] = {0, 0, 1, 0, 0, 0};
        for (int i = 0; i < 6; i++)
            small_dec(out[i], inf[i]);
        return;
    }
    fp_dec(out[0], &p->x.c0);
    fp_dec(out[1], &p->x.c1);
    fp_dec(out[2], &p->y.c0);
    fp_dec(out[3], &p->y.c1);
    small_dec(out[4], 1);
    small_dec(out[5], 0);
}

/* Parses n strings into v[]; returns the first error. */
static int fp_parse_all(fp_t *v, const char *const *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int err = encode_fp_from_dec(&v[i], in[i]);
        if (err < 0)
            return err;
    }
    return 0;
}

int encode_g1_from_dec(g1_affine_t *ret, const char *const in[3],
                       unsigned flags)
{
    fp_t v[3];
    int err = fp_parse_all(v, in, 3);
    if (err < 0)
        return err;
    if (fp_is_zero(&v[2])) {
        /* snarkjs writes infinity as exactly (0, 1, 0). */
        if (!fp_is_zero(&v[0]) || !fp_is_one(&v[1]))
            return ENCODE_ERR_NOT_AFFINE;
        *ret = G1_INFINITY;
        return 0;
    }
    if (!fp_is_one(&v[2]))
        return ENCODE_ERR_NOT_AFFINE;
    g1_affine_t p = {v[0], v[1]};
    if (g1_affine_is_infinity(&p) || !g1_affine_is_on_curve(&p))
        return ENCODE_ERR_NOT_ON_CURVE;
    if (!(flags & ENCODE_NO_SUBGROUP_CHECK) && !g1_affine_in_subgroup(&p))
        return ENCODE_ERR_NOT_IN_SUBGROUP;
    *ret = p;
    return 0;
}

int encode_g2_from_dec(g2_affine_t *ret, const char *const in[6],
                       unsigned flags)
{
    fp_t v[6];
    int err = fp_parse_all(v, in, 6);
    if (err < 0)
        return err;
    g2_affine_t p = {{v[0], v[1]}, {v[2], v[3]}};
    fp2_t z = {v[4], v[5]};
    if (fp2_is_zero(&z)) {
        /* snarkjs writes infinity as ((0, 0), (1, 0), (0, 0)). */
        if (!fp2_is_zero(&p.x) || !fp2_is_one(&p.y))
            return ENCODE_ERR_NOT_AFFINE;
        *ret = G2_INFINITY;
        return 0;
    }
    if (!fp2_is_one(&z))
        return ENCODE_ERR_NOT_AFFINE;
    if (g2_affine_is_infinity(&p) || !g2_affine_is_on_curve(&p))
        return ENCODE_ERR_NOT_ON_CURVE;
    if (!(flags & ENCODE_NO_SUBGROUP_CHECK) && !g2_affine_in_subgroup(&p))
        return ENCODE_ERR_NOT_IN_SUBGROUP;
    *ret = p;
    return 0;
}
