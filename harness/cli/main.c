/*
 * zkbench: the command-line entry point. Dispatches to one command; only the
 * harness prints, and every bad input ends in one error line and exit 2.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/bench_arith.h"
#include "harness/cli/cli.h"
#include "harness/cli/cmd_iden3.h"
#include "harness/cli/commands.h"
#include "harness/cli/selfcheck.h"
#include "harness/run/sysinfo.h"

static int version_main(void)
{
    sysinfo_t si;
    sysinfo_read(&si);
    printf("zkbench %s\n", si.commit);
    printf("machine: %s, %d cores, %.1f GiB RAM, %s\n", si.cpu, si.cores,
           (double)si.ram_bytes / (1u << 30), si.os);
    printf("allocator: jemalloc %s\n", si.jemalloc);
    if (si.gpus > 0)
        printf("gpu: %d device(s), %s, %.1f GiB\n", si.gpus, si.gpu, (double)si.gpu_mem_bytes / (1u << 30));
    else
        printf("gpu: none\n");
    return 0;
}

static void usage(FILE *f)
{
    fputs("usage: zkbench COMMAND [options]\n"
          "A memory-instrumented benchmark and diagnosis harness around a Groth16\n"
          "prover over BLS12-381.\n\n"
          "commands:\n"
          "  selfcheck   known-answer checks of the field, curve, encoding and pairing code\n"
          "  bench       arithmetic benchmark table (Fp, Fr, G1, G2, pairing)\n"
          "  setup       Groth16 keys for a circuit (bellperson parameter file + vk)\n"
          "  prove       prove K partitions of a circuit; writes proofs and public inputs\n"
          "              (with --zkey F --wtns F: a circom/snarkjs circuit, snarkjs files out)\n"
          "  verify      verify a proof file against a verifying key (or snarkjs's JSON files)\n"
          "  batch       N proofs under chosen parallelism, recording where memory went\n"
          "  analyze     diagnose a run: leak, retention, held-too-long, queue-pileup, capacity\n"
          "  plot        draw a run's memory with gnuplot (PNG and SVG)\n"
          "  report      one self-contained HTML page of a run: verdict, tables, plots\n"
          "  check       regression gate of a run against a baseline (CI)\n"
          "  sweep       batches over pw values: capacity table and plot\n"
          "  watch       the sampler on any process (--pid PID or -- CMD ARGS)\n"
          "  version     version, machine, allocator and GPU\n"
          "  help        this text\n\n"
          "zkbench COMMAND --help describes a command.\n",
          f);
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

int main(int argc, char **argv)
{
    if (!cpu_is_supported())
        return cli_error(2, "this CPU lacks BMI2/ADX, which this build uses; rebuild with -Dasm=disabled");
    if (argc < 2)
        return cli_error(2, "no command given (zkbench help lists them)");
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0)
        return version_main();
    if (strcmp(cmd, "selfcheck") == 0)
        return selfcheck_main(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return bench_arith_main(argc - 1, argv + 1);
    if (strcmp(cmd, "setup") == 0)
        return cmd_setup(argc - 1, argv + 1);
    if (strcmp(cmd, "prove") == 0)
        return has_option(argc, argv, "--zkey", NULL) ? cmd_prove_zkey(argc - 1, argv + 1)
                                                      : cmd_prove(argc - 1, argv + 1);
    if (strcmp(cmd, "verify") == 0)
        return has_option(argc, argv, "--vk", ".json") ? cmd_verify_snarkjs(argc - 1, argv + 1)
                                                       : cmd_verify(argc - 1, argv + 1);
    if (strcmp(cmd, "batch") == 0)
        return cmd_batch(argc - 1, argv + 1);
    if (strcmp(cmd, "analyze") == 0)
        return cmd_analyze(argc - 1, argv + 1);
    if (strcmp(cmd, "plot") == 0)
        return cmd_plot(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "sweep") == 0)
        return cmd_sweep(argc - 1, argv + 1);
    if (strcmp(cmd, "watch") == 0)
        return cmd_watch(argc - 1, argv + 1);
    return cli_error(2, "unknown command '%s' (zkbench help lists the commands)",
                     cmd);
}
