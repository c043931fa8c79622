/* Error lines for the CLI; see cli.h. */
#include "harness/cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("zkbench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

void cli_warn_csv(const char *msg)
{
    fprintf(stderr, "zkbench: warning: %s\n", msg);
}

int cli_bad_option(const char *command, int argc, char **argv)
{
    /* getopt_long leaves optind past the offending element. */
    const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (optopt && arg[0] == '-' && arg[1] != '-')
        return cli_error(2, "%s: unknown option '-%c' (see zkbench %s --help)", command, optopt, command);
    return cli_error(2, "%s: unknown option or missing value '%s' (see zkbench %s --help)", command, arg,
                     command);
}

bool cli_parse_u64(uint64_t *ret, const char *command, const char *name, const char *text)
{
    const char *s = text;
    bool power = strncmp(s, "2^", 2) == 0;
    if (power)
        s += 2;
    if (*s < '0' || *s > '9') {
        cli_error(2, "%s: --%s must be a non-negative integer or 2^N, got '%s'", command, name, text);
        return false;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || (power && v > 63)) {
        cli_error(2, "%s: --%s must be a non-negative integer or 2^N (N <= 63), got '%s'", command, name,
                  text);
        return false;
    }
    *ret = power ? (uint64_t)1 << v : (uint64_t)v;
    return true;
}

