/*
 * The words and units every part of the diagnosis shares, at the bottom of
 * harness/diagnose/ (nothing here calls up): the verdict, layer and
 * regressor names, bytes for people and sizes from text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze_names.h"

const char *analyze_verdict_name(analyze_verdict_t v)
{
    static const char *const names[] = {"leak",     "queue-pileup", "held-too-long", "retention",
                                        "capacity", "healthy",      "inconclusive"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}

const char *analyze_layer_name(int layer)
{
    static const char *const names[] = {"tracked", "je_allocated", "je_resident", "rss", "outside_heap", "gpu_used"};
    return layer >= 0 && layer < ANALYZE_NLAYERS ? names[layer] : "?";
}

const char *analyze_x_name(int x)
{
    static const char *const names[] = {"n_synth", "q_gpu", "n_gpu", "n_finish", "n_blocked", "proofs_done"};
    return x >= 0 && x < ANALYZE_NX ? names[x] : "?";
}

char *analyze_fmt_bytes(char *buf, size_t len, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        snprintf(buf, len, "n/a");
    else if (a < 0.5)
        snprintf(buf, len, "0 B"); /* not "-0 B" */
    else if (a >= GIB)
        snprintf(buf, len, "%.2f GiB", v / GIB);
    else if (a >= MIB)
        snprintf(buf, len, "%.1f MiB", v / MIB);
    else if (a >= 1024)
        snprintf(buf, len, "%.1f KiB", v / 1024);
    else
        snprintf(buf, len, "%.0f B", v);
    return buf;
}

char *analyze_fmt_area(char *buf, size_t len, double gib_s)
{
    double a = fabs(gib_s);
    if (!isfinite(gib_s))
        snprintf(buf, len, "n/a");
    else if (a >= 0.995)
        snprintf(buf, len, "%.2f GiB*s", gib_s);
    else if (a * 1024 >= 0.95)
        snprintf(buf, len, "%.1f MiB*s", gib_s * 1024);
    else if (a * 1024 * 1024 >= 0.05)
        snprintf(buf, len, "%.1f KiB*s", gib_s * 1024 * 1024);
    else
        snprintf(buf, len, "0 B*s");
    return buf;
}

bool analyze_parse_size(uint64_t *ret, const char *text)
{
    char *end;
    errno = 0;
    if (!text || !((*text >= '0' && *text <= '9') || *text == '.'))
        return false;
    double v = strtod(text, &end);
    if (errno || !isfinite(v) || v < 0)
        return false;
    double mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1024.0; break;
        case 'm': case 'M': mul = MIB; break;
        case 'g': case 'G': mul = GIB; break;
        case 't': case 'T': mul = GIB * 1024.0; break;
        case 'b': case 'B': mul = 1; break;
        default: return false;
        }
        end++;
        if (mul > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "ib") == 0 || strcmp(end, "B") == 0 ||
                        strcmp(end, "b") == 0))
            end += strlen(end);
        if (*end)
            return false;
    } else if (v != floor(v)) {
        return false; /* fractional bytes */
    }
    v *= mul;
    if (v >= 18446744073709551615.0 || v < 1)
        return false;
    *ret = (uint64_t)llround(v);
    return true;
}
