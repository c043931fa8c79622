/*
 * `zkbench prove --zkey` and `zkbench verify --vk *.json` (see
 * cmd_iden3.h): snarkjs keys and witnesses in, snarkjs's proof.json and
 * public.json out, and snarkjs's files verified.
 */
#include "harness/run/run_clock.h"
#include "harness/cli/cmd_iden3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/formats/iden3_json.h"
#include "harness/run/out_file.h"
#include "prover/groth16.h"
#include "prover/iden3/r1cs_file.h"
#include "prover/iden3/wtns_file.h"
#include "prover/iden3/zkey_file.h"
#include "prover/iden3/zkey_prove.h"
#include "prover/mem.h"

enum { OPT_ZKEY = 'z', OPT_WTNS = 'w', OPT_R1CS = 'r', OPT_PROOF = 'o', OPT_PUBLIC = 'u', OPT_THREADS = 't' };

static const cli_opt_t prove_zkey_opts[] = {
    {"zkey", OPT_ZKEY, "FILE", "snarkjs proving key (.zkey)"},
    {"wtns", OPT_WTNS, "FILE", "witness (.wtns, snarkjs wtns calculate or circom's generator)"},
    {"r1cs", OPT_R1CS, "FILE", "the circuit (.r1cs): checks that key, circuit and witness\n"
                               "belong together and names the first failing constraint"},
    {"proof", OPT_PROOF, "FILE", "proof to write (default proof.json)"},
    {"public", OPT_PUBLIC, "FILE", "public signals to write (default public.json)"},
    {"threads", OPT_THREADS, "T", "CPU threads (default: all cores)"},
    {NULL, 0, NULL, NULL},
};

/* `zkbench prove` with --zkey: main.c routes here; its usage is printed
 * after prove's own (cli_cmd_prove.also). */
const cli_cmd_t cli_cmd_prove_zkey = {
    .name = "prove",
    .summary = "prove a circom witness with a snarkjs key (zkbench prove --zkey)",
    .synopsis = "zkbench prove --zkey FILE --wtns FILE [--r1cs FILE] [--proof FILE]\n"
                "              [--public FILE] [--threads T]",
    .about = "Proves a circom witness with a snarkjs Groth16 key (BLS12-381: circom\n"
             "--prime bls12381), verifies the proof against the key, and writes\n"
             "snarkjs's proof.json and public.json.\n",
    .opts = prove_zkey_opts,
    .epilog = "exit: 0 proved and verified; 1 the proof does not verify, proving or writing\n"
              "failed; 2 bad arguments or input files, or an output that is not a regular file or\n"
              "cannot be written (found before any work).\n",
};

int cmd_prove_zkey(int argc, char **argv)
{
    const char *zkey_path = NULL, *wtns_path = NULL, *r1cs_path = NULL;
    const char *proof_path = "proof.json", *public_path = "public.json";
    uint64_t threads = 0;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_prove_zkey, argc, argv);
    a.usage = &cli_cmd_prove; /* both forms, as zkbench help prove prints them */
    int c;
    while ((c = cli_next(&a)) > 0) {
        switch (c) {
        case OPT_ZKEY: zkey_path = a.val; break;
        case OPT_WTNS: wtns_path = a.val; break;
        case OPT_R1CS: r1cs_path = a.val; break;
        case OPT_PROOF: proof_path = a.val; break;
        case OPT_PUBLIC: public_path = a.val; break;
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
    if (!zkey_path || !wtns_path)
        return cli_error(2, "prove: --zkey and --wtns are required (see zkbench prove --help)");
    if (threads > 1024)
        return cli_error(2, "prove: --threads must be at most 1024, got %llu", (unsigned long long)threads);

    /* both outputs under temporary names before any work: an unwritable
     * one (a device, a folder, no permission) is refused now, and a
     * failure leaves neither */
    char msg[4400];
    struct out_file out_proof, out_public = {0};
    if (out_file_begin(&out_proof, proof_path, msg, sizeof msg) < 0)
        return cli_error(2, "prove: --proof: %s", msg);
    if (out_file_begin(&out_public, public_path, msg, sizeof msg) < 0) {
        out_file_abort(&out_proof);
        return cli_error(2, "prove: --public: %s", msg);
    }
    iden3_error_t err;
    iden3_zkey_t *zk = NULL;
    iden3_r1cs_t *r1cs = NULL;
    groth16_pvk_t *pvk = NULL;
    fr_t *w = NULL;
    size_t nw = 0;
    int status = 2, rc;
    iden3_zkey_info_t zinfo;
    double t0 = run_clock_now();
    if ((rc = iden3_zkey_open(&zk, zkey_path, /* record_dir= */ NULL, (unsigned)threads, &zinfo, &err)) < 0) {
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
    if (iden3_json_proof_write(out_proof.tmp, &proof, msg, sizeof msg) < 0 ||
        iden3_json_public_write(out_public.tmp, w + 1, np, msg, sizeof msg) < 0 ||
        out_file_commit(&out_proof, msg, sizeof msg) < 0 || out_file_commit(&out_public, msg, sizeof msg) < 0) {
        status = cli_error(1, "prove: %s", msg);
        goto done;
    }
    printf("key       %s: %u variables, %u public, domain 2^%u (read in %.3f s)\n", zkey_path, zk->n_vars, zk->n_public,
           zk->log_n, t_zkey);
    if (zinfo.from_record)
        printf("subgroup  checked before: %s vouches for these %llu G1 and %llu G2 points (digest in %.3f s)\n",
               zinfo.record, (unsigned long long)zinfo.n_g1, (unsigned long long)zinfo.n_g2, zinfo.digest_s);
    else if (zinfo.recorded)
        printf("subgroup  %llu G1 and %llu G2 points checked in %.3f s; recorded in %s\n",
               (unsigned long long)zinfo.n_g1, (unsigned long long)zinfo.n_g2, zinfo.subgroup_s, zinfo.record);
    else
        printf("subgroup  %llu G1 and %llu G2 points checked in %.3f s; not recorded: %s: %s\n",
               (unsigned long long)zinfo.n_g1, (unsigned long long)zinfo.n_g2, zinfo.subgroup_s, zinfo.dir,
               strerror(-zinfo.record_error));
    printf("witness   %s (read in %.3f s)\n", wtns_path, t_wtns);
    printf("stages    eval %.3f s, ntt %.3f s, msm h %.3f s, c %.3f s, a %.3f s, b1 %.3f s, b2 %.3f s\n", tm.eval,
           tm.ntt, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b1, tm.msm_b2);
    printf("proved    in %.3f s; verified; wrote %s and %s\n", t_prove, proof_path, public_path);
    status = 0;
done:
    out_file_abort(&out_proof);
    out_file_abort(&out_public);
    groth16_pvk_free(pvk);
    mem_free(w);
    iden3_r1cs_free(r1cs);
    iden3_zkey_free(zk);
    return status;
}

int cmd_verify_snarkjs(int argc, char **argv)
{
    const char *vk_path, *proof_path, *public_path;
    int parsed = cmd_verify_args(argc, argv, &vk_path, &proof_path, &public_path);
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
