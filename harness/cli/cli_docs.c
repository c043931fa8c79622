/* The top-level help, version, exit status, terms, man include and bash
 * completion; see cli_docs.h. */
#include "harness/cli/cli_docs.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/version.h"

#ifndef ZKB_PROJECT_VERSION
#error "ZKB_PROJECT_VERSION (meson's project version) must be defined by the build"
#endif

const cli_cmd_t *const cli_commands[] = {
    &cli_cmd_selfcheck, &cli_cmd_bench, &cli_cmd_bench_prover, &cli_cmd_setup, &cli_cmd_prove,
    &cli_cmd_verify,    &cli_cmd_batch, &cli_cmd_analyze,      &cli_cmd_plot,  &cli_cmd_report,
    &cli_cmd_check,     &cli_cmd_sweep, &cli_cmd_watch,        &cli_cmd_params_verify, &cli_cmd_trace_collect, NULL,
};

const cli_cmd_t *cli_command_find(const char *name)
{
    for (const cli_cmd_t *const *c = cli_commands; *c; c++)
        if (strcmp((*c)->name, name) == 0)
            return *c;
    return NULL;
}

/* Every exit status a command returns: code, meaning. */
static const struct {
    const char *code, *meaning;
} exit_codes[] = {
    {"0", "success: the work was done (analyze: whatever the verdict; check: within the baseline's limits; "
          "verify: the proof is valid)"},
    {"1", "the work failed: a proof does not verify or the prover failed, a run file could not be written, "
          "check found a limit exceeded, selfcheck a wrong answer, sweep a point that failed (named) or a "
          "--verify run that did not go as predicted, plot found no or a failing gnuplot"},
    {"2", "bad input: an unknown option or command, a bad value, a missing or damaged input file, an --out "
          "that holds a run already, no memory cgroup for --mem-limit; one line on stderr and nothing written"},
    {"3", "OOM-killed: batch or watch's command was killed by the kernel's OOM killer under --mem-limit "
          "(run.json: outcome oom-killed)"},
    {"130", "interrupted: batch stopped by SIGINT or SIGTERM; its files are complete up to that point and "
            "run.json says interrupted"},
    {"N", "watch -- CMD: the command's own exit status; 128+S when a signal S killed it, 127 when it could not "
          "be started"},
};

/* The words the reports use. */
static const struct {
    const char *term, *meaning;
} terms[] = {
    {"pw", "partitions synthesized in parallel: the number of synthesis workers (batch --pw), the parallelism "
           "operators raise; peak RSS grows by about one partition's footprint per pw. Not the proofs in flight "
           "(--concurrency) nor the partitions per proof (--partitions)."},
    {"L0 tracked", "the bytes of the prover's tracked buffers (the sum of samples.csv's live_<kind> of host "
                   "kinds): what the prover knowingly holds."},
    {"L1 heap", "je_allocated: every live heap allocation, tracked or not; L1 - L0 is untracked heap."},
    {"L2 allocator", "je_resident: the pages jemalloc holds in RAM; L2 - L1 is fragmentation and freed pages "
                     "kept (retention)."},
    {"L3 process", "rss: the process's resident memory; L3 - L2 is memory outside the heap (pinned buffers, the "
                   "CUDA runtime, mappings)."},
    {"g", "growth per completed proof (per second in a watch run without proof marks): the slope of the proofs "
          "term of analyze's least-squares fit of each layer, with its 95% interval; a layer whose g is "
          "significantly above 0 is marked GROWS."},
    {"valley floor", "a layer's minimum between two consecutive proof completions; floors that rise from proof "
                     "to proof confirm a leak independently of the fit."},
    {"muzzy", "jemalloc's pages purged lazily (MADV_FREE): freed and given back to the kernel, which may take "
              "them under memory pressure, but still counted in RSS until it does (je_muzzy)."},
    {"footprint", "the bytes one partition costs in a pipeline stage (f_synth, f_queue, ...), from the same fit."},
    {"inconclusive", "the verdict when the data cannot decide: a growth rate over fewer than 5 proofs, a watch "
                     "with fewer than 4 valley floors or whose floors' interval admits a leak's growth, a run that "
                     "did not complete. Its 'decide' line says what would: 'run >= 5 proofs (3 more)', "
                     "'--sample-ms 30: the cycle is 0.3 s and the tick 0.1 s'."},
    {"samples a cycle", "a watch run's memory cycle (between proof marks, else its period found in the RssAnon "
                        "signal by autocorrelation) over the tick: below 10 the valleys may fall between samples, "
                        "so every command prints a 'sampling' line with the --sample-ms that fits, and a verdict "
                        "that needs the valleys is inconclusive. watch --sample-ms auto lowers the tick as the run "
                        "goes (down to 1 ms) until a cycle gets about 12."},
    {"minimum evidence", "what each verdict needs (docs/diagnosis.md): a growth leak >= 5 completed proofs (batch) "
                         "or >= 4 valley floors (watch); retention a drained run; healthy a complete run whose data "
                         "could have shown a fault; otherwise inconclusive."},
    {"dead run", "a run whose run.json still says running while the process that wrote it (run.json 'writer') "
                 "is gone: analyze leads with 'status incomplete: the process died at T s' and never calls it "
                 "healthy."},
};

void cli_docs_version(FILE *f)
{
    fprintf(f, "zkbench %s (commit %s)\n", ZKB_PROJECT_VERSION, ZKBENCH_VERSION);
}

/* Writes text with each line after the first indented by col. */
static void put_indented(FILE *f, const char *text, int col)
{
    for (const char *p = text; *p; p++) {
        fputc(*p, f);
        if (*p == '\n' && p[1])
            fprintf(f, "%*s", col, "");
    }
}

/* Writes text as lines of at most width columns, each after indent spaces
 * but the first, which follows what is already on its line. */
static void put_wrapped(FILE *f, const char *text, int indent, int width)
{
    const char *p = text;
    for (bool first = true; *p; first = false) {
        int len = (int)strlen(p);
        if (len > width) {
            len = width;
            while (len > 0 && p[len] != ' ')
                len--;
            if (len == 0)
                len = width;
        }
        fprintf(f, "%*s%.*s\n", first ? 0 : indent, "", len, p);
        p += len;
        while (*p == ' ')
            p++;
    }
}

void cli_docs_help(FILE *f)
{
    /* "Usage:" and "  or:", the shape help2man makes the SYNOPSIS of */
    fputs("Usage: zkbench COMMAND [options]\n"
          "  or:  zkbench help [COMMAND | exit-status | terms]\n"
          "  or:  zkbench -V | --version\n"
          "A memory-instrumented benchmark and diagnosis harness around a Groth16\n"
          "prover over BLS12-381: is an out-of-memory crash a leak, allocator retention\n"
          "or plain capacity?\n\n"
          "commands:\n",
          f);
    for (const cli_cmd_t *const *c = cli_commands; *c; c++) {
        fprintf(f, "  %-13s  ", (*c)->name);
        put_indented(f, (*c)->summary, 17);
        fputc('\n', f);
    }
    fputs("  version        version, commit, machine, allocator and GPU\n"
          "  help           this text, or a command's usage (same as zkbench COMMAND --help)\n\n"
          "options:\n"
          "  -h, --help     print this text and exit 0\n"
          "  -V, --version  print the version and the commit, and exit 0\n\n"
          "Every command takes -h and --help. zkbench help exit-status lists the exit\n"
          "codes, zkbench help terms the words the reports use (pw, L0-L3, g, valley\n"
          "floor, muzzy); man zkbench has them all.\n",
          f);
}

void cli_docs_exit_status(FILE *f)
{
    fputs("exit status of zkbench commands:\n", f);
    for (size_t i = 0; i < sizeof exit_codes / sizeof exit_codes[0]; i++) {
        fprintf(f, "  %-5s", exit_codes[i].code);
        put_wrapped(f, exit_codes[i].meaning, 7, 71);
    }
}

void cli_docs_terms(FILE *f)
{
    fputs("terms zkbench's reports use:\n", f);
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        fprintf(f, "  %s\n      ", terms[i].term);
        put_wrapped(f, terms[i].meaning, 6, 70);
    }
}

/* ---- the man page's include file (help2man --include) --------------------- */

/* Text for roff: backslashes and hyphens escaped, a leading '.' or '\''
 * protected. */
static void put_roff(FILE *f, const char *text)
{
    bool line_start = true;
    for (const char *p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            fputs("\\&", f);
        if (*p == '\\')
            fputs("\\e", f);
        else if (*p == '-')
            fputs("\\-", f);
        else
            fputc(*p, f);
        line_start = *p == '\n';
    }
}

void cli_docs_man_include(FILE *f)
{
    fputs("[NAME]\nzkbench \\- memory\\-instrumented benchmark and diagnosis harness for a Groth16 prover\n\n", f);
    fputs("[COMMANDS]\nEach command prints this usage with \\fB\\-h\\fR or \\fB\\-\\-help\\fR, and "
          "\\fBzkbench help\\fR \\fICOMMAND\\fR prints the same.\n",
          f);
    for (const cli_cmd_t *const *c = cli_commands; *c; c++) {
        fputs(".SS \"zkbench ", f);
        put_roff(f, (*c)->name);
        fputs("\"\n.nf\n", f);
        char *text = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&text, &len);
        if (m) {
            cli_usage(m, *c);
            fclose(m);
            put_roff(f, text);
            free(text);
        }
        fputs(".fi\n", f);
    }
    fputs("\n[EXIT STATUS]\n", f);
    for (size_t i = 0; i < sizeof exit_codes / sizeof exit_codes[0]; i++) {
        fprintf(f, ".TP\n.B %s\n", exit_codes[i].code);
        put_roff(f, exit_codes[i].meaning);
        fputc('\n', f);
    }
    fputs("\n[GLOSSARY]\n", f);
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++) {
        fputs(".TP\n.B ", f);
        put_roff(f, terms[i].term);
        fputc('\n', f);
        put_roff(f, terms[i].meaning);
        fputc('\n', f);
    }
    fputs("\n[SEE ALSO]\nREADME.md, docs/diagnosis.md and docs/watch.md in the zkbench sources.\n", f);
}

/* ---- completion ------------------------------------------------------------ */

static void put_options(FILE *f, const cli_cmd_t *cmd, const char *sep)
{
    for (const cli_cmd_t *c = cmd; c; c = c->also)
        for (const cli_opt_t *o = c->opts; o && o->name; o++)
            fprintf(f, "--%s%s", o->name, sep);
    for (const cli_opt_t *o = cmd->forward ? cmd->forward->opts : NULL; o && o->name; o++)
        if (!cli_opt_find(cmd, o->name))
            fprintf(f, "--%s%s", o->name, sep);
    fprintf(f, "--help%s-h%s", sep, sep);
}

/* Options whose value is one of a fixed list ("cpu|gpu|auto"): a case arm
 * "--name) vals='cpu gpu auto' ;;" each. */
static void put_value_cases(FILE *f, const cli_cmd_t *cmd)
{
    for (const cli_cmd_t *c = cmd; c; c = c->also ? c->also : c == cmd ? c->forward : NULL)
        for (const cli_opt_t *o = c->opts; o && o->name; o++) {
            if (!o->arg || !strchr(o->arg, '|') || (c != cmd && c == cmd->forward && cli_opt_find(cmd, o->name)))
                continue;
            fprintf(f, "            --%s) vals='", o->name);
            for (const char *p = o->arg; *p; p++)
                fputc(*p == '|' ? ' ' : *p, f);
            fputs("' ;;\n", f);
        }
}

static void put_bash(FILE *f)
{
    fputs("# bash completion for zkbench, generated by `zkbench __complete --bash`\n"
          "# from the commands' option tables (harness/cli); do not edit.\n"
          "_zkbench() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local cmd=${COMP_WORDS[1]} opts= vals= i\n"
          "    COMPREPLY=()\n"
          "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
          "        COMPREPLY=($(compgen -W '",
          f);
    for (const cli_cmd_t *const *c = cli_commands; *c; c++)
        if (!strchr((*c)->name, ' '))
            fprintf(f, "%s ", (*c)->name);
    fputs("params trace version help -h --help -V --version' -- \"$cur\"))\n"
          "        return 0\n"
          "    fi\n"
          "    # after `--` (watch -- CMD ARGS): the words are the command's own\n"
          "    for ((i = 2; i < COMP_CWORD; i++)); do\n"
          "        [ \"${COMP_WORDS[i]}\" = -- ] && return 0\n"
          "    done\n"
          "    [ \"$cmd\" = bench ] && [ \"${COMP_WORDS[2]}\" = prover ] && cmd='bench prover'\n"
          "    [ \"$cmd\" = params ] && [ \"${COMP_WORDS[2]}\" = verify ] && cmd='params verify'\n"
          "    [ \"$cmd\" = trace ] && [ \"${COMP_WORDS[2]}\" = collect ] && cmd='trace collect'\n"
          "    case $cmd in\n",
          f);
    for (const cli_cmd_t *const *c = cli_commands; *c; c++) {
        fprintf(f, "    '%s')\n        opts='", (*c)->name);
        put_options(f, *c, " ");
        fputs("'\n        case $prev in\n", f);
        put_value_cases(f, *c);
        fputs("        esac ;;\n", f);
    }
    fputs("    help)\n        opts='", f);
    for (const cli_cmd_t *const *c = cli_commands; *c; c++)
        if (!strchr((*c)->name, ' '))
            fprintf(f, "%s ", (*c)->name);
    fputs("exit-status terms'\n"
          "        [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "        return 0 ;;\n"
          "    *) return 0 ;;\n"
          "    esac\n"
          "    if [ -n \"$vals\" ]; then\n"
          "        COMPREPLY=($(compgen -W \"$vals\" -- \"$cur\"))\n"
          "    elif [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    elif [ \"$cmd\" = bench ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
          "        COMPREPLY=($(compgen -W 'arith prover' -- \"$cur\"))\n"
          "    fi\n"
          "    # otherwise empty: -o default completes file names (RUN_DIR, FILE, ...)\n"
          "    return 0\n"
          "}\n"
          "complete -o default -F _zkbench zkbench\n",
          f);
}

int cli_docs_complete(int argc, char **argv)
{
    if (argc < 2) {
        for (const cli_cmd_t *const *c = cli_commands; *c; c++)
            printf("%s\n", (*c)->name);
        return 0;
    }
    if (strcmp(argv[1], "--bash") == 0) {
        put_bash(stdout);
        return 0;
    }
    char name[64];
    snprintf(name, sizeof name, "%s%s%s", argv[1], argc > 2 ? " " : "", argc > 2 ? argv[2] : "");
    const cli_cmd_t *cmd = cli_command_find(name);
    if (!cmd)
        return cli_error(2, "__complete: unknown command '%s'", name);
    /* one "--name" or "--name ARG" a line: what the tests check each
     * command accepts */
    for (const cli_cmd_t *c = cmd; c; c = c->also)
        for (const cli_opt_t *o = c->opts; o && o->name; o++)
            printf("--%s%s%s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    for (const cli_opt_t *o = cmd->forward ? cmd->forward->opts : NULL; o && o->name; o++)
        if (!cli_opt_find(cmd, o->name))
            printf("--%s%s%s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    printf("--help\n");
    return 0;
}
