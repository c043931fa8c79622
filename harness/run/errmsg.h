/*
 * The one error line of harness functions that return 0 or a negative errno
 * "with one line in err": errmsg_fail writes the line and returns the code,
 * so a failure is one statement (return errmsg_fail(err, cap, -EINVAL,
 * "%s: ...", path)).
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

#endif
