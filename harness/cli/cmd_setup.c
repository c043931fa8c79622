/*
 * `zkbench setup`: Groth16 keys for a built-in circuit from seeded toxic
 * waste, written as a bellperson-layout parameter file and a verifying key.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "harness/run/run_clock.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/out_file.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/parallel.h"

static void usage(FILE *f)
{
    fputs("usage: zkbench setup --circuit SPEC --params FILE --vk FILE [--seed S] [--threads T]\n"
          "Generates Groth16 proving and verifying keys for a circuit from toxic waste\n"
          "drawn from seed S (for benchmarks and tests only) and writes them in the\n"
          "layout of bellperson's .params files.\n"
          "  --circuit SPEC  e.g. porep:constraints=2^16 (keys: constraints, partitions,\n"
          "                  depth, challenges)\n"
          "  --params FILE   proving key (parameter file) to write\n"
          "  --vk FILE       verifying key to write\n"
          "  --seed S        toxic-waste seed (default 1)\n"
          "  --threads T     CPU threads (default: all cores)\n",
          f);
}

int cmd_setup(int argc, char **argv)
{
    static const struct option opts[] = {
        {"circuit", required_argument, NULL, 'c'}, {"params", required_argument, NULL, 'p'},
        {"vk", required_argument, NULL, 'v'},      {"seed", required_argument, NULL, 's'},
        {"threads", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *spec = NULL, *params_path = NULL, *vk_path = NULL;
    uint64_t seed = 1, threads = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': spec = optarg; break;
        case 'p': params_path = optarg; break;
        case 'v': vk_path = optarg; break;
        case 's':
            if (!cli_parse_u64(&seed, "setup", "seed", optarg))
                return 2;
            break;
        case 't':
            if (!cli_parse_u64(&threads, "setup", "threads", optarg))
                return 2;
            break;
        case 'h': usage(stdout); return 0;
        default: return cli_bad_option("setup", argc, argv);
        }
    }
    if (optind < argc)
        return cli_error(2, "setup: unexpected argument '%s'", argv[optind]);
    if (!spec || !params_path || !vk_path)
        return cli_error(2, "setup: --circuit, --params and --vk are required (see zkbench setup --help)");
    if (threads > 1024)
        return cli_error(2, "setup: --threads must be at most 1024, got %llu", (unsigned long long)threads);

    char err[4400];
    if (circuit_check_spec(spec, 0, err, sizeof err) < 0)
        return cli_error(2, "setup: %s", err);
    /* both outputs under temporary names before any work: an unwritable
     * one is refused now, and a failure leaves neither */
    struct out_file out_params, out_vk = {0};
    if (out_file_begin(&out_params, params_path, err, sizeof err) < 0)
        return cli_error(2, "setup: --params: %s", err);
    if (out_file_begin(&out_vk, vk_path, err, sizeof err) < 0) {
        out_file_abort(&out_params);
        return cli_error(2, "setup: --vk: %s", err);
    }
    double t0 = run_clock_now();
    circuit_t *circ;
    int rc = circuit_from_spec(&circ, spec, 0, err, sizeof err);
    if (rc < 0) {
        out_file_abort(&out_params);
        out_file_abort(&out_vk);
        return cli_error(2, "setup: %s", err);
    }
    double t_circuit = run_clock_now() - t0;
    groth16_shape_t *shape = NULL;
    groth16_params_t *pk = NULL;
    int status = 1;
    if ((rc = groth16_shape_new(&shape, circ->r1cs)) < 0) {
        cli_error(1, "setup: cannot prepare the circuit: %s", strerror(-rc));
        goto done;
    }
    t0 = run_clock_now();
    if ((rc = groth16_setup(&pk, shape, seed, (unsigned)threads)) < 0) {
        cli_error(1, "setup: key generation failed: %s", strerror(-rc));
        goto done;
    }
    double t_setup = run_clock_now() - t0;
    t0 = run_clock_now();
    params_error_t perr;
    if (params_write(out_params.tmp, pk, &perr) < 0 || params_vk_write(out_vk.tmp, &pk->vk, &perr) < 0) {
        status = cli_error(1, "setup: %s", perr.msg);
        goto done;
    }
    if (out_file_commit(&out_params, err, sizeof err) < 0 || out_file_commit(&out_vk, err, sizeof err) < 0) {
        status = cli_error(1, "setup: %s", err);
        goto done;
    }
    double t_write = run_clock_now() - t0;
    const r1cs_t *cs = circ->r1cs;
    printf("circuit   %s\n", circ->spec);
    printf("system    %llu constraints, %u inputs, %u aux, domain 2^%u\n",
           (unsigned long long)cs->num_constraints, cs->num_inputs, cs->num_aux, shape->domain.log_n);
    printf("params    %s: %.1f MiB (h %zu, l %zu, a %zu, b_g1 %zu, b_g2 %zu points)\n", params_path,
           (double)params_file_bytes(pk) / (1 << 20), pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2);
    printf("vk        %s\n", vk_path);
    printf("time      circuit %.2f s, setup %.2f s on %u threads, write %.2f s\n", t_circuit, t_setup,
           threads ? (unsigned)threads : parallel_default_threads(), t_write);
    status = 0;
done:
    out_file_abort(&out_params);
    out_file_abort(&out_vk);
    params_free(pk);
    groth16_shape_free(shape);
    circuit_free(circ);
    return status;
}
