/*
 * The report's settings table (report_sections.h: report_sec_settings):
 * run.json's values as a person reads them. Sizes in binary units with the
 * exact count, durations by the unit their key names (_ms, _s, _us),
 * nested objects flattened into dotted keys, and no row for what was not
 * measured: null, empty strings and lists, and the device's numbers on a
 * run without a GPU.
 */
#include "harness/report/report_sections.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "harness/report/report_html.h"
#include "harness/run/units.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void row_kv(FILE *f, const char *k, const char *v)
{
    fputs("<tr><td class=\"k\">", f);
    html_esc(f, k);
    fputs("</td><td class=\"v\">", f);
    html_esc(f, v);
    fputs("</td></tr>\n", f);
}

/* The CUDA versions as recorded ("runtime 12.4, driver 0.0"): a driver
 * version 0 is no driver found, not a version. */
static void cuda_text(char *out, size_t cap, const char *v)
{
    const char *d = strstr(v, ", driver 0.0");
    if (d && d[strlen(", driver 0.0")] == 0)
        snprintf(out, cap, "%.*s (no CUDA driver found)", (int)(d - v), v);
    else
        snprintf(out, cap, "%s", v);
}

/*
 * A value as text: unit is the key whose name says the unit (the key
 * itself, or for "avg" in proof_wall_ms its parent). Returns false for a
 * value that says nothing was measured.
 */
static bool value_text(char *out, size_t cap, const char *key, const char *unit, const json_t *v, bool gpu_run)
{
    char b[32];
    bool bytes = ends_with(unit, "_bytes") || strcmp(unit, "mem_limit") == 0 || strcmp(unit, "gpu_mem") == 0 ||
                 ends_with(unit, "_rss") || strcmp(unit, "rss") == 0 || strncmp(unit, "rss_", 4) == 0 ||
                 strncmp(unit, "je_", 3) == 0 || strcmp(unit, "tracked") == 0 || strcmp(unit, "gpu_used") == 0 ||
                 strcmp(unit, "cgroup_bytes") == 0;
    if (json_is_null(v) || (json_is_string(v) && !json_string_value(v)[0]) ||
        (json_is_array(v) && json_array_size(v) == 0))
        return false;
    /* the device's numbers of a run without a GPU were never read */
    if (!gpu_run && (strncmp(key, "gpu_", 4) == 0 || strcmp(key, "gpu") == 0) && json_is_number(v) &&
        json_number_value(v) == 0)
        return false;
    if (json_is_string(v)) {
        if (strcmp(key, "cuda") == 0)
            cuda_text(out, cap, json_string_value(v));
        else
            snprintf(out, cap, "%s", json_string_value(v));
    } else if (json_is_boolean(v)) {
        snprintf(out, cap, "%s", json_is_true(v) ? "yes" : "no");
    } else if (json_is_number(v) && bytes) {
        snprintf(out, cap, "%s (%.0f)", fmt_bytes(b, json_number_value(v)), json_number_value(v));
    } else if (json_is_number(v) && (ends_with(unit, "_s") || ends_with(unit, "_ms")) && json_number_value(v) == 0) {
        return false; /* a step that did not run (a check of a key just made) */
    } else if (json_is_integer(v) && ends_with(unit, "_ms")) {
        snprintf(out, cap, "%lld ms", (long long)json_integer_value(v));
    } else if (json_is_number(v) && ends_with(unit, "_ms")) {
        snprintf(out, cap, "%.1f ms", json_number_value(v));
    } else if (json_is_number(v) && ends_with(unit, "_us")) {
        snprintf(out, cap, "%.0f \xc2\xb5s", json_number_value(v));
    } else if (json_is_number(v) && (ends_with(unit, "_s") || strncmp(unit, "s_per_", 6) == 0)) {
        snprintf(out, cap, "%.3g s", json_number_value(v));
    } else if (json_is_integer(v)) {
        snprintf(out, cap, "%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        snprintf(out, cap, "%.4g", json_real_value(v));
    } else if (json_is_array(v)) { /* a list of scalars: "0, 1" */
        size_t len = 0, i;
        const json_t *e;
        out[0] = 0;
        json_array_foreach((json_t *)v, i, e) {
            char one[64];
            if (json_is_object(e) || json_is_array(e) || !value_text(one, sizeof one, "", "", e, gpu_run))
                snprintf(one, sizeof one, "?");
            if (len + strlen(one) + 3 >= cap)
                break;
            len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? ", " : "", one);
        }
    } else {
        return false;
    }
    return true;
}

/* The members of o, one row each under prefix ("config."), nested objects
 * flattened with their key's unit passed down. */
static void rows_object(FILE *f, const char *prefix, const char *parent, const json_t *o, bool gpu_run, int depth)
{
    const char *key;
    const json_t *v;
    char k[256], text[1024];
    json_object_foreach((json_t *)o, key, v) {
        snprintf(k, sizeof k, "%s%s", prefix, key);
        if (json_is_object(v)) {
            char p[sizeof k + 2];
            snprintf(p, sizeof p, "%s.", k);
            if (depth < 3)
                rows_object(f, p, key, v, gpu_run, depth + 1);
            continue;
        }
        /* proof_wall_ms.avg: the unit is the parent's */
        const char *unit = parent && !strchr(key, '_') ? parent : key;
        if (value_text(text, sizeof text, key, unit, v, gpu_run))
            row_kv(f, k, text);
    }
}

void report_sec_settings(FILE *f, const json_t *rj)
{
    fputs("<h2 id=\"settings\">Run settings</h2>\n<table>\n", f);
    const json_t *cfg = json_object_get(rj, "config");
    const char *backend = json_string_value(json_object_get(cfg, "backend"));
    const json_t *gpu_used = json_object_get(json_object_get(rj, "baseline"), "gpu_used");
    /* a GPU run: the GPU backend, or (watch) a device use recorded */
    bool gpu_run = (backend && strcmp(backend, "gpu") == 0) ||
                   (!backend && json_is_number(gpu_used) && json_number_value(gpu_used) > 0);
    const char *key;
    const json_t *v;
    char text[1024];
    /* the run's own scalars first (status, outcome, ...), then its objects */
    json_object_foreach((json_t *)rj, key, v) {
        if (json_is_object(v) || json_is_array(v))
            continue;
        if (value_text(text, sizeof text, key, key, v, gpu_run))
            row_kv(f, key, text);
    }
    static const char *const objs[] = {"config",   "machine", "versions", "params",       "circuit_shape",
                                       "gpu_plan", "summary", "baseline", "memory_events"};
    for (size_t i = 0; i < sizeof objs / sizeof *objs; i++) {
        const json_t *o = json_object_get(rj, objs[i]);
        if (!json_is_object(o))
            continue;
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%s.", objs[i]);
        rows_object(f, prefix, NULL, o, gpu_run, 0);
    }
    fputs("</table>\n", f);
}
