/*
 * The built-in circuit family `porep`, shaped like a Filecoin PoRep
 * partition circuit: a few hundred challenges, each a Merkle inclusion
 * proof in a binary Poseidon tree (path bits constrained boolean and packed
 * into the public challenge index, the computed root equal to the public
 * root), and the bulk of the constraints in labeling: chains of labels,
 * each label derived from 14 parents as SDR's labels are (6 DRG and 8
 * expander parents). The columns have production's densities: A over more
 * than 99 % of the aux variables, B over 25.4 % (the 32 GiB PoRep circuit's
 * a_aux / b_aux), which size the proving key's a and b queries, so the key
 * and a partition's memory scale as production's do.
 *
 * The constraint system is built once per circuit and shared read-only by
 * every partition and proof; a partition's synthesis only computes its
 * witness, from seeded pseudo-random leaves and siblings (reproducible from
 * (seed, partition, challenge)) and the labels solved from them.
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
 * so D * 245 + 2 constraints and 2 inputs per challenge.
 *
 * Labels fill the remainder, one constraint and one aux variable each, so
 * that the variables number exactly the target: constraints + inputs fall
 * short of it by C (D - 1), the paths' aux beyond their constraints (the
 * Groth16 prover adds one constraint per input), so a power-of-two target
 * is the domain, which the witness fits as a, b and c do. They form up to
 * 64 independent chains (solved on as many threads). Label t of a chain is
 *   (u_{t-1} + sum_i u_{t-d_i}) * key = u_t,
 * d_i drawn in [2^i, 2^(i+1)) for i = 1..13 (the parents that exist), key
 * the first label of t's block (the previous block's for a block's first
 * label); a chain's first label is (s)(s) with s = input + (j + 1) * ONE.
 * Only the keys are in B, so the block length sets B's density: the blocks
 * are as many as bring B to 25.4 % of the aux variables with the Merkle
 * part's own B columns counted.
 *
 * Variable layout (w = [1, inputs..., aux...]): input 1 + 2c is idx_c,
 * 2 + 2c is root_c; challenge c's aux start at c * aux_per_challenge; the
 * chains' labels follow the last challenge, chain after chain.
 */
#ifndef ZKB_POREP_H
#define ZKB_POREP_H

#include <stdint.h>

#include "prover/circuit/poseidon.h"
#include "arith/field/fr.h"
#include "prover/r1cs.h"

#define POREP_MIN_CONSTRAINTS (1ull << 10)
#define POREP_MAX_CONSTRAINTS (1ull << 27)
#define POREP_DEFAULT_CONSTRAINTS (1ull << 16)
#define POREP_DEFAULT_PARTITIONS 10
#define POREP_MAX_PARTITIONS 1024
#define POREP_MAX_DEPTH 32
/* Defaults: production's 163 challenges a partition (327 public inputs
 * with the ONE; production's partition has 328), fewer where their Merkle
 * paths would take more than an eighth of the target. */
#define POREP_DEFAULT_CHALLENGES 163
/* B's share of the aux variables, in parts per million (production 25.4 %). */
#define POREP_B_DENSITY_PPM 254000
/* Parents of a label (SDR: 6 DRG + 8 expander). */
#define POREP_PARENTS 14
/* Label chains (the witness's parallelism). */
#define POREP_CHAINS 64
/* porep:preset=32g: a 32 GiB sector's partition, ~130.3 M constraints in
 * the 2^27 domain (constraints + inputs), 10 partitions. */
#define POREP_PRESET_32G_TARGET 130300000ull

typedef struct {
    /* Target: variables = this, constraints + inputs <= this (2^10 ..
     * 2^27; need not be a power of two). */
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
    uint64_t labels;       /* label constraints (and aux variables) */
    uint64_t label_row0;   /* the first label's row; its aux is label_aux0 */
    uint64_t label_aux0;
    unsigned chains;       /* label chains */
    uint64_t blocks_asked; /* label blocks the density asks for */
    uint64_t blocks;       /* label blocks (keys) over all chains: B's label columns */
    uint32_t aux_per_challenge;
    uint32_t aux_per_level;
} porep_t;

/*
 * Parses "porep", "porep:" or "porep:key=value,..." with keys constraints,
 * partitions, depth, challenges and preset; a value is a decimal integer or
 * "2^N" (preset: "32g", production's 32 GiB partition: constraints
 * POREP_PRESET_32G_TARGET; it excludes constraints=). Missing keys take the
 * defaults (2^16 constraints, 10 partitions, depth and challenges
 * automatic). -EINVAL for malformed text, an unknown or repeated key, an
 * unknown preset or one beside constraints=; -ERANGE for constraints outside
 * 2^10 .. 2^27, partitions outside 1 .. 1024, depth outside 1 .. 32, zero
 * challenges or numbers that overflow. *ret is untouched on failure.
 */
int porep_parse_spec(porep_params_t *ret, const char *spec);

/*
 * The parameters porep_build would build with: depth and challenges
 * resolved (see below), the rest as given; nothing is built. Same errors.
 */
int porep_resolve(porep_params_t *ret, const porep_params_t *params);

/*
 * Builds the circuit (*ret, free with porep_free): resolves depth and
 * challenges and synthesizes the shared constraint system (tracked as
 * MEM_KIND_CIRCUIT; the labels' rows on all cores). Defaults: depth
 * floor(log2 target) - 6, at most 20 and at most what keeps one path within
 * a quarter of the target (at least 1); challenges POREP_DEFAULT_CHALLENGES,
 * fewer where they would take more than an eighth (at least 1). -EINVAL for
 * NULL or out-of-range parameters, -ERANGE when the requested
 * depth/challenges do not fit the target, -ENOMEM.
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
