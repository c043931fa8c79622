/*
 * R1CS: a rank-1 constraint system <A_i,w> * <B_i,w> = <C_i,w> over Fr, held
 * as three compressed-sparse-row matrices the way production pre-compiled
 * circuits hold them: built once per circuit, then shared read-only by every
 * partition and proof.
 *
 * Variables (bellperson's convention): w = [1, inputs..., aux...]; index 0
 * is the constant ONE and num_inputs counts it. The builder hands out
 * variable handles in any order of input and aux allocation; finishing
 * renumbers them into that layout.
 *
 * Storage: row_ptr is 64-bit (2^27 rows x ~10 non-zeros overflows 32 bits),
 * columns are 32-bit, and a coefficient is a 32-bit index into one table of
 * distinct values shared by A, B and C (index 0 is 1). Circuits repeat a
 * small set of constants (1, powers of two, a hash's MDS and round
 * constants), so a non-zero costs 8 bytes instead of 4 + 32.
 *
 * Groth16 note: the prover appends num_inputs constraints "input_i * 0 = 0"
 * (bellperson) so the input polynomials are independent; they are not part
 * of this system, which is why circuits keep num_constraints + num_inputs
 * within their power-of-two domain.
 */
#ifndef ZKB_R1CS_H
#define ZKB_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "arith/field/fr.h"

/*
 * A variable handle from the builder. Inputs are numbered from 0 (the ONE)
 * in allocation order; aux handles carry R1CS_AUX_BIT over their aux index.
 * After r1cs_builder_finish, r1cs_var_index() gives the column.
 */
typedef uint32_t r1cs_var_t;
#define R1CS_ONE ((r1cs_var_t)0)
#define R1CS_AUX_BIT 0x80000000u
/* Variables per kind stay below 2^31 (handles) and in total below 2^32
 * (columns). */
#define R1CS_MAX_VARS 0x7fffffffu

/* One term of a linear combination: coeff * variable. */
typedef struct {
    r1cs_var_t var;
    fr_t coeff;
} r1cs_term_t;

enum r1cs_matrix_id { R1CS_A = 0, R1CS_B = 1, R1CS_C = 2 };

/* One CSR matrix: row i's non-zeros are [row_ptr[i], row_ptr[i+1]). Within
 * a row columns are strictly increasing. */
typedef struct {
    uint64_t *row_ptr; /* num_constraints + 1 */
    uint32_t *col;     /* nnz: variable index in w */
    uint32_t *coeff;   /* nnz: index into r1cs_t.coeffs */
    uint64_t nnz;
} r1cs_matrix_t;

typedef struct {
    r1cs_matrix_t m[3];  /* indexed by enum r1cs_matrix_id */
    fr_t *coeffs;        /* distinct coefficients; coeffs[0] = 1 */
    uint32_t num_coeffs;
    uint32_t num_inputs; /* including the ONE */
    uint32_t num_aux;
    uint64_t num_constraints;
} r1cs_t;

typedef struct r1cs_builder r1cs_builder_t;

/* A new, empty builder holding only the ONE; free with r1cs_builder_free.
 * -ENOMEM. */
int r1cs_builder_new(r1cs_builder_t **ret);
/* NULL is accepted. */
void r1cs_builder_free(r1cs_builder_t *b);

/* A new public input / private (aux) variable. -ERANGE past R1CS_MAX_VARS. */
int r1cs_alloc_input(r1cs_var_t *ret, r1cs_builder_t *b);
int r1cs_alloc_aux(r1cs_var_t *ret, r1cs_builder_t *b);
/* Allocates n consecutive aux variables; *first is the first handle and
 * first + k the k-th (gadgets rely on this to lay out their witness). */
int r1cs_alloc_aux_n(r1cs_var_t *first, r1cs_builder_t *b, uint32_t n);

/* Counts so far (the ONE included in inputs). */
uint32_t r1cs_builder_num_inputs(const r1cs_builder_t *b);
uint32_t r1cs_builder_num_aux(const r1cs_builder_t *b);
uint64_t r1cs_builder_num_constraints(const r1cs_builder_t *b);

/* Non-zeros so far in matrix `which` (0 for a bad id). */
uint64_t r1cs_builder_nnz(const r1cs_builder_t *b, enum r1cs_matrix_id which);

/*
 * Capacity for `constraints` constraints and nnz[k] non-zeros in matrix k
 * (totals, not increments), allocated exactly: a circuit that knows its
 * size avoids the doubling copies, and a finish that finds capacity equal
 * to size hands the arrays over without copying. Smaller values than the
 * current capacity change nothing. -EINVAL, -ENOMEM.
 */
int r1cs_builder_reserve(r1cs_builder_t *b, uint64_t constraints, const uint64_t *nnz);

/*
 * Adds the constraint <a,w> * <b,w> = <c,w>. Terms of one combination that
 * name the same variable are added up; zero coefficients (also after
 * merging) are dropped; an empty combination is zero. Returns -EINVAL for a
 * handle that was not allocated (or NULL terms with a non-zero count),
 * -ENOMEM, -ERANGE past 2^32 distinct coefficients; on failure the builder
 * is unchanged.
 */
int r1cs_enforce(r1cs_builder_t *b, const r1cs_term_t *a, size_t na,
                 const r1cs_term_t *bt, size_t nb, const r1cs_term_t *c, size_t nc);

/*
 * Moves the system into a new r1cs_t (*ret; free with r1cs_free), matrices
 * renumbered to w = [1, inputs..., aux...] and tracked as MEM_KIND_CIRCUIT.
 * The builder is left empty (only the ONE) and must still be freed.
 * -ENOMEM (builder unchanged).
 */
int r1cs_builder_finish(r1cs_t **ret, r1cs_builder_t *b);

/* NULL is accepted. */
void r1cs_free(r1cs_t *r);

/* Column of a handle in a finished system (num_inputs of that system). */
static inline uint32_t r1cs_var_index(r1cs_var_t v, uint32_t num_inputs)
{
    return (v & R1CS_AUX_BIT) ? num_inputs + (v & ~R1CS_AUX_BIT) : v;
}

static inline uint64_t r1cs_num_vars(const r1cs_t *r)
{
    return (uint64_t)r->num_inputs + r->num_aux;
}

/*
 * a[i] = <A_i,w>, b[i] = <B_i,w>, c[i] = <C_i,w> for every constraint i; w
 * has r1cs_num_vars(r) elements. Any of a, b, c may be NULL (not computed).
 * threads as parallel_for (0: all cores). -EINVAL for NULL r or w.
 */
int r1cs_eval(fr_t *a, fr_t *b, fr_t *c, const r1cs_t *r, const fr_t *w, unsigned threads);

/* <M_i,w> for row i of matrix `which` of a finished system (i below
 * num_constraints, w of r1cs_num_vars elements): what r1cs_eval computes
 * for one row, for circuits whose witness solves rows in order. */
void r1cs_row_eval(fr_t *ret, const r1cs_t *r, enum r1cs_matrix_id which, const fr_t *w, uint64_t i);

/*
 * Room in a finished system for `rows` more constraints over `aux` more aux
 * variables (columns r1cs_num_vars .. + aux, after the existing ones, so no
 * column moves), with nnz[k] more non-zeros in matrix k and n_coeffs more
 * coefficient values (copied from coeffs; their indices start at
 * *coeff_base). For circuits too large for the builder's per-constraint
 * path, which write their rows in parallel: the arrays are moved to tracked
 * buffers of the new exact sizes and the counts updated; row_ptr[i + 1],
 * col and coeff of the new rows are left for the caller, who must write
 * every one of them (strictly increasing columns within a row, row_ptr
 * ending at nnz) before the system is used. On failure (-EINVAL, -ERANGE
 * past R1CS_MAX_VARS or 2^32 coefficients, -ENOMEM) r is unchanged.
 */
int r1cs_grow(r1cs_t *r, uint64_t rows, uint32_t aux, const uint64_t nnz[3], const fr_t *coeffs,
              uint32_t n_coeffs, uint32_t *coeff_base);

/*
 * 1 if w satisfies every constraint, 0 if not (*first_bad, when not NULL,
 * gets the first failing row), -EINVAL for NULL r or w, -ENOMEM.
 */
int r1cs_is_satisfied(uint64_t *first_bad, const r1cs_t *r, const fr_t *w);

/* 64-bit words of a bitmap over all variables. */
static inline size_t r1cs_density_words(const r1cs_t *r)
{
    return (size_t)((r1cs_num_vars(r) + 63) / 64);
}

/*
 * Density of a matrix (R1CS_A or R1CS_B as Groth16 needs; C is accepted
 * too): bit j of bitmap (r1cs_density_words words, bit j%64 of word j/64)
 * is set when column j has a non-zero. *num_inputs_set and *num_aux_set
 * (either may be NULL) count the set bits among inputs (ONE included) and
 * aux: the proving key stores a/b query points only for those (bellperson's
 * a_aux / b_input / b_aux density). -EINVAL for a bad matrix id or NULL.
 */
int r1cs_density(uint64_t *bitmap, uint64_t *num_inputs_set, uint64_t *num_aux_set,
                 const r1cs_t *r, enum r1cs_matrix_id which);

#endif
