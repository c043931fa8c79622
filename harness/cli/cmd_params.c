/*
 * `zkbench params verify FILE`: the full check of a proving key file
 * (prover/params_map.h): its header, layout and block table, and every
 * block against its checksum, which a start only samples; for a bellperson
 * .params file, its full decode (encoding, on the curve, in the subgroup).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/run_clock.h"
#include "prover/parallel.h"
#include "prover/params_map.h"

static const cli_opt_t params_verify_opts[] = {
    {"threads", 't', "T", "CPU threads (default: all cores)"},
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_params_verify = {
    .name = "params verify",
    .summary = "check a proving key file in full (every block), or a .params file",
    .synopsis = "zkbench params verify FILE [--threads T]",
    .about = "Checks a proving key file in full: header, layout, the block table and every\n"
             "1 MiB block against its checksum (a batch's start checks the header, the\n"
             "table and a sample of blocks). A bellperson .params file is decoded and every\n"
             "point checked (encoding, on the curve, in the subgroup). Nothing is written.\n",
    .opts = params_verify_opts,
    .letters = "t=threads",
    .epilog = "exit: 0 the file is whole; 1 it is damaged (the first bad block or point is\n"
              "named); 2 bad arguments, or a file that cannot be read or is not a key.\n",
};

static double gib(uint64_t b)
{
    return (double)b / (double)(1u << 30);
}

static int verify_key(const char *path, unsigned threads)
{
    params_map_stats_t st;
    params_error_t err;
    double t0 = run_clock_now();
    int rc = params_map_verify(path, threads, &st, &err);
    double s = run_clock_now() - t0;
    if (rc == -EBADMSG)
        return cli_error(1, "params verify: %s", err.msg);
    if (rc < 0)
        return cli_error(rc == -ENOMEM ? 1 : 2, "params verify: %s", err.msg);
    char origin[400] = "an unrecorded origin";
    if (st.origin.kind == PARAMS_ORIGIN_SETUP)
        snprintf(origin, sizeof origin, "the setup of %s with seed %llu", st.origin.spec,
                 (unsigned long long)st.origin.seed);
    else if (st.origin.kind == PARAMS_ORIGIN_FILE)
        snprintf(origin, sizeof origin, "a .params file of %llu bytes", (unsigned long long)st.origin.source.bytes);
    printf("%s: whole: every one of %llu blocks matches its checksum (%.2f GiB in %.2f s, %.1f GB/s); made by %s\n",
           path, (unsigned long long)st.blocks, gib(st.payload_bytes), s, s > 0 ? (double)st.payload_bytes / s / 1e9 : 0,
           origin);
    return 0;
}

static int verify_bellperson(const char *path, unsigned threads)
{
    groth16_params_t *pk = NULL;
    params_error_t err;
    /* not a parameter file at all (bad input) is not a damaged one */
    if (params_check_layout(path, &err) < 0)
        return cli_error(2, "params verify: %s (neither a key file nor a .params file)", err.msg);
    double t0 = run_clock_now();
    int rc = params_read(&pk, path, /* flags= */ 0, threads, &err);
    double s = run_clock_now() - t0;
    if (rc == -EINVAL)
        return cli_error(1, "params verify: %s", err.msg);
    if (rc < 0)
        return cli_error(rc == -ENOMEM ? 1 : 2, "params verify: %s", err.msg);
    printf("%s: whole: a bellperson .params file, every point decoded, on the curve and in the subgroup "
           "(h %zu, l %zu, a %zu, b_g1 %zu, b_g2 %zu points, in %.2f s)\n",
           path, pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2, s);
    params_free(pk);
    return 0;
}

int cmd_params(int argc, char **argv)
{
    /* zkbench params verify ...: the one subcommand */
    if (argc < 2 || strcmp(argv[1], "verify") != 0)
        return cli_error(2, "params: expected 'params verify FILE' (zkbench params verify --help)");
    argc--;
    argv++;
    uint64_t threads = 0;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_params_verify, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0)
        if (c == 't' && !cli_parse_u64(&threads, "params verify", "threads", a.val))
            return 2;
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 1, 1, "FILE"))
        return 2;
    if (threads > 1024)
        return cli_error(2, "params verify: --threads must be at most 1024, got %llu", (unsigned long long)threads);
    const char *path = argv[a.ind];
    return params_map_is_key_file(path) ? verify_key(path, (unsigned)threads)
                                        : verify_bellperson(path, (unsigned)threads);
}
