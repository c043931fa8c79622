/*
 * `zkbench batch`, the command line: its options, the checks and the run
 * folder before any work, then the run itself (harness/run/batch.h: N
 * proofs through the pipeline while the sampler records every memory
 * layer; with --mem-limit in a child process inside a memory cgroup, so
 * this one finishes run.json when the kernel OOM-kills the batch), then
 * the diagnosis and the figures (batch_end.h).
 * Bad arguments are refused with one line and exit 2 before any work.
 * Exit: 0 done, 1 a proof failed to verify or the prover failed (or the
 * batch process was killed, or a run file could not be written), 2 bad
 * arguments, 3 OOM-killed under --mem-limit, 130 interrupted by
 * SIGINT/SIGTERM at any point (files complete up to that point).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/batch_args.h"
#include "harness/cli/batch_end.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/diagnose/analyze.h"
#include "harness/metrics/metrics_export.h"
#include "harness/run/batch.h"
#include "harness/run/console.h"
#include "harness/run/memcap.h"
#include "harness/run/run_files.h"
#include "harness/run/units.h"
#include "prover/mem.h"

enum {
    OPT_COUNT = 'n', OPT_CONC = 'j', OPT_PARTITIONS = 'P', OPT_CIRCUIT = 'c', OPT_PW = 'p', OPT_GPU_WORKERS = 'g',
    OPT_GPU_QUEUE = 'q', OPT_FINISH = 'f', OPT_NO_SPLIT = 'S', OPT_DEALLOC = 'd', OPT_TRIM = 'T', OPT_THREADS = 't',
    OPT_BACKEND = 'b', OPT_PARAMS = 'k', OPT_OUT = 'o', OPT_SAMPLE_MS = 'm', OPT_NO_VERIFY = 'V', OPT_SEED = 's',
    OPT_INJECT = 'i', OPT_MEM_LIMIT = 'M', OPT_PARAMS_LOAD = 'L', OPT_FORCE = 'F', OPT_QUIET = 'Q',
    OPT_NO_ANALYZE = 'A', OPT_GPUS = 'G', OPT_GPU_MEM = 'D',
    /* long options only */
    OPT_FREE_AT_LAST_USE = 0x1601, OPT_PURGE_AFTER, OPT_BLIND_SEED, OPT_MEM_BUDGET, OPT_MODEL,
};

static const cli_opt_t batch_opts[] = {
    {"count", OPT_COUNT, "N", "proofs (default 4)"},
    {"concurrency", OPT_CONC, "J", "proofs in flight at most (default 1)"},
    {"partitions", OPT_PARTITIONS, "P", "partitions per proof (default 10)"},
    {"circuit", OPT_CIRCUIT, "SPEC", "porep:constraints=2^N[,...] (default 2^12), porep:preset=32g (a 32 GiB\n"
                                  "PoRep partition) or zkey:PATH,wtns:PATH"},
    {"pw", OPT_PW, "W", "pw: synthesis workers, i.e. partitions synthesized in parallel\n"
                        "(default 2); peak RSS grows by about a partition's footprint per pw"},
    {"gpu-workers", OPT_GPU_WORKERS, "W", "prover workers per device (CPU backend: in total; default 1); the\n"
                                          "workers of a device overlap on it, each with its own streams and\n"
                                          "device memory"},
    {"gpus", OPT_GPUS, "all|LIST", "the CUDA devices to prove on, e.g. 0,1 or 0-3 (default 0): W workers\n"
                                   "and the resident proving key on each"},
    {"gpu-mem", OPT_GPU_MEM, "SIZE", "device memory zkbench may take on each GPU (24G, 16GiB; default:\n"
                                     "what it has free): the proving key stays resident when it fits\n"
                                     "beside the workers, else it streams from the host pass by pass"},
    {"gpu-queue", OPT_GPU_QUEUE, "Q", "synthesized partitions waiting for a prover worker (default W x\n"
                                      "devices)"},
    {"finish-workers", OPT_FINISH, "F", "finish-stage threads (default 2)"},
    {"no-split", OPT_NO_SPLIT, NULL, "monolithic prove (b_g2 MSM inline) instead of the split API"},
    {"dealloc", OPT_DEALLOC, "sync|async|async-serial", "how buffers are freed (default async)"},
    {"purge-after", OPT_PURGE_AFTER, "none|partition|proof", "jemalloc purges its dirty pages after each\n"
                                                             "partition or proof (default none)"},
    {"trim", OPT_TRIM, "none|partition|proof", "the same as --purge-after (its older name)"},
    {"free-at-last-use", OPT_FREE_AT_LAST_USE, "KIND,...", "free these tracked kinds at their last use: aux (the\n"
                                                           "witness, once no MSM reads it), pending (the b_g2\n"
                                                           "scalars, after the G2 MSM); the proofs are the same"},
    {"mem-budget", OPT_MEM_BUDGET, "SIZE", "admit a partition into synthesis only when its modelled bytes fit\n"
                                           "under SIZE (24G, 512MiB) beside the baseline and what is reserved;\n"
                                           "pw becomes a ceiling (docs/diagnosis.md, Admission by memory)"},
    {"model", OPT_MODEL, "RUN_DIR", "--mem-budget's bytes per partition from that run's capacity model\n"
                                    "(default: learned from this run's first 2 partitions, one at a time)"},
    {"threads", OPT_THREADS, "T", "CPU threads per prover stage (default: all cores)"},
    {"backend", OPT_BACKEND, "cpu|gpu|auto", "where H and the MSMs run (default auto)"},
    {"params", OPT_PARAMS, "FILE", "parameter file (default: the cache, ZKBENCH_PARAMS_DIR)"},
    {"params-load", OPT_PARAMS_LOAD, "mmap|heap", "mmap (default): map a layout cache of the parameters read-only\n"
                                                  "and shared (rss_file); heap: decode them into anonymous memory"},
    {"out", OPT_OUT, "DIR", "output folder (default results/runs/<UTC timestamp.ms>-<pid>); one\n"
                            "that holds a run already is refused, unless --force"},
    {"force", OPT_FORCE, NULL, "replace the run in --out (its run.json and CSVs are removed)"},
    {"sample-ms", OPT_SAMPLE_MS, "MS", "sampler period (default 10; 0: no sampler thread)"},
    {"no-verify", OPT_NO_VERIFY, NULL, "do not verify the proofs"},
    {"seed", OPT_SEED, "S", "witness seed (default 1)"},
    {"blind-seed", OPT_BLIND_SEED, "S", "draw each partition's blinding r, s from S (default: fresh\n"
                                        "randomness), so runs' proofs.bin compare byte for byte"},
    {"inject", OPT_INJECT, "FAULT", "plant a fault (repeatable): leak:KIND[:EVERY], hold:KIND:MS,\n"
                                    "serial-dealloc:MS, no-purge, pileup"},
    {"mem-limit", OPT_MEM_LIMIT, "SIZE", "run the batch in a memory cgroup capped at SIZE (512M, 1.5G,\n"
                                         "2GiB; swap off): an OOM kill ends it with outcome oom-killed\n"
                                         "in run.json and exit 3 (needs root or a delegated cgroup)"},
    {"quiet", OPT_QUIET, NULL, "print only errors and the final verdict line"},
    {"no-analyze", OPT_NO_ANALYZE, NULL, "skip the diagnosis and plots at the end (zkbench analyze, plot)"},
    CLI_OPTS_METRICS,
    {NULL, 0, NULL, NULL},
};

const cli_cmd_t cli_cmd_batch = {
    .name = "batch",
    .summary = "N proofs under chosen parallelism, recording where memory went",
    .synopsis = "zkbench batch [options]",
    .about = "Runs N Groth16 proofs of P partitions each, at most J in flight, with W\n"
             "partitions synthesized in parallel (--pw), and records where memory went:\n"
             "samples.csv, buffers.csv, stages.csv, proofs.csv and run.json in --out DIR\n"
             "(see README: Files of a run).\n",
    .opts = batch_opts,
    .epilog = "exit: 0 done, 1 a proof failed, the prover failed or a run file, figure or the report\n"
              "could not be written (a full disk: the run stops, run.json says failed), 2 bad\n"
              "arguments (or --out holds a run, or --backend gpu without a CUDA device), 3 OOM-killed\n"
              "under --mem-limit, 130 interrupted (SIGINT/SIGTERM, at any point: run.json says\n"
              "interrupted; a second signal stops it at once, run.json saying so too).\n",
};

/* Parses argv; returns -1 to go on, else the exit status. */
static int parse_args(struct batch_opts *o, int argc, char **argv)
{
    struct pipeline_config *pc = &o->pc;
    memset(o, 0, sizeof *o);
    pc->count = 4;
    pc->concurrency = 1;
    pc->partitions = 10;
    pc->pw = 2;
    pc->gpu_workers = 1;
    pc->finish_workers = 2;
    pc->split = true;
    pc->verify = true;
    pc->dealloc = DEALLOC_ASYNC;
    pc->trim = TRIM_NONE;
    pc->seed = 1;
    pc->faults.leak_kind = pc->faults.hold_kind = -1;
    o->circuit = "porep:constraints=2^12";
    o->backend = "auto";
    o->sample_ms = 10;
    o->params_load = PARAMS_LOAD_MMAP;
    metrics_opts_init(&o->metrics);
    bool queue_set = false;
    const char *purge_flag = NULL;
    uint64_t v;
    int c;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_batch, argc, argv);
    while ((c = cli_next(&a)) > 0) {
        const char *val = a.val;
        switch (c) {
        case OPT_COUNT: if (!batch_args_count(&pc->count, "count", val, 1000000)) return 2; break;
        case OPT_CONC: if (!batch_args_count(&pc->concurrency, "concurrency", val, 4096)) return 2; break;
        case OPT_PARTITIONS: if (!batch_args_count(&pc->partitions, "partitions", val, 1024)) return 2; break;
        case OPT_PW: if (!batch_args_count(&pc->pw, "pw", val, 1024)) return 2; break;
        case OPT_GPU_WORKERS: if (!batch_args_count(&pc->gpu_workers, "gpu-workers", val, 256)) return 2; break;
        case OPT_GPUS: if (!batch_args_gpus(o, val)) return 2; break;
        case OPT_FINISH: if (!batch_args_count(&pc->finish_workers, "finish-workers", val, 256)) return 2; break;
        case OPT_GPU_QUEUE:
            if (!batch_args_count(&pc->gpu_queue, "gpu-queue", val, 4096))
                return 2;
            queue_set = true;
            break;
        case OPT_CIRCUIT: o->circuit = val; break;
        case OPT_NO_SPLIT: pc->split = false; break;
        case OPT_NO_VERIFY: pc->verify = false; break;
        case OPT_PARAMS: o->params = val; break;
        case OPT_OUT: o->out = val; break;
        case OPT_FORCE: o->force = true; break;
        case OPT_DEALLOC:
            if (strcmp(val, "sync") == 0)
                pc->dealloc = DEALLOC_SYNC;
            else if (strcmp(val, "async") == 0)
                pc->dealloc = DEALLOC_ASYNC;
            else if (strcmp(val, "async-serial") == 0)
                pc->dealloc = DEALLOC_ASYNC_SERIAL;
            else
                return cli_error(2, "batch: --dealloc must be sync, async or async-serial, got '%s'", val);
            break;
        case OPT_TRIM:
        case OPT_PURGE_AFTER: {
            enum pipeline_trim t;
            const char *flag = c == OPT_TRIM ? "trim" : "purge-after";
            if (!batch_args_purge(&t, flag, val))
                return 2;
            if (purge_flag && t != pc->trim)
                return cli_error(2, "batch: --%s %s and --%s disagree: give one", flag, val, purge_flag);
            pc->trim = t;
            purge_flag = flag;
            break;
        }
        case OPT_FREE_AT_LAST_USE:
            if (!batch_args_free_at_last_use(o, val))
                return 2;
            break;
        case OPT_BLIND_SEED:
            if (!cli_parse_u64(&pc->blind_seed, "batch", "blind-seed", val))
                return 2;
            pc->blind_seeded = true;
            break;
        case OPT_MEM_BUDGET:
            if (!analyze_parse_size(&o->mem_budget, val) || o->mem_budget == 0)
                return cli_error(2, "batch: --mem-budget must be a size such as 24G or 512MiB, got '%s'", val);
            break;
        case OPT_MODEL: o->model_dir = val; break;
        case OPT_BACKEND:
            if (strcmp(val, "cpu") && strcmp(val, "gpu") && strcmp(val, "auto"))
                return cli_error(2, "batch: --backend must be cpu, gpu or auto, got '%s'", val);
            o->backend = val;
            break;
        case OPT_THREADS:
            if (!cli_parse_u64(&v, "batch", "threads", val))
                return 2;
            if (v > 1024)
                return cli_error(2, "batch: --threads must be at most 1024, got %s", val);
            pc->threads = (unsigned)v;
            break;
        case OPT_SAMPLE_MS:
            if (!cli_parse_u64(&v, "batch", "sample-ms", val))
                return 2;
            if (v > 60000)
                return cli_error(2, "batch: --sample-ms must be at most 60000, got %s", val);
            o->sample_ms = (unsigned)v;
            break;
        case OPT_SEED:
            if (!cli_parse_u64(&pc->seed, "batch", "seed", val))
                return 2;
            break;
        case OPT_INJECT:
            if (!batch_args_inject(o, val))
                return 2;
            break;
        case OPT_PARAMS_LOAD:
            if (params_load_parse(&o->params_load, val) < 0)
                return cli_error(2, "batch: --params-load must be mmap or heap, got '%s'", val);
            break;
        case OPT_GPU_MEM:
            if (!analyze_parse_size(&o->gpu_mem, val) || o->gpu_mem == 0)
                return cli_error(2, "batch: --gpu-mem must be a size such as 24G or 16GiB, got '%s'", val);
            break;
        case OPT_MEM_LIMIT:
            if (!analyze_parse_size(&o->mem_limit, val))
                return cli_error(2, "batch: --mem-limit must be a size such as 512M, 1.5G or 2GiB, got '%s'", val);
            break;
        case METRICS_OPT_LISTEN:
        case METRICS_OPT_FILE:
        case METRICS_OPT_LINGER:
        case METRICS_OPT_VERDICT_S: {
            char merr[256];
            if (metrics_opts_set(&o->metrics, c, val, merr, sizeof merr) < 0)
                return cli_error(2, "batch: %s", merr);
            break;
        }
        case OPT_QUIET: o->quiet = true; break;
        case OPT_NO_ANALYZE: o->no_analyze = true; break;
        }
    }
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 0, 0, ""))
        return 2;
    if ((o->metrics.listen || o->metrics.file) && o->sample_ms == 0)
        return cli_error(2, "batch: --listen and --metrics-file export the sampler: --sample-ms must be above 0");
    if (strcmp(o->backend, "cpu") == 0 && (o->n_gpus || o->gpus_all))
        return cli_error(2, "batch: --gpus needs the GPU backend, and --backend cpu was given");
    if (!batch_args_check_frees(o) || !batch_args_budget(o))
        return 2;
    o->queue_set = queue_set;
    if (!queue_set)
        pc->gpu_queue = pc->gpu_workers;
    if (pc->concurrency > pc->count)
        pc->concurrency = pc->count;
    return -1;
}

/* The header, at once: what runs, where its files go (before the
 * parameters, which may take minutes). */
static void batch_header(const struct batch_opts *o, const char *out_dir)
{
    console_t con;
    console_init(&con, stdout, o->quiet);
    if (metrics_export_address(o->mx)) /* first: a scraper waits for it */
        console_say(&con, "metrics at http://%s/metrics", metrics_export_address(o->mx));
    console_say(&con, "zkbench batch: %u proof%s of %s, %u partition%s each; pw %u, concurrency %u, backend %s",
                o->pc.count, o->pc.count == 1 ? "" : "s", o->circuit, o->pc.partitions,
                o->pc.partitions == 1 ? "" : "s", o->pc.pw, o->pc.concurrency, o->backend);
    console_say(&con, "files      %s/", out_dir);
    if (o->mem_limit) {
        char b[32];
        console_say(&con, "memory cap %s (a memory cgroup; an OOM kill ends the run with exit 3)",
                    fmt_bytes(b, (double)o->mem_limit));
    }
}

int cmd_batch_check(int argc, char **argv)
{
    struct batch_opts o;
    int rc = parse_args(&o, argc, argv);
    if (rc >= 0)
        return rc == 0 ? 2 : rc; /* --help is no batch */
    return batch_check(&o);
}

int cmd_batch(int argc, char **argv)
{
    /* first: an interrupt at any later point ends the run with run.json
     * marked interrupted, never kills it outright */
    batch_signals_install();

    struct batch_opts o;
    int rc = parse_args(&o, argc, argv);
    if (rc >= 0)
        return rc;
    char err[1024];

    /* everything checkable is checked before any work or file */
    if ((rc = batch_check(&o)) >= 0)
        return rc;
    /* the port bound now: one in use is refused before any work or file */
    if (metrics_export_new(&o.mx, &o.metrics, err, sizeof err) < 0)
        return cli_error(2, "batch: %s", err);
    memcap_t *cap = NULL;
    if (o.mem_limit && (rc = memcap_new(&cap, o.mem_limit, err, sizeof err)) < 0) {
        metrics_export_free(o.mx);
        return cli_error(2, "batch: --mem-limit: %s", err);
    }
    /* made here, so a capped batch's parent and child agree */
    char out_dir[4096];
    bool out_existed = o.out && access(o.out, F_OK) == 0;
    if ((rc = run_dir_create(out_dir, sizeof out_dir, o.out, "", o.force, err, sizeof err)) < 0) {
        memcap_free(cap);
        metrics_export_free(o.mx);
        return cli_error(2, "batch: %s", err);
    }
    batch_header(&o, out_dir);
    if (!cap) {
        rc = batch_run(&o, out_dir, NULL);
    } else {
        rc = batch_capped(&o, out_dir, cap);
        memcap_free(cap);
    }
    metrics_export_free(o.mx);
    /* refused after the folder was made (input found bad only on loading
     * it): nothing of this run is left */
    if (rc == 2)
        run_dir_discard(out_dir, !out_existed);
    else if (rc != 0 && !out_existed)
        rmdir(out_dir); /* a failure before any file: no empty folder (rmdir leaves a full one) */
    /* the diagnosis of a batch that ran to its end (or to an OOM kill
     * under --mem-limit): the verdict, its evidence, the plots */
    if (!o.no_analyze && (rc == 0 || rc == 3)) {
        console_t con;
        console_init(&con, stdout, o.quiet);
        if (o.sample_ms == 0)
            console_say(&con, "diagnosis  none: --sample-ms 0 records no samples to diagnose");
        else if (batch_end_diagnose(&con, out_dir) == 1)
            rc = 1; /* a figure or the report could not be written: no success */
    }
    return rc;
}
