/*
 * Collects R1CS non-zeros in any order and builds the prover's CSR system
 * (prover/r1cs.h) from them: what the .r1cs reader (A, B, C) and the .zkey
 * reader (A and B of its coefficient section) share. Rows are sorted by
 * column with duplicate columns added up (zeros dropped); coefficients are
 * deduplicated into the shared table (index 0 is 1).
 */
#ifndef ZKB_IDEN3_CSR_H
#define ZKB_IDEN3_CSR_H

#include <stdint.h>

#include "arith/field/fr.h"
#include "prover/r1cs.h"

typedef struct iden3_csr iden3_csr_t;

/* A collector for a system of `rows` constraints over 1 + (num_inputs - 1)
 * + num_aux variables (num_inputs counts the ONE). -EINVAL, -ENOMEM. */
int iden3_csr_new(iden3_csr_t **ret, uint64_t rows, uint32_t num_inputs, uint32_t num_aux);
/* NULL is accepted. */
void iden3_csr_free(iden3_csr_t *b);
/* v * w[col] in row `row` of matrix m (R1CS_A/B/C). The caller checks row
 * and col against the sizes; -ENOMEM, -ERANGE past 2^32 coefficients. */
int iden3_csr_add(iden3_csr_t *b, enum r1cs_matrix_id m, uint32_t row, uint32_t col, const fr_t *v);
/* The system (tracked as MEM_KIND_CIRCUIT; free with r1cs_free). The
 * collector stays valid and must still be freed. -ENOMEM. */
int iden3_csr_finish(r1cs_t **ret, iden3_csr_t *b);

#endif
