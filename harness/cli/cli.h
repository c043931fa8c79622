/*
 * Talking to the user: the one place that prints errors and parses options.
 * Every error is one line on stderr, "zkbench: ...", naming the value and
 * what was expected. Every command declares its options and usage once, in
 * a cli_cmd_t table: the usage text, -h/--help, the man page and the shell
 * completion are all made from it, so they cannot drift from what the
 * command accepts.
 */
#ifndef ZKB_CLI_H
#define ZKB_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Prints "zkbench: <message>" and returns code (for `return cli_error(...)`).
 * The message is one line whatever it quotes: control bytes, C1 controls
 * and bytes that are not UTF-8 are written escaped (\x1b, \u009b), so an
 * input cannot move the cursor, recolour or clear the terminal. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "zkbench: warning: <message>", escaped as cli_error does. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "zkbench: warning: <msg>": the sink of run_csv_set_warn for the
 * commands that read run files. */
void cli_warn_csv(const char *msg);
/* Writes text to f with cli_error's escapes. */
void cli_write_escaped(FILE *f, const char *text);
/* After getopt_long returned '?' or ':': names the bad option of command
 * and returns 2. */
int cli_bad_option(const char *command, int argc, char **argv);

/* Parses a non-negative integer option value: decimal, or "2^N". Returns
 * false (and prints "<command>: --<name> must be ...") when malformed. */
bool cli_parse_u64(uint64_t *ret, const char *command, const char *name, const char *text);

/* ---- option tables ------------------------------------------------------ */

/* The key of -h/--help, which every command gets: no table may use it. */
#define CLI_KEY_HELP 'h'
/* cli_next's key of an option of cmd->forward (its name in args->name). */
#define CLI_KEY_FORWARD 0x7f00
/* cli_next's answer when the command must return args->status now. */
#define CLI_EXIT (-1)
#define CLI_MAX_OPTS 96

/* One option: --name, with a value when arg is set. */
typedef struct cli_opt {
    const char *name; /* long name without "--" */
    int key;          /* what cli_next returns for it (> 0, not CLI_KEY_HELP) */
    const char *arg;  /* the value's name in the usage ("SIZE"); NULL: a flag */
    const char *help; /* its line in the usage; '\n' continues it below */
} cli_opt_t;

/* A command, declared once. The usage it prints:
 *   usage: <synopsis line 1>          (each line names "zkbench COMMAND")
 *          <synopsis line 2...>
 *   <about>
 *   options:
 *     --name ARG   help              (from opts, then -h, --help)
 *   <forward>'s options: --a --b ...   (when forward is set)
 *   <epilog>
 *   <also's usage, after a blank line> */
typedef struct cli_cmd {
    const char *name;     /* as typed after "zkbench": "batch", "bench prover" */
    const char *summary;  /* its line in zkbench --help */
    const char *synopsis; /* '\n'-separated lines */
    const char *about;    /* what it does; ends in '\n' */
    const cli_opt_t *opts; /* terminated by {NULL}; NULL: none */
    const char *epilog;   /* after the options (exit status, notes); NULL: none */
    /* options end at the first operand, so `watch -- CMD ARGS` and
     * `watch CMD -x` keep the command's own flags */
    bool stop_at_operand;
    const struct cli_cmd *also; /* another form of the command (prove --zkey) */
    /* a command whose options this one takes too and passes on (sweep takes
     * batch's); its own options of the same name win */
    const struct cli_cmd *forward;
    /* one-letter forms of its options, "o=out" pairs separated by spaces
     * (-o FILE for --out FILE); never h; NULL: none */
    const char *letters;
} cli_cmd_t;

/* The option parser of one command's argv (argv[0] is the command name). */
typedef struct cli_args {
    const cli_cmd_t *cmd;
    const cli_cmd_t *usage; /* what --help prints: cmd, unless set after init */
    int argc;
    char **argv;
    const char *val;  /* the value of the option cli_next just returned */
    const char *name; /* its long name (for CLI_KEY_FORWARD) */
    char **tok;       /* the argv elements it came from, as typed ... */
    int ntok;         /* ... 1 ("--n=V", "--flag") or 2 ("--n" "V") */
    int ind;         /* after cli_next returned 0: argv[ind] is the first operand */
    int status;      /* after CLI_EXIT: the exit status to return */
    struct option lo[CLI_MAX_OPTS + 2]; /* getopt_long's view of cmd->opts */
    char shortopts[2 * CLI_MAX_OPTS + 4]; /* "+h" and each letter ("o:") */
} cli_args_t;

void cli_args_init(cli_args_t *a, const cli_cmd_t *cmd, int argc, char **argv);
/* The next option's key (its value in a->val); 0 when the options end
 * (operands from a->ind); CLI_EXIT when the command must return a->status
 * at once: after -h/--help (usage on stdout, 0) or a bad option (one line,
 * 2). */
int cli_next(cli_args_t *a);
/* Checks that between min and max operands are left (max < 0: any). Too
 * few: "CMD: NAMES is required"; too many: "CMD: unexpected argument 'X'".
 * Returns true when they fit, else false after the one line (exit 2). */
bool cli_operands(const cli_args_t *a, int min, int max, const char *names);

/* cmd's own option called name (without "--"), or NULL. */
const cli_opt_t *cli_opt_find(const cli_cmd_t *cmd, const char *name);
/* The one-letter form of cmd's option name (cmd->letters), or 0. */
char cli_opt_letter(const cli_cmd_t *cmd, const char *name);
/* Writes cmd's usage (and its also's) to f. */
void cli_usage(FILE *f, const cli_cmd_t *cmd);

/* ---- the command list ---------------------------------------------------- */

/* Every command's table, for help, the man page and completion: NULL-
 * terminated, in the order of zkbench --help (cli_docs.c). */
extern const cli_cmd_t *const cli_commands[];
/* The command named name ("batch", "bench prover"), or NULL. */
const cli_cmd_t *cli_command_find(const char *name);

/* Tables of shared options, spliced into a command's table. */
#define CLI_OPTS_METRICS                                                                                          \
    {"listen", METRICS_OPT_LISTEN, "ADDR:PORT",                                                                   \
     "serve /metrics (OpenMetrics) for Prometheus while the run lasts;\n"                                         \
     ":PORT alone binds the loopback address, 0.0.0.0:PORT all"},                                                 \
    {"listen-linger", METRICS_OPT_LINGER, "S",                                                                    \
     "after the run, serve until a scrape has fetched the final values,\nat most S seconds (default 30; 0: stop at " \
     "once)"},                                                                                                    \
    {"metrics-file", METRICS_OPT_FILE, "PATH",                                                                    \
     "rewrite PATH atomically every 2 s with the same metrics (text\nformat, for node_exporter's textfile "      \
     "collector)"},                                                                                               \
    {"metrics-verdict-s", METRICS_OPT_VERDICT_S, "S",                                                             \
     "with --listen or --metrics-file: zkbench_verdict, analyze's verdict\nof the run so far, every S seconds "   \
     "(default 30; 0: at the end only)"}

#endif
