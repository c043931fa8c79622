/*
 * snarkjs's JSON files, as `snarkjs groth16 prove / verify` write and read
 * them (BLS12-381 only):
 *   proof.json   {"pi_a": [x, y, "1"], "pi_b": [[x.c0, x.c1], [y.c0, y.c1],
 *                ["1", "0"]], "pi_c": [...], "protocol": "groth16",
 *                "curve": "bls12381"}, decimal strings, one-space indent
 *   public.json  [s_1, ..., s_n]: the public signals (outputs first)
 *   verification_key.json  {"protocol", "curve", "nPublic", "vk_alpha_1",
 *                "vk_beta_2", "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12",
 *                "IC"}; vk_alphabeta_12 is not read (our pairing's GT differs
 *                from snarkjs's by a cube; verification recomputes it)
 * The writers produce byte for byte what snarkjs writes (JSON.stringify
 * with an indent of 1, no final newline). Errors fill msg with one line
 * naming the file, the field and the problem.
 */
#ifndef ZKB_IDEN3_JSON_H
#define ZKB_IDEN3_JSON_H

#include <stddef.h>

#include "prover/groth16.h"
#include "prover/params.h"

int iden3_json_proof_write(const char *path, const groth16_proof_t *proof, char *msg, size_t cap);
/* -EINVAL for malformed JSON, a missing field, a protocol other than
 * groth16, a curve other than bls12381, a point that is not valid. */
int iden3_json_proof_read(groth16_proof_t *proof, const char *path, char *msg, size_t cap);

int iden3_json_public_write(const char *path, const fr_t *inputs, size_t n, char *msg, size_t cap);
/* *inputs: malloc'd (n elements, at least one allocated), caller frees. */
int iden3_json_public_read(fr_t **inputs, size_t *n, const char *path, char *msg, size_t cap);

/* Fills vk (vk->ic malloc'd: free with free(); beta_g1 and delta_g1, which
 * snarkjs does not export, are set to infinity; verification does not use
 * them). */
int iden3_json_vk_read(groth16_vk_t *vk, const char *path, char *msg, size_t cap);

#endif
