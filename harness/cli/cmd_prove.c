/*
 * `zkbench prove`: one proof (K partitions) of a built-in circuit with a
 * parameter file, through the split API; writes the proofs and the public
 * inputs, verifies them, and prints the time of each stage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/run_clock.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/out_file.h"
#include "harness/formats/proof_files.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/mem.h"
#include "prover/params_map.h"

enum { OPT_CIRCUIT = 'c', OPT_PARTITIONS = 'k', OPT_PARAMS = 'p', OPT_PROOF = 'o', OPT_PUBLIC = 'u',
       OPT_SEED = 's', OPT_THREADS = 't' };

static const cli_opt_t prove_opts[] = {
    {"circuit", OPT_CIRCUIT, "SPEC", "e.g. porep:constraints=2^16"},
    {"partitions", OPT_PARTITIONS, "K", "partitions of the proof (default: the spec's, 10)"},
    {"params", OPT_PARAMS, "FILE", "parameter file from zkbench setup (or bellperson's)"},
    {"proof", OPT_PROOF, "FILE", "proofs to write"},
    {"public", OPT_PUBLIC, "FILE", "public inputs to write"},
    {"seed", OPT_SEED, "S", "witness seed (default 1)"},
    {"threads", OPT_THREADS, "T", "CPU threads (default: all cores)"},
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_prove = {
    .name = "prove",
    .summary = "prove K partitions of a circuit (--zkey: a circom witness, snarkjs files)",
    .synopsis = "zkbench prove --circuit SPEC --partitions K --params FILE --proof FILE\n"
                "              --public FILE [--seed S] [--threads T]",
    .about = "Proves K partitions of the circuit (witnesses from seed S) with the parameter\n"
             "file, writes the proofs (192 bytes each, bellperson's compressed encoding,\n"
             "concatenated) and the public inputs (JSON, one array of decimal strings per\n"
             "partition), and verifies them.\n",
    .opts = prove_opts,
    .epilog = "exit: 0 proved and verified; 1 a proof does not verify, proving or writing failed;\n"
              "2 bad arguments or input files, or an output that is not a regular file or cannot\n"
              "be written (found before any work).\n",
    .also = &cli_cmd_prove_zkey,
};

int cmd_prove(int argc, char **argv)
{
    const char *spec = NULL, *params_path = NULL, *proof_path = NULL, *public_path = NULL;
    uint64_t seed = 1, threads = 0, partitions = 0;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_prove, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        switch (c) {
        case OPT_CIRCUIT: spec = a.val; break;
        case OPT_PARAMS: params_path = a.val; break;
        case OPT_PROOF: proof_path = a.val; break;
        case OPT_PUBLIC: public_path = a.val; break;
        case OPT_PARTITIONS:
            if (!cli_parse_u64(&partitions, "prove", "partitions", a.val))
                return 2;
            if (partitions == 0)
                return cli_error(2, "prove: --partitions must be at least 1");
            break;
        case OPT_SEED:
            if (!cli_parse_u64(&seed, "prove", "seed", a.val))
                return 2;
            break;
        case OPT_THREADS:
            if (!cli_parse_u64(&threads, "prove", "threads", a.val))
                return 2;
            break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 0, 0, ""))
        return 2;
    if (!spec || !params_path || !proof_path || !public_path)
        return cli_error(2, "prove: --circuit, --params, --proof and --public are required (see zkbench prove --help)");
    if (threads > 1024)
        return cli_error(2, "prove: --threads must be at most 1024, got %llu", (unsigned long long)threads);
    if (partitions > 1024)
        return cli_error(2, "prove: --partitions must be at most 1024, got %llu", (unsigned long long)partitions);

    char err[4400];
    if (circuit_check_spec(spec, (unsigned)partitions, err, sizeof err) < 0)
        return cli_error(2, "prove: %s", err);
    /* both outputs under temporary names before any work: an unwritable
     * one is refused now, and a failure leaves neither */
    struct out_file out_proof, out_public = {0};
    if (out_file_begin(&out_proof, proof_path, err, sizeof err) < 0)
        return cli_error(2, "prove: --proof: %s", err);
    if (out_file_begin(&out_public, public_path, err, sizeof err) < 0) {
        out_file_abort(&out_proof);
        return cli_error(2, "prove: --public: %s", err);
    }
    circuit_t *circ = NULL;
    groth16_shape_t *shape = NULL;
    groth16_params_t *pk = NULL;
    groth16_pvk_t *pvk = NULL;
    groth16_proof_t *proofs = NULL;
    fr_t *inputs = NULL;
    int status = 2, rc;

    double t0 = run_clock_now();
    if ((rc = circuit_from_spec(&circ, spec, (unsigned)partitions, err, sizeof err)) < 0) {
        cli_error(2, "prove: %s", err);
        goto done;
    }
    params_error_t perr;
    double t_circuit = run_clock_now() - t0;
    t0 = run_clock_now();
    /* a key file (zkbench setup), checked by sample and mapped; or a
     * bellperson .params file, decoded and checked in full */
    rc = params_map_is_key_file(params_path)
             ? params_map_read(&pk, params_path, NULL, PARAMS_MAP_SAMPLE, (unsigned)threads, NULL, &perr)
             : params_read(&pk, params_path, 0, (unsigned)threads, &perr);
    if (rc < 0) {
        cli_error(2, "prove: %s", perr.msg);
        goto done;
    }
    double t_params = run_clock_now() - t0;
    if ((rc = groth16_shape_new(&shape, circ->r1cs)) < 0) {
        status = cli_error(1, "prove: cannot prepare the circuit: %s", strerror(-rc));
        goto done;
    }
    if (groth16_params_check(pk, shape, err, sizeof err) < 0) {
        cli_error(2, "prove: %s: %s", params_path, err);
        goto done;
    }

    const r1cs_t *cs = circ->r1cs;
    size_t k = circ->partitions, ni = cs->num_inputs - 1;
    proofs = calloc(k, sizeof *proofs);
    inputs = calloc(k * ni + 1, sizeof *inputs);
    if (!proofs || !inputs) {
        status = cli_error(1, "prove: out of memory");
        goto done;
    }
    struct groth16_prove_opts o;
    groth16_prove_opts_default(&o);
    o.threads = (unsigned)threads;
    o.proof = 0;
    printf("circuit   %s\n", circ->spec);
    printf("system    %llu constraints, %u inputs, %u aux, domain 2^%u\n",
           (unsigned long long)cs->num_constraints, cs->num_inputs, cs->num_aux, shape->domain.log_n);
    printf("load      circuit %.2f s, params %.2f s (%s)\n", t_circuit, t_params, params_path);
    double t_all = run_clock_now();
    for (size_t i = 0; i < k; i++) {
        o.partition = (int)i;
        double ts = run_clock_now();
        fr_t *w;
        if ((rc = circuit_witness_alloc(&w, circ, seed, 0, (unsigned)i, (unsigned)threads)) < 0) {
            status = cli_error(1, "prove: partition %zu: synthesis failed: %s", i, strerror(-rc));
            goto done;
        }
        double tp = run_clock_now();
        groth16_pending_t *pend;
        rc = groth16_prove_start(&pend, pk, shape, w, &o);
        memcpy(&inputs[i * ni], &w[1], ni * sizeof(fr_t));
        mem_free(w);
        if (rc < 0) {
            status = cli_error(1, "prove: partition %zu: proving failed: %s", i, strerror(-rc));
            goto done;
        }
        double tf = run_clock_now();
        if ((rc = groth16_prove_finish(&proofs[i], pend)) < 0) {
            status = cli_error(1, "prove: partition %zu: proving failed: %s", i, strerror(-rc));
            goto done;
        }
        double te = run_clock_now();
        printf("partition %zu: synthesis %.3f s, prove_start %.3f s, prove_finish %.3f s\n", i, tp - ts, tf - tp,
               te - tf);
    }
    double t_prove = run_clock_now() - t_all;
    if (proof_file_write(out_proof.tmp, proofs, k, err, sizeof err) < 0 ||
        public_file_write(out_public.tmp, inputs, k, ni, err, sizeof err) < 0 ||
        out_file_commit(&out_proof, err, sizeof err) < 0 || out_file_commit(&out_public, err, sizeof err) < 0) {
        status = cli_error(1, "prove: %s", err);
        goto done;
    }
    if ((rc = groth16_pvk_new(&pvk, &pk->vk)) < 0) {
        status = cli_error(1, "prove: out of memory");
        goto done;
    }
    rc = groth16_verify_batch(pvk, proofs, inputs, k, ni);
    if (rc != 1) {
        status = cli_error(1, "prove: the proof does not verify against its own parameters");
        goto done;
    }
    printf("proved    %zu partitions in %.2f s (%.3f s/partition); verified; wrote %s and %s\n", k, t_prove,
           t_prove / (double)k, proof_path, public_path);
    status = 0;
done:
    out_file_abort(&out_proof);
    out_file_abort(&out_public);
    groth16_pvk_free(pvk);
    free(proofs);
    free(inputs);
    groth16_shape_free(shape);
    params_free(pk);
    circuit_free(circ);
    dealloc_drain();
    return status;
}
