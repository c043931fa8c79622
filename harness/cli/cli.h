/*
 * Talking to the user: the one place that prints errors. Every error is one
 * line on stderr, "zkbench: ...", naming the value and what was expected.
 */
#ifndef ZKB_CLI_H
#define ZKB_CLI_H

#include <stdbool.h>
#include <stdint.h>

/* Prints "zkbench: <message>" and returns code (for `return cli_error(...)`). */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "zkbench: warning: <msg>": the sink of run_csv_set_warn for the
 * commands that read run files. */
void cli_warn_csv(const char *msg);
/* After getopt_long returned '?' or ':': names the bad option of command
 * and returns 2. */
int cli_bad_option(const char *command, int argc, char **argv);

/* Parses a non-negative integer option value: decimal, or "2^N". Returns
 * false (and prints "<command>: --<name> must be ...") when malformed. */
bool cli_parse_u64(uint64_t *ret, const char *command, const char *name, const char *text);

#endif

