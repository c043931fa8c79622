/*
 * zkbench: the command-line entry point. Dispatches to one command; only the
 * harness prints, and every bad input ends in one error line and exit 2.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/bench_arith.h"
#include "harness/cli/cli.h"
#include "harness/cli/cli_docs.h"
#include "harness/cli/cmd_iden3.h"
#include "harness/cli/commands.h"
#include "harness/cli/selfcheck.h"
#include "harness/run/sysinfo.h"

/* zkbench version: the version line, then what the build runs on. */
static int version_main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "-h") != 0 && strcmp(argv[1], "--help") != 0)
        return cli_error(2, "version: unexpected argument '%s' (zkbench version takes none)", argv[1]);
    if (argc > 1) {
        fputs("usage: zkbench version\n"
              "Prints the version and commit, then the machine, the allocator and the GPU.\n",
              stdout);
        return 0;
    }
    sysinfo_t si;
    sysinfo_read(&si);
    cli_docs_version(stdout);
    printf("machine: %s, %d cores, %.1f GiB RAM, %s\n", si.cpu, si.cores,
           (double)si.ram_bytes / (1u << 30), si.os);
    printf("allocator: jemalloc %s\n", si.jemalloc);
    if (si.gpus > 0)
        printf("gpu: %d device(s), %s, %.1f GiB\n", si.gpus, si.gpu, (double)si.gpu_mem_bytes / (1u << 30));
    else
        printf("gpu: none\n");
    return 0;
}

/* zkbench help [COMMAND [SUB] | exit-status | terms]: the same text as
 * zkbench COMMAND --help. */
static int help_main(int argc, char **argv)
{
    if (argc < 2 || (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))) {
        cli_docs_help(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "exit-status") == 0) {
        cli_docs_exit_status(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "terms") == 0) {
        cli_docs_terms(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "help") == 0) {
        cli_docs_help(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "version") == 0) {
        char *args[] = {argv[1], "--help", NULL};
        return version_main(2, args);
    }
    char name[128];
    snprintf(name, sizeof name, "%s%s%s", argv[1], argc > 2 ? " " : "", argc > 2 ? argv[2] : "");
    const cli_cmd_t *cmd = argc <= 3 ? cli_command_find(name) : NULL;
    if (!cmd)
        return cli_error(2, "help: unknown command '%s' (zkbench help lists the commands)", name);
    cli_usage(stdout, cmd);
    return 0;
}

/* The field code of an x86-64 build uses BMI2/ADX instructions: say so
 * instead of dying of SIGILL on a CPU without them. */
static bool cpu_is_supported(void)
{
#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx");
#else
    return true;
#endif
}

/* Is option `name` given (as "--name V" or "--name=V"), with a value
 * ending in `suffix` when suffix is not NULL? Routes prove/verify to the
 * snarkjs-file commands when they are given snarkjs files. */
static bool has_option(int argc, char **argv, const char *name, const char *suffix)
{
    size_t len = strlen(name);
    for (int i = 2; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], name) == 0)
            v = i + 1 < argc ? argv[i + 1] : "";
        else if (strncmp(argv[i], name, len) == 0 && argv[i][len] == '=')
            v = argv[i] + len + 1;
        if (!v)
            continue;
        if (!suffix)
            return true;
        size_t n = strlen(v), m = strlen(suffix);
        return n >= m && strcmp(v + n - m, suffix) == 0;
    }
    return false;
}

static int prove_main(int argc, char **argv)
{
    return has_option(argc + 1, argv - 1, "--zkey", NULL) ? cmd_prove_zkey(argc, argv) : cmd_prove(argc, argv);
}

static int verify_main(int argc, char **argv)
{
    return has_option(argc + 1, argv - 1, "--vk", ".json") ? cmd_verify_snarkjs(argc, argv) : cmd_verify(argc, argv);
}

static const struct {
    const char *name;
    int (*main)(int argc, char **argv);
} commands[] = {
    {"selfcheck", selfcheck_main}, {"bench", bench_arith_main}, {"setup", cmd_setup},
    {"prove", prove_main},         {"verify", verify_main},     {"batch", cmd_batch},
    {"analyze", cmd_analyze},      {"plot", cmd_plot},          {"report", cmd_report},
    {"check", cmd_check},          {"params", cmd_params},
    {"sweep", cmd_sweep},          {"watch", cmd_watch},        {"version", version_main},
    {"trace", cmd_trace},
    {"help", help_main},
};

int main(int argc, char **argv)
{
    if (!cpu_is_supported())
        return cli_error(2, "this CPU lacks BMI2/ADX, which this build uses; rebuild with -Dasm=disabled");
    if (argc < 2)
        return cli_error(2, "no command given (zkbench help lists them)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        if (argc > 2)
            return cli_error(2, "unexpected argument '%s' after %s (zkbench help COMMAND describes one)", argv[2],
                             cmd);
        cli_docs_help(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        if (argc > 2)
            return cli_error(2, "unexpected argument '%s' after %s", argv[2], cmd);
        cli_docs_version(stdout);
        return 0;
    }
    /* hidden: what the build makes the man page and completion from */
    if (strcmp(cmd, "__complete") == 0)
        return cli_docs_complete(argc - 1, argv + 1);
    if (strcmp(cmd, "__man") == 0) {
        cli_docs_man_include(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].main(argc - 1, argv + 1);
    return cli_error(2, "unknown command '%s' (zkbench help lists the commands)", cmd);
}
