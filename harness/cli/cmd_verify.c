/*
 * `zkbench verify`: checks a proof file against a verifying key and the
 * public inputs: all partitions in one batch. Exit 0 when every partition
 * verifies, 1 when one does not, 2 for bad arguments or unreadable files.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/formats/proof_files.h"
#include "prover/groth16.h"

static void usage(FILE *f)
{
    fputs("usage: zkbench verify --vk FILE --proof FILE --public FILE\n"
          "Verifies every partition of a proof (zkbench prove's files) with the\n"
          "verifying key. Exit 0: valid; 1: does not verify; 2: bad input.\n",
          f);
}

int cmd_verify_args(int argc, char **argv, void (*usage_fn)(FILE *), const char **vk_path,
                    const char **proof_path, const char **public_path)
{
    static const struct option opts[] = {
        {"vk", required_argument, NULL, 'v'},     {"proof", required_argument, NULL, 'o'},
        {"public", required_argument, NULL, 'u'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *vk_path = *proof_path = *public_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'v': *vk_path = optarg; break;
        case 'o': *proof_path = optarg; break;
        case 'u': *public_path = optarg; break;
        case 'h': usage_fn(stdout); return 0;
        default: return cli_bad_option("verify", argc, argv);
        }
    }
    if (optind < argc)
        return cli_error(2, "verify: unexpected argument '%s'", argv[optind]);
    if (!*vk_path || !*proof_path || !*public_path)
        return cli_error(2, "verify: --vk, --proof and --public are required (see zkbench verify --help)");
    return -1;
}

int cmd_verify(int argc, char **argv)
{
    const char *vk_path, *proof_path, *public_path;
    int rc = cmd_verify_args(argc, argv, usage, &vk_path, &proof_path, &public_path);
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
