/*
 * One batch run in this process (batch.h): the devices, the load, the
 * pipeline under the sampler, run.json from the start to the summary, and
 * the console's lines. SIGINT/SIGTERM may land at any point: the first ends
 * the run with its files whole, the second at once (on_signal).
 */
#define _GNU_SOURCE
#include "harness/run/batch.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/allocator.h"
#include "harness/run/batch_json.h"
#include "harness/run/batch_load.h"
#include "harness/run/console.h"
#include "harness/run/errmsg.h"
#include "harness/run/mem_budget.h"
#include "harness/run/run_clock.h"
#include "harness/run/run_files.h"
#include "harness/run/run_outcome.h"
#include "harness/run/sampler.h"
#include "harness/run/sysinfo.h"
#include "harness/run/units.h"
#include "kernels/kernels.h"
#include "prover/mem.h"

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

void batch_signals_install(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

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

/* The metrics' analyze process, out of --mem-limit's cgroup: its memory is
 * not the batch's, and must not be what the cap kills the batch for. */
static int batch_place_outside(pid_t pid, void *ctx)
{
    return memcap_leave(ctx, pid);
}

/* run_files' proof hook: the proof-duration histogram. */
static void batch_proof_metrics(void *ctx, double wall_ms)
{
    metrics_observe_proof(ctx, wall_ms / 1e3);
}

/* The work is over and its files closed: the final values (analyze's
 * verdict of those files among them) served until scraped (when proofs
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
        errmsg_print(0, "batch: %s", err);
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
        batch_json_set_state(image, "interrupted", true);
        json_object_set_new(image, "stopped_at_once", json_true());
        json_object_set_new(image, "note", json_string("a second SIGINT/SIGTERM stopped the batch at once: no summary; "
                                                       "every file ends at its last whole row"));
    }
    run_files_arm_abort(rf, image);
    json_decref(image);
    return rc;
}

/* The sampler's rows to the metrics and to the memory budget (learning). */
struct batch_on_sample {
    metrics_t *metrics;
    mem_budget_t *budget;
};

static void batch_on_sample(void *ctx, const sample_t *x)
{
    const struct batch_on_sample *h = ctx;
    if (h->metrics)
        metrics_on_sample(h->metrics, x);
    if (h->budget)
        mem_budget_on_rss(h->budget, x->rss);
}

/* --mem-budget: the budget, between the mem events and buffers.csv; said on
 * the console and recorded in run.json. 0 or -ENOMEM. */
static int batch_budget_start(mem_budget_t **ret, const struct batch_opts *o, run_files_t *rf, console_t *con,
                              json_t *root)
{
    uint64_t rss = 0, hwm = 0;
    sysinfo_rss(&rss, &hwm);
    int rc = mem_budget_new(ret, o->mem_budget, o->model, rss);
    if (rc < 0)
        return rc;
    mem_budget_set_next_sink(*ret, run_files_mem_sink, rf);
    mem_set_sink(mem_budget_sink, *ret);
    json_t *j = mem_budget_json(*ret);
    char b1[32], b2[32], how[4400];
    if (o->model)
        snprintf(how, sizeof how, "the model of %s: %s a partition", o->model->source,
                 fmt_bytes(b2, (double)json_integer_value(
                                   json_object_get(json_object_get(j, "need_bytes"), "synthesizing"))));
    else
        snprintf(how, sizeof how, "the model learned from the first %d partitions, admitted one at a time",
                 MEM_BUDGET_LEARN);
    console_say(con, "admission  by memory: budget %s, baseline RSS %s; %s", fmt_bytes(b1, (double)o->mem_budget),
                fmt_bytes(b2, (double)json_integer_value(json_object_get(j, "baseline_bytes"))), how);
    json_object_set_new(root, "mem_budget", j);
    return 0;
}

/* The load's on_stop: the interrupt recorded in run.json at once. */
struct batch_interrupt {
    json_t *root;
    run_files_t *rf;
};

static void batch_note_interrupt(void *ctx)
{
    struct batch_interrupt *bi = ctx;
    char err[1024];
    batch_json_set_state(bi->root, "interrupted", true);
    batch_save(bi->rf, bi->root, err, sizeof err);
}

/* The batch in this process; see batch.h. SIGINT/SIGTERM (on_signal) are
 * handled from the start: at any point the run ends with run.json marked
 * interrupted and exit 130. */
int batch_run(const struct batch_opts *o_in, const char *out_dir, const memcap_t *cap)
{
    struct batch_opts o = *o_in;
    char err[1024];
    int rc;
    int gpus = 0;
    kernels_device_count(&gpus);
    const char *backend = "cpu";
    if (strcmp(o.backend, "gpu") == 0) {
        if (gpus == 0)
            return errmsg_print(2, "batch: --backend gpu: no CUDA device (%s)", kernels_last_error());
        backend = "gpu";
    } else if (strcmp(o.backend, "auto") == 0 && gpus > 0) {
        backend = "gpu";
    }
    if (strcmp(backend, "gpu") != 0 && (o.n_gpus || o.gpus_all)) /* auto on a machine without a GPU */
        return errmsg_print(2, "batch: --gpus needs the GPU backend: this machine has no CUDA device");
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
                return errmsg_print(2, "batch: --gpus: no CUDA device %d (this machine has %d: 0 to %d)", o.gpus[i],
                                 gpus, gpus - 1);
        if (!o.queue_set)
            o.pc.gpu_queue = o.pc.gpu_workers * o.n_gpus;
    }

    /* before anything large is allocated (the huge arena; see the function) */
    if (o.pc.faults.no_purge && allocator_keep_freed(err, sizeof err) < 0)
        return errmsg_print(1, "batch: --inject no-purge: %s", err);

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
        return errmsg_print(1, "batch: %s", err);
    mem_set_sink(run_files_mem_sink, rf);
    if (strcmp(o.backend, "auto") == 0 && gpus == 0 && !o.quiet)
        errmsg_print(0, "batch: no CUDA device, using the CPU backend");
    sysinfo_t si;
    sysinfo_read(&si);

    int status = 1;
    groth16_pvk_t *pvk = NULL;
    backend_t *be = NULL;
    pipeline_t *pl = NULL;
    sampler_t *sampler = NULL;
    mem_budget_t *budget = NULL;
    char budget_err[4400] = "";
    static struct param_cache_info pinfo; /* ~8.5 KiB: off the stack */
    static struct batch_load job;
    memset(&job, 0, sizeof job);
    job.o = &o;
    job.pinfo = &pinfo;
    /* parameters generated for a GPU run are generated on its first GPU */
    job.setup_device = strcmp(backend, "gpu") == 0 ? o.gpus[0] : -1;
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
    json_object_set_new(root, "config", batch_json_config(&o, backend, o.circuit, o.params ? o.params : ""));
    json_object_set_new(root, "machine", batch_json_machine(&si));
    json_object_set_new(root, "versions", batch_json_versions(&si));
    json_object_set_new(root, "allocator", allocator_json()); /* after --inject no-purge's settings */
    json_object_set_new(root, "started_at", json_string(started_at));
    batch_json_set_state(root, "running", false);
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
        if ((rc = metrics_export_start(o.mx, &mc, err, sizeof err)) < 0 ||
            (rc = metrics_export_verdict(o.mx, out_dir, cap ? batch_place_outside : NULL, (void *)cap, err,
                                         sizeof err)) < 0) {
            errmsg_print(1, "batch: %s", err);
            goto done;
        }
        run_files_set_proof_hook(rf, batch_proof_metrics, metrics_export_metrics(o.mx));
    }

    /* the circuit and the parameters, while answering SIGINT */
    double tp = run_clock_now();
    if (!stop_requested) {
        struct batch_interrupt bi = {.root = root, .rf = rf};
        loaded = true;
        if (batch_load(&job, &con, &stop_requested, batch_note_interrupt, &bi)) {
            status = errmsg_print(job.status, "batch: %s", job.msg);
            goto done;
        }
    }
    circuit_t *circ = job.circ;
    groth16_shape_t *shape = job.shape;
    groth16_params_t *pk = job.pk;
    if (loaded) {
        json_object_set_new(root, "config", batch_json_config(&o, backend, circ->spec, job.params_path));
        if (shape)
            json_object_set_new(root, "circuit_shape", batch_json_circuit_shape(shape));
        if (job.have_pinfo)
            json_object_set_new(root, "params", batch_json_params(&pinfo));
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
        errmsg_print(1, "batch: out of memory");
        goto done;
    }
    if (strcmp(backend, "gpu") == 0 && circ->prove) {
        if (strcmp(o.backend, "gpu") == 0) {
            status = errmsg_print(2, "batch: --backend gpu: circuits from a zkey are proved on the CPU");
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
                errmsg_print(1, "batch: --backend gpu: %s", err);
                goto done;
            }
            errmsg_print(0, "batch: %s; using the CPU backend", err);
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
    json_object_set_new(root, "config", batch_json_config(&o, backend, circ->spec, job.params_path));

    struct batch_console bc = {.con = &con, .rf = rf};
    if (o.mem_budget && batch_budget_start(&budget, &o, rf, &con, root) < 0) {
        errmsg_print(1, "batch: out of memory");
        goto done;
    }
    struct pipeline_env env = {.circ = circ, .pk = pk, .shape = shape, .pvk = pvk, .backend = be, .rf = rf,
                               .budget = budget, .t0 = t0,
                               .stop_flag = &stop_requested, .progress = batch_progress,
                               .proof_done = batch_proof_done, .progress_ctx = &bc};
    if ((rc = pipeline_new(&pl, &o.pc, &env)) < 0) {
        errmsg_print(1, "batch: out of memory");
        goto done;
    }
    struct batch_on_sample hooks = {.metrics = metrics_export_metrics(o.mx), .budget = budget};
    struct sampler_config sc = {.period_ms = o.sample_ms, .pid = 0, .gpu = strcmp(backend, "gpu") == 0,
                                .gpu_devices = o.gpus, .n_gpu_devices = be ? o.n_gpus : 0,
                                .t0 = t0, .occupancy = pipeline_occupancy, .ctx = pl,
                                .after_tick = drain_buffers, .tick_ctx = rf,
                                .on_sample = o.mx || budget ? batch_on_sample : NULL,
                                .sample_ctx = &hooks};
    /* the backend is settled now */
    metrics_set_gpu(metrics_export_metrics(o.mx), sc.gpu, sc.gpu_devices, sc.n_gpu_devices);
    if (o.sample_ms) {
        if ((rc = sampler_start(&sampler, &sc, run_files_samples(rf))) < 0) {
            errmsg_print(1, "batch: cannot start the sampler: %s", strerror(-rc));
            goto done;
        }
        sampler_read(sampler, &base);
    } else {
        sysinfo_rss(&base.rss, &base.hwm);
    }
    json_t *baseline = batch_json_baseline(&base);
    struct memcap_stats cg;
    if (cap && memcap_read(cap, &cg) == 0) /* the cgroup's view, page cache and kernel memory included */
        json_object_set_new(baseline, "cgroup_bytes", json_integer((json_int_t)cg.current));
    json_object_set_new(root, "baseline", baseline);
    if (!stop_requested)
        batch_json_set_state(root, "running", false);
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
        json_object_set_new(root, "baseline", batch_json_baseline(&base));
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
    if (budget) {
        json_object_set_new(root, "mem_budget", mem_budget_json(budget));
        if (rc == -E2BIG)
            mem_budget_refusal(budget, budget_err, sizeof budget_err);
    }
    bool write_failed = run_files_error(rf, werr, sizeof werr) < 0;
    const char *st = write_failed || rc < 0 || res.proofs_failed ? "failed"
                     : res.interrupted                            ? "interrupted"
                                                                  : "complete";
    batch_json_set_state(root, st, res.interrupted);
    if (write_failed)
        json_object_set_new(root, "error", json_string(werr));
    else if (rc < 0)
        json_object_set_new(root, "error", json_string(budget_err[0] ? budget_err : strerror(-rc)));
    char jerr[4400] = "";
    bool json_ok = batch_save(rf, root, jerr, sizeof jerr) == 0;
    if (write_failed) {
        status = errmsg_print(1, "batch: %s; stopped after %u of %u proofs%s", werr, res.proofs_done, o.pc.count,
                           json_ok ? " (run.json says failed)" : "");
        goto done;
    }
    if (!json_ok) {
        status = errmsg_print(1, "batch: %s", jerr);
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
    if (budget_err[0])
        status = errmsg_print(1, "batch: %s", budget_err);
    else if (rc < 0)
        status = errmsg_print(1, "batch: the prover failed: %s", strerror(-rc));
    else if (res.proofs_failed)
        status = errmsg_print(1, "batch: %u proof(s) did not verify", res.proofs_failed);
    else
        status = res.interrupted ? 130 : 0;
done:
    if (sampler) {
        int serr = sampler_stop(sampler);
        if (serr < 0)
            run_files_fail(rf, "samples.csv", serr);
    }
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
        batch_json_set_state(root, status == 0 ? "complete" : intr ? "interrupted" : "failed", intr);
        if (run_files_error(rf, werr, sizeof werr) < 0)
            json_object_set_new(root, "error", json_string(werr));
        /* the end: what a second signal would write is no longer wanted */
        run_files_write_json(rf, root, err, sizeof err);
        run_files_arm_abort(rf, NULL);
        if (status == 0 || (status != 1 && status != 2 && status != 130))
            status = 1;
        if (run_files_error(rf, werr, sizeof werr) < 0 && status != 2)
            status = errmsg_print(1, "batch: %s", werr);
    }
    mem_set_sink(NULL, NULL);
    mem_budget_free(budget);
    /* a second signal's handler may hold rf: it ends the process, so wait */
    atomic_store(&abort_rf, NULL);
    while (atomic_load(&in_abort))
        pause();
    int crc = run_files_close(rf);
    if (crc < 0 && (status == 0 || status == 130))
        status = errmsg_print(1, "batch: cannot write the run's files in %s: %s", out_dir, strerror(-crc));
    /* after the files are whole: the final zkbench_verdict reads them */
    batch_metrics_end(&o, ran);
    json_decref(root);
    return status;
}
