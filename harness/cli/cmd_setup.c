/*
 * `zkbench setup`: Groth16 keys for a built-in circuit from seeded toxic
 * waste, written as a proving key file in the layout the prover maps
 * (prover/params_map.h; made in place, no heap copy), or with --format
 * bellperson as a bellperson-layout parameter file, and a verifying key.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/run/run_clock.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/out_file.h"
#include "kernels/kernels.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/parallel.h"
#include "prover/params_map.h"

enum { OPT_CIRCUIT = 'c', OPT_PARAMS = 'p', OPT_VK = 'v', OPT_SEED = 's', OPT_THREADS = 't', OPT_GPU = 'g',
       OPT_FORMAT = 'f' };

static const cli_opt_t setup_opts[] = {
    {"circuit", OPT_CIRCUIT, "SPEC", "e.g. porep:constraints=2^16 (keys: constraints, partitions,\ndepth, challenges) or porep:preset=32g"},
    {"params", OPT_PARAMS, "FILE", "proving key to write"},
    {"format", OPT_FORMAT, "key|bellperson", "key (default): the layout zkbench maps (as the parameter cache\n"
                                             "keeps it); bellperson: bellperson's .params layout"},
    {"vk", OPT_VK, "FILE", "verifying key to write"},
    {"seed", OPT_SEED, "S", "toxic-waste seed (default 1)"},
    {"threads", OPT_THREADS, "T", "CPU threads (default: all cores)"},
    {"gpu", OPT_GPU, "DEVICE", "the fixed-base multiplications on this CUDA device (the files are\nbyte for byte the CPU's for the same seed)"},
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_setup = {
    .name = "setup",
    .summary = "Groth16 keys for a circuit (key file or bellperson parameter file + vk)",
    .synopsis = "zkbench setup --circuit SPEC --params FILE --vk FILE [--format key|bellperson]\n"
                "                [--seed S] [--threads T] [--gpu DEVICE]",
    .about = "Generates Groth16 proving and verifying keys for a circuit from toxic waste\n"
             "drawn from seed S (for benchmarks and tests only) and writes the proving key\n"
             "as a key file (the layout zkbench maps, checked whole as written; --params of\n"
             "batch and prove take it) or, with --format bellperson, in the layout of\n"
             "bellperson's .params files; the verifying key in bellperson's encoding.\n",
    .opts = setup_opts,
    .epilog = "exit: 0 written; 1 key generation or writing failed; 2 bad arguments, or an\n"
              "output that is not a regular file or cannot be written (nothing is written then).\n",
};

int cmd_setup(int argc, char **argv)
{
    const char *spec = NULL, *params_path = NULL, *vk_path = NULL;
    uint64_t seed = 1, threads = 0, gpu = 0;
    bool on_gpu = false, bellperson = false;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_setup, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        switch (c) {
        case OPT_CIRCUIT: spec = a.val; break;
        case OPT_PARAMS: params_path = a.val; break;
        case OPT_VK: vk_path = a.val; break;
        case OPT_FORMAT:
            if (strcmp(a.val, "key") && strcmp(a.val, "bellperson"))
                return cli_error(2, "setup: --format must be key or bellperson, got '%s'", a.val);
            bellperson = strcmp(a.val, "bellperson") == 0;
            break;
        case OPT_SEED:
            if (!cli_parse_u64(&seed, "setup", "seed", a.val))
                return 2;
            break;
        case OPT_THREADS:
            if (!cli_parse_u64(&threads, "setup", "threads", a.val))
                return 2;
            break;
        case OPT_GPU:
            if (!cli_parse_u64(&gpu, "setup", "gpu", a.val))
                return 2;
            on_gpu = true;
            break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 0, 0, ""))
        return 2;
    if (!spec || !params_path || !vk_path)
        return cli_error(2, "setup: --circuit, --params and --vk are required (see zkbench setup --help)");
    if (threads > 1024)
        return cli_error(2, "setup: --threads must be at most 1024, got %llu", (unsigned long long)threads);
    if (on_gpu) {
        int count = 0;
        kernels_device_count(&count);
        if (gpu >= (uint64_t)count)
            return cli_error(2, "setup: --gpu %llu: no such CUDA device (this machine has %d)", (unsigned long long)gpu,
                             count);
    }

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
    groth16_setup_times_t st;
    params_error_t perr;
    params_map_writer_t *w = NULL;
    int device = on_gpu ? (int)gpu : -1;
    double t_write = 0;
    if (bellperson) {
        rc = groth16_setup_on(&pk, shape, seed, (unsigned)threads, device, &st);
    } else {
        /* the key file is the setup's output buffer: no heap copy */
        size_t counts[6];
        groth16_key_counts(counts, shape);
        if ((rc = params_map_create(&pk, &w, out_params.tmp, counts, &perr)) < 0) {
            status = cli_error(1, "setup: %s", perr.msg);
            goto done;
        }
        if ((rc = groth16_setup_into(pk, shape, seed, (unsigned)threads, device, &st)) < 0) {
            params_map_abort(w, pk);
            pk = NULL;
        }
    }
    if (rc < 0) {
        cli_error(1, "setup: key generation failed: %s%s%s", strerror(-rc), on_gpu ? ": " : "",
                  on_gpu ? kernels_last_error() : "");
        goto done;
    }
    double t_setup = run_clock_now() - t0;
    t0 = run_clock_now();
    if (bellperson) {
        rc = params_write(out_params.tmp, pk, &perr);
    } else {
        params_origin_t origin = {.kind = PARAMS_ORIGIN_SETUP, .seed = seed};
        snprintf(origin.spec, sizeof origin.spec, "%s", circ->spec);
        /* the origin is the spec without the partitions, as the cache records it */
        char *part = strstr(origin.spec, ",partitions=");
        if (part) {
            char *rest = strchr(part + 1, ',');
            memmove(part, rest ? rest : part + strlen(part), strlen(rest ? rest : part + strlen(part)) + 1);
        }
        rc = params_map_commit(w, pk, &origin, (unsigned)threads, &perr);
        if (rc < 0)
            pk = NULL; /* freed by the failed commit */
    }
    if (rc < 0 || params_vk_write(out_vk.tmp, &pk->vk, &perr) < 0) {
        status = cli_error(1, "setup: %s", perr.msg);
        goto done;
    }
    if (out_file_commit(&out_params, err, sizeof err) < 0 || out_file_commit(&out_vk, err, sizeof err) < 0) {
        status = cli_error(1, "setup: %s", err);
        goto done;
    }
    t_write = run_clock_now() - t0;
    const r1cs_t *cs = circ->r1cs;
    printf("circuit   %s\n", circ->spec);
    printf("system    %llu constraints, %u inputs, %u aux, domain 2^%u\n",
           (unsigned long long)cs->num_constraints, cs->num_inputs, cs->num_aux, shape->domain.log_n);
    printf("params    %s: %s, %.1f MiB (h %zu, l %zu, a %zu, b_g1 %zu, b_g2 %zu points)\n", params_path,
           bellperson ? "bellperson .params" : "key file",
           (double)(bellperson ? params_file_bytes(pk) : params_mapped_bytes(pk)) / (1 << 20), pk->n_h, pk->n_l,
           pk->n_a, pk->n_b_g1, pk->n_b_g2);
    printf("vk        %s\n", vk_path);
    char on[32] = "";
    if (on_gpu)
        snprintf(on, sizeof on, " and GPU %llu", (unsigned long long)gpu);
    printf("time      circuit %.2f s, setup %.2f s on %u threads%s, write %.2f s\n", t_circuit, t_setup,
           threads ? (unsigned)threads : parallel_default_threads(), on, t_write);
    printf("setup     qap %.2f s, tables %.2f s, scalars %.2f s, multiply %.2f s\n", st.qap, st.tables,
           st.scalars, st.multiply);
    status = 0;
done:
    out_file_abort(&out_params);
    out_file_abort(&out_vk);
    params_free(pk);
    groth16_shape_free(shape);
    circuit_free(circ);
    return status;
}
