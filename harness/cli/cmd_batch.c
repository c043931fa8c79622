/*
 * `zkbench batch`: runs N proofs of a circuit through the pipeline
 * (pipeline.h) under the chosen parallelism while the sampler records every
 * memory layer, and writes the run's files (README: "Files of a run").
 * Bad arguments are refused with one line and exit 2 before any work.
 * With --mem-limit the batch runs in a child process inside a memory cgroup
 * (memcap.h) while this process waits outside it, so it can finish run.json
 * when the kernel OOM-kills the batch.
 * Exit: 0 done, 1 a proof failed to verify or the prover failed (or the
 * batch process was killed, or a run file could not be written), 2 bad
 * arguments, 3 OOM-killed under --mem-limit, 130 interrupted by
 * SIGINT/SIGTERM at any point (files complete up to that point).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <jemalloc/jemalloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/run_clock.h"
#include "harness/run/out_file.h"
#include "harness/diagnose/analyze.h"
#include "harness/cli/batch_end.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/console.h"
#include "harness/run/memcap.h"
#include "harness/metrics/metrics_export.h"
#include "harness/run/param_cache.h"
#include "prover/params_map.h"
#include "harness/run/pipeline.h"
#include "harness/run/run_files.h"
#include "harness/run/run_outcome.h"
#include "harness/run/sampler.h"
#include "harness/run/sysinfo.h"
#include "harness/run/units.h"
#include "kernels/kernels.h"
#include "prover/mem.h"
#include "prover/parallel.h"

/* Set by SIGINT/SIGTERM, which may land on any thread (a prover's pool
 * thread as often as main): a lock-free atomic, not a volatile
 * sig_atomic_t, which is safe only within one thread. */
static atomic_int stop_requested;
/* The run files whose armed run.json a second signal writes (batch_save),
 * and whether that handler is running (run_files_close waits it out). */
static _Atomic(run_files_t *) abort_rf;
static atomic_int in_abort;

static void on_signal(int sig)
{
    (void)sig;
    int saved_errno = errno;
    if (atomic_exchange(&stop_requested, 1)) {
        /* a second signal: stop now, with run.json saying so (rendered in
         * advance: nothing here allocates); every row written so far is whole */
        atomic_store(&in_abort, 1);
        run_files_t *rf = atomic_load(&abort_rf);
        if (rf)
            run_files_abort(rf);
        _exit(130);
    }
    errno = saved_errno;
}

struct batch_opts {
    struct pipeline_config pc;
    const char *circuit, *params, *out, *backend;
    bool force; /* --force: replace the run in --out */
    bool quiet;      /* --quiet: errors and the final verdict line only */
    bool no_analyze; /* --no-analyze: no diagnosis or plots at the end */
    unsigned sample_ms;
    uint64_t mem_limit; /* bytes; 0: no cap */
    uint64_t gpu_mem;   /* --gpu-mem: device bytes per GPU; 0: what each has free */
    enum params_load params_load;
    char inject_text[512];
    /* --gpus: "all", or the CUDA devices listed (n_gpus; 0: not given,
     * device 0); resolved against the machine in batch_run */
    bool gpus_all;
    int gpus[BACKEND_MAX_DEVICES];
    unsigned n_gpus;
    bool queue_set; /* --gpu-queue given: else gpu_workers x devices */
    struct metrics_opts metrics; /* --listen, --metrics-file, --listen-linger */
    metrics_export_t *mx;        /* bound before any work; NULL: none */
};

enum {
    OPT_COUNT = 'n', OPT_CONC = 'j', OPT_PARTITIONS = 'P', OPT_CIRCUIT = 'c', OPT_PW = 'p', OPT_GPU_WORKERS = 'g',
    OPT_GPU_QUEUE = 'q', OPT_FINISH = 'f', OPT_NO_SPLIT = 'S', OPT_DEALLOC = 'd', OPT_TRIM = 'T', OPT_THREADS = 't',
    OPT_BACKEND = 'b', OPT_PARAMS = 'k', OPT_OUT = 'o', OPT_SAMPLE_MS = 'm', OPT_NO_VERIFY = 'V', OPT_SEED = 's',
    OPT_INJECT = 'i', OPT_MEM_LIMIT = 'M', OPT_PARAMS_LOAD = 'L', OPT_FORCE = 'F', OPT_QUIET = 'Q',
    OPT_NO_ANALYZE = 'A', OPT_GPUS = 'G', OPT_GPU_MEM = 'D',
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
    {"trim", OPT_TRIM, "none|partition|proof", "ask jemalloc to purge after each (default none)"},
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

static int kind_by_name(const char *name)
{
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        if (strcmp(mem_kind_name((enum mem_kind)k), name) == 0)
            return k;
    return -1;
}

/* One --inject value into the faults (and dealloc settings). */
static bool parse_inject(struct batch_opts *o, const char *text)
{
    struct pipeline_faults *f = &o->pc.faults;
    char buf[128];
    if (strlen(text) >= sizeof buf)
        goto bad;
    strcpy(buf, text);
    char *save = NULL, *what = strtok_r(buf, ":", &save), *a1 = strtok_r(NULL, ":", &save),
         *a2 = strtok_r(NULL, ":", &save), *extra = strtok_r(NULL, ":", &save);
    uint64_t v;
    if (!what || extra)
        goto bad;
    if (strcmp(what, "leak") == 0 && a1) {
        if ((f->leak_kind = kind_by_name(a1)) < 0 || f->leak_kind >= MEM_KIND_GPU_PARAMS)
            return cli_error(2, "batch: --inject leak:KIND: unknown host kind '%s'", a1), false;
        f->leak_every = 1;
        if (a2) {
            if (!cli_parse_u64(&v, "batch", "inject leak EVERY", a2))
                return false;
            if (v == 0 || v > 1000000)
                return cli_error(2, "batch: --inject leak:KIND:EVERY needs EVERY in 1..1000000"), false;
            f->leak_every = (unsigned)v;
        }
    } else if (strcmp(what, "hold") == 0 && a1 && a2) {
        if ((f->hold_kind = kind_by_name(a1)) < 0 || f->hold_kind >= MEM_KIND_GPU_PARAMS)
            return cli_error(2, "batch: --inject hold:KIND:MS: unknown host kind '%s'", a1), false;
        if (!cli_parse_u64(&v, "batch", "inject hold MS", a2))
            return false;
        if (v > 3600000)
            return cli_error(2, "batch: --inject hold:KIND:MS needs MS <= 3600000"), false;
        f->hold_ms = (unsigned)v;
    } else if (strcmp(what, "serial-dealloc") == 0 && a1 && !a2) {
        if (!cli_parse_u64(&v, "batch", "inject serial-dealloc MS", a1))
            return false;
        if (v > 3600000)
            return cli_error(2, "batch: --inject serial-dealloc:MS needs MS <= 3600000"), false;
        o->pc.dealloc = DEALLOC_ASYNC_SERIAL;
        dealloc_set_delay_ms((unsigned)v);
    } else if (strcmp(what, "no-purge") == 0 && !a1) {
        f->no_purge = true;
    } else if (strcmp(what, "pileup") == 0 && !a1) {
        f->pileup = true;
    } else {
        goto bad;
    }
    size_t len = strlen(o->inject_text);
    snprintf(o->inject_text + len, sizeof o->inject_text - len, "%s%s", len ? "," : "", text);
    return true;
bad:
    cli_error(2, "batch: --inject '%s' is not one of leak:KIND[:EVERY], hold:KIND:MS, serial-dealloc:MS, "
                 "no-purge, pileup", text);
    return false;
}

static bool parse_count(unsigned *out, const char *name, const char *text, uint64_t max)
{
    uint64_t v;
    if (!cli_parse_u64(&v, "batch", name, text))
        return false;
    if (v == 0 || v > max) {
        cli_error(2, "batch: --%s must be 1..%llu, got %s", name, (unsigned long long)max, text);
        return false;
    }
    *out = (unsigned)v;
    return true;
}

/* --gpus: "all", or a comma-separated list of device numbers and ranges
 * (0,1 or 0-3), each device once. */
static bool parse_gpus(struct batch_opts *o, const char *text)
{
    o->n_gpus = 0;
    o->gpus_all = strcmp(text, "all") == 0;
    if (o->gpus_all)
        return true;
    const char *p = text;
    for (;;) {
        char *end;
        long lo, hi;
        if (*p < '0' || *p > '9')
            goto bad;
        lo = hi = strtol(p, &end, 10);
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                goto bad;
            hi = strtol(end + 1, &end, 10);
        }
        if (lo > hi || hi >= 1024)
            goto bad;
        for (long d = lo; d <= hi; d++) {
            for (unsigned i = 0; i < o->n_gpus; i++)
                if (o->gpus[i] == d)
                    return cli_error(2, "batch: --gpus '%s' names device %ld twice", text, d), false;
            if (o->n_gpus == BACKEND_MAX_DEVICES)
                return cli_error(2, "batch: --gpus '%s' names more than %d devices", text, BACKEND_MAX_DEVICES),
                       false;
            o->gpus[o->n_gpus++] = (int)d;
        }
        if (*end == 0)
            return true;
        if (*end != ',')
            goto bad;
        p = end + 1;
    }
bad:
    cli_error(2, "batch: --gpus must be 'all' or a list of CUDA device numbers such as 0,1 or 0-3, got '%s'", text);
    return false;
}

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
    uint64_t v;
    int c;
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_batch, argc, argv);
    while ((c = cli_next(&a)) > 0) {
        const char *val = a.val;
        switch (c) {
        case OPT_COUNT: if (!parse_count(&pc->count, "count", val, 1000000)) return 2; break;
        case OPT_CONC: if (!parse_count(&pc->concurrency, "concurrency", val, 4096)) return 2; break;
        case OPT_PARTITIONS: if (!parse_count(&pc->partitions, "partitions", val, 1024)) return 2; break;
        case OPT_PW: if (!parse_count(&pc->pw, "pw", val, 1024)) return 2; break;
        case OPT_GPU_WORKERS: if (!parse_count(&pc->gpu_workers, "gpu-workers", val, 256)) return 2; break;
        case OPT_GPUS: if (!parse_gpus(o, val)) return 2; break;
        case OPT_FINISH: if (!parse_count(&pc->finish_workers, "finish-workers", val, 256)) return 2; break;
        case OPT_GPU_QUEUE:
            if (!parse_count(&pc->gpu_queue, "gpu-queue", val, 4096))
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
            if (strcmp(val, "none") == 0)
                pc->trim = TRIM_NONE;
            else if (strcmp(val, "partition") == 0)
                pc->trim = TRIM_PARTITION;
            else if (strcmp(val, "proof") == 0)
                pc->trim = TRIM_PROOF;
            else
                return cli_error(2, "batch: --trim must be none, partition or proof, got '%s'", val);
            break;
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
            if (!parse_inject(o, val))
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
        case METRICS_OPT_LINGER: {
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
    o->queue_set = queue_set;
    if (!queue_set)
        pc->gpu_queue = pc->gpu_workers;
    if (pc->concurrency > pc->count)
        pc->concurrency = pc->count;
    return -1;
}

/* ---- console ---------------------------------------------------------------- */

/* The pipeline's callbacks into the console (console.h), on the thread
 * that runs the pipeline. */
struct batch_console {
    console_t *con;
    run_files_t *rf;
    sampler_t *sampler;
    pipeline_t *pl;
};

/* RSS now and the peak so far: the sampler's, else /proc's. */
static void batch_rss(const struct batch_console *b, uint64_t *rss, uint64_t *peak)
{
    sample_t x = {0};
    uint64_t ticks = 0;
    double med = 0;
    *rss = *peak = 0;
    if (b->sampler) {
        sampler_latest(b->sampler, &x);
        sampler_stats(b->sampler, &ticks, &med, peak);
        *rss = x.rss;
    } else {
        sysinfo_rss(rss, peak);
    }
    if (*peak < *rss)
        *peak = *rss;
}

/* Between completions (done: batch_proof_done counted them, in order). */
static void batch_progress(void *ctx, unsigned done, unsigned count)
{
    (void)done;
    (void)count;
    struct batch_console *b = ctx;
    int werr = b->sampler ? sampler_write_error(b->sampler) : 0;
    if (werr < 0)
        run_files_fail(b->rf, "samples.csv", werr); /* the pipeline stops on it */
    uint64_t rss, peak, occ[SAMPLER_OCC_COUNT];
    batch_rss(b, &rss, &peak);
    pipeline_occupancy(b->pl, occ);
    console_occ_t co = {.synthesizing = occ[SAMPLER_N_SYNTH], .waiting = occ[SAMPLER_N_BLOCKED],
                        .queued = occ[SAMPLER_Q_GPU], .proving = occ[SAMPLER_N_GPU],
                        .finishing = occ[SAMPLER_N_FINISH], .done = occ[SAMPLER_PARTITIONS_DONE]};
    console_progress(b->con, &co, rss, peak);
}

static void batch_proof_done(void *ctx, const struct pipeline_proof *p)
{
    struct batch_console *b = ctx;
    uint64_t rss, peak;
    batch_rss(b, &rss, &peak);
    console_proof_t cp = {.order = p->order, .proof = p->proof, .t_submit_ms = p->t_submit_ms,
                          .t_done_ms = p->t_done_ms, .verified = p->verified};
    console_proof(b->con, &cp, rss, peak);
}

/* The sampler's after_tick: buffers.csv rows once per tick. */
static void drain_buffers(void *ctx)
{
    run_files_drain(ctx);
}

/* run_files' proof hook: the proof-duration histogram. */
static void batch_proof_metrics(void *ctx, double wall_ms)
{
    metrics_observe_proof(ctx, wall_ms / 1e3);
}

/* The work is over: the final values served until scraped (when proofs
 * ran), and written. */
static void batch_metrics_end(const struct batch_opts *o, bool ran)
{
    if (!metrics_export_metrics(o->mx))
        return;
    static atomic_int no_wait = 1;
    atomic_int *stop = ran ? &stop_requested : &no_wait;
    if (metrics_export_address(o->mx) && o->metrics.linger_s && !atomic_load(stop)) {
        if (!o->quiet)
            printf("  metrics          serving the final values until scraped (at most %u s)\n", o->metrics.linger_s);
        fflush(stdout);
    }
    char err[4400];
    if (metrics_export_end(o->mx, stop, err, sizeof err) < 0)
        cli_error(0, "batch: %s", err);
}

/* The batch fell back to the CPU: no devices, and the queue of the CPU's
 * workers (unless --gpu-queue set it). */
static void batch_drop_gpus(struct batch_opts *o)
{
    o->n_gpus = 0;
    if (!o->queue_set)
        o->pc.gpu_queue = o->pc.gpu_workers;
}

/* "0", "0, 1": the devices of --gpus for the console. */
static void gpu_list_text(char *out, size_t cap, const int *gpus, unsigned n)
{
    size_t len = 0;
    out[0] = 0;
    for (unsigned i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%d", i ? ", " : "", gpus[i]);
}

/* ---- run.json --------------------------------------------------------------- */

static const char *dealloc_name(enum dealloc_mode m)
{
    return m == DEALLOC_SYNC ? "sync" : m == DEALLOC_ASYNC ? "async" : "async-serial";
}

static const char *trim_name(enum pipeline_trim t)
{
    return t == TRIM_NONE ? "none" : t == TRIM_PARTITION ? "partition" : "proof";
}

static json_t *json_config(const struct batch_opts *o, const char *backend, const char *spec,
                           const char *params_path)
{
    const struct pipeline_config *pc = &o->pc;
    json_t *gpus = json_array();
    for (unsigned i = 0; gpus && i < o->n_gpus; i++)
        json_array_append_new(gpus, json_integer(o->gpus[i]));
    return json_pack("{s:i, s:i, s:i, s:s, s:s, s:i, s:i, s:o, s:i, s:i, s:b, s:s, s:s, s:i, s:s, s:s, s:i, s:b, s:I, "
                     "s:s, s:o, s:o}",
                     "count", pc->count, "concurrency", pc->concurrency, "partitions", pc->partitions,
                     "circuit", o->circuit, "circuit_resolved", spec, "pw", pc->pw, "gpu_workers",
                     pc->gpu_workers, "gpus", gpus, "gpu_queue", pc->gpu_queue, "finish_workers", pc->finish_workers,
                     "split", pc->split, "dealloc", dealloc_name(pc->dealloc), "trim", trim_name(pc->trim),
                     "threads", pc->threads ? pc->threads : parallel_default_threads(), "backend", backend,
                     "params", params_path, "sample_ms", o->sample_ms, "verify", pc->verify,
                     "seed", (json_int_t)pc->seed, "inject", o->inject_text, "mem_limit",
                     o->mem_limit ? json_integer((json_int_t)o->mem_limit) : json_null(), "gpu_mem",
                     o->gpu_mem ? json_integer((json_int_t)o->gpu_mem) : json_null());
}

/* How the parameters were loaded (README, "--params-load"). */
static json_t *json_params(const struct param_cache_info *in)
{
    json_t *p = json_pack("{s:s, s:s, s:s, s:b, s:b, s:s, s:I, s:f}", "load", params_load_name(in->load), "file",
                          in->params_path, "map", in->map_path, "generated", in->generated, "map_rebuilt",
                          in->rebuilt, "map_rebuilt_why", in->why, "mapped_bytes", (json_int_t)in->mapped_bytes,
                          "verify_s", in->verify_s);
    if (p && in->generated) { /* where and how long the keys took: "gpu:N" or "cpu" */
        json_object_set_new(p, "generated_on",
                            in->setup_device >= 0 ? json_sprintf("gpu:%d", in->setup_device) : json_string("cpu"));
        json_object_set_new(p, "setup_s", json_real(in->setup_s));
        json_object_set_new(p, "setup_note", json_string(in->setup_note));
    }
    return p;
}

/* The sizes behind the bytes of a partition (docs/diagnosis.md, "Bytes
 * per partition"). */
static json_t *json_circuit_shape(const groth16_shape_t *sh)
{
    const r1cs_t *cs = sh->cs;
    /* the share of the aux variables with an A (B) query point: bellperson's
     * a_aux / b_aux densities (production's 32 GiB partition: 0.997 / 0.254) */
    uint64_t a_in = 0, b_in = 0;
    for (uint32_t j = 0; j < cs->num_inputs; j++) {
        a_in += (sh->density_a[j / 64] >> (j % 64)) & 1;
        b_in += (sh->density_b[j / 64] >> (j % 64)) & 1;
    }
    double aux = cs->num_aux ? (double)cs->num_aux : 1;
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f}", "constraints", (json_int_t)cs->num_constraints,
                     "inputs", (json_int_t)cs->num_inputs, "aux", (json_int_t)cs->num_aux, "variables",
                     (json_int_t)r1cs_num_vars(cs), "domain", (json_int_t)sh->n, "a_density", (json_int_t)sh->n_a,
                     "b_density", (json_int_t)sh->n_b, "a_aux_density", (double)(sh->n_a - a_in) / aux,
                     "b_aux_density", (double)(sh->n_b - b_in) / aux);
}

static json_t *json_machine(const sysinfo_t *si)
{
    return json_pack("{s:s, s:i, s:I, s:s, s:i, s:s, s:I}", "cpu", si->cpu, "cores", si->cores, "ram_bytes",
                     (json_int_t)si->ram_bytes, "os", si->os, "gpus", si->gpus, "gpu", si->gpu,
                     "gpu_mem_bytes", (json_int_t)si->gpu_mem_bytes);
}

static json_t *json_versions(const sysinfo_t *si)
{
    int rt = 0, drv = 0;
    char cuda[64] = "none";
    if (kernels_cuda_version(&rt, &drv) == 0)
        snprintf(cuda, sizeof cuda, "runtime %d.%d, driver %d.%d", rt / 1000, rt % 1000 / 10, drv / 1000,
                 drv % 1000 / 10);
    return json_pack("{s:s, s:s, s:s}", "commit", si->commit, "jemalloc", si->jemalloc, "cuda", cuda);
}

static json_t *json_baseline(const sample_t *b)
{
    uint64_t tracked = 0;
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        tracked += b->live[k];
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "rss", (json_int_t)b->rss, "rss_anon",
                     (json_int_t)b->rss_anon, "rss_file", (json_int_t)b->rss_file, "je_allocated",
                     (json_int_t)b->je_allocated, "je_active", (json_int_t)b->je_active, "je_resident",
                     (json_int_t)b->je_resident, "gpu_used", (json_int_t)b->gpu_used, "tracked",
                     (json_int_t)tracked);
}

/* ---- the command ------------------------------------------------------------ */

/* Sets the mallctl NAME (of the type of *v) and reads it back: 0 when it
 * holds *v, else -errno with err naming it. */
static int allocator_set(const char *name, const void *v, size_t len, char *err, size_t errlen)
{
    unsigned char got[sizeof(ssize_t)] = {0};
    size_t sz = len;
    int rc = len <= sizeof got ? mallctl(name, NULL, NULL, (void *)v, len) : EINVAL;
    if (rc == 0)
        rc = mallctl(name, got, &sz, NULL, 0);
    if (rc == 0 && (sz != len || memcmp(got, v, len) != 0))
        rc = EIO; /* accepted, but does not hold */
    if (rc != 0)
        snprintf(err, errlen, "mallctl %s: %s", name, strerror(rc));
    return -rc;
}

/*
 * --inject no-purge: from now on, pages freed to jemalloc stay with it
 * (je_dirty), so RSS stays above je_allocated after the pipeline drains — the
 * allocator retention `zkbench analyze` must name. With jemalloc 5.3 that
 * takes three settings; without any one of them a path remains that returns
 * the pages (found on porep 2^14 with strace and jemalloc's stats; numbers in
 * docs/diagnosis.md, "retention"):
 *
 * - decay off (-1) in every arena that exists already: `arenas.*_decay_ms`
 *   is only the default for arenas created later, and arena 0 (the main
 *   thread's) and the arenas of threads started earlier keep the 10 s decay;
 * - the defaults off too, before the first allocation of opt.oversize_threshold
 *   (8 MiB) or more creates the huge arena: jemalloc forces that arena's decay
 *   to 0 (purge on free) when the default is above 0, and purges freed extents
 *   of that size eagerly in any arena whose decay is not -1;
 * - background threads on. The prover starts short-lived threads (parallel
 *   loops, the b_g2 MSM, async frees); when the last thread bound to an arena
 *   exits, jemalloc purges that arena completely, whatever its decay — unless
 *   background threads are enabled, which then do the decaying, and with decay
 *   -1 they never purge. Without this the freed pages end in je_retained
 *   (returned to the OS) and the run looks healthy.
 *
 * Returns 0, or -errno with err naming the mallctl that failed.
 */
static int allocator_keep_freed(char *err, size_t errlen)
{
    static const char *const kinds[] = {"dirty", "muzzy"};
    const ssize_t never = -1;
    const bool on = true;
    char name[64];
    int rc;
    for (size_t k = 0; k < 2; k++) {
        snprintf(name, sizeof name, "arenas.%s_decay_ms", kinds[k]);
        if ((rc = allocator_set(name, &never, sizeof never, err, errlen)) < 0)
            return rc;
    }
    unsigned narenas = 0;
    size_t sz = sizeof narenas;
    if ((rc = mallctl("arenas.narenas", &narenas, &sz, NULL, 0)) != 0)
        return snprintf(err, errlen, "mallctl arenas.narenas: %s", strerror(rc)), -rc;
    for (unsigned i = 0; i < narenas; i++) {
        bool init = false;
        sz = sizeof init;
        snprintf(name, sizeof name, "arena.%u.initialized", i);
        if (mallctl(name, &init, &sz, NULL, 0) != 0 || !init)
            continue; /* created later, with the defaults above */
        for (size_t k = 0; k < 2; k++) {
            snprintf(name, sizeof name, "arena.%u.%s_decay_ms", i, kinds[k]);
            if ((rc = allocator_set(name, &never, sizeof never, err, errlen)) < 0)
                return rc;
        }
    }
    return allocator_set("background_thread", &on, sizeof on, err, errlen);
}

/* ---- loading the circuit and the parameters ------------------------------- */

/* What the load makes, on a thread of its own so that SIGINT is answered
 * (run.json marked interrupted at once) while it runs: the parameter
 * generation or load of a large circuit takes minutes. */
struct load_job {
    const struct batch_opts *o;
    int setup_device; /* a generation's fixed-base multiplications: this CUDA device, or -1 the CPU */
    circuit_t *circ;
    groth16_shape_t *shape;
    groth16_params_t *pk;
    struct param_cache_info *pinfo;
    bool have_pinfo;
    char params_path[4096];
    int status;     /* 0: loaded; else the exit status for msg */
    char msg[1100];
    atomic_int phase; /* enum load_phase: what the loader is doing now */
    char phase_text[4600]; /* what it is doing, for the console (set before phase) */
    atomic_bool done;
};

enum load_phase { LOAD_CIRCUIT, LOAD_PARAMS };

static void *load_main(void *arg)
{
    struct load_job *j = arg;
    const struct batch_opts *o = j->o;
    char err[1024];
    int rc;
    j->status = 0;
    if ((rc = circuit_from_spec(&j->circ, o->circuit, o->pc.partitions, err, sizeof err)) < 0) {
        j->status = 2;
        snprintf(j->msg, sizeof j->msg, "%s", err);
    } else if (j->circ->prove) {
        /* a circuit with its own keys (zkey): no parameter file, no shape */
        if (o->params) {
            j->status = 2;
            snprintf(j->msg, sizeof j->msg, "--params does not go with --circuit %s (the zkey holds the keys)",
                     o->circuit);
        }
        snprintf(j->params_path, sizeof j->params_path, "(the zkey)");
    } else if ((rc = groth16_shape_new(&j->shape, j->circ->r1cs)) < 0) {
        j->status = 1;
        snprintf(j->msg, sizeof j->msg, "cannot prepare the circuit: %s", strerror(-rc));
    } else {
        /* what the console says while it runs: a generation is the long one */
        char path[4096];
        if (o->params)
            snprintf(j->phase_text, sizeof j->phase_text, "loading the parameters from %s", o->params);
        else if (param_cache_params_path(path, sizeof path, j->circ, err, sizeof err) == 0 && access(path, R_OK) != 0)
            snprintf(j->phase_text, sizeof j->phase_text,
                     "generating the parameters of %.200s (once per circuit, kept in %s)", j->circ->spec, path);
        else
            snprintf(j->phase_text, sizeof j->phase_text, "loading the parameters of %.200s from the cache",
                     j->circ->spec);
        atomic_store(&j->phase, LOAD_PARAMS);
        /* an explicit file, or the cache (generated once per circuit); mapped
         * read-only from a layout cache, or decoded onto the heap */
        rc = o->params ? param_cache_open_file(&j->pk, o->params, j->shape, o->params_load, o->pc.threads, j->pinfo,
                                               err, sizeof err)
                       : param_cache_open(&j->pk, j->circ, j->shape, o->params_load, o->pc.threads, j->setup_device,
                                          j->pinfo, err, sizeof err);
        if (rc < 0) {
            j->status = rc == -ENOMEM ? 1 : o->params || rc == -EINVAL ? 2 : 1;
            snprintf(j->msg, sizeof j->msg, "%s", err);
        } else {
            snprintf(j->params_path, sizeof j->params_path, "%s", j->pinfo->params_path);
            j->have_pinfo = true;
        }
    }
    atomic_store(&j->done, true);
    return NULL;
}

/* run.json's state now: status and outcome, interrupted. */
static void json_set_state(json_t *root, const char *state, bool interrupted)
{
    json_object_set_new(root, "status", json_string(state));
    json_object_set_new(root, "outcome", json_string(state));
    json_object_set_new(root, "interrupted", json_boolean(interrupted));
}

/*
 * Writes run.json and arms what a second signal writes instead (on_signal):
 * this run.json, interrupted, stopped at once. A run.json with its summary
 * is the run's end, which no signal changes any more: disarmed.
 */
static int batch_save(run_files_t *rf, json_t *root, char *err, size_t errlen)
{
    int rc = run_files_write_json(rf, root, err, errlen);
    json_t *image = NULL;
    if (!json_object_get(root, "summary") && (image = json_deep_copy(root))) {
        json_set_state(image, "interrupted", true);
        json_object_set_new(image, "stopped_at_once", json_true());
        json_object_set_new(image, "note", json_string("a second SIGINT/SIGTERM stopped the batch at once: no summary; "
                                                       "every file ends at its last whole row"));
    }
    run_files_arm_abort(rf, image);
    json_decref(image);
    return rc;
}

/*
 * The batch itself, in this process, after the checks cmd_batch makes and
 * in the folder it made: everything from the device check on (CUDA is first
 * touched here, so a capped batch's child, not the parent, initializes it:
 * a CUDA context does not survive fork). cap: the cgroup this process runs
 * in, or NULL. SIGINT/SIGTERM (on_signal) are handled from the start: at
 * any point the run ends with run.json marked interrupted and exit 130.
 * A file that cannot be written (a full disk) stops the run: exit 1 with
 * one line naming the file, run.json marked failed if it can be written.
 */
static int batch_run(const struct batch_opts *o_in, const char *out_dir, const memcap_t *cap)
{
    struct batch_opts o = *o_in;
    char err[1024];
    int rc;
    int gpus = 0;
    kernels_device_count(&gpus);
    const char *backend = "cpu";
    if (strcmp(o.backend, "gpu") == 0) {
        if (gpus == 0)
            return cli_error(2, "batch: --backend gpu: no CUDA device (%s)", kernels_last_error());
        backend = "gpu";
    } else if (strcmp(o.backend, "auto") == 0 && gpus > 0) {
        backend = "gpu";
    }
    if (strcmp(backend, "gpu") != 0 && (o.n_gpus || o.gpus_all)) /* auto on a machine without a GPU */
        return cli_error(2, "batch: --gpus needs the GPU backend: this machine has no CUDA device");
    if (strcmp(backend, "gpu") == 0) {
        if (o.gpus_all) {
            o.n_gpus = (unsigned)(gpus < BACKEND_MAX_DEVICES ? gpus : BACKEND_MAX_DEVICES);
            for (unsigned i = 0; i < o.n_gpus; i++)
                o.gpus[i] = (int)i;
        } else if (o.n_gpus == 0) {
            o.gpus[o.n_gpus++] = 0;
        }
        for (unsigned i = 0; i < o.n_gpus; i++)
            if (o.gpus[i] >= gpus)
                return cli_error(2, "batch: --gpus: no CUDA device %d (this machine has %d: 0 to %d)", o.gpus[i],
                                 gpus, gpus - 1);
        if (!o.queue_set)
            o.pc.gpu_queue = o.pc.gpu_workers * o.n_gpus;
    }

    /* before anything large is allocated (the huge arena; see the function) */
    if (o.pc.faults.no_purge && allocator_keep_freed(err, sizeof err) < 0)
        return cli_error(1, "batch: --inject no-purge: %s", err);

    /* the run's start: the origin of every t_ms in its files and of every
     * time on the console (run.json's started_at) */
    double t0 = run_clock_now();
    char started_at[40];
    run_clock_utc(started_at, t0);
    console_t con;
    console_init(&con, stdout, o.quiet);
    console_start(&con, t0);
    run_files_t *rf = NULL;
    if (run_files_open(&rf, out_dir, t0, err, sizeof err) < 0)
        return cli_error(1, "batch: %s", err);
    mem_set_sink(run_files_mem_sink, rf);
    if (strcmp(o.backend, "auto") == 0 && gpus == 0 && !o.quiet)
        cli_error(0, "batch: no CUDA device, using the CPU backend");
    sysinfo_t si;
    sysinfo_read(&si);

    int status = 1;
    groth16_pvk_t *pvk = NULL;
    backend_t *be = NULL;
    pipeline_t *pl = NULL;
    sampler_t *sampler = NULL;
    static struct param_cache_info pinfo; /* ~8.5 KiB: off the stack */
    static struct load_job job;
    memset(&job, 0, sizeof job);
    job.o = &o;
    job.pinfo = &pinfo;
    /* parameters generated for a GPU run are generated on its first GPU */
    job.setup_device = strcmp(backend, "gpu") == 0 ? o.gpus[0] : -1;
    atomic_init(&job.done, false);
    struct pipeline_result res;
    memset(&res, 0, sizeof res);
    sample_t base;
    memset(&base, 0, sizeof base);
    uint64_t ticks = 0, peak = 0;
    double med_tick = 0;
    bool loaded = false, ran = false;
    char werr[4400] = "";

    /* run.json from the start, so that a run stopped at any point has one */
    json_t *root = json_object();
    json_object_set_new(root, "config", json_config(&o, backend, o.circuit, o.params ? o.params : ""));
    json_object_set_new(root, "machine", json_machine(&si));
    json_object_set_new(root, "versions", json_versions(&si));
    json_object_set_new(root, "started_at", json_string(started_at));
    json_set_state(root, "running", false);
    json_object_set_new(root, "writer", run_outcome_writer()); /* a reader tells a dead run from a live one */
    atomic_store(&abort_rf, rf);
    if (batch_save(rf, root, err, sizeof err) < 0)
        goto finish;

    if (o.mx) {
        /* served from here on, the parameter load included; the circuit as
         * asked for (the loader resolves it) */
        struct metrics_config mc = {.version = ZKB_PROJECT_VERSION, .commit = si.commit, .circuit = o.circuit,
                                    .pw = o.pc.pw, .proofs_requested = o.pc.count, .heap = true,
                                    .mem_limit = o.mem_limit ? o.mem_limit : metrics_cgroup_limit(getpid())};
        if ((rc = metrics_export_start(o.mx, &mc, err, sizeof err)) < 0) {
            cli_error(1, "batch: %s", err);
            goto done;
        }
        run_files_set_proof_hook(rf, batch_proof_metrics, metrics_export_metrics(o.mx));
    }

    /* the circuit and the parameters, while answering SIGINT */
    double tp = run_clock_now();
    pthread_t loader;
    if (!stop_requested) {
        atomic_init(&job.phase, LOAD_CIRCUIT);
        if (pthread_create(&loader, NULL, load_main, &job) != 0) {
            load_main(&job);
        } else {
            bool noted = false;
            int phase = -1;
            double phase_t = run_clock_now();
            char what[4700];
            while (!atomic_load(&job.done)) {
                if (stop_requested && !noted) {
                    /* recorded now: a second signal kills the process (on_signal) */
                    noted = true;
                    json_set_state(root, "interrupted", true);
                    batch_save(rf, root, err, sizeof err);
                    console_end_live(&con);
                    cli_error(0, "batch: interrupted; stopping once the parameters are %s (again to quit at once)",
                              o.params ? "loaded" : "loaded or generated");
                }
                /* a phase is said once it has lasted a second: a cached
                 * load of a small circuit goes by without a line */
                int now_phase = atomic_load(&job.phase);
                if (now_phase != phase && con.phase[0])
                    console_phase_end(&con);
                if (now_phase != phase) {
                    phase = now_phase;
                    phase_t = run_clock_now();
                }
                if (!con.phase[0] && run_clock_now() - phase_t >= 1.0) {
                    if (phase == LOAD_CIRCUIT)
                        snprintf(what, sizeof what, "building the circuit %s", o.circuit);
                    else
                        snprintf(what, sizeof what, "%s", job.phase_text);
                    console_phase(&con, what);
                }
                if (con.phase[0]) {
                    uint64_t rss = 0, hwm = 0;
                    sysinfo_rss(&rss, &hwm);
                    console_phase_tick(&con, rss);
                }
                struct timespec ts = {0, 20 * 1000000L};
                nanosleep(&ts, NULL);
            }
            pthread_join(loader, NULL);
            console_phase_end(&con);
        }
        loaded = true;
        if (job.status) {
            status = cli_error(job.status, "batch: %s", job.msg);
            goto done;
        }
    }
    circuit_t *circ = job.circ;
    groth16_shape_t *shape = job.shape;
    groth16_params_t *pk = job.pk;
    if (loaded) {
        json_object_set_new(root, "config", json_config(&o, backend, circ->spec, job.params_path));
        if (shape)
            json_object_set_new(root, "circuit_shape", json_circuit_shape(shape));
        if (job.have_pinfo)
            json_object_set_new(root, "params", json_params(&pinfo));
        if (shape)
            console_say(&con, "circuit    %s: %llu constraints, domain %llu", circ->spec,
                        (unsigned long long)shape->cs->num_constraints, (unsigned long long)shape->n);
        else
            console_say(&con, "circuit    %s", circ->spec);
        if (job.have_pinfo) {
            char line[8800];
            param_cache_describe(line, sizeof line, &pinfo);
            console_say(&con, "parameters %s (%s in %.1f s)", line, pinfo.generated ? "generated" : "loaded",
                        run_clock_now() - tp);
        } else {
            console_say(&con, "parameters %s", job.params_path);
        }
    }
    if (stop_requested)
        goto stopped;

    if ((rc = groth16_pvk_new(&pvk, circ->vk ? circ->vk : &pk->vk)) < 0) {
        cli_error(1, "batch: out of memory");
        goto done;
    }
    if (strcmp(backend, "gpu") == 0 && circ->prove) {
        if (strcmp(o.backend, "gpu") == 0) {
            status = cli_error(2, "batch: --backend gpu: circuits from a zkey are proved on the CPU");
            goto done;
        }
        backend = "cpu";
    }
    if (strcmp(backend, "gpu") != 0)
        batch_drop_gpus(&o);
    if (strcmp(backend, "gpu") == 0) {
        double tu = run_clock_now();
        char devs[128], phase[160];
        gpu_list_text(devs, sizeof devs, o.gpus, o.n_gpus);
        snprintf(phase, sizeof phase, "uploading the proving key to GPU %s", devs);
        console_phase(&con, phase);
        struct backend_gpu_config gc = {.devices = o.gpus, .n_devices = o.n_gpus, .workers = o.pc.gpu_workers,
                                        .gpu_mem = (size_t)o.gpu_mem};
        rc = backend_gpu_new_cfg(&be, pk, &gc, err, sizeof err);
        console_phase_end(&con);
        if (rc < 0) {
            if (strcmp(o.backend, "gpu") == 0) {
                cli_error(1, "batch: --backend gpu: %s", err);
                goto done;
            }
            cli_error(0, "batch: %s; using the CPU backend", err);
            backend = "cpu";
            batch_drop_gpus(&o);
        } else {
            struct backend_device_info di;
            backend_device_info(be, 0, &di);
            console_say(&con, "proving key %s GPU %s (%.1f s): %.2f GiB; %u prover worker%s a GPU, %.2f GiB of "
                              "device memory each, MSM passes of %zu scalars; %.2f of %.2f GiB planned",
                        di.key_resident ? "resident on" : "streamed from the host to", devs, run_clock_now() - tu,
                        (double)di.key_bytes / (1u << 30), o.pc.gpu_workers, o.pc.gpu_workers == 1 ? "" : "s",
                        (double)di.lane_bytes / (1u << 30), di.chunk,
                        (double)((di.key_resident ? di.key_bytes : 0) + di.ntt_bytes +
                                 (size_t)o.pc.gpu_workers * di.lane_bytes) / (1u << 30),
                        (double)di.budget / (1u << 30));
            json_object_set_new(root, "gpu_plan",
                                json_pack("{s:b, s:I, s:I, s:I, s:I, s:I, s:I}", "key_resident", di.key_resident,
                                          "key_bytes", (json_int_t)di.key_bytes, "budget_bytes",
                                          (json_int_t)di.budget, "ntt_bytes", (json_int_t)di.ntt_bytes,
                                          "msm_chunk", (json_int_t)di.chunk, "lane_bytes",
                                          (json_int_t)di.lane_bytes, "lane_msm_bytes",
                                          (json_int_t)di.lane_msm_bytes));
        }
    }
    json_object_set_new(root, "config", json_config(&o, backend, circ->spec, job.params_path));

    struct batch_console bc = {.con = &con, .rf = rf};
    struct pipeline_env env = {.circ = circ, .pk = pk, .shape = shape, .pvk = pvk, .backend = be, .rf = rf,
                               .t0 = t0,
                               .stop_flag = &stop_requested, .progress = batch_progress,
                               .proof_done = batch_proof_done, .progress_ctx = &bc};
    if ((rc = pipeline_new(&pl, &o.pc, &env)) < 0) {
        cli_error(1, "batch: out of memory");
        goto done;
    }
    struct sampler_config sc = {.period_ms = o.sample_ms, .pid = 0, .gpu = strcmp(backend, "gpu") == 0,
                                .gpu_devices = o.gpus, .n_gpu_devices = be ? o.n_gpus : 0,
                                .t0 = t0, .occupancy = pipeline_occupancy, .ctx = pl,
                                .after_tick = drain_buffers, .tick_ctx = rf,
                                .on_sample = o.mx ? metrics_on_sample : NULL,
                                .sample_ctx = metrics_export_metrics(o.mx)};
    metrics_set_gpu(metrics_export_metrics(o.mx), sc.gpu); /* the backend is settled now */
    if (o.sample_ms) {
        if ((rc = sampler_start(&sampler, &sc, run_files_samples(rf))) < 0) {
            cli_error(1, "batch: cannot start the sampler: %s", strerror(-rc));
            goto done;
        }
        sampler_read(sampler, &base);
    } else {
        sysinfo_rss(&base.rss, &base.hwm);
    }
    json_t *baseline = json_baseline(&base);
    struct memcap_stats cg;
    if (cap && memcap_read(cap, &cg) == 0) /* the cgroup's view, page cache and kernel memory included */
        json_object_set_new(baseline, "cgroup_bytes", json_integer((json_int_t)cg.current));
    json_object_set_new(root, "baseline", baseline);
    if (!stop_requested)
        json_set_state(root, "running", false);
    batch_save(rf, root, err, sizeof err);

    bc.sampler = sampler;
    bc.pl = pl;
    ran = true;
    console_say(&con, "proving    %u proof%s on the %s backend (pw %u, concurrency %u)%s", o.pc.count,
                o.pc.count == 1 ? "" : "s", backend, o.pc.pw, o.pc.concurrency, con.tty ? "" : "; a line per proof");
    console_work(&con, o.pc.count, o.pc.partitions);
    if (run_files_error(rf, NULL, 0) == 0)
        rc = pipeline_run(pl, &res);
    console_end_live(&con);

    peak = base.rss;
    if (sampler) {
        /* a short idle drain, so the state after the work is in several
         * samples rather than one */
        unsigned drain_ms = o.sample_ms * 10 > 250 ? o.sample_ms * 10 : 250;
        struct timespec ts = {drain_ms / 1000, (long)(drain_ms % 1000) * 1000000L};
        if (!res.interrupted && run_files_error(rf, NULL, 0) == 0)
            nanosleep(&ts, NULL);
        sampler_stats(sampler, &ticks, &med_tick, &peak);
        int serr = sampler_stop(sampler);
        if (serr < 0)
            run_files_fail(rf, "samples.csv", serr);
        sampler = NULL;
    }
stopped:
    if (!ran) {
        /* stopped before the work: no proof, the state of now */
        res.interrupted = true;
        sysinfo_rss(&base.rss, &base.hwm);
        json_object_set_new(root, "baseline", json_baseline(&base));
        peak = base.rss;
        rc = 0;
    }
    uint64_t rss_now = 0, hwm = 0;
    if (sysinfo_rss(&rss_now, &hwm) == 0 && hwm > peak)
        peak = hwm;
    run_files_drain(rf);

    double s_per_proof = res.proofs_done ? res.wall_s / res.proofs_done : 0;
    double per_min = res.wall_s > 0 ? res.proofs_done / res.wall_s * 60.0 : 0;
    json_t *summary = json_pack(
        "{s:I, s:I, s:f, s:f, s:i, s:i, s:f, s:{s:f, s:f, s:f}, s:{s:I, s:f}}", "baseline_rss",
        (json_int_t)base.rss, "peak_rss", (json_int_t)peak, "s_per_proof", s_per_proof, "proofs_per_min", per_min,
        "proofs_done", res.proofs_done, "proofs_failed", res.proofs_failed, "wall_s", res.wall_s, "proof_wall_ms",
        "avg", res.proof_ms_avg, "min", res.proof_ms_min, "max", res.proof_ms_max, "sampler", "ticks",
        (json_int_t)ticks, "median_tick_us", med_tick);
    json_object_set_new(root, "summary", summary);
    bool write_failed = run_files_error(rf, werr, sizeof werr) < 0;
    const char *st = write_failed || rc < 0 || res.proofs_failed ? "failed"
                     : res.interrupted                            ? "interrupted"
                                                                  : "complete";
    json_set_state(root, st, res.interrupted);
    if (write_failed)
        json_object_set_new(root, "error", json_string(werr));
    else if (rc < 0)
        json_object_set_new(root, "error", json_string(strerror(-rc)));
    char jerr[4400] = "";
    bool json_ok = batch_save(rf, root, jerr, sizeof jerr) == 0;
    if (write_failed) {
        status = cli_error(1, "batch: %s; stopped after %u of %u proofs%s", werr, res.proofs_done, o.pc.count,
                           json_ok ? " (run.json says failed)" : "");
        goto done;
    }
    if (!json_ok) {
        status = cli_error(1, "batch: %s", jerr);
        goto done;
    }

    char b1[32], b2[32], b3[32];
    fmt_bytes(b1, (double)base.rss);
    fmt_bytes(b2, (double)peak);
    fmt_bytes(b3, (double)(peak - (peak > base.rss ? base.rss : peak)));
    /* "all verified" only when there are proofs and all of them were */
    char how[64];
    if (res.proofs_failed)
        snprintf(how, sizeof how, " (some FAILED verification)");
    else if (res.proofs_done == 0)
        snprintf(how, sizeof how, res.interrupted ? ", none done" : "");
    else if (!o.pc.verify)
        snprintf(how, sizeof how, ", not verified");
    else if (res.interrupted)
        snprintf(how, sizeof how, ", the %u done verified", res.proofs_done);
    else
        snprintf(how, sizeof how, ", all verified");
    /* with --quiet the summary's first line is the last word, unless the
     * diagnosis follows (cmd_batch: batch_end_diagnose) with its verdict */
    bool verdict_follows = ran && !o.no_analyze && o.sample_ms && rc >= 0 && !res.proofs_failed && !res.interrupted;
    console_say(&con, "%s", "");
    if (verdict_follows)
        console_say(&con, "%s: %u of %u proofs%s", "done", res.proofs_done, o.pc.count, how);
    else
        console_final(&con, "%s: %u of %u proofs%s", res.interrupted ? "interrupted" : "done", res.proofs_done,
                      o.pc.count, how);
    if (ran) {
        console_say(&con, "  proof wall time  avg %.2f s, min %.2f s, max %.2f s", res.proof_ms_avg / 1e3,
                    res.proof_ms_min / 1e3, res.proof_ms_max / 1e3);
        console_say(&con, "  throughput       %.2f proofs/min, %.2f s/proof (%.1f s from the first proof's start)",
                    per_min, s_per_proof, res.wall_s);
        if (res.proofs_done)
            console_say(&con, "  timeline         proofs from %.2f s, the last done at %.2f s (the CSVs' clock: s "
                              "since started_at in run.json)",
                        con.t_work - t0, con.last_done_ms / 1e3);
        console_say(&con, "  memory           baseline RSS %s, peak RSS %s (+%s)", b1, b2, b3);
    }
    if (ticks)
        console_say(&con, "  sampler          %llu ticks every %u ms, median tick %.0f us", (unsigned long long)ticks,
                    o.sample_ms, med_tick);
    console_say(&con, "  files            %s/", out_dir);
    if (rc < 0)
        status = cli_error(1, "batch: the prover failed: %s", strerror(-rc));
    else if (res.proofs_failed)
        status = cli_error(1, "batch: %u proof(s) did not verify", res.proofs_failed);
    else
        status = res.interrupted ? 130 : 0;
done:
    if (sampler) {
        int serr = sampler_stop(sampler);
        if (serr < 0)
            run_files_fail(rf, "samples.csv", serr);
    }
    batch_metrics_end(&o, ran);
    pipeline_free(pl);
    groth16_pvk_free(pvk);
    backend_free(be);
    params_free(job.pk);
    groth16_shape_free(job.shape);
    circuit_free(job.circ);
    dealloc_drain();
finish:
    if (root && !json_object_get(root, "summary")) {
        /* stopped by an error before the summary */
        bool intr = stop_requested && status != 1;
        json_set_state(root, status == 0 ? "complete" : intr ? "interrupted" : "failed", intr);
        if (run_files_error(rf, werr, sizeof werr) < 0)
            json_object_set_new(root, "error", json_string(werr));
        /* the end: what a second signal would write is no longer wanted */
        run_files_write_json(rf, root, err, sizeof err);
        run_files_arm_abort(rf, NULL);
        if (status == 0 || (status != 1 && status != 2 && status != 130))
            status = 1;
        if (run_files_error(rf, werr, sizeof werr) < 0 && status != 2)
            status = cli_error(1, "batch: %s", werr);
    }
    mem_set_sink(NULL, NULL);
    /* a second signal's handler may hold rf: it ends the process, so wait */
    atomic_store(&abort_rf, NULL);
    while (atomic_load(&in_abort))
        pause();
    int crc = run_files_close(rf);
    if (crc < 0 && (status == 0 || status == 130))
        status = cli_error(1, "batch: cannot write the run's files in %s: %s", out_dir, strerror(-crc));
    json_decref(root);
    return status;
}

/* ---- --mem-limit: the batch in a capped child ------------------------------- */

static atomic_int forward_pid;

/* The parent's SIGINT/SIGTERM: passed on to the batch. Signals from the
 * terminal (si_code SI_KERNEL) went to the whole foreground process group,
 * the batch included, so passing them on would make them two. */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved_errno = errno;
    int pid = atomic_load(&forward_pid);
    if (pid > 0 && si->si_code != SI_KERNEL)
        kill((pid_t)pid, sig);
    errno = saved_errno;
}

/* Records in run.json how the capped child ended; returns the exit status. */
static int batch_capped_finish(const struct batch_opts *o, const char *out_dir, const memcap_t *cap, int wstatus,
                               const struct memcap_stats *before)
{
    struct memcap_stats after;
    bool have = memcap_read(cap, &after) == 0;
    char err[1024];
    json_t *root = NULL;
    int lrc = run_outcome_load(&root, out_dir, err, sizeof err);
    if (WIFEXITED(wstatus)) {
        int code = WEXITSTATUS(wstatus);
        if (lrc < 0)
            return code; /* refused before it wrote anything (it said why) */
        const char *st = json_string_value(json_object_get(root, "outcome"));
        run_outcome_set(root, st ? st : "failed", o->mem_limit, cap, have ? &after : NULL);
        if (run_outcome_save(out_dir, root, err, sizeof err) < 0 && code == 0)
            code = cli_error(1, "batch: %s", err);
        json_decref(root);
        return code;
    }

    int sig = WTERMSIG(wstatus);
    bool oom = sig == SIGKILL && have && after.oom_kill > before->oom_kill;
    if (lrc < 0) {
        /* killed before it wrote run.json: a new one, with what is known */
        root = json_object();
        if (lrc != -ENOENT)
            json_object_set_new(root, "error", json_string(err));
        out_mkdir_p(out_dir);
    }
    if (!json_object_get(root, "summary")) {
        json_t *b = json_object_get(json_object_get(root, "baseline"), "rss");
        json_object_set_new(root, "summary", run_outcome_summary(out_dir, (uint64_t)json_integer_value(b)));
    }
    json_object_set_new(root, "interrupted", json_false());
    const char *name = sigabbrev_np(sig);
    char signame[32];
    snprintf(signame, sizeof signame, "SIG%s", name ? name : "?");
    json_object_set_new(root, "signal", json_string(signame));
    run_outcome_set(root, oom ? "oom-killed" : "killed", o->mem_limit, cap, have ? &after : NULL);
    json_object_set_new(root, "status", json_string(oom ? "oom-killed" : "killed"));
    int src = run_outcome_save(out_dir, root, err, sizeof err);

    json_t *summary = json_object_get(root, "summary");
    uint64_t peak = (uint64_t)json_integer_value(json_object_get(summary, "peak_rss"));
    json_int_t done = json_integer_value(json_object_get(summary, "proofs_done"));
    json_decref(root);
    if (isatty(STDOUT_FILENO)) { /* end the child's progress line */
        putchar('\n');
        fflush(stdout);
    }
    if (src < 0)
        cli_error(1, "batch: %s", err);
    /* the peak the limit applies to: the cgroup's (RSS counts file pages
     * charged elsewhere, and misses page cache and kernel memory) */
    char lim[32], pk[32];
    fmt_bytes(lim, (double)o->mem_limit);
    fmt_bytes(pk, (double)(have && after.peak ? after.peak : peak));
    if (oom)
        return cli_error(3, "batch: OOM-killed under --mem-limit %s at peak %s after %lld of %u proofs; files in %s/",
                         lim, pk, (long long)done, o->pc.count, out_dir);
    return cli_error(1, "batch: the batch process died of %s (no OOM kill in its cgroup) after %lld of %u proofs; "
                        "files in %s/",
                     signame, (long long)done, o->pc.count, out_dir);
}

/*
 * Runs the batch in a child process inside cap and waits for it outside:
 * the parent survives an OOM kill of the child and finishes run.json.
 * SIGINT/SIGTERM sent to the parent go on to the child, which stops as an
 * uncapped batch does.
 */
static int batch_capped(const struct batch_opts *o, const char *out_dir, const memcap_t *cap)
{
    struct memcap_stats before = {0};
    memcap_read(cap, &before);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &old);
    struct sigaction sa = {.sa_sigaction = forward_signal, .sa_flags = SA_SIGINFO | SA_RESTART}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        struct sigaction stop = {.sa_handler = on_signal};
        sigaction(SIGINT, &stop, NULL);
        sigaction(SIGTERM, &stop, NULL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        /* a parent that dies cannot finish run.json: stop as on SIGTERM */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        int rc = memcap_enter(cap, 0);
        if (rc < 0)
            _exit(cli_error(2, "batch: --mem-limit: cannot move the batch into %s/cgroup.procs: %s",
                            memcap_path(cap), strerror(-rc)));
        int status = batch_run(o, out_dir, cap);
        fflush(NULL);
        _exit(status);
    }
    int status;
    if (pid < 0) {
        status = cli_error(1, "batch: fork: %s", strerror(errno));
    } else {
        forward_pid = pid;
        sigprocmask(SIG_SETMASK, &old, NULL);
        int ws;
        while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
            ;
        forward_pid = 0;
        status = batch_capped_finish(o, out_dir, cap, ws, &before);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return status;
}

/* The CUDA devices this machine has, with the reason in msg when none.
 * isolated: counted in a child process, so that this one never initializes
 * CUDA (a capped batch forks its child after the checks, and a CUDA
 * runtime initialized before a fork does not work in the child). */
static int batch_device_count(bool isolated, char *msg, size_t cap)
{
    int n = 0;
    msg[0] = 0;
    if (!isolated) {
        kernels_device_count(&n);
        snprintf(msg, cap, "%s", n ? "" : kernels_last_error());
        return n;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        struct { int n; char why[256]; } r = {0};
        kernels_device_count(&r.n);
        snprintf(r.why, sizeof r.why, "%s", r.n ? "" : kernels_last_error());
        (void)!write(p[1], &r, sizeof r);
        _exit(0);
    }
    close(p[1]);
    struct { int n; char why[256]; } r = {0, "the device probe failed"};
    if (pid > 0) {
        if (read(p[0], &r, sizeof r) != (ssize_t)sizeof r)
            snprintf(r.why, sizeof r.why, "the device probe died");
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    close(p[0]);
    snprintf(msg, cap, "%s", r.why);
    return r.n;
}

/* The checks made before any file is written; -1 to go on, else the exit
 * status after one line. */
static int batch_check(const struct batch_opts *o)
{
    char err[1024];
    if (circuit_check_spec(o->circuit, o->pc.partitions, err, sizeof err) < 0)
        return cli_error(2, "batch: %s", err);
    bool zkey = strncmp(o->circuit, "zkey:", 5) == 0;
    if (zkey && strcmp(o->backend, "gpu") == 0)
        return cli_error(2, "batch: --backend gpu: circuits from a zkey are proved on the CPU");
    /* the parameters: a given file readable, or the cache's key there or makeable */
    char spec[512];
    if (!zkey && (circuit_canonical_spec(spec, sizeof spec, o->circuit, o->pc.partitions, err, sizeof err) < 0 ||
                  param_cache_preflight(spec, o->params, err, sizeof err) < 0))
        return cli_error(2, "batch: %s", err);
    /* the devices asked for, before the run folder: a refusal leaves nothing */
    if (strcmp(o->backend, "gpu") == 0 || o->n_gpus || o->gpus_all) {
        int n = batch_device_count(o->mem_limit != 0, err, sizeof err);
        if (n == 0 && strcmp(o->backend, "gpu") == 0)
            return cli_error(2, "batch: --backend gpu: no CUDA device (%s)", err);
        if (n == 0)
            return cli_error(2, "batch: --gpus needs the GPU backend: this machine has no CUDA device");
        for (unsigned i = 0; i < o->n_gpus; i++)
            if (o->gpus[i] >= n)
                return cli_error(2, "batch: --gpus: no CUDA device %d (this machine has %d: 0 to %d)", o->gpus[i], n,
                                 n - 1);
    }
    if (o->params) {
        params_error_t perr;
        if (access(o->params, R_OK) != 0)
            return cli_error(2, "batch: --params %s: cannot read: %s", o->params, strerror(errno));
        if (params_check_layout(o->params, &perr) < 0)
            return cli_error(2, "batch: --params %s", perr.msg);
    }
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
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

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
