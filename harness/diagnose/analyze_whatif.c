/* What each change would buy; see analyze_whatif.h. */
#include "harness/diagnose/analyze_whatif.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/diagnose/analyze_json.h"
#include "harness/diagnose/capacity.h"
#include "prover/mem.h"

#define WHATIF_MAX 24

struct entry {
    char change[160], made_by[160], type[24];
    bool checkable;
    double peak, saved;
    int largest;       /* -1: no limit */
    bool largest_any;  /* pw adds no memory: any pw fits */
};

/* The largest pw within the limit (as analyze's capacity block gives it),
 * and whether from there on pw adds no memory. */
static int largest_pw(const capacity_model_t *m, double limit, int pmax, bool *any)
{
    int w = capacity_max_pw(m, limit, pmax);
    capacity_point_t next;
    capacity_predict(&next, m, w + 1);
    *any = w > 0 && next.bound;
    return w;
}

static void fill(struct entry *e, const capacity_model_t *m, const analyze_result_t *R, double base_peak, int pmax)
{
    capacity_point_t c;
    capacity_predict(&c, m, R->pw);
    e->peak = c.peak;
    e->saved = base_peak - c.peak;
    e->largest = isfinite(R->limit_rss) ? largest_pw(m, R->limit_rss, pmax, &e->largest_any) : -1;
}

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    /* an "any pw" entry gains the most; then the pw, then the bytes */
    int gx = x->largest_any ? 1 << 20 : x->largest, gy = y->largest_any ? 1 << 20 : y->largest;
    if (gx != gy)
        return gx < gy ? 1 : -1;
    return (x->saved < y->saved) - (x->saved > y->saved);
}

int analyze_whatif(analyze_result_t *R, const analyze_run_t *run)
{
    json_t *arr = json_array();
    if (!arr)
        return -ENOMEM;
    json_object_set_new(R->json, "what_if", arr);
    R->whatif_line[0] = '\0';
    const capacity_model_t *m = &R->capacity;
    if (!m->ok) {
        json_object_set_new(R->json, "what_if_why", json_string(m->why[0] ? m->why : "no capacity model"));
        return 0;
    }
    const json_t *cfg = json_object_get(run->run_json, "config");
    const char *backend = json_string_value(json_object_get(cfg, "backend"));
    bool gpu = backend && strcmp(backend, "gpu") == 0;
    int pmax = R->pw > 0 ? (R->pw < 32 ? 64 : 2 * R->pw) : 64;
    capacity_point_t base;
    capacity_predict(&base, m, R->pw);
    bool now_any = false;
    int now = isfinite(R->limit_rss) ? largest_pw(m, R->limit_rss, pmax, &now_any) : -1;

    struct entry e[WHATIF_MAX];
    size_t n = 0;
    /* a kind freed at its last use, where that frees bytes */
    for (int k = 0; k < MEM_KIND_COUNT && n < WHATIF_MAX; k++) {
        if (k == MEM_KIND_PARAMS || k == MEM_KIND_CIRCUIT || k >= MEM_KIND_GPU_PARAMS)
            continue; /* resident by design, or device memory the host cap does not count */
        capacity_model_t w = *m;
        if (capacity_state_bytes_freed_at_last_use(w.state_bytes, m, &run->buffers, &run->stages,
                                                   mem_kind_name((enum mem_kind)k)) < 0)
            return -ENOMEM;
        if (memcmp(w.state_bytes, m->state_bytes, sizeof w.state_bytes) == 0)
            continue;
        struct entry *x = &e[n];
        memset(x, 0, sizeof *x);
        snprintf(x->type, sizeof x->type, "free_at_last_use");
        snprintf(x->change, sizeof x->change, "%s freed at its last use", mem_kind_name((enum mem_kind)k));
        x->checkable = (MEM_KINDS_FREEABLE_AT_LAST_USE >> k) & 1;
        if (x->checkable)
            snprintf(x->made_by, sizeof x->made_by, "--free-at-last-use %s", mem_kind_name((enum mem_kind)k));
        else
            snprintf(x->made_by, sizeof x->made_by, "model result only (the prover frees %s no earlier)",
                     mem_kind_name((enum mem_kind)k));
        fill(x, &w, R, base.peak, pmax);
        if (x->saved > 0)
            n++;
    }
    /* each occupancy bound one step lower */
    const json_t *gpus = json_object_get(cfg, "gpus");
    bool one_device = !json_is_array(gpus) || json_array_size(gpus) <= 1;
    static const struct {
        const char *name, *flag, *type;
        int floor;
    } bound[] = {{"prover queue depth", "--gpu-queue", "gpu_queue", 1},
                 {"prover workers", "--gpu-workers", "gpu_workers", 1},
                 {"finishing slots", "--finish-workers", "finishing", 1},
                 {"proofs in flight", "--concurrency", "concurrency", 1}};
    for (size_t b = 0; b < sizeof bound / sizeof bound[0] && n < WHATIF_MAX; b++) {
        capacity_model_t w = *m;
        int *v = b == 0 ? &w.gpu_queue : b == 1 ? &w.gpu_workers : b == 2 ? &w.finishing : &w.concurrency;
        if (*v - 1 < bound[b].floor || (b == 1 && !one_device))
            continue;
        (*v)--;
        struct entry *x = &e[n];
        memset(x, 0, sizeof *x);
        snprintf(x->type, sizeof x->type, "bound");
        snprintf(x->change, sizeof x->change, "%s %d -> %d", bound[b].name, *v + 1, *v);
        snprintf(x->made_by, sizeof x->made_by, "%s %d", bound[b].flag, *v);
        x->checkable = true;
        fill(x, &w, R, base.peak, pmax);
        if (x->saved > 0 || x->largest != now)
            n++;
    }
    /* the b_g2 scalars on the device: what a partition holds on the host
     * while finishing is their copy (capacity.h, CAPACITY_FINISH), gone */
    if (gpu && n < WHATIF_MAX) {
        capacity_model_t w = *m;
        w.state_bytes[CAPACITY_FINISH] = 0;
        struct entry *x = &e[n];
        memset(x, 0, sizeof *x);
        snprintf(x->type, sizeof x->type, "device");
        snprintf(x->change, sizeof x->change, "b_g2 scalars (pending) kept on the device");
        snprintf(x->made_by, sizeof x->made_by, "model result only (the prover keeps them on the host)");
        fill(x, &w, R, base.peak, pmax);
        if (x->saved > 0)
            n++;
    }
    /* allocator retention purged: the model's retention term (the freed
     * pages the synthesis arenas keep, capacity_retention.h) at zero, the
     * rest of the untracked part as it was */
    double kept = m->retention.measured ? m->retention.bytes : NAN;
    if (isfinite(kept) && kept > 0 && n < WHATIF_MAX) {
        capacity_model_t w = *m;
        w.retention.measured = false;
        struct entry *x = &e[n];
        memset(x, 0, sizeof *x);
        snprintf(x->type, sizeof x->type, "purge");
        snprintf(x->change, sizeof x->change, "allocator retention purged (%.1f MiB of freed pages at this pw)",
                 kept / (1 << 20));
        /* decay 0 returns every freed page at once; a purge after each
         * partition returns only what the finished ones freed, and the peak
         * comes while others work (at 2^15: 52.6 MiB against 46.8) */
        snprintf(x->made_by, sizeof x->made_by, "MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0");
        x->checkable = true;
        fill(x, &w, R, base.peak, pmax);
        if (x->saved > 0)
            n++;
    }
    qsort(e, n, sizeof e[0], cmp_entry);
    for (size_t i = 0; i < n; i++) {
        json_t *j = json_pack("{s:s, s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:b, s:b, s:n, s:s}", "change",
                              e[i].change, "type", e[i].type, "made_by", e[i].made_by, "checkable", e[i].checkable,
                              "peak_bytes", jbytes(e[i].peak), "peak_saved_bytes", jbytes(e[i].saved), "largest_pw",
                              e[i].largest >= 0 ? json_integer(e[i].largest) : json_null(), "largest_pw_now",
                              now >= 0 ? json_integer(now) : json_null(), "largest_pw_any", e[i].largest_any,
                              "largest_pw_now_any", now_any, "s_per_proof", "s_per_proof_why",
                              "the model holds bytes, not times: run the change to time it");
        json_array_append_new(arr, j);
    }
    if (n == 0)
        json_object_set_new(R->json, "what_if_why",
                            json_string("no change the model can price frees memory at this run's pw"));
    json_object_set_new(R->json, "what_if_pw", json_integer(R->pw));
    if (n && R->verdict == ANALYZE_CAPACITY) {
        char a[32], to[16];
        analyze_fmt_bytes(a, sizeof a, e[0].saved);
        if (e[0].largest < 0) {
            snprintf(R->whatif_line, sizeof R->whatif_line, "%s: peak %s lower (%s)", e[0].change, a, e[0].made_by);
        } else {
            if (e[0].largest_any)
                snprintf(to, sizeof to, "any");
            else
                snprintf(to, sizeof to, "%d", e[0].largest);
            snprintf(R->whatif_line, sizeof R->whatif_line, "%s: peak %s lower, largest pw %d -> %s (%s)",
                     e[0].change, a, now, to, e[0].made_by);
        }
    }
    return 0;
}

void analyze_whatif_text(FILE *f, const analyze_result_t *R)
{
    const json_t *arr = json_object_get(R->json, "what_if");
    if (!json_is_array(arr))
        return;
    if (!json_array_size(arr)) {
        const char *why = json_string_value(json_object_get(R->json, "what_if_why"));
        fprintf(f, "what-if      %s\n", why ? why : "no entry");
        return;
    }
    char a[32], b[32], c[32], lim[32];
    if (isfinite(R->limit_rss))
        fprintf(f, "what-if      each change alone, at this run's pw %d, against the limit %s (largest pw now %d); "
                   "ranked by the pw gained\n", R->pw, analyze_fmt_bytes(lim, sizeof lim, R->limit_rss),
                R->largest_pw);
    else
        fprintf(f, "what-if      each change alone, at this run's pw %d (no limit to fit: pass --ram or "
                   "--mem-limit for the largest pw)\n", R->pw);
    size_t i;
    const json_t *x;
    json_array_foreach(arr, i, x) {
        const json_t *lp = json_object_get(x, "largest_pw");
        char pw_text[80] = "";
        if (json_is_integer(lp))
            snprintf(pw_text, sizeof pw_text, "largest pw %s -> %s",
                     json_is_true(json_object_get(x, "largest_pw_now_any"))
                         ? "any"
                         : (snprintf(c, sizeof c, "%lld",
                                     (long long)json_integer_value(json_object_get(x, "largest_pw_now"))),
                            c),
                     json_is_true(json_object_get(x, "largest_pw_any"))
                         ? "any"
                         : (snprintf(b, sizeof b, "%lld", (long long)json_integer_value(lp)), b));
        fprintf(f, "             %-54s peak %9s (-%s)  %-22s %s\n", json_string_value(json_object_get(x, "change")),
                analyze_fmt_bytes(a, sizeof a, json_number_value(json_object_get(x, "peak_bytes"))),
                analyze_fmt_bytes(lim, sizeof lim, json_number_value(json_object_get(x, "peak_saved_bytes"))), pw_text,
                json_string_value(json_object_get(x, "made_by")));
    }
    fprintf(f, "             s/proof: cannot be given: the model holds bytes, not times; run the change to time it\n");
}
