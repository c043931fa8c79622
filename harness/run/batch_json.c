/* The sections of a batch's run.json (README: "Files of a run"); see batch_json.h. */
#include "harness/run/batch_json.h"

#include <stdio.h>
#include <string.h>

#include "kernels/kernels.h"
#include "prover/mem.h"
#include "prover/parallel.h"
#include "prover/r1cs.h"

static const char *dealloc_name(enum dealloc_mode m)
{
    return m == DEALLOC_SYNC ? "sync" : m == DEALLOC_ASYNC ? "async" : "async-serial";
}

static const char *trim_name(enum pipeline_trim t)
{
    return t == TRIM_NONE ? "none" : t == TRIM_PARTITION ? "partition" : "proof";
}

static void config_memory(json_t *c, const struct batch_opts *o);

json_t *batch_json_config(const struct batch_opts *o, const char *backend, const char *spec,
                          const char *params_path)
{
    const struct pipeline_config *pc = &o->pc;
    json_t *gpus = json_array();
    for (unsigned i = 0; gpus && i < o->n_gpus; i++)
        json_array_append_new(gpus, json_integer(o->gpus[i]));
    json_t *c = json_pack("{s:i, s:i, s:i, s:s, s:s, s:i, s:i, s:o, s:i, s:i, s:b, s:s, s:s, s:i, s:s, s:s, s:i, s:b, s:I, "
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
    if (c)
        config_memory(c, o);
    return c;
}

/* The memory switches of issue 29 in config: each changes memory, never a proof. */
static void config_memory(json_t *c, const struct batch_opts *o)
{
    const struct pipeline_config *pc = &o->pc;
    json_t *kinds = json_array();
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        if (pc->free_at_last_use & (1u << k))
            json_array_append_new(kinds, json_string(mem_kind_name((enum mem_kind)k)));
    json_object_set_new(c, "free_at_last_use", kinds);
    json_object_set_new(c, "purge_after", json_string(trim_name(pc->trim)));
    json_object_set_new(c, "blind_seed", pc->blind_seeded ? json_integer((json_int_t)pc->blind_seed) : json_null());
    json_object_set_new(c, "mem_budget", o->mem_budget ? json_integer((json_int_t)o->mem_budget) : json_null());
    json_object_set_new(c, "model", o->model_dir ? json_string(o->model_dir) : json_null());
}

/* How the parameters were loaded (README, "--params-load"). */
json_t *batch_json_params(const struct param_cache_info *in)
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
json_t *batch_json_circuit_shape(const groth16_shape_t *sh)
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

json_t *batch_json_machine(const sysinfo_t *si)
{
    return json_pack("{s:s, s:i, s:I, s:s, s:i, s:s, s:I}", "cpu", si->cpu, "cores", si->cores, "ram_bytes",
                     (json_int_t)si->ram_bytes, "os", si->os, "gpus", si->gpus, "gpu", si->gpu,
                     "gpu_mem_bytes", (json_int_t)si->gpu_mem_bytes);
}

json_t *batch_json_versions(const sysinfo_t *si)
{
    int rt = 0, drv = 0;
    char cuda[64] = "none";
    if (kernels_cuda_version(&rt, &drv) == 0 && drv > 0)
        snprintf(cuda, sizeof cuda, "runtime %d.%d, driver %d.%d", rt / 1000, rt % 1000 / 10, drv / 1000,
                 drv % 1000 / 10);
    else if (rt > 0) /* a CUDA build on a machine without the driver: no "driver 0.0" */
        snprintf(cuda, sizeof cuda, "runtime %d.%d, no driver", rt / 1000, rt % 1000 / 10);
    return json_pack("{s:s, s:s, s:s}", "commit", si->commit, "jemalloc", si->jemalloc, "cuda", cuda);
}

json_t *batch_json_baseline(const sample_t *b)
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

/* run.json's state now: status and outcome, interrupted. */
void batch_json_set_state(json_t *root, const char *state, bool interrupted)
{
    json_object_set_new(root, "status", json_string(state));
    json_object_set_new(root, "outcome", json_string(state));
    json_object_set_new(root, "interrupted", json_boolean(interrupted));
}
