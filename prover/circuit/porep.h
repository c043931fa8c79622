/*
 * The built-in circuit family `porep`, shaped like Filecoin PoRep's
 * partition circuit: Merkle inclusion proofs of challenged leaves in binary
 * Poseidon trees, path bits constrained boolean and packed into the public
 * challenge index, the computed root equal to the public root.
 *
 * The constraint system is built once per circuit and shared read-only by
 * every partition and proof; a partition's synthesis only computes its
 * witness, from seeded pseudo-random leaves and siblings (reproducible from
 * (seed, partition, challenge)).
 *
 * Per challenge c (depth D):
 *   inputs  idx_c (challenge index), root_c
 *   aux     leaf, then per level l: bit b_l, sibling s_l, d_l, Poseidon aux
 *   level   b_l * b_l = b_l                      (boolean)
 *           b_l * (s_l - cur) = d_l              (conditional swap:
 *           left = cur + d_l, right = s_l - d_l,  folded into the hash input)
 *           cur' = poseidon_hash2(left, right)   (243 constraints)
 *   end     (sum_l 2^l b_l - idx_c) * 1 = 0      (bits pack to the index)
 *           (cur - root_c) * 1 = 0
 * so D * 245 + 2 constraints and 2 inputs per challenge. The remainder up
 * to the target is a squaring chain z_{k+1} = z_k^2 from the last root,
 * so that constraints + inputs equals the target: the Groth16 prover adds
 * one constraint per input, and a power-of-two target then fills its FFT
 * domain exactly without doubling it.
 *
 * Variable layout (w = [1, inputs..., aux...]): input 1 + 2c is idx_c,
 * 2 + 2c is root_c; challenge c's aux start at c * aux_per_challenge; the
 * chain's aux follow the last challenge.
 */
#ifndef ZKB_POREP_H
#define ZKB_POREP_H

#include <stdint.h>

#include "prover/circuit/poseidon.h"
#include "prover/field/fr.h"
#include "prover/r1cs.h"

#define POREP_MIN_CONSTRAINTS (1ull << 10)
#define POREP_MAX_CONSTRAINTS (1ull << 27)
#define POREP_DEFAULT_CONSTRAINTS (1ull << 16)
#define POREP_DEFAULT_PARTITIONS 10
#define POREP_MAX_PARTITIONS 1024
#define POREP_MAX_DEPTH 32

typedef struct {
    /* Target: constraints + inputs <= this (2^10 .. 2^27; need not be a
     * power of two). */
    uint64_t constraints;
    unsigned partitions;
    /* 0: chosen from the target (floor(log2 target) - 6, at most 20). */
    unsigned depth;
    /* 0: as many as fit. */
    unsigned challenges;
} porep_params_t;

typedef struct {
    porep_params_t params; /* depth and challenges resolved */
    r1cs_t *r1cs;          /* shared, read-only */
    const poseidon_params_t *poseidon;
    uint64_t chain;        /* squaring-chain constraints */
    uint32_t aux_per_challenge;
    uint32_t aux_per_level;
} porep_t;

/*
 * Parses "porep", "porep:" or "porep:key=value,..." with keys constraints,
 * partitions, depth, challenges; a value is a decimal integer or "2^N".
 * Missing keys take the defaults (2^16 constraints, 10 partitions, depth and
 * challenges automatic). -EINVAL for malformed text, an unknown or repeated
 * key; -ERANGE for constraints outside 2^10 .. 2^27, partitions outside
 * 1 .. 1024, depth outside 1 .. 32, zero challenges or numbers that
 * overflow. *ret is untouched on failure.
 */
int porep_parse_spec(porep_params_t *ret, const char *spec);

/*
 * Builds the circuit (*ret, free with porep_free): resolves depth and
 * challenges and synthesizes the shared constraint system (tracked as
 * MEM_KIND_CIRCUIT). -EINVAL for NULL or out-of-range parameters, -ERANGE
 * when the requested depth/challenges do not fit the target, -ENOMEM.
 */
int porep_build(porep_t **ret, const porep_params_t *params);
/* NULL is accepted. */
void porep_free(porep_t *c);

static inline uint64_t porep_num_vars(const porep_t *c)
{
    return r1cs_num_vars(c->r1cs);
}

/*
 * The full assignment w (porep_num_vars(c) elements: the ONE, the public
 * inputs, the aux) of partition `partition` of the proof seeded by `seed`.
 * Challenges are hashed on up to `threads` threads (0: all cores).
 * -EINVAL for NULL or partition >= params.partitions.
 */
int porep_witness(fr_t *w, const porep_t *c, uint64_t seed, unsigned partition, unsigned threads);

/* As porep_witness into a new buffer tracked as MEM_KIND_AUX for (proof,
 * partition); the caller frees it with mem_free. -ENOMEM. */
int porep_witness_alloc(fr_t **ret, const porep_t *c, uint64_t seed, int proof,
                        unsigned partition, unsigned threads);

/* The public inputs of that partition: inputs[0 .. num_inputs), inputs[0]
 * being the ONE, equal to w[0 .. num_inputs) of porep_witness. */
int porep_public_inputs(fr_t *inputs, const porep_t *c, uint64_t seed, unsigned partition,
                        unsigned threads);

#endif
