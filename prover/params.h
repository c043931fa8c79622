/*
 * Groth16 proving and verifying keys and their on-disk format.
 *
 * The file layout is bellperson's `.params` (Filecoin parameter files), so
 * tools built for those read ours and we read theirs:
 *   verifying key:  alpha_g1 (G1), beta_g1 (G1), beta_g2 (G2), gamma_g2 (G2),
 *                   delta_g1 (G1), delta_g2 (G2),
 *                   u32 count, ic[count] (G1)
 *   then h, l, a, b_g1 (each: u32 count, G1 points), b_g2 (u32 count, G2)
 * Counts are big-endian u32; points are uncompressed zcash encodings (G1 96
 * bytes, G2 192). A verifying-key file holds the first part alone.
 *
 * Query points at infinity are omitted from a, b_g1 and b_g2 (as bellperson
 * does): their entries follow the density of the A and B columns.
 *
 * Reading maps the file (mmap), validates every point (encoding, on the
 * curve, in the subgroup, unless told otherwise) on several threads, and
 * decodes into tracked buffers of kind MEM_KIND_PARAMS (the heap form).
 * params_map.h keeps the decoded key in a layout cache file and maps it
 * instead (the mapped form): file-backed, read-only, shared between
 * processes, as a production prover's parameter cache is.
 */
#ifndef ZKB_PARAMS_H
#define ZKB_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"

typedef struct {
    g1_affine_t alpha_g1, beta_g1, delta_g1;
    g2_affine_t beta_g2, gamma_g2, delta_g2;
    g1_affine_t *ic; /* one per public input, the constant ONE first */
    size_t n_ic;
} groth16_vk_t;

typedef struct {
    groth16_vk_t vk;
    g1_affine_t *h;    /* [tau^i Z(tau) / delta], i < n - 1 */
    g1_affine_t *l;    /* [(beta A_j + alpha B_j + C_j)(tau) / delta], aux j */
    g1_affine_t *a;    /* [A_j(tau)], variables with a non-empty A column */
    g1_affine_t *b_g1; /* [B_j(tau)] in G1, non-empty B columns */
    g2_affine_t *b_g2; /* the same in G2 */
    size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
    /* The mapped form (params_map_read): the arrays above, ic included,
     * point into this read-only mapping of map_bytes bytes, which
     * params_free unmaps; they must not be written. NULL: the heap form,
     * every array a tracked buffer. */
    void *map;
    size_t map_bytes;
} groth16_params_t;

/* Reading options. */
#define PARAMS_NO_SUBGROUP_CHECK 1u /* curve checks only: for trusted files */

/* What went wrong while reading, for the one error line the CLI prints:
 * e.g. "l point 17 (byte offset 12345): not in the subgroup". */
typedef struct {
    char msg[256];
} params_error_t;

/* Formats the message into err (when not NULL) and returns rc: the one
 * error path of the parameter readers and writers. */
int params_error_set(params_error_t *err, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Maps the whole regular file at path read-only (map_flags: MAP_PRIVATE or
 * MAP_SHARED); an empty file gives *data NULL. The caller munmaps
 * (*data, *size). 0, or -errno with err set. */
int params_file_map(const uint8_t **data, size_t *size, const char *path, int map_flags, params_error_t *err);

/* Allocates the point arrays (tracked, MEM_KIND_PARAMS) for the given
 * counts, not zeroed: the caller writes every point. Free with
 * params_free. */
int params_alloc(groth16_params_t **ret, size_t n_ic, size_t n_h, size_t n_l, size_t n_a,
                 size_t n_b_g1, size_t n_b_g2);
/* Frees params and every array it owns (heap form) or unmaps them (mapped
 * form); NULL is accepted. */
void params_free(groth16_params_t *params);
/* Bytes of the mapping the arrays point into: 0 for the heap form. Mapped
 * parameters are not tracked buffers (they are not heap); this is how the
 * harness reports them. NULL gives 0. */
uint64_t params_mapped_bytes(const groth16_params_t *params);

/* Checks path's layout without decoding the points: a regular file whose
 * verifying key parses and whose section counts match its length. Cheap
 * (reads the head of each section); for refusing a wrong file before any
 * work. 0, or -errno with err set. */
int params_check_layout(const char *path, params_error_t *err);
/*
 * Reads a parameter file. Returns 0 and *ret (free with params_free), or a
 * negative errno with err->msg set: -ENOENT/-EACCES/... when the file cannot
 * be opened, -EINVAL for a malformed file (truncated, trailing bytes, a count
 * larger than the file, a bad point). threads: 0 = all cores.
 */
int params_read(groth16_params_t **ret, const char *path, unsigned flags, unsigned threads,
                params_error_t *err);
/* Writes params in the layout above, atomically (a temporary file in the
 * same folder renamed over path), so a failed write leaves no partial file. */
int params_write(const char *path, const groth16_params_t *params, params_error_t *err);

/* The verifying key alone: same encoding. vk_read allocates vk->ic (free
 * with params_vk_clear). */
int params_vk_read(groth16_vk_t *vk, const char *path, params_error_t *err);
int params_vk_write(const char *path, const groth16_vk_t *vk, params_error_t *err);
void params_vk_clear(groth16_vk_t *vk);

/* Bytes of the file params_write would write. */
uint64_t params_file_bytes(const groth16_params_t *params);

#endif
