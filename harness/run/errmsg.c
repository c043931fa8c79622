/* The user's error lines, escaped; see errmsg.h. */
#include "harness/run/errmsg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The length of the valid UTF-8 sequence at p (1..4), 0 when p does not
 * start one (a stray continuation byte, an overlong form, a surrogate, a
 * code point past U+10FFFF, a cut sequence). */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((n == 3 && c == 0xe0 && p[1] < 0xa0) || (n == 3 && c == 0xed && p[1] >= 0xa0) ||
        (n == 4 && c == 0xf0 && p[1] < 0x90) || (n == 4 && c == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

void errmsg_write_escaped(FILE *f, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        if (*p < 0x20 || *p == 0x7f) {
            fprintf(f, "\\x%02x", *p++);
            continue;
        }
        if (*p < 0x80) {
            fputc(*p++, f);
            continue;
        }
        size_t n = utf8_len(p);
        if (n == 0) {
            fprintf(f, "\\x%02x", *p++); /* not UTF-8: the byte, not what a terminal makes of it */
        } else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
            fprintf(f, "\\u%04x", p[1]); /* C1 controls (U+0080..U+009F): CSI is one of them */
            p += 2;
        } else {
            fwrite(p, 1, n, f);
            p += n;
        }
    }
}

/* "zkbench: " + prefix + the formatted message, escaped, on one line. */
void errmsg_vline(const char *prefix, const char *fmt, va_list ap)
{
    char buf[8192], *text = buf;
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n >= (int)sizeof buf && (text = malloc((size_t)n + 1)))
        vsnprintf(text, (size_t)n + 1, fmt, copy);
    else if (n >= (int)sizeof buf)
        text = buf; /* cut, rather than lost */
    va_end(copy);
    fputs("zkbench: ", stderr);
    fputs(prefix, stderr);
    errmsg_write_escaped(stderr, n < 0 ? fmt : text);
    fputc('\n', stderr);
    if (text != buf)
        free(text);
}

int errmsg_print(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errmsg_vline("", fmt, ap);
    va_end(ap);
    return code;
}
