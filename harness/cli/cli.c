/* Error lines and the option parser of every command; see cli.h. */
#include "harness/cli/cli.h"
#include "harness/run/errmsg.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Column of an option's description in the usage. */
#define HELP_COL 26

void cli_write_escaped(FILE *f, const char *text)
{
    errmsg_write_escaped(f, text);
}

int cli_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errmsg_vline("", fmt, ap);
    va_end(ap);
    return code;
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    errmsg_vline("warning: ", fmt, ap);
    va_end(ap);
}

void cli_warn_csv(const char *msg)
{
    cli_warn("%s", msg);
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

/* ---- usage -------------------------------------------------------------- */

/* One option line: "  --name ARG" padded to HELP_COL, then the help, whose
 * '\n's continue at HELP_COL. */
static void usage_option(FILE *f, const char *left, const char *help)
{
    int n = fprintf(f, "  %s", left);
    if (n > HELP_COL - 1) {
        fputc('\n', f);
        n = 0;
    }
    fprintf(f, "%*s", HELP_COL - n, "");
    for (const char *p = help; *p; p++) {
        fputc(*p, f);
        if (*p == '\n' && p[1])
            fprintf(f, "%*s", HELP_COL, "");
    }
    fputc('\n', f);
}

const cli_opt_t *cli_opt_find(const cli_cmd_t *cmd, const char *name)
{
    for (const cli_opt_t *o = cmd->opts; o && o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

char cli_opt_letter(const cli_cmd_t *cmd, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = cmd->letters; p && *p;) {
        while (*p == ' ')
            p++;
        const char *end = strchr(p, ' ');
        size_t plen = end ? (size_t)(end - p) : strlen(p);
        if (plen == len + 2 && p[1] == '=' && p[0] != 'h' && strncmp(p + 2, name, len) == 0)
            return p[0];
        p += plen;
    }
    return 0;
}

static void usage_one(FILE *f, const cli_cmd_t *cmd)
{
    const char *s = cmd->synopsis;
    for (bool first = true; *s; first = false) {
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        fprintf(f, "%s%.*s\n", first ? "usage: " : "       ", len, s);
        s += len + (nl != NULL);
    }
    if (cmd->about)
        fputs(cmd->about, f);
    fputs("options:\n", f);
    for (const cli_opt_t *o = cmd->opts; o && o->name; o++) {
        char left[96];
        char l = cli_opt_letter(cmd, o->name);
        if (l)
            snprintf(left, sizeof left, "-%c, --%s%s%s", l, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        else
            snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        usage_option(f, left, o->help);
    }
    usage_option(f, "-h, --help", "print this usage and exit 0");
    if (cmd->forward) {
        int col = fprintf(f, "and every option of zkbench %s, passed on:", cmd->forward->name);
        for (const cli_opt_t *o = cmd->forward->opts; o && o->name; o++) {
            if (cli_opt_find(cmd, o->name))
                continue;
            int w = (int)strlen(o->name) + 3;
            if (col + w > 79) {
                fputs("\n ", f);
                col = 1;
            }
            col += fprintf(f, " --%s", o->name);
        }
        fputc('\n', f);
    }
    if (cmd->epilog)
        fputs(cmd->epilog, f);
}

void cli_usage(FILE *f, const cli_cmd_t *cmd)
{
    usage_one(f, cmd);
    if (cmd->also) {
        fputc('\n', f);
        usage_one(f, cmd->also);
    }
}

/* ---- parsing ------------------------------------------------------------ */

void cli_args_init(cli_args_t *a, const cli_cmd_t *cmd, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->cmd = a->usage = cmd;
    a->argc = argc;
    a->argv = argv;
    int n = 0;
    for (const cli_opt_t *o = cmd->opts; o && o->name && n < CLI_MAX_OPTS; o++, n++)
        a->lo[n] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->key};
    for (const cli_opt_t *o = cmd->forward ? cmd->forward->opts : NULL; o && o->name && n < CLI_MAX_OPTS; o++)
        if (!cli_opt_find(cmd, o->name))
            a->lo[n++] = (struct option){o->name, o->arg ? required_argument : no_argument, NULL, CLI_KEY_FORWARD};
    a->lo[n++] = (struct option){"help", no_argument, NULL, CLI_KEY_HELP};
    a->lo[n] = (struct option){NULL, 0, NULL, 0};
    size_t k = 0;
    if (cmd->stop_at_operand)
        a->shortopts[k++] = '+';
    a->shortopts[k++] = 'h';
    for (const cli_opt_t *o = cmd->opts; o && o->name && k + 3 < sizeof a->shortopts; o++) {
        char l = cli_opt_letter(cmd, o->name);
        if (l) {
            a->shortopts[k++] = l;
            if (o->arg)
                a->shortopts[k++] = ':';
        }
    }
    a->shortopts[k] = 0;
    optind = 0; /* 0, not 1: glibc then also resets its scan of the previous argv */
    opterr = 0;
}

int cli_next(cli_args_t *a)
{
    int idx = -1;
    int c = getopt_long(a->argc, a->argv, a->shortopts, a->lo, &idx);
    if (c == -1) {
        a->ind = optind;
        return 0;
    }
    if (c == CLI_KEY_HELP) {
        cli_usage(stdout, a->usage);
        a->status = 0;
        return CLI_EXIT;
    }
    if (c == '?' || c == ':') {
        a->status = cli_bad_option(a->cmd->name, a->argc, a->argv);
        return CLI_EXIT;
    }
    if (idx < 0) /* a one-letter form: its option's key */
        for (const cli_opt_t *o = a->cmd->opts; o && o->name; o++)
            if (cli_opt_letter(a->cmd, o->name) == c) {
                c = o->key;
                a->name = o->name;
                break;
            }
    a->val = optarg;
    if (idx >= 0)
        a->name = a->lo[idx].name;
    a->ntok = optarg && optind >= 2 && optarg == a->argv[optind - 1] ? 2 : 1;
    a->tok = &a->argv[optind - a->ntok];
    return c;
}

bool cli_operands(const cli_args_t *a, int min, int max, const char *names)
{
    int n = a->argc - a->ind;
    if (n < min) {
        cli_error(2, "%s: %s %s required (see zkbench %s --help)", a->cmd->name, names,
                  strchr(names, ' ') ? "are" : "is", a->cmd->name);
        return false;
    }
    if (max >= 0 && n > max) {
        cli_error(2, "%s: unexpected argument '%s' (see zkbench %s --help)", a->cmd->name, a->argv[a->ind + max],
                  a->cmd->name);
        return false;
    }
    return true;
}
