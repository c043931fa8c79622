/* Hex strings to bytes and field elements, for published test vectors. */
#ifndef ZKB_TESTS_CURVE_HEX_H
#define ZKB_TESTS_CURVE_HEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arith/field/fp.h"

/* Decodes exactly 2n hex digits into out; returns 0, or -1 on a bad digit
 * or length (tests CHECK the result). */
static inline int hex_to_bytes(uint8_t *out, size_t n, const char *hex)
{
    if (strlen(hex) != 2 * n)
        return -1;
    for (size_t i = 0; i < 2 * n; i++) {
        char c = hex[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0)
            return -1;
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(v << 4);
        else
            out[i / 2] |= (uint8_t)v;
    }
    return 0;
}

/* A 96-digit (48-byte) big-endian hex value as an Fp element. */
static inline int hex_to_fp(fp_t *ret, const char *hex)
{
    uint8_t b[48];
    if (hex_to_bytes(b, sizeof b, hex) < 0)
        return -1;
    return fp_from_bytes_be(ret, b);
}

#endif
