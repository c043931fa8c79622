/* Admission by memory; see mem_budget.h. */
#include "harness/run/mem_budget.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/units.h"

struct mem_budget {
    uint64_t budget, baseline;
    bool baseline_from_model;
    struct mem_budget_model model;
    bool ready;                /* the model gives numbers (loaded, or learned) */

    /* under the pipeline's lock */
    uint64_t reserved, reserved_peak;
    unsigned in_flight;        /* admitted, not done */
    unsigned learned;          /* partitions of this run measured so far */
    uint64_t admissions, refusals;
    /* partitions admitted alone although the model learned here said one
     * does not fit: those it was learned from ran alone within the budget
     * (learn_rss_max, the highest RSS while one of them was in flight) */
    uint64_t alone, learn_rss_max;

    /* the partition being learned, under learn_lock (sink, sampler, moves) */
    pthread_mutex_t learn_lock;
    atomic_bool learning;      /* a partition is being measured (read by the sink unlocked) */
    int l_proof, l_partition;
    enum mem_budget_state l_state;
    int64_t l_live;            /* its tracked host bytes now */
    double l_max[MEM_BUDGET_NSTATES];
    uint64_t l_rss_peak;       /* the highest RSS while it was in flight */
    mem_sink_fn next;
    void *next_ctx;
};

uint64_t mem_budget_model_need(const struct mem_budget_model *m, enum mem_budget_state s)
{
    double most = 0;
    for (int t = (int)s; t < MEM_BUDGET_NSTATES; t++)
        most = m->state_bytes[t] > most ? m->state_bytes[t] : most;
    return (uint64_t)ceil(most * (1 + m->untracked_share));
}

int mem_budget_new(mem_budget_t **ret, uint64_t budget, const struct mem_budget_model *model, uint64_t rss_start)
{
    struct mem_budget *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->budget = budget;
    b->baseline = rss_start;
    if (model) {
        b->model = *model;
        b->ready = true;
        if (model->baseline > (double)rss_start) {
            b->baseline = (uint64_t)model->baseline;
            b->baseline_from_model = true;
        }
    } else {
        snprintf(b->model.source, sizeof b->model.source, "this run");
    }
    pthread_mutex_init(&b->learn_lock, NULL);
    *ret = b;
    return 0;
}

void mem_budget_free(mem_budget_t *b)
{
    if (!b)
        return;
    pthread_mutex_destroy(&b->learn_lock);
    free(b);
}

static uint64_t room(const struct mem_budget *b)
{
    return b->budget > b->baseline ? b->budget - b->baseline : 0;
}

static void reserve(struct mem_budget *b, uint64_t *reserved, uint64_t bytes)
{
    b->reserved = b->reserved - *reserved + bytes;
    *reserved = bytes;
    if (b->reserved > b->reserved_peak)
        b->reserved_peak = b->reserved;
}

int mem_budget_admit_locked(mem_budget_t *b, int proof, int partition, uint64_t *reserved)
{
    if (!b->ready) {
        /* learning: one partition at a time, holding all the room there is */
        if (b->in_flight)
            return 0;
        if (room(b) == 0) {
            b->refusals++;
            return -E2BIG;
        }
        pthread_mutex_lock(&b->learn_lock);
        atomic_store(&b->learning, true);
        b->l_proof = proof;
        b->l_partition = partition;
        b->l_state = MEM_BUDGET_SYNTH;
        b->l_live = 0;
        memset(b->l_max, 0, sizeof b->l_max);
        b->l_rss_peak = 0;
        pthread_mutex_unlock(&b->learn_lock);
        b->in_flight++;
        b->admissions++;
        reserve(b, reserved, room(b));
        return 1;
    }
    uint64_t need = mem_budget_model_need(&b->model, MEM_BUDGET_SYNTH);
    if (b->reserved + need > room(b)) {
        if (b->in_flight)
            return 0;
        if (b->learned >= MEM_BUDGET_LEARN && b->learn_rss_max > 0 && b->learn_rss_max <= b->budget) {
            /* the model learned from this run's first partitions says one
             * does not fit, yet each of those ran alone with RSS within the
             * budget: the measurement wins over the model (which takes the
             * largest state bytes and untracked share of different
             * partitions together), and the partition is admitted alone,
             * holding all the room, as they were */
            b->in_flight++;
            b->admissions++;
            b->alone++;
            reserve(b, reserved, room(b));
            return 1;
        }
        b->refusals++;
        return -E2BIG; /* it would wait for ever */
    }
    b->in_flight++;
    b->admissions++;
    reserve(b, reserved, need);
    return 1;
}

static bool is_learned(const struct mem_budget *b, int proof, int partition)
{
    return atomic_load(&b->learning) && b->l_proof == proof && b->l_partition == partition;
}

void mem_budget_move_locked(mem_budget_t *b, int proof, int partition, enum mem_budget_state s, uint64_t *reserved)
{
    pthread_mutex_lock(&b->learn_lock);
    if (is_learned(b, proof, partition)) {
        b->l_state = s;
        if ((double)b->l_live > b->l_max[s])
            b->l_max[s] = (double)b->l_live; /* what it carries into the state */
    }
    pthread_mutex_unlock(&b->learn_lock);
    if (b->ready && *reserved)
        reserve(b, reserved, mem_budget_model_need(&b->model, s) < *reserved ? mem_budget_model_need(&b->model, s)
                                                                             : *reserved);
}

/* The learned partition's numbers into the model (under learn_lock). */
static void learn_fold(struct mem_budget *b)
{
    double most = 0;
    for (int s = 0; s < MEM_BUDGET_NSTATES; s++) {
        if (b->l_max[s] > b->model.state_bytes[s])
            b->model.state_bytes[s] = b->l_max[s];
        most = b->l_max[s] > most ? b->l_max[s] : most;
    }
    /* RSS above the baseline beyond the partition's tracked bytes */
    if (most > 0 && b->l_rss_peak > b->baseline) {
        double k = ((double)(b->l_rss_peak - b->baseline) - most) / most;
        if (k > b->model.untracked_share)
            b->model.untracked_share = k;
    }
    b->model.partitions++;
    if (b->l_rss_peak > b->learn_rss_max)
        b->learn_rss_max = b->l_rss_peak;
}

void mem_budget_done_locked(mem_budget_t *b, int proof, int partition, bool dropped, uint64_t *reserved)
{
    pthread_mutex_lock(&b->learn_lock);
    if (is_learned(b, proof, partition)) {
        atomic_store(&b->learning, false);
        if (!dropped) {
            learn_fold(b);
            if (++b->learned >= MEM_BUDGET_LEARN)
                b->ready = true;
        }
    }
    pthread_mutex_unlock(&b->learn_lock);
    if (b->in_flight)
        b->in_flight--;
    reserve(b, reserved, 0);
}

uint64_t mem_budget_reserved_locked(const mem_budget_t *b)
{
    return b->reserved;
}

void mem_budget_sink(void *ctx, const struct mem_event *ev)
{
    struct mem_budget *b = ctx;
    if (atomic_load_explicit(&b->learning, memory_order_relaxed) && ev->device == MEM_HOST && ev->partition >= 0 && !ev->is_use) {
        pthread_mutex_lock(&b->learn_lock);
        if (is_learned(b, ev->proof, ev->partition)) {
            b->l_live += ev->is_free ? -(int64_t)ev->bytes : (int64_t)ev->bytes;
            if ((double)b->l_live > b->l_max[b->l_state])
                b->l_max[b->l_state] = (double)b->l_live;
        }
        pthread_mutex_unlock(&b->learn_lock);
    }
    if (b->next)
        b->next(b->next_ctx, ev);
}

void mem_budget_set_next_sink(mem_budget_t *b, mem_sink_fn next, void *next_ctx)
{
    b->next = next;
    b->next_ctx = next_ctx;
}

void mem_budget_on_rss(mem_budget_t *b, uint64_t rss)
{
    if (!atomic_load_explicit(&b->learning, memory_order_relaxed))
        return;
    pthread_mutex_lock(&b->learn_lock);
    if (atomic_load(&b->learning) && rss > b->l_rss_peak)
        b->l_rss_peak = rss;
    pthread_mutex_unlock(&b->learn_lock);
}

void mem_budget_refusal(const mem_budget_t *b, char *out, size_t cap)
{
    char s_budget[32], s_base[32], s_need[32];
    fmt_bytes(s_budget, (double)b->budget);
    fmt_bytes(s_base, (double)b->baseline);
    fmt_bytes(s_need, (double)mem_budget_model_need(&b->model, MEM_BUDGET_SYNTH));
    if (b->budget <= b->baseline) {
        snprintf(out, cap, "--mem-budget %s is not above the baseline RSS of %s: no partition can be admitted",
                 s_budget, s_base);
        return;
    }
    snprintf(out, cap,
             "--mem-budget %s cannot admit one partition: it needs %s (the model of %s) beside a baseline RSS of "
             "%s",
             s_budget, s_need, b->model.source, s_base);
}

json_t *mem_budget_json(mem_budget_t *b)
{
    pthread_mutex_lock(&b->learn_lock);
    struct mem_budget_model m = b->model;
    bool ready = b->ready;
    pthread_mutex_unlock(&b->learn_lock);
    json_t *states = json_object(), *need = json_object();
    for (int s = 0; s < MEM_BUDGET_NSTATES; s++) {
        static const char *const names[MEM_BUDGET_NSTATES] = {"synthesizing", "waiting", "proving", "finishing"};
        const char *name = names[s];
        json_object_set_new(states, name, json_integer((json_int_t)m.state_bytes[s]));
        json_object_set_new(need, name,
                            ready ? json_integer((json_int_t)mem_budget_model_need(&m, (enum mem_budget_state)s))
                                  : json_null());
    }
    json_t *model = json_pack("{s:s, s:b, s:i, s:o, s:f, s:o}", "source", m.source, "ready", ready, "partitions",
                              (int)m.partitions, "bytes_per_partition", states, "untracked_share", m.untracked_share,
                              "baseline_rss", m.baseline > 0 ? json_integer((json_int_t)m.baseline) : json_null());
    return json_pack("{s:I, s:I, s:s, s:o, s:o, s:I, s:I, s:I, s:I}", "budget_bytes", (json_int_t)b->budget,
                     "baseline_bytes", (json_int_t)b->baseline, "baseline_from",
                     b->baseline_from_model ? "model" : "rss at start", "model", model, "need_bytes", need,
                     "reserved_peak_bytes", (json_int_t)b->reserved_peak, "admissions", (json_int_t)b->admissions,
                     "refusals", (json_int_t)b->refusals, "admitted_alone", (json_int_t)b->alone);
}
