/*
 * The subgroup check of a snarkjs key's query points, on threads, and the
 * records that spare a key already checked from being checked again.
 *
 * The check is Scott's endomorphism test per point (g1_affine_in_subgroup,
 * g2_affine_in_subgroup): about 126 doublings a G1 point and 63 a G2 point,
 * which at 2^15 variables is seconds of CPU. A record is a file
 * DIR/zkey-<digest>.checked whose one line names the digest and the point
 * counts; the digest is SHA-256 (nettle) over the decoded points
 * themselves, the memory the prover then uses, so a file changed on disk,
 * even between reading and checking, never matches the record of the old
 * one. A record is written only after every point passed.
 */
#ifndef ZKB_IDEN3_ZKEY_CHECK_H
#define ZKB_IDEN3_ZKEY_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The digest: 32 bytes; in record names and messages, 64 hex digits. */
#define IDEN3_DIGEST_BYTES 32

/* One query of a key, decoded (infinity as zeros), before the points at
 * infinity are dropped. */
typedef struct {
    const void *pts;    /* g1_affine_t, or g2_affine_t when g2 */
    size_t n;
    bool g2;
    const char *what;   /* "A", "B1", "B2", "C", "H": for messages */
    uint32_t k, k_mask; /* when k_mask != 0, the file's point i is pts[(k i) & k_mask] (H) */
} iden3_points_t;

/*
 * SHA-256 of the sets' bytes, hashed 1 MiB at a time on threads (0: all
 * cores) and combined with the key's sizes (n_vars, n_public, domain) in
 * one root: the value does not depend on threads. 0, or -ENOMEM.
 */
int iden3_points_digest(uint8_t out[IDEN3_DIGEST_BYTES], const iden3_points_t *sets, size_t n_sets,
                        uint32_t n_vars, uint32_t n_public, uint32_t domain, unsigned threads);

/*
 * Every point of set in its order-r subgroup (infinity is), on threads
 * (0: all cores): true, or false with *bad the file index of the first
 * point outside (the lowest, whatever the threads).
 */
bool iden3_points_in_subgroup(const iden3_points_t *set, unsigned threads, size_t *bad);

/* DIR/zkey-<hex>.checked into out (cap bytes): 0, or -ENAMETOOLONG. */
int iden3_check_record_path(char *out, size_t cap, const char *dir, const uint8_t digest[IDEN3_DIGEST_BYTES]);

/* Whether DIR holds the record of these points: the file exists and its
 * line names this digest and these counts (anything else is no record). */
bool iden3_check_record_find(const char *dir, const uint8_t digest[IDEN3_DIGEST_BYTES], uint64_t n_g1,
                             uint64_t n_g2);

/*
 * Writes the record (DIR made if missing; a temporary file renamed into
 * place, so a reader sees the whole line or none). 0, or -errno: the
 * folder or the file could not be written.
 */
int iden3_check_record_write(const char *dir, const uint8_t digest[IDEN3_DIGEST_BYTES], uint64_t n_g1,
                             uint64_t n_g2);

#endif
