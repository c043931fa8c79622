/*
 * A circuit as the prover and the harness see it, whatever built it: the
 * shared constraint system, the number of partitions of a proof, and the
 * witness of one partition. Built-in families (porep) and, later, circuits
 * read from files plug in behind this interface.
 */
#ifndef ZKB_CIRCUIT_H
#define ZKB_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "arith/field/fr.h"
#include "prover/groth16.h"
#include "prover/r1cs.h"

typedef struct circuit circuit_t;

struct circuit {
    char spec[256];     /* the canonical spec, e.g. "porep:constraints=65536,partitions=10,..." */
    const r1cs_t *r1cs; /* shared, read-only */
    unsigned partitions;
    /* w (r1cs_num_vars elements) of one partition of the proof seeded by
     * seed; -EINVAL for a partition out of range. */
    int (*witness)(const circuit_t *c, fr_t *w, uint64_t seed, unsigned partition, unsigned threads);
    void (*destroy)(circuit_t *c);
    void *impl;
    /* Circuits that bring their own keys (a snarkjs zkey): the verifying
     * key, and a monolithic prover used instead of the bellperson-layout
     * parameters and the split API. NULL for the built-in families. */
    const groth16_vk_t *vk;
    int (*prove)(const circuit_t *c, groth16_proof_t *proof, const fr_t *w, const struct groth16_prove_opts *o);
};

/*
 * Builds the circuit a spec names: "porep[:key=value,...]" (see porep.h), or
 * "zkey:PATH,wtns:PATH" (a circom/snarkjs circuit: its zkey is the key and
 * its witness is every partition's, read once).
 * partitions > 0 overrides the spec's partition count. On failure returns
 * a negative errno and a one-line reason in err (cap bytes): -EINVAL for an
 * unknown family or malformed spec, -ERANGE for values out of range,
 * -ENOMEM.
 */
int circuit_from_spec(circuit_t **ret, const char *spec, unsigned partitions, char *err, size_t cap);
/* NULL is accepted. */
void circuit_free(circuit_t *c);
/* The canonical spec circuit_from_spec would give circuit->spec (out,
 * out_cap bytes), without building anything: 0, or as circuit_check_spec. */
int circuit_canonical_spec(char *out, size_t out_cap, const char *spec, unsigned partitions, char *err, size_t cap);
/* Checks a spec without building anything: 0, or as circuit_from_spec. */
int circuit_check_spec(const char *spec, unsigned partitions, char *err, size_t cap);

/* The witness of a partition in a buffer tracked as MEM_KIND_AUX for
 * (proof, partition); free with mem_free. */
int circuit_witness_alloc(fr_t **ret, const circuit_t *c, uint64_t seed, int proof, unsigned partition,
                          unsigned threads);

#endif
