/* The capacity model in words and as JSON (analyze's report, sweep's
 * lines, capacity in analyze --json); the model itself is capacity.c. */
#include "harness/diagnose/capacity.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "harness/diagnose/analyze_names.h"

/* ---- words ---- */

void capacity_bound_text(char *out, size_t cap, const capacity_model_t *m, int pw_max)
{
    char b1[32];
    int sat = capacity_saturation_pw(m, pw_max);
    if (sat > 0) {
        /* the occupancy at saturation, as the model fills it: the sat
         * slots, then what the other states hold (the lightest may be
         * empty) */
        capacity_point_t at;
        capacity_predict(&at, m, sat);
        int queued = at.n[CAPACITY_HELD] + at.n[CAPACITY_SYNTH] - sat;
        char queue[64];
        if (queued == m->gpu_queue)
            snprintf(queue, sizeof queue, "the prover queue (depth %d)", m->gpu_queue);
        else
            snprintf(queue, sizeof queue, "%d of the prover queue's %d places", queued, m->gpu_queue);
        snprintf(out, cap,
                 "pw above %d adds no memory: at most %d proof%s x %d partitions are in flight, and %s, %d prover "
                 "worker%s and %d finishing hold the rest",
                 sat, m->concurrency, m->concurrency == 1 ? "" : "s", m->partitions, queue, at.n[CAPACITY_PROVE],
                 at.n[CAPACITY_PROVE] == 1 ? "" : "s", at.n[CAPACITY_FINISH]);
    } else {
        /* the freed pages one more worker's arena keeps, as the model has it */
        capacity_point_t c1, c2, most;
        capacity_predict(&c1, m, m->pw);
        capacity_predict(&c2, m, m->pw + 1);
        capacity_predict(&most, m, 4096);
        double part = (1 + m->rest_share) * fmax(m->state_bytes[CAPACITY_SYNTH], m->state_bytes[CAPACITY_HELD]);
        char kept[160] = "";
        if (c2.retention > c1.retention)
            snprintf(kept, sizeof kept, ", and %s of freed pages its arena keeps (%s in all at most)",
                     analyze_fmt_bytes((char[32]){0}, 32, c2.retention - c1.retention),
                     analyze_fmt_bytes((char[32]){0}, 32, most.retention));
        if (m->rest_share < 0)
            snprintf(out, cap, "each synthesis worker (pw) adds %s (the partition it holds, less the %.0f%% of it "
                     "the run found in baseline memory%s)",
                     analyze_fmt_bytes(b1, sizeof b1, part + c2.retention - c1.retention), -100 * m->rest_share,
                     kept);
        else
            snprintf(out, cap, "each synthesis worker (pw) adds %s (the partition it holds, with %.0f%% untracked%s)",
                     analyze_fmt_bytes(b1, sizeof b1, part + c2.retention - c1.retention), 100 * m->rest_share,
                     kept);
    }
}

void capacity_fits_text(char *out, size_t cap, const capacity_model_t *m, int largest_pw)
{
    char b1[32], b2[32], b3[32], b4[32], bound[480], rest[160];
    if (!m->ok) {
        snprintf(out, cap, "the largest pw that fits cannot be given: %s", m->why);
        return;
    }
    capacity_bound_text(bound, sizeof bound, m, 4096);
    /* RSS below the baseline plus the partitions' bytes: the run reused
     * memory the baseline held (freed pages, the parameter load's scratch),
     * not a negative footprint */
    if (m->untracked_share < 0)
        snprintf(rest, sizeof rest, "the run reused %s of the baseline's memory (RSS stayed %.0f%% below baseline "
                 "plus the partitions' bytes)", analyze_fmt_bytes(b4, sizeof b4, -m->untracked),
                 -100 * m->untracked_share);
    else if (m->retention.bytes > 0)
        snprintf(rest, sizeof rest, "plus %.0f%% untracked, %s of it freed pages the allocator keeps",
                 100 * m->untracked_share, analyze_fmt_bytes(b4, sizeof b4, m->retention.bytes));
    else
        snprintf(rest, sizeof rest, "plus %.0f%% untracked", 100 * m->untracked_share);
    int n = snprintf(out, cap, "a partition holds %s synthesizing, %s waiting, %s proving, %s finishing, %s; %s",
                     analyze_fmt_bytes(b1, sizeof b1, m->state_bytes[CAPACITY_SYNTH]),
                     analyze_fmt_bytes(b2, sizeof b2, m->state_bytes[CAPACITY_HELD]),
                     analyze_fmt_bytes(b3, sizeof b3, m->state_bytes[CAPACITY_PROVE]),
                     analyze_fmt_bytes((char[32]){0}, 32, m->state_bytes[CAPACITY_FINISH]), rest, bound);
    int sat = capacity_saturation_pw(m, 4096);
    if (n > 0 && (size_t)n < cap && largest_pw >= 0 && sat > 0 && largest_pw >= sat)
        snprintf(out + n, cap - (size_t)n, "; so any pw fits the limit");
    else if (n > 0 && (size_t)n < cap && largest_pw >= 0)
        snprintf(out + n, cap - (size_t)n, "; the largest pw that fits is %d", largest_pw);
}

/* ---- JSON ---- */

static json_t *jb(double v)
{
    return isfinite(v) ? json_integer((json_int_t)llround(v)) : json_null();
}

json_t *capacity_json(const capacity_model_t *m, int pw_max, double limit)
{
    json_t *j = json_object(), *states = json_object(), *pred = json_array();
    json_object_set_new(j, "ok", json_boolean(m->ok));
    for (int s = 0; s < CAPACITY_NSTATES; s++)
        json_object_set_new(states, capacity_state_name((enum capacity_state)s), jb(m->state_bytes[s]));
    json_object_set_new(j, "bytes_per_partition", states);
    json_object_set_new(j, "partitions_measured", json_integer((json_int_t)m->partitions_measured));
    json_object_set_new(j, "untracked",
                        json_pack("{s:o,s:o,s:f,s:o,s:I}", "bytes_at_peak", jb(m->untracked), "sd",
                                  jb(m->untracked_sd), "share_of_tracked", m->untracked_share, "tracked_at_run",
                                  jb(m->tracked_run), "samples", (json_int_t)m->fit_samples));
    json_t *ret = capacity_retention_json(&m->retention, m->pw);
    json_object_set_new(ret, "rest_at_peak", jb(m->rest));
    json_object_set_new(ret, "rest_share_of_tracked", json_real(m->rest_share));
    json_object_set_new(j, "retention", ret);
    json_object_set_new(j, "bounds",
                        json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "pw", m->pw, "gpu_queue", m->gpu_queue, "gpu_workers",
                                  m->gpu_workers, "concurrency", m->concurrency, "partitions", m->partitions,
                                  "finishing", m->finishing));
    if (!m->ok) {
        json_object_set_new(j, "why", json_string(m->why));
        json_object_set_new(j, "predicted", pred);
        json_object_set_new(j, "max_pw", json_null());
        json_object_set_new(j, "bound_by", json_null());
        return j;
    }
    if (m->warning[0])
        json_object_set_new(j, "warning", json_string(m->warning));
    json_object_set_new(j, "model_at_run", json_pack("{s:i,s:o,s:o}", "pw", m->pw, "predicted",
                                                     jb(m->model_peak_at_run), "measured", jb(m->measured_peak)));
    json_object_set_new(j, "load_peak", jb(m->load_peak));
    int sat = capacity_saturation_pw(m, 4096), mx = isfinite(limit) ? capacity_max_pw(m, limit, 4096) : 0;
    int last = pw_max;
    if (sat > 0 && sat + 1 > last)
        last = sat + 1;
    if (mx + 1 > last)
        last = mx + 1;
    if (last > 64 && last > pw_max)
        last = pw_max > 64 ? pw_max : 64; /* the list goes into run.json: keep it readable */
    for (int w = 1; w <= last; w++) {
        capacity_point_t c;
        capacity_predict(&c, m, w);
        json_t *occ = json_object();
        for (int s = 0; s < CAPACITY_NSTATES; s++)
            json_object_set_new(occ, capacity_state_name((enum capacity_state)s), json_integer(c.n[s]));
        json_array_append_new(pred, json_pack("{s:i,s:o,s:o,s:o,s:o,s:b,s:b,s:o}", "pw", w, "peak_rss", jb(c.peak),
                                              "low", jb(c.low), "high", jb(c.high), "occupancy", occ, "bound",
                                              c.bound, "load_peak", c.load, "retention", jb(c.retention)));
    }
    json_object_set_new(j, "predicted", pred);
    char text[480];
    capacity_bound_text(text, sizeof text, m, 4096);
    json_object_set_new(j, "bound_text", json_string(text));
    if (isfinite(limit)) {
        capacity_point_t c;
        capacity_predict(&c, m, mx + 1);
        json_object_set_new(j, "limit_bytes", jb(limit));
        json_object_set_new(j, "max_pw", json_integer(mx));
        /* in-flight: pw mx + 1 and above fit too, but add nothing */
        json_object_set_new(j, "bound_by", json_string(c.bound && c.peak <= limit ? "in-flight" : "memory"));
    } else {
        json_object_set_new(j, "max_pw", json_null());
        json_object_set_new(j, "bound_by", json_null());
    }
    return j;
}
