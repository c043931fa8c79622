/* Circuits by spec; see circuit.h. */
#include "prover/circuit/circuit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover/circuit/porep.h"
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
                 "challenges=C])", spec);
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
    } else {
        snprintf(err, cap, "unknown circuit '%s' (known: porep:constraints=2^N,...)", spec);
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
    snprintf(err, cap, "unknown circuit '%s' (known: porep:constraints=2^N,...)", spec);
    return -EINVAL;
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
