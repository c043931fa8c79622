/*
 * snarkjs Groth16 proving keys (.zkey, iden3 binary format, version 1),
 * BLS12-381 only. Sections (snarkjs src/zkey_new.js, zkey_utils.js):
 *   1  u32 protocol (1: Groth16; 2 PLONK and 10 FFLONK are refused)
 *   2  u32 n8q, q, u32 n8r, r, u32 n_vars, u32 n_public, u32 domain_size,
 *      alpha_1, beta_1, beta_2, gamma_2, delta_1, delta_2
 *   3  IC: n_public + 1 G1 points
 *   4  u32 count, then count times (u32 matrix 0=A/1=B, u32 constraint,
 *      u32 signal, coefficient): the A and B matrices, with the input
 *      constraints "signal_s * 1" at rows n_constraints + s
 *   5  A, 6 B1 (G1), 7 B2 (G2): one point per variable
 *   8  C: [(beta A_j + alpha B_j + C_j)(tau) / delta] per private variable
 *      (bellperson's L query)
 *   9  H: domain_size points, see below
 *   10 contributions (not needed to prove)
 * Points are affine, coordinates little-endian in Montgomery form (R =
 * 2^384: the prover's own fp_t representation), infinity all zeros;
 * coefficients are the canonical little-endian value of c * R^2 (R = 2^256).
 *
 * The H query: bellperson keys hold [tau^i Z(tau) / delta] and the prover
 * computes the quotient h = (AB - C) / Z on a coset. snarkjs instead holds,
 * for the domain of size n and w2 its primitive 2n-th root of unity,
 *   H_i = [L_{2i+1}(tau) / delta],  i < n,
 * the Lagrange basis of the doubled domain at its odd points w2^(2i+1) =
 * w2 * w^i. Since AB - C vanishes on the even points (the domain itself),
 *   (A(tau)B(tau) - C(tau)) / delta = sum_i (AB - C)(w2 w^i) H_i,
 * so the prover needs AB - C on the odd coset w2 * <w> and no division by
 * Z. The roots are snarkjs's: ffjavascript takes 5^t (5 the least quadratic
 * non-residue of r), prover/ntt.h takes 7^t, so the domains' orders differ
 * by a fixed odd exponent k (iden3_snarkjs_root_exponent). The reader
 * stores H in the prover's order: h[j] is the point of w2 * w_ours^j (see
 * zkey_prove.h).
 */
#ifndef ZKB_IDEN3_ZKEY_FILE_H
#define ZKB_IDEN3_ZKEY_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fr.h"
#include "prover/iden3/binfile.h"
#include "prover/params.h"
#include "prover/r1cs.h"

typedef struct {
    groth16_vk_t vk;        /* ic owned (n_public + 1 points) */
    uint32_t n_vars;        /* ONE, public, private */
    uint32_t n_public;      /* without the ONE */
    size_t n;               /* domain size */
    unsigned log_n;
    r1cs_t *ab;             /* section 4: A and B over n rows (C empty) */
    /* Query points of variables whose point is not infinity, with bitmaps
     * over the n_vars variables in msm.h's density convention. */
    g1_affine_t *a, *b_g1;
    g2_affine_t *b_g2;
    uint64_t *density_a, *density_b1, *density_b2;
    size_t n_a, n_b_g1, n_b_g2;
    g1_affine_t *c;         /* n_vars - n_public - 1, private variables */
    g1_affine_t *h;         /* n, in the prover's order (see above) */
} iden3_zkey_t;

/* Reading flags. */
#define IDEN3_ZKEY_NO_SUBGROUP_CHECK 1u /* skip the check that every query point
                                         is in its order-r subgroup (done by
                                         default; the vk points always are) */

/*
 * Reads and checks path: the curve (BLS12-381 only: bn128 and others are
 * refused by name), protocol, every section size against the header,
 * coefficient indices and ranges, every point's range, curve equation and
 * subgroup (Scott's endomorphism test per point, on threads: see
 * zkey_check.h). threads: 0 = all cores. 0 and *ret (free with
 * iden3_zkey_free; buffers tracked as MEM_KIND_PARAMS / MEM_KIND_CIRCUIT),
 * or a negative errno with err set.
 */
int iden3_zkey_read(iden3_zkey_t **ret, const char *path, unsigned flags, unsigned threads, iden3_error_t *err);

/* What iden3_zkey_open did. */
typedef struct {
    bool from_record;    /* the query points' subgroup check was skipped: a record
                            says these very points passed it */
    bool recorded;       /* this call checked them and wrote the record */
    int record_error;    /* checked, but the record could not be written: -errno
                            (the key is read all the same); 0 otherwise */
    char dir[4096];      /* the records' folder */
    char record[4200];   /* this key's record (when the digest was made) */
    uint64_t n_g1, n_g2; /* query points checked or vouched for (infinity included) */
    double decode_s;     /* mapping and decoding, with the range and curve checks */
    double digest_s;     /* the SHA-256 digest of the points */
    double subgroup_s;   /* the subgroup check; 0 when from_record */
} iden3_zkey_info_t;

/*
 * iden3_zkey_read with every check, through records of keys already
 * checked (zkey_check.h): the decoded query points are digested, and when
 * record_dir holds the record of that digest the subgroup check is skipped;
 * otherwise it runs, and a key that passes is recorded. record_dir NULL:
 * the checked/ folder of the cache folder (prover/cache_dir.h). A record
 * that cannot be written is no error (info->record_error says why).
 * info may be NULL. Returns as iden3_zkey_read.
 */
int iden3_zkey_open(iden3_zkey_t **ret, const char *path, const char *record_dir, unsigned threads,
                    iden3_zkey_info_t *info, iden3_error_t *err);
/* NULL is accepted. */
void iden3_zkey_free(iden3_zkey_t *z);

/*
 * Do the key and a circuit belong together? Same variable and public input
 * counts, a domain that holds the constraints and the input constraints,
 * and the same A and B rows (section 4 against the circuit's matrices).
 * 0, or -EINVAL with the first difference in msg (cap bytes).
 */
int iden3_zkey_match_r1cs(const iden3_zkey_t *z, const r1cs_t *cs, char *msg, size_t cap);

/* snarkjs's primitive 2^log_n-th root of unity (5^t squared down);
 * -EINVAL past 2^32. */
int iden3_snarkjs_root(fr_t *ret, unsigned log_n);
/* The odd k with snarkjs's primitive 2^32-th root = prover/ntt.h's ^ k;
 * for any size n, snarkjs's n-th root is ours ^ (k mod n). */
uint32_t iden3_snarkjs_root_exponent(void);

#endif
