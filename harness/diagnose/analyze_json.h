/*
 * Units and the small JSON helpers the diagnosis's files share: bytes and
 * numbers into the analysis JSON (null where not finite), numbers out of
 * run.json. Internal to harness/diagnose/; header only.
 */
#ifndef ZKB_ANALYZE_JSON_H
#define ZKB_ANALYZE_JSON_H

#include <jansson.h>
#include <math.h>
#include <stdint.h>

#include "harness/diagnose/analyze_names.h"

/* A number of run.json: a JSON number, or a size recorded as text ("755G");
 * NAN when absent or malformed. */
static inline double jnum_get(const json_t *o, const char *key)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v)) { /* sizes recorded as text, e.g. "755G" */
        uint64_t sz;
        if (analyze_parse_size(&sz, json_string_value(v)))
            return (double)sz;
    }
    return NAN;
}

static inline json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static inline json_t *jbytes(double v)
{
    return isfinite(v) ? json_integer((json_int_t)llround(v)) : json_null();
}

static inline json_t *coef_json(double v, double se)
{
    json_t *o = json_object();
    json_object_set_new(o, "value", jbytes(v));
    json_object_set_new(o, "se", jbytes(se));
    return o;
}

#endif
