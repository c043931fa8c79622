/*
 * snarkjs's proof.json, public.json and verification_key.json (see
 * iden3_json.h): written by hand to match snarkjs byte for byte, read with
 * jansson.
 */
#include "harness/formats/iden3_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arith/curve/encode.h"

static int fail(char *msg, size_t cap, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *msg, size_t cap, const char *path, const char *fmt, ...)
{
    int k = snprintf(msg, cap, "%s: ", path);
    if (k < 0 || (size_t)k >= cap)
        k = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + k, cap - (size_t)k, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* ---- writing --------------------------------------------------------- */

/* Writes the text atomically (temporary file renamed over path). */
static int write_text(const char *path, const char *text, char *msg, size_t cap)
{
    size_t len = strlen(path) + 16;
    char *tmp = malloc(len);
    if (!tmp)
        return fail(msg, cap, path, "out of memory");
    snprintf(tmp, len, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        free(tmp);
        fail(msg, cap, path, "cannot write: %s", strerror(e));
        return -e;
    }
    size_t n = strlen(text);
    bool ok = fwrite(text, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno ? errno : EIO;
        unlink(tmp);
        free(tmp);
        fail(msg, cap, path, "cannot write: %s", strerror(e));
        return -e;
    }
    free(tmp);
    return 0;
}

/* A growing string. */
typedef struct {
    char *s;
    size_t len, cap;
    bool oom;
} sbuf_t;

static void sb_add(sbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf_t *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->s && b->len + (size_t)k < b->cap) {
            b->len += (size_t)k;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 4096) + (size_t)k;
        char *ns = realloc(b->s, nc);
        if (!ns) {
            b->oom = true;
            return;
        }
        b->s = ns;
        b->cap = nc;
    }
}

int iden3_json_proof_write(const char *path, const groth16_proof_t *proof, char *msg, size_t cap)
{
    char a[3][ENCODE_FP_DEC_BYTES], c[3][ENCODE_FP_DEC_BYTES], b[6][ENCODE_FP_DEC_BYTES];
    encode_g1_to_dec(a, &proof->a);
    encode_g2_to_dec(b, &proof->b);
    encode_g1_to_dec(c, &proof->c);
    sbuf_t s = {0};
    sb_add(&s, "{\n \"pi_a\": [\n  \"%s\",\n  \"%s\",\n  \"%s\"\n ],\n", a[0], a[1], a[2]);
    sb_add(&s, " \"pi_b\": [\n");
    for (int i = 0; i < 3; i++)
        sb_add(&s, "  [\n   \"%s\",\n   \"%s\"\n  ]%s\n", b[2 * i], b[2 * i + 1], i < 2 ? "," : "");
    sb_add(&s, " ],\n \"pi_c\": [\n  \"%s\",\n  \"%s\",\n  \"%s\"\n ],\n", c[0], c[1], c[2]);
    sb_add(&s, " \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}");
    int rc = s.oom ? fail(msg, cap, path, "out of memory") : write_text(path, s.s, msg, cap);
    free(s.s);
    return rc;
}

int iden3_json_public_write(const char *path, const fr_t *inputs, size_t n, char *msg, size_t cap)
{
    sbuf_t s = {0};
    if (n == 0) {
        sb_add(&s, "[\n]"); /* what snarkjs (bfj) writes for no signals */
    } else {
        sb_add(&s, "[");
        for (size_t i = 0; i < n; i++) {
            char d[ENCODE_FR_DEC_BYTES];
            encode_fr_to_dec(d, sizeof d, &inputs[i]);
            sb_add(&s, "\n \"%s\"%s", d, i + 1 < n ? "," : "");
        }
        sb_add(&s, "\n]");
    }
    int rc = s.oom ? fail(msg, cap, path, "out of memory") : write_text(path, s.s, msg, cap);
    free(s.s);
    return rc;
}

/* ---- reading --------------------------------------------------------- */

static json_t *load(const char *path, char *msg, size_t cap, int *rc)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        FILE *f = fopen(path, "r");
        if (!f) {
            int e = errno;
            fail(msg, cap, path, "cannot open: %s", strerror(e));
            *rc = -e;
            return NULL;
        }
        fclose(f);
        *rc = fail(msg, cap, path, "not valid JSON: %s (line %d)", je.text, je.line);
        return NULL;
    }
    return j;
}

/* Collects n strings of a (nested) array into out; names the field on error. */
static int flat_strings(const char *out[6], json_t *arr, const int *shape, int depth, const char *path,
                        const char *field, char *msg, size_t cap)
{
    if (!json_is_array(arr) || json_array_size(arr) != (size_t)shape[0])
        return fail(msg, cap, path, "%s: expected an array of %d%s", field, shape[0],
                    depth ? " arrays of 2 strings" : " strings");
    int k = 0;
    for (int i = 0; i < shape[0]; i++) {
        json_t *e = json_array_get(arr, (size_t)i);
        if (depth) {
            if (!json_is_array(e) || json_array_size(e) != 2)
                return fail(msg, cap, path, "%s[%d]: expected an array of 2 strings", field, i);
            for (int j = 0; j < 2; j++) {
                json_t *x = json_array_get(e, (size_t)j);
                if (!json_is_string(x))
                    return fail(msg, cap, path, "%s[%d][%d]: expected a decimal string", field, i, j);
                out[k++] = json_string_value(x);
            }
        } else {
            if (!json_is_string(e))
                return fail(msg, cap, path, "%s[%d]: expected a decimal string", field, i);
            out[k++] = json_string_value(e);
        }
    }
    return 0;
}

static int read_g1(g1_affine_t *ret, json_t *obj, const char *field, const char *path, char *msg, size_t cap)
{
    static const int shape[1] = {3};
    const char *s[6];
    json_t *arr = json_object_get(obj, field);
    if (!arr)
        return fail(msg, cap, path, "%s is missing", field);
    int rc = flat_strings(s, arr, shape, 0, path, field, msg, cap);
    if (rc < 0)
        return rc;
    if ((rc = encode_g1_from_dec(ret, s, 0)) < 0)
        return fail(msg, cap, path, "%s: %s", field, encode_strerror(rc));
    return 0;
}

static int read_g2(g2_affine_t *ret, json_t *obj, const char *field, const char *path, char *msg, size_t cap)
{
    static const int shape[1] = {3};
    const char *s[6];
    json_t *arr = json_object_get(obj, field);
    if (!arr)
        return fail(msg, cap, path, "%s is missing", field);
    int rc = flat_strings(s, arr, shape, 1, path, field, msg, cap);
    if (rc < 0)
        return rc;
    if ((rc = encode_g2_from_dec(ret, s, 0)) < 0)
        return fail(msg, cap, path, "%s: %s", field, encode_strerror(rc));
    return 0;
}

/* protocol groth16 and curve bls12381 where present (snarkjs always
 * writes both). */
static int check_kind(json_t *j, const char *path, char *msg, size_t cap)
{
    json_t *p = json_object_get(j, "protocol"), *c = json_object_get(j, "curve");
    if (p && (!json_is_string(p) || strcmp(json_string_value(p), "groth16") != 0))
        return fail(msg, cap, path, "protocol is %s, expected \"groth16\"",
                    json_is_string(p) ? json_string_value(p) : "not a string");
    if (c && (!json_is_string(c) || strcmp(json_string_value(c), "bls12381") != 0))
        return fail(msg, cap, path, "curve is %s, expected \"bls12381\" (zkbench verifies over bls12381 only)",
                    json_is_string(c) ? json_string_value(c) : "not a string");
    return 0;
}

int iden3_json_proof_read(groth16_proof_t *proof, const char *path, char *msg, size_t cap)
{
    int rc = 0;
    json_t *j = load(path, msg, cap, &rc);
    if (!j)
        return rc;
    groth16_proof_t p;
    if (!json_is_object(j))
        rc = fail(msg, cap, path, "expected a JSON object with pi_a, pi_b and pi_c");
    else if ((rc = check_kind(j, path, msg, cap)) >= 0 && (rc = read_g1(&p.a, j, "pi_a", path, msg, cap)) >= 0 &&
             (rc = read_g2(&p.b, j, "pi_b", path, msg, cap)) >= 0 &&
             (rc = read_g1(&p.c, j, "pi_c", path, msg, cap)) >= 0)
        *proof = p;
    json_decref(j);
    return rc < 0 ? rc : 0;
}

int iden3_json_public_read(fr_t **inputs, size_t *n, const char *path, char *msg, size_t cap)
{
    int rc = 0;
    json_t *j = load(path, msg, cap, &rc);
    if (!j)
        return rc;
    fr_t *v = NULL;
    size_t k = json_is_array(j) ? json_array_size(j) : 0;
    if (!json_is_array(j)) {
        rc = fail(msg, cap, path, "expected a JSON array of decimal strings");
        goto done;
    }
    v = calloc(k + 1, sizeof *v);
    if (!v) {
        rc = fail(msg, cap, path, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < k; i++) {
        json_t *e = json_array_get(j, i);
        if (!json_is_string(e)) {
            rc = fail(msg, cap, path, "element %zu: expected a decimal string", i);
            goto done;
        }
        int r = encode_fr_from_dec(&v[i], json_string_value(e));
        if (r < 0) {
            rc = fail(msg, cap, path, "element %zu (\"%.80s\"): %s", i, json_string_value(e), encode_strerror(r));
            goto done;
        }
    }
    *inputs = v;
    *n = k;
    v = NULL;
done:
    free(v);
    json_decref(j);
    return rc < 0 ? rc : 0;
}

int iden3_json_vk_read(groth16_vk_t *vk, const char *path, char *msg, size_t cap)
{
    int rc = 0;
    json_t *j = load(path, msg, cap, &rc);
    if (!j)
        return rc;
    groth16_vk_t v = {0};
    if (!json_is_object(j)) {
        rc = fail(msg, cap, path, "expected a JSON object (a snarkjs verification key)");
        goto done;
    }
    if ((rc = check_kind(j, path, msg, cap)) < 0)
        goto done;
    json_t *np = json_object_get(j, "nPublic"), *ic = json_object_get(j, "IC");
    if (!json_is_integer(np) || json_integer_value(np) < 0) {
        rc = fail(msg, cap, path, "nPublic is missing or not a non-negative integer");
        goto done;
    }
    size_t n = (size_t)json_integer_value(np);
    if (!json_is_array(ic) || json_array_size(ic) != n + 1) {
        rc = fail(msg, cap, path, "IC: expected an array of nPublic + 1 = %zu points", n + 1);
        goto done;
    }
    if ((rc = read_g1(&v.alpha_g1, j, "vk_alpha_1", path, msg, cap)) < 0 ||
        (rc = read_g2(&v.beta_g2, j, "vk_beta_2", path, msg, cap)) < 0 ||
        (rc = read_g2(&v.gamma_g2, j, "vk_gamma_2", path, msg, cap)) < 0 ||
        (rc = read_g2(&v.delta_g2, j, "vk_delta_2", path, msg, cap)) < 0)
        goto done;
    v.n_ic = n + 1;
    v.ic = calloc(n + 1, sizeof *v.ic);
    if (!v.ic) {
        rc = fail(msg, cap, path, "out of memory");
        goto done;
    }
    for (size_t i = 0; i <= n; i++) {
        char field[32];
        snprintf(field, sizeof field, "IC[%zu]", i);
        json_t *holder = json_object();
        json_object_set(holder, field, json_array_get(ic, i));
        rc = read_g1(&v.ic[i], holder, field, path, msg, cap);
        json_decref(holder);
        if (rc < 0)
            goto done;
    }
    v.beta_g1 = G1_INFINITY;
    v.delta_g1 = G1_INFINITY;
    *vk = v;
    v.ic = NULL;
    rc = 0;
done:
    free(v.ic);
    json_decref(j);
    return rc;
}
