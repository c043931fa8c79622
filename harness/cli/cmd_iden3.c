/*
 * `zkbench prove --zkey` and `zkbench verify --vk *.json` (see
 * cmd_iden3.h): snarkjs keys and witnesses in, snarkjs's proof.json and
 * public.json out, and snarkjs's files verified.
 */
#include "harness/run/run_clock.h"
#include "harness/cli/cmd_iden3.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/formats/iden3_json.h"
#include "prover/groth16.h"
#include "prover/iden3/r1cs_file.h"
#include "prover/iden3/wtns_file.h"
#include "prover/iden3/zkey_file.h"
#include "prover/iden3/zkey_prove.h"
#include "prover/mem.h"

static void prove_usage(FILE *f)
{
    fputs("usage: zkbench prove --zkey FILE --wtns FILE [--r1cs FILE] [--proof FILE]\n"
          "                     [--public FILE] [--threads T]\n"
          "Proves a circom witness with a snarkjs Groth16 key (BLS12-381: circom\n"
          "--prime bls12381), verifies the proof against the key, and writes\n"
          "snarkjs's proof.json and public.json. Exit 1 when it does not verify.\n"
          "  --zkey FILE     snarkjs proving key (.zkey)\n"
          "  --wtns FILE     witness (.wtns, snarkjs wtns calculate or circom's generator)\n"
          "  --r1cs FILE     the circuit (.r1cs): checks that key, circuit and witness\n"
          "                  belong together and names the first failing constraint\n"
          "  --proof FILE    proof to write (default proof.json)\n"
          "  --public FILE   public signals to write (default public.json)\n"
          "  --threads T     CPU threads (default: all cores)\n",
          f);
}

int cmd_prove_zkey(int argc, char **argv)
{
    static const struct option opts[] = {
        {"zkey", required_argument, NULL, 'z'},    {"wtns", required_argument, NULL, 'w'},
        {"r1cs", required_argument, NULL, 'r'},    {"proof", required_argument, NULL, 'o'},
        {"public", required_argument, NULL, 'u'},  {"threads", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    const char *zkey_path = NULL, *wtns_path = NULL, *r1cs_path = NULL;
    const char *proof_path = "proof.json", *public_path = "public.json";
    uint64_t threads = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'z': zkey_path = optarg; break;
        case 'w': wtns_path = optarg; break;
        case 'r': r1cs_path = optarg; break;
        case 'o': proof_path = optarg; break;
        case 'u': public_path = optarg; break;
        case 't':
            if (!cli_parse_u64(&threads, "prove", "threads", optarg))
                return 2;
            break;
        case 'h': prove_usage(stdout); return 0;
        default: return cli_bad_option("prove", argc, argv);
        }
    }
    if (optind < argc)
        return cli_error(2, "prove: unexpected argument '%s'", argv[optind]);
    if (!zkey_path || !wtns_path)
        return cli_error(2, "prove: --zkey and --wtns are required (see zkbench prove --zkey F --help)");
    if (threads > 1024)
        return cli_error(2, "prove: --threads must be at most 1024, got %llu", (unsigned long long)threads);

    iden3_error_t err;
    char msg[512];
    iden3_zkey_t *zk = NULL;
    iden3_r1cs_t *r1cs = NULL;
    groth16_pvk_t *pvk = NULL;
    fr_t *w = NULL;
    size_t nw = 0;
    int status = 2, rc;
    double t0 = run_clock_now();
    if ((rc = iden3_zkey_read(&zk, zkey_path, 0, (unsigned)threads, &err)) < 0) {
        cli_error(2, "prove: %s", err.msg);
        goto done;
    }
    double t_zkey = run_clock_now() - t0;
    t0 = run_clock_now();
    if ((rc = iden3_wtns_read(&w, &nw, wtns_path, 0, &err)) < 0) {
        cli_error(2, "prove: %s", err.msg);
        goto done;
    }
    double t_wtns = run_clock_now() - t0;
    if (nw != zk->n_vars) {
        cli_error(2, "prove: %s: %zu witness values, but the key %s is for %u variables: they do not belong together",
                  wtns_path, nw, zkey_path, zk->n_vars);
        goto done;
    }
    if (r1cs_path) {
        if ((rc = iden3_r1cs_read(&r1cs, r1cs_path, &err)) < 0) {
            cli_error(2, "prove: %s", err.msg);
            goto done;
        }
        if (iden3_zkey_match_r1cs(zk, r1cs->cs, msg, sizeof msg) < 0) {
            cli_error(2, "prove: %s and %s do not belong together: %s", r1cs_path, zkey_path, msg);
            goto done;
        }
        uint64_t bad = 0;
        rc = r1cs_is_satisfied(&bad, r1cs->cs, w);
        if (rc == 0) {
            cli_error(2, "prove: %s: the witness does not satisfy constraint %llu of %s", wtns_path,
                      (unsigned long long)bad, r1cs_path);
            goto done;
        }
        if (rc < 0) {
            status = cli_error(1, "prove: out of memory checking the witness");
            goto done;
        }
    }
    groth16_times_t tm;
    struct iden3_prove_opts o;
    iden3_prove_opts_default(&o);
    o.threads = (unsigned)threads;
    o.times = &tm;
    o.proof = 0;
    groth16_proof_t proof;
    t0 = run_clock_now();
    if ((rc = iden3_zkey_prove(&proof, zk, w, nw, &o)) < 0) {
        status = cli_error(1, "prove: proving failed: %s", strerror(-rc));
        goto done;
    }
    double t_prove = run_clock_now() - t0;
    if ((rc = groth16_pvk_new(&pvk, &zk->vk)) < 0) {
        status = cli_error(1, "prove: out of memory");
        goto done;
    }
    size_t np = zk->n_public;
    rc = groth16_verify(pvk, &proof, w + 1, np);
    if (rc != 1) {
        status = cli_error(1, "prove: the proof does not verify against %s's verifying key: %s does not satisfy the "
                           "circuit%s", zkey_path, wtns_path, r1cs_path ? "" : " (pass --r1cs to find the failing constraint)");
        goto done;
    }
    if (iden3_json_proof_write(proof_path, &proof, msg, sizeof msg) < 0 ||
        iden3_json_public_write(public_path, w + 1, np, msg, sizeof msg) < 0) {
        cli_error(2, "prove: %s", msg);
        goto done;
    }
    printf("key       %s: %u variables, %u public, domain 2^%u (read in %.3f s)\n", zkey_path, zk->n_vars, zk->n_public,
           zk->log_n, t_zkey);
    printf("witness   %s (read in %.3f s)\n", wtns_path, t_wtns);
    printf("stages    eval %.3f s, ntt %.3f s, msm h %.3f s, c %.3f s, a %.3f s, b1 %.3f s, b2 %.3f s\n", tm.eval,
           tm.ntt, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b1, tm.msm_b2);
    printf("proved    in %.3f s; verified; wrote %s and %s\n", t_prove, proof_path, public_path);
    status = 0;
done:
    groth16_pvk_free(pvk);
    mem_free(w);
    iden3_r1cs_free(r1cs);
    iden3_zkey_free(zk);
    return status;
}

static void verify_usage(FILE *f)
{
    fputs("usage: zkbench verify --vk verification_key.json --proof proof.json --public public.json\n"
          "Verifies a snarkjs Groth16 proof (BLS12-381) with snarkjs's verification key.\n"
          "Exit 0: valid; 1: does not verify; 2: bad input.\n",
          f);
}

int cmd_verify_snarkjs(int argc, char **argv)
{
    const char *vk_path, *proof_path, *public_path;
    int parsed = cmd_verify_args(argc, argv, verify_usage, &vk_path, &proof_path, &public_path);
    if (parsed >= 0)
        return parsed;
    char msg[512];
    groth16_vk_t vk = {0};
    groth16_proof_t proof;
    groth16_pvk_t *pvk = NULL;
    fr_t *inputs = NULL;
    size_t n = 0;
    int status = 2;
    if (iden3_json_vk_read(&vk, vk_path, msg, sizeof msg) < 0 ||
        iden3_json_proof_read(&proof, proof_path, msg, sizeof msg) < 0 ||
        iden3_json_public_read(&inputs, &n, public_path, msg, sizeof msg) < 0) {
        cli_error(2, "verify: %s", msg);
        goto done;
    }
    if (n + 1 != vk.n_ic) {
        cli_error(2, "verify: %s: %zu public signals, the verification key %s expects %zu", public_path, n, vk_path,
                  vk.n_ic - 1);
        goto done;
    }
    if (groth16_pvk_new(&pvk, &vk) < 0) {
        status = cli_error(1, "verify: out of memory");
        goto done;
    }
    int rc = groth16_verify(pvk, &proof, inputs, n);
    if (rc == 1) {
        printf("verified  %s (%zu public signals)\n", proof_path, n);
        status = 0;
    } else {
        status = cli_error(1, "verify: %s does not verify with %s and %s", proof_path, vk_path, public_path);
    }
done:
    groth16_pvk_free(pvk);
    free(vk.ic);
    free(inputs);
    return status;
}
