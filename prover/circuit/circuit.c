/* Circuits by spec; see circuit.h. */
#include "prover/circuit/circuit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prover/circuit/porep.h"
#include "prover/iden3/wtns_file.h"
#include "prover/iden3/zkey_file.h"
#include "prover/iden3/zkey_prove.h"
#include "prover/mem.h"

static int porep_witness_cb(const circuit_t *c, fr_t *w, uint64_t seed, unsigned partition, unsigned threads)
{
    return porep_witness(w, c->impl, seed, partition, threads);
}

static void porep_destroy_cb(circuit_t *c)
{
    porep_free(c->impl);
}

static int porep_spec(porep_params_t *params, const char *spec, unsigned partitions, char *err, size_t cap)
{
    int rc = porep_parse_spec(params, spec);
    if (rc == -ERANGE) {
        snprintf(err, cap, "circuit '%s': a value is out of range (constraints 2^10..2^27, partitions 1..%d, "
                 "depth 1..%d)", spec, POREP_MAX_PARTITIONS, POREP_MAX_DEPTH);
        return rc;
    }
    if (rc < 0) {
        snprintf(err, cap, "circuit '%s': malformed (expected porep:constraints=2^N[,partitions=K,depth=D,"
                 "challenges=C] or porep:preset=32g[,partitions=K])", spec);
        return rc;
    }
    if (partitions > 0) {
        if (partitions > POREP_MAX_PARTITIONS) {
            snprintf(err, cap, "partitions %u out of range 1..%d", partitions, POREP_MAX_PARTITIONS);
            return -ERANGE;
        }
        params->partitions = partitions;
    }
    return 0;
}

static int circuit_porep(circuit_t *c, const char *spec, unsigned partitions, char *err, size_t cap)
{
    porep_params_t params;
    int rc = porep_spec(&params, spec, partitions, err, cap);
    if (rc < 0)
        return rc;
    porep_t *p;
    rc = porep_build(&p, &params);
    if (rc < 0) {
        snprintf(err, cap, "circuit '%s': cannot be built: %s", spec,
                 rc == -ENOMEM ? "out of memory" : "depth and challenges do not fit the constraint target");
        return rc;
    }
    c->r1cs = p->r1cs;
    c->partitions = p->params.partitions;
    c->witness = porep_witness_cb;
    c->destroy = porep_destroy_cb;
    c->impl = p;
    snprintf(c->spec, sizeof c->spec, "porep:constraints=%llu,partitions=%u,depth=%u,challenges=%u",
             (unsigned long long)p->params.constraints, p->params.partitions, p->params.depth,
             p->params.challenges);
    return 0;
}

/* ---- zkey:PATH,wtns:PATH -------------------------------------------------- */

struct zkey_circuit {
    iden3_zkey_t *z;
    fr_t *w; /* the witness (tracked, kind aux) */
    size_t n_w;
};

static int zkey_witness_cb(const circuit_t *c, fr_t *w, uint64_t seed, unsigned partition, unsigned threads)
{
    (void)seed;
    (void)threads;
    const struct zkey_circuit *zc = c->impl;
    if (partition >= c->partitions)
        return -EINVAL;
    memcpy(w, zc->w, zc->n_w * sizeof *w);
    return 0;
}

static int zkey_prove_cb(const circuit_t *c, groth16_proof_t *proof, const fr_t *w,
                         const struct groth16_prove_opts *o)
{
    const struct zkey_circuit *zc = c->impl;
    struct iden3_prove_opts io;
    iden3_prove_opts_default(&io);
    io.threads = o->threads;
    io.proof = o->proof;
    io.partition = o->partition;
    io.times = o->times;
    io.on_stage = o->on_stage;
    io.stage_ctx = o->stage_ctx;
    return iden3_zkey_prove(proof, zc->z, w, zc->n_w, &io);
}

static void zkey_destroy_cb(circuit_t *c)
{
    struct zkey_circuit *zc = c->impl;
    if (!zc)
        return;
    iden3_zkey_free(zc->z);
    mem_free(zc->w);
    free(zc);
}

/* "zkey:PATH,wtns:PATH" into its two paths (either order). */
static int zkey_spec(char *zkey, char *wtns, size_t cap, const char *spec, char *err, size_t errcap)
{
    zkey[0] = wtns[0] = 0;
    const char *s = spec;
    while (*s) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char *dst = NULL;
        size_t skip = 0;
        if (len > 5 && strncmp(s, "zkey:", 5) == 0)
            dst = zkey, skip = 5;
        else if (len > 5 && strncmp(s, "wtns:", 5) == 0)
            dst = wtns, skip = 5;
        if (!dst || dst[0] || len - skip >= cap) {
            snprintf(err, errcap, "circuit '%s': expected zkey:PATH,wtns:PATH", spec);
            return -EINVAL;
        }
        memcpy(dst, s + skip, len - skip);
        dst[len - skip] = 0;
        s += len + (end ? 1 : 0);
    }
    if (!zkey[0] || !wtns[0]) {
        snprintf(err, errcap, "circuit '%s': expected zkey:PATH,wtns:PATH", spec);
        return -EINVAL;
    }
    return 0;
}

static int circuit_zkey(circuit_t *c, const char *spec, unsigned partitions, char *err, size_t cap)
{
    char zkey[1024], wtns[1024];
    int rc = zkey_spec(zkey, wtns, sizeof zkey, spec, err, cap);
    if (rc < 0)
        return rc;
    struct zkey_circuit *zc = calloc(1, sizeof *zc);
    if (!zc) {
        snprintf(err, cap, "out of memory");
        return -ENOMEM;
    }
    iden3_error_t ie;
    if ((rc = iden3_zkey_open(&zc->z, zkey, /* record_dir= */ NULL, 0, NULL, &ie)) < 0 ||
        (rc = iden3_wtns_read(&zc->w, &zc->n_w, wtns, -1, &ie)) < 0) {
        snprintf(err, cap, "%s", ie.msg);
        zkey_destroy_cb(&(circuit_t){.impl = zc});
        return rc == -ENOMEM ? rc : -EINVAL;
    }
    if (zc->n_w != zc->z->n_vars) {
        snprintf(err, cap, "%s has %zu witness values, %s expects %u: they do not belong together", wtns, zc->n_w,
                 zkey, zc->z->n_vars);
        zkey_destroy_cb(&(circuit_t){.impl = zc});
        return -EINVAL;
    }
    c->r1cs = zc->z->ab;
    c->partitions = partitions ? partitions : 1;
    c->witness = zkey_witness_cb;
    c->destroy = zkey_destroy_cb;
    c->impl = zc;
    c->vk = &zc->z->vk;
    c->prove = zkey_prove_cb;
    snprintf(c->spec, sizeof c->spec, "zkey:%.100s,wtns:%.100s", zkey, wtns);
    return 0;
}

static bool is_zkey(const char *spec)
{
    return strncmp(spec, "zkey:", 5) == 0 || strncmp(spec, "wtns:", 5) == 0;
}

static bool is_porep(const char *spec)
{
    return strcmp(spec, "porep") == 0 || strncmp(spec, "porep:", 6) == 0;
}

int circuit_from_spec(circuit_t **ret, const char *spec, unsigned partitions, char *err, size_t cap)
{
    circuit_t *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, cap, "out of memory");
        return -ENOMEM;
    }
    int rc;
    if (is_porep(spec)) {
        rc = circuit_porep(c, spec, partitions, err, cap);
    } else if (is_zkey(spec)) {
        rc = circuit_zkey(c, spec, partitions, err, cap);
    } else {
        snprintf(err, cap, "unknown circuit '%s' (known: porep:constraints=2^N,..., zkey:PATH,wtns:PATH)", spec);
        rc = -EINVAL;
    }
    if (rc < 0) {
        free(c);
        return rc;
    }
    *ret = c;
    return 0;
}

int circuit_check_spec(const char *spec, unsigned partitions, char *err, size_t cap)
{
    if (is_porep(spec)) {
        porep_params_t params;
        return porep_spec(&params, spec, partitions, err, cap);
    }
    if (is_zkey(spec)) {
        char zkey[1024], wtns[1024];
        int rc = zkey_spec(zkey, wtns, sizeof zkey, spec, err, cap);
        if (rc == 0 && (access(zkey, R_OK) != 0 || access(wtns, R_OK) != 0)) {
            snprintf(err, cap, "circuit '%s': cannot read %s", spec, access(zkey, R_OK) != 0 ? zkey : wtns);
            rc = -EINVAL;
        }
        return rc;
    }
    snprintf(err, cap, "unknown circuit '%s' (known: porep:constraints=2^N,..., zkey:PATH,wtns:PATH)", spec);
    return -EINVAL;
}

int circuit_canonical_spec(char *out, size_t out_cap, const char *spec, unsigned partitions, char *err, size_t cap)
{
    int rc = circuit_check_spec(spec, partitions, err, cap);
    if (rc < 0)
        return rc;
    if (!is_porep(spec)) {
        snprintf(out, out_cap, "%s", spec);
        return 0;
    }
    porep_params_t params, p;
    if ((rc = porep_spec(&params, spec, partitions, err, cap)) < 0)
        return rc;
    if ((rc = porep_resolve(&p, &params)) < 0) {
        snprintf(err, cap, "circuit '%s': cannot be built: depth and challenges do not fit the constraint target",
                 spec);
        return rc;
    }
    snprintf(out, out_cap, "porep:constraints=%llu,partitions=%u,depth=%u,challenges=%u",
             (unsigned long long)p.constraints, p.partitions, p.depth, p.challenges);
    return 0;
}

void circuit_free(circuit_t *c)
{
    if (!c)
        return;
    if (c->destroy)
        c->destroy(c);
    free(c);
}

int circuit_witness_alloc(fr_t **ret, const circuit_t *c, uint64_t seed, int proof, unsigned partition,
                          unsigned threads)
{
    fr_t *w = mem_alloc(MEM_KIND_AUX, proof, (int)partition, r1cs_num_vars(c->r1cs) * sizeof(fr_t));
    if (!w)
        return -ENOMEM;
    int rc = c->witness(c, w, seed, partition, threads);
    if (rc < 0) {
        mem_free(w);
        return rc;
    }
    *ret = w;
    return 0;
}
