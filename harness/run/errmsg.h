/*
 * The one error line of harness functions that return 0 or a negative errno
 * "with one line in err": errmsg_fail writes the line and returns the code,
 * so a failure is one statement (return errmsg_fail(err, cap, -EINVAL,
 * "%s: ...", path)).
 * errmsg_print is the one printer of such a line for the user, "zkbench:
 * <message>" on stderr (cli_error is it for the commands; the batch in
 * harness/run prints through it directly, below the cli).
 */
#ifndef ZKB_ERRMSG_H
#define ZKB_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int errmsg_fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int errmsg_fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return code;
}

/* Prints "zkbench: <message>" on stderr and returns code. The message is
 * one line whatever it quotes: control bytes, C1 controls and bytes that
 * are not UTF-8 are written escaped (\x1b, \u009b), so an input cannot
 * move the cursor, recolour or clear the terminal. */
int errmsg_print(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* errmsg_print's line with prefix after "zkbench: " ("warning: "). */
void errmsg_vline(const char *prefix, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Writes text to f with errmsg_print's escapes. */
void errmsg_write_escaped(FILE *f, const char *text);

#endif
