/*
 * `zkbench bench prover`: for each constraint count and thread count, the
 * time of setup, synthesis (witness), the a/b/c evaluation, the H
 * computation (NTT), each MSM and the whole proof of one porep partition on
 * the CPU backend or (--backend gpu) the GPU, where the setup's fixed-base
 * multiplications run on the GPU too; every proof is verified.
 * Prints a Markdown table with the machine, date, commit and command, as
 * results/ keeps it. Proof stages are the median of --repeat runs.
 */
#define _GNU_SOURCE
#include "harness/run/run_clock.h"
#include "harness/cli/bench_prover.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/diagnose/analyze.h"
#include "harness/run/sysinfo.h"
#include "kernels/kernels.h"
#include "prover/backend.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/mem.h"

#define MAX_LIST 16

static bool parse_list(uint64_t *out, size_t *n, const char *name, const char *text)
{
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        cli_error(2, "bench prover: --%s is too long", name);
        return false;
    }
    strcpy(buf, text);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_LIST) {
            cli_error(2, "bench prover: --%s takes at most %d values", name, MAX_LIST);
            return false;
        }
        if (!cli_parse_u64(&out[*n], "bench prover", name, tok))
            return false;
        if (out[*n] == 0) {
            cli_error(2, "bench prover: --%s values must be positive", name);
            return false;
        }
        (*n)++;
    }
    if (*n == 0) {
        cli_error(2, "bench prover: --%s needs at least one value", name);
        return false;
    }
    return true;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[n / 2];
}

enum { OPT_CONSTRAINTS = 'c', OPT_THREADS = 't', OPT_REPEAT = 'r', OPT_OUT = 'o', OPT_BACKEND = 'b', OPT_GPU_MEM = 'm',
       OPT_SERIAL = 's' };

static const cli_opt_t bench_prover_opts[] = {
    {"constraints", OPT_CONSTRAINTS, "LIST", "comma-separated sizes (default 2^14,2^16,2^18)"},
    {"threads", OPT_THREADS, "LIST", "comma-separated thread counts (default 1,2)"},
    {"repeat", OPT_REPEAT, "R", "proofs per cell, median reported (default 3)"},
    {"backend", OPT_BACKEND, "cpu|gpu", "where H and the MSMs run (default cpu; gpu: device 0,\n"
                                        "the proving key uploaded once per cell, not timed)"},
    {"gpu-mem", OPT_GPU_MEM, "SIZE", "device memory to plan within (as batch --gpu-mem; default: what\n"
                                     "the device has free): a key that does not fit streams"},
    {"serial", OPT_SERIAL, NULL, "run b_g2 after the G1 MSMs instead of beside them, so that each\n"
                                 "stage has the device to itself and its device time is its own"},
    {"out", OPT_OUT, "FILE", "also write the table to FILE"},
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_bench_prover = {
    .name = "bench prover",
    .summary = "setup and proving times of a porep partition by stage",
    .synopsis = "zkbench bench prover [--constraints LIST] [--threads LIST] [--repeat R]\n"
                "                     [--backend cpu|gpu] [--gpu-mem SIZE] [--serial] [--out FILE]",
    .about = "Times setup and one proof of a porep partition per constraint count and\n"
             "thread count, by stage, and verifies every proof.\n",
    .opts = bench_prover_opts,
    .epilog = "exit: 0 done; 1 a proof failed or did not verify; 2 bad arguments (or no GPU\n"
              "for --backend gpu).\n",
};

struct row {
    double setup, synth, eval, ntt, h, l, a, b1, b2, finish, total;
    double dev[7]; /* the device's own time of H and each MSM, and H's uploads (GPU) */
};

int bench_prover_main(int argc, char **argv)
{
    uint64_t sizes[MAX_LIST] = {1u << 14, 1u << 16, 1u << 18}, threads[MAX_LIST] = {1, 2}, repeat = 3;
    size_t n_sizes = 3, n_threads = 2;
    const char *out_path = NULL;
    bool gpu = false;
    uint64_t gpu_mem = 0;
    bool serial = false;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_bench_prover, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0) {
        switch (c) {
        case OPT_CONSTRAINTS:
            if (!parse_list(sizes, &n_sizes, "constraints", a.val))
                return 2;
            break;
        case OPT_THREADS:
            if (!parse_list(threads, &n_threads, "threads", a.val))
                return 2;
            break;
        case OPT_REPEAT:
            if (!cli_parse_u64(&repeat, "bench prover", "repeat", a.val))
                return 2;
            if (repeat == 0 || repeat > 100)
                return cli_error(2, "bench prover: --repeat must be 1..100");
            break;
        case OPT_OUT: out_path = a.val; break;
        case OPT_SERIAL: serial = true; break;
        case OPT_GPU_MEM:
            if (!analyze_parse_size(&gpu_mem, a.val) || gpu_mem == 0)
                return cli_error(2, "bench prover: --gpu-mem must be a size such as 24G or 16GiB, got '%s'", a.val);
            break;
        case OPT_BACKEND:
            if (strcmp(a.val, "cpu") && strcmp(a.val, "gpu"))
                return cli_error(2, "bench prover: --backend must be cpu or gpu, not '%s'", a.val);
            gpu = strcmp(a.val, "gpu") == 0;
            break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 0, 0, ""))
        return 2;
    for (size_t i = 0; i < n_threads; i++)
        if (threads[i] > 1024)
            return cli_error(2, "bench prover: --threads values must be at most 1024");
    int n_dev = 0;
    if (gpu && (kernels_device_count(&n_dev) != 0 || n_dev == 0))
        return cli_error(2, "bench prover: --backend gpu: no CUDA device (%s)", kernels_last_error());

    /* build every circuit first: a bad size fails before any work */
    circuit_t *circ[MAX_LIST] = {0};
    char err[512];
    int status = 2;
    for (size_t i = 0; i < n_sizes; i++) {
        char spec[96];
        snprintf(spec, sizeof spec, "porep:constraints=%llu,partitions=1", (unsigned long long)sizes[i]);
        if (circuit_from_spec(&circ[i], spec, 1, err, sizeof err) < 0) {
            cli_error(2, "bench prover: %s", err);
            goto done;
        }
    }
    FILE *out = NULL;
    if (out_path && !(out = fopen(out_path, "w"))) {
        cli_error(2, "bench prover: cannot write %s: %s", out_path, strerror(errno));
        goto done;
    }

    sysinfo_t si;
    sysinfo_read(&si);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    char *table = NULL;
    size_t table_len = 0, printed = 0;
    FILE *tf = open_memstream(&table, &table_len);
    fprintf(tf, "# Groth16 prover on the %s: one porep partition\n\n", gpu ? "GPU" : "CPU");
    fprintf(tf, "- machine: %s, %d cores, %.1f GiB RAM, %s\n", si.cpu, si.cores,
            (double)si.ram_bytes / (1u << 30), si.os);
    fprintf(tf, "- date: %s\n- commit: %s\n- command: zkbench bench prover", date, si.commit);
    for (int i = 1; i < argc; i++)
        fprintf(tf, " %s", argv[i]);
    fprintf(tf, "\n- method: seconds; setup once per cell%s, proof stages the median of %llu proofs; "
                "b_g2 runs on its own thread beside the G1 MSMs (split API), so total < sum\n\n",
            gpu ? " (its fixed-base multiplications on the GPU)" : "", (unsigned long long)repeat);
    if (serial)
        fprintf(tf, "- --serial: b_g2 after the G1 MSMs, every stage alone on the device\n\n");
    if (gpu)
        fprintf(tf, "- device columns (dev ...): each stage's own time on the GPU from CUDA events, median; the "
                    "host columns include waiting for the device and the other stream\n\n");
    fprintf(tf, "| constraints | domain | threads | setup | synthesis | eval a,b,c | H (NTT) | MSM H | MSM L "
                "| MSM A | MSM B_g1 | MSM B_g2 | finish | prove total |%s\n",
            gpu ? " dev H | dev H uploads | dev MSM H | dev MSM L | dev MSM A | dev MSM B_g1 | dev MSM B_g2 | key | pass |"
                : "");
    fprintf(tf, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%s\n",
            gpu ? "---:|---:|---:|---:|---:|---:|---:|---|---:|" : "");
    fflush(tf);
    fputs(table, stdout);
    printed = table_len;

    status = 0;
    for (size_t i = 0; i < n_sizes && status == 0; i++) {
        groth16_shape_t *shape;
        if (groth16_shape_new(&shape, circ[i]->r1cs) < 0) {
            status = cli_error(1, "bench prover: out of memory");
            break;
        }
        for (size_t t = 0; t < n_threads && status == 0; t++) {
            unsigned th = (unsigned)threads[t];
            struct row r = {0};
            double t0 = run_clock_now();
            groth16_params_t *pk;
            int rc;
            if ((rc = groth16_setup_on(&pk, shape, 1, th, gpu ? 0 : -1, NULL)) < 0) {
                status = cli_error(1, "bench prover: setup failed: %s%s%s", strerror(-rc), gpu ? ": " : "",
                                   gpu ? kernels_last_error() : "");
                break;
            }
            r.setup = run_clock_now() - t0;
            backend_t *be = NULL;
            int dev0 = 0;
            struct backend_gpu_config gc = {.devices = &dev0, .n_devices = 1, .workers = 1,
                                            .gpu_mem = (size_t)gpu_mem};
            struct backend_device_info di = {0};
            if (gpu && (backend_gpu_new_cfg(&be, pk, &gc, err, sizeof err) < 0 ||
                        backend_device_info(be, 0, &di) < 0)) {
                params_free(pk);
                status = cli_error(1, "bench prover: %s", err);
                break;
            }
            groth16_pvk_t *pvk;
            groth16_pvk_new(&pvk, &pk->vk);
            double v[18][100];
            for (uint64_t k = 0; k < repeat && status == 0; k++) {
                fr_t *w;
                t0 = run_clock_now();
                if (circuit_witness_alloc(&w, circ[i], k + 1, 0, 0, th) < 0) {
                    status = cli_error(1, "bench prover: synthesis failed");
                    break;
                }
                v[0][k] = run_clock_now() - t0;
                groth16_times_t gt;
                struct groth16_prove_opts o;
                groth16_prove_opts_default(&o);
                o.threads = th;
                o.split = !serial;
                o.times = &gt;
                o.backend = be;
                groth16_proof_t proof;
                t0 = run_clock_now();
                rc = groth16_prove(&proof, pk, shape, w, &o);
                v[1][k] = run_clock_now() - t0;
                if (rc < 0 || groth16_verify(pvk, &proof, &w[1], circ[i]->r1cs->num_inputs - 1) != 1) {
                    mem_free(w);
                    status = cli_error(1, "bench prover: a proof did not verify");
                    break;
                }
                mem_free(w);
                v[2][k] = gt.eval, v[3][k] = gt.ntt, v[4][k] = gt.msm_h, v[5][k] = gt.msm_l;
                v[6][k] = gt.msm_a, v[7][k] = gt.msm_b1, v[8][k] = gt.msm_b2, v[9][k] = gt.finish;
                v[11][k] = gt.dev_ntt, v[12][k] = gt.dev_msm_h, v[13][k] = gt.dev_msm_l;
                v[14][k] = gt.dev_msm_a, v[15][k] = gt.dev_msm_b1, v[16][k] = gt.dev_msm_b2;
                v[17][k] = gt.dev_h_upload;
            }
            groth16_pvk_free(pvk);
            backend_free(be);
            params_free(pk);
            if (status)
                break;
            r.synth = median(v[0], repeat), r.total = median(v[1], repeat), r.eval = median(v[2], repeat);
            r.ntt = median(v[3], repeat), r.h = median(v[4], repeat), r.l = median(v[5], repeat);
            r.a = median(v[6], repeat), r.b1 = median(v[7], repeat), r.b2 = median(v[8], repeat);
            r.finish = median(v[9], repeat);
            for (int d = 0; d < 7; d++)
                r.dev[d] = median(v[11 + d], repeat);
            fprintf(tf, "| 2^%u (%llu) | 2^%u | %u | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f "
                        "| %.3f | %.3f |",
                    shape->domain.log_n, (unsigned long long)circ[i]->r1cs->num_constraints, shape->domain.log_n,
                    th, r.setup, r.synth, r.eval, r.ntt, r.h, r.l, r.a, r.b1, r.b2, r.finish, r.total);
            if (gpu)
                fprintf(tf, " %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %zu |", r.dev[0], r.dev[6], r.dev[1],
                        r.dev[2], r.dev[3], r.dev[4], r.dev[5], di.key_resident ? "resident" : "streamed", di.chunk);
            fputc('\n', tf);
            fflush(tf);
            fputs(table + printed, stdout);
            fflush(stdout);
            printed = table_len;
        }
        groth16_shape_free(shape);
    }
    fclose(tf);
    fputs(table + printed, stdout);
    if (out) {
        fputs(table, out);
        if (fclose(out) != 0 && status == 0)
            status = cli_error(1, "bench prover: writing %s failed", out_path);
    }
    free(table);
done:
    for (size_t i = 0; i < n_sizes; i++)
        circuit_free(circ[i]);
    dealloc_drain();
    return status;
}
