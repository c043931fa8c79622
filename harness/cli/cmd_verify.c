/*
 * `zkbench verify`: checks a proof file against a verifying key and the
 * public inputs: all partitions in one batch. Exit 0 when every partition
 * verifies, 1 when one does not, 2 for bad arguments or unreadable files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/formats/proof_files.h"
#include "prover/groth16.h"

enum { OPT_VK = 'v', OPT_PROOF = 'o', OPT_PUBLIC = 'u' };

static const cli_opt_t verify_opts[] = {
    {"vk", OPT_VK, "FILE", "verifying key: zkbench setup's, or snarkjs's\nverification_key.json (a name ending in .json)"},
    {"proof", OPT_PROOF, "FILE", "proofs: zkbench prove's (192 bytes per partition), or\nsnarkjs's proof.json"},
    {"public", OPT_PUBLIC, "FILE", "public inputs: zkbench prove's, or snarkjs's public.json"},
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_verify = {
    .name = "verify",
    .summary = "verify a proof file against a verifying key (or snarkjs's JSON files)",
    .synopsis = "zkbench verify --vk FILE --proof FILE --public FILE\n"
                "zkbench verify --vk verification_key.json --proof proof.json --public public.json",
    .about = "Verifies every partition of a proof (zkbench prove's files) with the\n"
             "verifying key, all partitions as one batch; with a --vk ending in .json, a\n"
             "snarkjs Groth16 proof (BLS12-381) with snarkjs's verification key.\n",
    .opts = verify_opts,
    .epilog = "exit: 0 valid; 1 does not verify; 2 bad arguments or input files.\n",
};

int cmd_verify_args(int argc, char **argv, const char **vk_path, const char **proof_path, const char **public_path)
{
    *vk_path = *proof_path = *public_path = NULL;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_verify, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        switch (c) {
        case OPT_VK: *vk_path = a.val; break;
        case OPT_PROOF: *proof_path = a.val; break;
        case OPT_PUBLIC: *public_path = a.val; break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 0, 0, ""))
        return 2;
    if (!*vk_path || !*proof_path || !*public_path)
        return cli_error(2, "verify: --vk, --proof and --public are required (see zkbench verify --help)");
    return -1;
}

int cmd_verify(int argc, char **argv)
{
    const char *vk_path, *proof_path, *public_path;
    int rc = cmd_verify_args(argc, argv, &vk_path, &proof_path, &public_path);
    if (rc >= 0)
        return rc;

    char err[512];
    params_error_t perr;
    groth16_vk_t vk = {0};
    groth16_pvk_t *pvk = NULL;
    groth16_proof_t *proofs = NULL;
    fr_t *inputs = NULL;
    size_t k = 0, pk_count = 0, ni = 0;
    int status = 2;
    if (params_vk_read(&vk, vk_path, &perr) < 0) {
        cli_error(2, "verify: %s", perr.msg);
        goto done;
    }
    if (proof_file_read(proof_path, &proofs, &k, err, sizeof err) < 0 ||
        public_file_read(public_path, &inputs, &pk_count, &ni, err, sizeof err) < 0) {
        cli_error(2, "verify: %s", err);
        goto done;
    }
    if (pk_count != k) {
        cli_error(2, "verify: %s holds %zu partitions' inputs but %s holds %zu proofs", public_path, pk_count,
                  proof_path, k);
        goto done;
    }
    if (vk.n_ic == 0) {
        cli_error(2, "verify: the verifying key %s has no ic point (it needs one for the constant input and one per "
                     "public input)", vk_path);
        goto done;
    }
    if (ni + 1 != vk.n_ic) {
        cli_error(2, "verify: %s: %zu public inputs per partition, the verifying key %s expects %zu",
                  public_path, ni, vk_path, vk.n_ic - 1);
        goto done;
    }
    if (groth16_pvk_new(&pvk, &vk) < 0) {
        status = cli_error(1, "verify: out of memory");
        goto done;
    }
    rc = groth16_verify_batch(pvk, proofs, inputs, k, ni);
    if (rc == 1) {
        printf("verified  %zu partitions\n", k);
        status = 0;
    } else if (rc == 0) {
        status = cli_error(1, "verify: the proof does not verify (%zu partitions checked as a batch)", k);
    } else {
        status = cli_error(1, "verify: verification failed: %s", strerror(-rc));
    }
done:
    groth16_pvk_free(pvk);
    params_vk_clear(&vk);
    free(proofs);
    free(inputs);
    return status;
}
