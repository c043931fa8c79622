/*
 * circom's .r1cs files (iden3 binary format, version 1):
 *   section 1 header: u32 n8, prime (n8 bytes), u32 n_wires, u32 n_pub_out,
 *             u32 n_pub_in, u32 n_prv_in, u64 n_labels, u32 n_constraints
 *   section 2 constraints: for each, A, B, C as u32 n_terms then n_terms
 *             times (u32 wire, n8-byte canonical coefficient)
 *   section 3 wire-to-label map (u64 per wire): not needed here
 * Wires are [ONE, outputs, public inputs, private inputs, internal], so the
 * public variables are the first 1 + n_pub_out + n_pub_in: the prover's
 * layout w = [1, inputs..., aux...] (prover/r1cs.h) without renumbering.
 * Only the BLS12-381 scalar field is accepted (circom --prime bls12381).
 */
#ifndef ZKB_IDEN3_R1CS_FILE_H
#define ZKB_IDEN3_R1CS_FILE_H

#include <stdint.h>

#include "prover/iden3/binfile.h"
#include "prover/r1cs.h"

typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels;
    r1cs_t *cs; /* owned; num_inputs = 1 + n_pub_out + n_pub_in */
} iden3_r1cs_t;

/* Reads and checks path (sizes, wire indices, coefficients < r). 0 and
 * *ret (free with iden3_r1cs_free), or a negative errno with err set. */
int iden3_r1cs_read(iden3_r1cs_t **ret, const char *path, iden3_error_t *err);
/* NULL is accepted. */
void iden3_r1cs_free(iden3_r1cs_t *r);

#endif
