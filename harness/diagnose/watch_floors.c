/*
 * The growth of a series of valley floors (watch_floors.h).
 */
#include "harness/diagnose/watch_floors.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_json.h"

void watch_growth_of(watch_growth_t *G, const double *x, const double *f, size_t m)
{
    memset(G, 0, sizeof *G);
    G->m = m;
    G->g = G->g_lo = G->g_hi = G->all = G->all_lo = G->all_hi = G->tail = G->tail_lo = G->tail_hi = NAN;
    G->bound_at = NAN;
    if (m == 0)
        return;
    G->first = f[0];
    G->last = f[m - 1];
    G->min = G->max = f[0];
    for (size_t k = 1; k < m; k++)
        G->min = fmin(G->min, f[k]), G->max = fmax(G->max, f[k]);
    if (m < WATCH_MIN_FLOORS)
        return;
    size_t la = m / 3, ta = 2 * m / 3;
    if (m - ta < 3)
        ta = m - 3;
    if (!analyze_fit_line(&G->all, &G->all_lo, &G->all_hi, &G->all_sd, x, f, m) ||
        !analyze_fit_line(&G->g, &G->g_lo, &G->g_hi, &G->g_sd, x + la, f + la, m - la))
        return;
    if (!analyze_fit_line(&G->tail, &G->tail_lo, &G->tail_hi, &G->tail_sd, x + ta, f + ta, m - ta))
        G->tail = G->tail_lo = G->tail_hi = NAN;
    G->fitted = true;
    G->span_late = x[m - 1] - x[la];
    G->growth_late = G->g * G->span_late;
    /* growth that matters: >= 1 MiB and >= 0.5% of the floors' level (a
     * 675 MiB program whose floors drifted 1.2 MiB read as a leak) */
    G->significant = G->g - WATCH_SIGNIFICANCE * (G->g - G->g_lo) > 0 &&
                     G->growth_late >= fmax(WATCH_MIN_GROWTH, WATCH_MIN_GROWTH_SHARE * fabs(f[la])) &&
                     G->growth_late >= WATCH_NOISE_FACTOR * G->g_sd;
    /* exact floors that stopped (a traced cache site) have tail 0: no growth */
    G->continues = isfinite(G->tail) && G->tail > 0 && G->tail >= WATCH_TAIL_SHARE * G->g &&
                   isfinite(G->tail_lo) && G->tail_lo > 0;
    /* grew: the last third's floors sit above the first ones by more than
     * the floors' own noise (from successive differences, so that a step
     * does not count as noise); without a leak that is a bound reached */
    double *d = malloc(m * sizeof *d);
    double noise = 0, head = analyze_median(f, 3), end = analyze_median(f + ta, m - ta);
    if (d) {
        for (size_t k = 1; k < m; k++)
            d[k - 1] = fabs(f[k] - f[k - 1]);
        noise = 1.4826 / sqrt(2.0) * analyze_median(d, m - 1);
        free(d);
    }
    double rise = end - head;
    G->rise = rise;
    G->noise = noise;
    G->grew = rise >= WATCH_MIN_GROWTH && rise >= 2 * WATCH_NOISE_FACTOR * noise;
    /* a leak also raises the floors from the first to the last third: a
     * slope found in autocorrelated noise alone does not (the verdict
     * panel: a noisy steady program read as a 1 MiB/s leak, its last
     * floors level with its first) */
    G->leak = G->significant && G->continues && rise >= fmax(WATCH_MIN_GROWTH, 2 * noise);
    /* a bound reached: the growth stopped, not one that goes on unproven
     * (the verdict panel: a slow leak read as a bounded cache): the last
     * third adds less than max(3 noise, 10% of the rise) */
    double span_tail = x[m - 1] - x[ta];
    G->span_tail = span_tail;
    bool stopped = !isfinite(G->tail) || (G->tail * span_tail < fmax(3 * noise, 0.1 * rise) &&
                                          !(G->tail_hi * span_tail >= 0.25 * rise && G->tail_hi > 0));
    G->bounded = !G->leak && G->grew && stopped;
    if (G->bounded)
        for (size_t k = 0; k < m; k++)
            if (f[k] >= head + 0.9 * rise) {
                G->bound_at = x[k];
                break;
            }
}

json_t *watch_growth_json(const watch_growth_t *G, bool per_proof)
{
    const char *u = per_proof ? "bytes_per_proof" : "bytes_per_s";
    json_t *o = json_object();
    json_object_set_new(o, "unit", json_string(per_proof ? "proof" : "s"));
    json_object_set_new(o, "floors", json_integer((json_int_t)G->m));
    json_object_set_new(o, "fitted", json_boolean(G->fitted));
    json_object_set_new(o, u, jnum(G->g));
    json_object_set_new(o, "ci95", json_pack("[oo]", jnum(G->g_lo), jnum(G->g_hi)));
    json_object_set_new(o, "all_floors", json_pack("{s:o,s:[oo]}", u, jnum(G->all), "ci95", jnum(G->all_lo),
                                                   jnum(G->all_hi)));
    json_object_set_new(o, "last_third", json_pack("{s:o,s:[oo]}", u, jnum(G->tail), "ci95", jnum(G->tail_lo),
                                                   jnum(G->tail_hi)));
    json_object_set_new(o, "residual_sd", jnum(G->g_sd));
    json_object_set_new(o, "growth_last_two_thirds", jbytes(G->growth_late));
    json_object_set_new(o, "significant", json_boolean(G->significant));
    json_object_set_new(o, "continues", json_boolean(G->continues));
    json_object_set_new(o, "leak", json_boolean(G->leak));
    json_object_set_new(o, "bounded", json_boolean(G->bounded));
    json_object_set_new(o, "rise", jnum(G->rise));
    json_object_set_new(o, "bound_reached_at", jnum(G->bound_at));
    return o;
}
