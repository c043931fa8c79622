/*
 * snarkjs / circom witness files (.wtns, iden3 binary format, version 2):
 *   section 1 header: u32 n8, prime (n8 bytes), u32 n_witness
 *   section 2 values: n_witness canonical little-endian n8-byte elements
 * The values are w = [1, public..., private...] in the circuit's wire order.
 */
#ifndef ZKB_IDEN3_WTNS_FILE_H
#define ZKB_IDEN3_WTNS_FILE_H

#include <stddef.h>

#include "arith/field/fr.h"
#include "prover/iden3/binfile.h"

/*
 * Reads path into *w (n elements, Montgomery fr_t; tracked as MEM_KIND_AUX
 * with the given proof tag: free with mem_free). Checks the prime (BLS12-381
 * r only), the section sizes, every value < r and w[0] = 1. 0, or a
 * negative errno with err set.
 */
int iden3_wtns_read(fr_t **w, size_t *n, const char *path, int proof, iden3_error_t *err);

#endif
