/*
 * The files `zkbench prove` writes and `zkbench verify` reads:
 *   proof file   the partitions' proofs in bellperson's compressed encoding
 *                (192 bytes each: A, B, C), concatenated
 *   public file  JSON: an array with one array per partition of its public
 *                inputs as decimal strings (the constant ONE left out), as
 *                snarkjs writes public.json for one proof
 * Errors fill msg with one line naming the file and the problem.
 */
#ifndef ZKB_PROOF_FILES_H
#define ZKB_PROOF_FILES_H

#include <stddef.h>

#include "prover/groth16.h"

int proof_file_write(const char *path, const groth16_proof_t *proofs, size_t n, char *msg, size_t cap);
/* *proofs: malloc'd, caller frees. -EINVAL for a malformed file. */
int proof_file_read(const char *path, groth16_proof_t **proofs, size_t *n, char *msg, size_t cap);

/* inputs: n partitions of n_inputs elements each. */
int public_file_write(const char *path, const fr_t *inputs, size_t n, size_t n_inputs, char *msg, size_t cap);
/* *inputs: malloc'd (n * n_inputs), caller frees. -EINVAL for malformed
 * JSON, rows of different lengths, or strings that are not field
 * elements. */
int public_file_read(const char *path, fr_t **inputs, size_t *n, size_t *n_inputs, char *msg, size_t cap);

#endif
