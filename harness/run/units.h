/*
 * Sizes for people: the one formatter of byte counts on the console, in
 * reports and in plot labels, in binary units chosen by magnitude ("512 B",
 * "3.4 KiB", "27.1 MiB", "1.92 GiB"), so a small run never reads "0.03 GiB".
 */
#ifndef ZKB_UNITS_H
#define ZKB_UNITS_H

#include <stdio.h>

/* No <math.h> here: its FP_ZERO collides with arith/field/fp.h's, and
 * the console formats sizes in files that include the prover. */

/* Writes bytes into buf (32 bytes) and returns buf. Three significant
 * digits from KiB up; negative values (a drop) keep their sign. */
static inline const char *fmt_bytes(char buf[32], double bytes)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = bytes < 0 ? -bytes : bytes;
    int u = 0;
    while (v >= 1024.0 && u < 5) {
        v /= 1024.0;
        u++;
    }
    if (!(bytes - bytes == 0)) /* NaN or infinite */
        snprintf(buf, 32, "? B");
    else if (u == 0)
        snprintf(buf, 32, "%s%.0f B", bytes < 0 ? "-" : "", v);
    else
        snprintf(buf, 32, "%s%.*f %s", bytes < 0 ? "-" : "", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
    return buf;
}

#endif
