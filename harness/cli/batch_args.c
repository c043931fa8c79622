/* batch's option values with a grammar of their own; see batch_args.h. */
#include "harness/cli/batch_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/diagnose/analyze.h"
#include "harness/run/mem_budget.h"
#include "harness/run/units.h"
#include "prover/dealloc.h"
#include "prover/groth16.h"
#include "prover/mem.h"

static int kind_by_name(const char *name)
{
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        if (strcmp(mem_kind_name((enum mem_kind)k), name) == 0)
            return k;
    return -1;
}

bool batch_args_inject(struct batch_opts *o, const char *text)
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

bool batch_args_count(unsigned *out, const char *name, const char *text, uint64_t max)
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

bool batch_args_gpus(struct batch_opts *o, const char *text)
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

/* Why a kind cannot be freed any earlier than the prover frees it now. */
static const char *no_earlier_free(enum mem_kind k)
{
    switch (k) {
    case MEM_KIND_PARAMS: return "the proving key is read by every partition until the run ends";
    case MEM_KIND_CIRCUIT: return "the constraint matrices are read by every partition until the run ends";
    case MEM_KIND_NTT: return "the domain's tables are shared by every partition until the run ends";
    case MEM_KIND_ABC:
        return "a, b and c are freed as H consumes them already (b and c once H is computed, a, which holds H, "
               "after the H MSM; on a GPU all three once uploaded)";
    case MEM_KIND_H: return "H has no buffer of its own here: it is computed in place in abc's a";
    case MEM_KIND_MSM: return "MSM scratch is freed by the MSM that uses it, at its last use";
    case MEM_KIND_PINNED: return "page-locked a, b, c are tracked as abc and freed with it";
    case MEM_KIND_OTHER: return "other is setup and loader scratch, freed where it is made";
    default: return "device memory is a prover worker's workspace, reused by every partition until the run ends";
    }
}

bool batch_args_free_at_last_use(struct batch_opts *o, const char *text)
{
    char buf[256];
    unsigned mask = 0;
    if (!*text || strlen(text) >= sizeof buf)
        goto bad;
    strcpy(buf, text);
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        if (!*item)
            goto bad;
        int k = kind_by_name(item);
        if (k < 0)
            return cli_error(2, "batch: --free-at-last-use: unknown kind '%s' (prover/mem.h's kinds: params, "
                                "circuit, aux, abc, ntt, h, msm, pending, pinned, other, gpu_*)", item),
                   false;
        if (mask & (1u << k))
            return cli_error(2, "batch: --free-at-last-use '%s' names %s twice", text, item), false;
        if (!(GROTH16_FREE_AT_LAST_USE & (1u << k)))
            return cli_error(2, "batch: --free-at-last-use %s: no earlier free is possible: %s", item,
                             no_earlier_free((enum mem_kind)k)),
                   false;
        mask |= 1u << k;
    }
    o->pc.free_at_last_use = mask;
    return true;
bad:
    cli_error(2, "batch: --free-at-last-use needs a comma-separated list of kinds such as aux,pending, got '%s'",
              text);
    return false;
}

bool batch_args_purge(enum pipeline_trim *out, const char *flag, const char *text)
{
    if (strcmp(text, "none") == 0)
        *out = TRIM_NONE;
    else if (strcmp(text, "partition") == 0)
        *out = TRIM_PARTITION;
    else if (strcmp(text, "proof") == 0)
        *out = TRIM_PROOF;
    else
        return cli_error(2, "batch: --%s must be none, partition or proof, got '%s'", flag, text), false;
    return true;
}

_Static_assert((int)MEM_BUDGET_NSTATES == (int)CAPACITY_NSTATES, "the budget's states are the capacity model's");

static int read_model(struct mem_budget_model *m, const char *dir, char *err, size_t cap)
{
    analyze_run_t *run = NULL;
    analyze_result_t r;
    char aerr[1024] = "";
    int rc = analyze_run_open(&run, &r, dir, NULL, aerr, sizeof aerr);
    if (rc < 0) {
        snprintf(err, cap, "%s", aerr[0] ? aerr : strerror(-rc));
        return rc;
    }
    const capacity_model_t *c = &r.capacity;
    if (!c->ok) {
        snprintf(err, cap, "%s has no capacity model to admit by: %s", dir, c->why[0] ? c->why : "no numbers");
        rc = -EINVAL;
    } else {
        memset(m, 0, sizeof *m);
        for (int s = 0; s < CAPACITY_NSTATES; s++)
            m->state_bytes[s] = c->state_bytes[s];
        m->untracked_share = c->untracked_share > 0 ? c->untracked_share : 0;
        m->baseline = c->baseline;
        m->partitions = (unsigned)c->partitions_measured;
        snprintf(m->source, sizeof m->source, "run %s", dir);
    }
    analyze_result_clear(&r);
    analyze_run_free(run);
    return rc;
}

bool batch_args_check_frees(const struct batch_opts *o)
{
    const struct pipeline_faults *f = &o->pc.faults;
    int kinds[2] = {f->leak_kind, f->hold_kind};
    for (int i = 0; i < 2; i++)
        if (kinds[i] >= 0 && (o->pc.free_at_last_use & (1u << kinds[i])))
            return cli_error(2, "batch: --free-at-last-use %s and --inject %s:%s contradict each other: one frees it "
                                "at its last use, the other keeps it",
                             mem_kind_name((enum mem_kind)kinds[i]), i ? "hold" : "leak",
                             mem_kind_name((enum mem_kind)kinds[i])),
                   false;
    return true;
}

/* read before any file, so a run that has no model is refused first */
static struct mem_budget_model budget_model;

bool batch_args_budget(struct batch_opts *o)
{
    if (o->model_dir && !o->mem_budget)
        return cli_error(2, "batch: --model %s gives --mem-budget its bytes per partition: give --mem-budget SIZE too",
                         o->model_dir),
               false;
    if (!o->mem_budget)
        return true;
    if (!o->model_dir) {
        if (o->sample_ms == 0)
            return cli_error(2, "batch: --mem-budget learns its model with the sampler's RSS: --sample-ms must be "
                                "above 0, or give --model RUN_DIR"),
                   false;
        return true;
    }
    char err[1200];
    if (read_model(&budget_model, o->model_dir, err, sizeof err) < 0)
        return cli_error(2, "batch: --model: %s", err), false;
    uint64_t need = mem_budget_model_need(&budget_model, MEM_BUDGET_SYNTH);
    if ((double)need + budget_model.baseline > (double)o->mem_budget) {
        char b1[32], b2[32], b3[32];
        return cli_error(2, "batch: --mem-budget %s cannot admit one partition: it needs %s (the model of %s) beside "
                            "a baseline RSS of %s",
                         fmt_bytes(b1, (double)o->mem_budget), fmt_bytes(b2, (double)need), budget_model.source,
                         fmt_bytes(b3, budget_model.baseline)),
               false;
    }
    o->model = &budget_model;
    return true;
}
