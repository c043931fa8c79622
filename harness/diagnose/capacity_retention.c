/* Allocator retention in the capacity model: the rule is in
 * capacity_retention.h, the per-arena measurements behind its footprint
 * bound in docs/diagnosis.md ("Capacity and other pw values"). */
#include "harness/diagnose/capacity_retention.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 90th percentile of v[0..k) (k > 0), as the residual's; v is sorted. */
static double p90(double *v, size_t k)
{
    qsort(v, k, sizeof *v, cmp_dbl);
    return v[(size_t)floor(0.9 * (double)(k - 1))];
}

int capacity_retention_measure(capacity_retention_t *r, const double *ret, const double *arena, const double *count,
                               size_t k)
{
    r->measured = ret != NULL && k > 0;
    r->per_arena = r->measured && arena != NULL;
    r->bytes = r->arena = 0;
    r->arenas = 0;
    if (!r->measured)
        return 0;
    double *v = malloc(k * sizeof *v);
    if (!v)
        return -ENOMEM;
    memcpy(v, ret, k * sizeof *v);
    r->bytes = fmax(0, p90(v, k));
    if (r->per_arena) {
        memcpy(v, arena, k * sizeof *v);
        r->arena = fmin(fmax(0, p90(v, k)), r->bytes);
    }
    for (size_t i = 0; count && i < k; i++)
        if (count[i] > r->arenas && count[i] < 1 << 20)
            r->arenas = (int)count[i];
    free(v);
    return 0;
}

/* A setting from the allocator object: its value, or dflt when absent. */
static double setting(const json_t *allocator, const char *key, double dflt)
{
    const json_t *v = json_object_get(allocator, key);
    return json_is_integer(v) ? (double)json_integer_value(v) : dflt;
}

void capacity_retention_settings(capacity_retention_t *r, const json_t *allocator)
{
    double n = setting(allocator, "narenas", 0);
    r->arenas_max = n >= 1 && n <= 1 << 20 ? (int)n : 0;
    r->dirty_decay_ms = setting(allocator, "dirty_decay_ms", NAN);
    r->muzzy_decay_ms = setting(allocator, "muzzy_decay_ms", NAN);
}

double capacity_retention_window(const double *t, const double *bytes, size_t n, double window_ms)
{
    double best = 0, sum = 0;
    size_t lo = 0;
    for (size_t i = 0; i < n; i++) {
        sum += bytes[i];
        while (window_ms >= 0 && t[i] - t[lo] > window_ms)
            sum -= bytes[lo++];
        best = fmax(best, sum);
    }
    return best;
}

/* The arenas w synthesis workers allocate from. */
static double arenas_of(const capacity_retention_t *r, int w)
{
    return r->arenas_max > 0 && w > r->arenas_max ? r->arenas_max : (w > 0 ? w : 1);
}

/* The three bounds at `workers` alone (capacity_retention_at). */
static double retention_bounds(const capacity_retention_t *r, int workers_fit, int workers, int held, int waiting)
{
    if (r->dirty_decay_ms == 0 && r->muzzy_decay_ms == 0)
        return r->bytes; /* freed pages go back at once: nothing accumulates with more arenas */
    double a_fit = arenas_of(r, workers_fit), a = arenas_of(r, workers);
    double per = r->per_arena ? r->arena : r->bytes / a_fit;
    double R = r->bytes + (a - a_fit) * per;
    if (a > a_fit) {
        /* each synthesis arena holds, live and kept, at most its turn's
         * share of the partitions held at the peak (it reuses its own
         * freed pages); the partitions waiting are live in them, not
         * kept; the other arenas keep what they kept at the fit */
        if (r->partition_bytes > 0 && isfinite(r->partition_bytes) && held > 0) {
            double other = fmax(0, r->bytes - a_fit * per);
            double share = ceil((double)held / a);
            double footprint = a * share * r->partition_bytes;
            R = fmin(R, fmax(r->bytes, other + footprint - (waiting > 0 ? waiting : 0) * r->partition_bytes));
        }
        /* pages freed more than a decay period ago are returned; freeing
         * grows at most with the workers */
        R = fmin(R, fmax(r->bytes, r->freed_in_decay * a / a_fit));
    }
    return fmax(0, R);
}

double capacity_retention_at(const capacity_retention_t *r, int workers_fit, int workers, int held, int waiting)
{
    if (!r->measured)
        return 0;
    /* The footprint bound's share is a whole number of partitions, so the
     * bounds alone can fall with one more worker (fitted at pw 1 with 20
     * MiB kept, 19 in one arena, partitions of 8 MiB, L = w + 3: 20, 25,
     * 20, 25 MiB at w = 1..4). w workers can run every
     * schedule fewer workers do (one idles), each of them holding one
     * partition less in synthesis: R at w is the largest bound at any w'
     * from the fit's workers to w. */
    double R = retention_bounds(r, workers_fit, workers, held, waiting);
    for (int d = 1; workers - d >= workers_fit && held - d > 0; d++)
        R = fmax(R, retention_bounds(r, workers_fit, workers - d, held - d, waiting - d));
    return R;
}

static json_t *jbytes(double v)
{
    return isfinite(v) ? json_integer((json_int_t)llround(v)) : json_null();
}

static json_t *jms(double v)
{
    return isfinite(v) ? json_integer((json_int_t)v) : json_null();
}

json_t *capacity_retention_json(const capacity_retention_t *r, int workers_fit)
{
    return json_pack("{s:b, s:b, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "measured", r->measured,
                     "per_arena_measured", r->per_arena, "bytes_at_fit", jbytes(r->bytes), "per_arena",
                     jbytes(r->per_arena ? r->arena : r->bytes / arenas_of(r, workers_fit)), "arenas_at_fit",
                     r->arenas, "narenas", r->arenas_max > 0 ? json_integer(r->arenas_max) : json_null(),
                     "dirty_decay_ms", jms(r->dirty_decay_ms), "muzzy_decay_ms", jms(r->muzzy_decay_ms),
                     "freed_in_decay", jbytes(r->freed_in_decay), "partition_bytes", jbytes(r->partition_bytes),
                     "synthesis_arenas_at_fit", json_real(arenas_of(r, workers_fit)));
}
