/*
 * The iden3 binary container shared by circom's .r1cs and snarkjs's .wtns
 * and .zkey files (@iden3/binfileutils):
 *   magic (4 bytes: "r1cs", "wtns", "zkey"), u32 version, u32 n_sections,
 *   then n_sections times: u32 type, u64 size, size bytes of data.
 * Integers are little-endian. A file is mapped read-only while it is read;
 * the readers (r1cs_file.h, wtns_file.h, zkey_file.h) decode it into
 * tracked buffers and close it.
 *
 * Errors: every reader fills an iden3_error_t with one line naming the file
 * and the problem ("x.zkey: section 9 (H points) holds 1000 bytes, expected
 * 98304 for a domain of 1024"), which the harness prints as it is.
 */
#ifndef ZKB_IDEN3_BINFILE_H
#define ZKB_IDEN3_BINFILE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Section types are small integers; zkey uses 1..10, r1cs 1..5. */
#define IDEN3_MAX_SECTION 32

typedef struct {
    char msg[512];
} iden3_error_t;

typedef struct {
    const char *path;     /* borrowed, for messages */
    const uint8_t *data;  /* the mapped file */
    size_t size;
    uint32_t version;
    uint64_t sec_off[IDEN3_MAX_SECTION + 1]; /* by type; data offset */
    uint64_t sec_size[IDEN3_MAX_SECTION + 1];
    bool sec_present[IDEN3_MAX_SECTION + 1];
} iden3_binfile_t;

/*
 * Maps path and checks the container: the magic, a version in
 * [1, max_version], every section header inside the file, no section past
 * the end, no type seen twice (types above IDEN3_MAX_SECTION are skipped).
 * -errno when the file cannot be opened; -EINVAL for a malformed file; err
 * says which. Close with iden3_binfile_close (also after a failure: the
 * struct is left closed then).
 */
int iden3_binfile_open(iden3_binfile_t *f, const char *path, const char magic[4], uint32_t max_version,
                       iden3_error_t *err);
/* Unmaps; a zeroed or closed struct is accepted. */
void iden3_binfile_close(iden3_binfile_t *f);

/* The data of section `type` (what names it in messages: "H points"):
 * -EINVAL when absent. */
int iden3_binfile_section(const uint8_t **data, uint64_t *size, const iden3_binfile_t *f, uint32_t type,
                          const char *what, iden3_error_t *err);

/* Little-endian readers (no bounds checks: callers check sizes first). */
static inline uint32_t iden3_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t iden3_u64(const uint8_t *p)
{
    return (uint64_t)iden3_u32(p) | (uint64_t)iden3_u32(p + 4) << 32;
}

/* Which field a file's prime is. */
enum iden3_prime {
    IDEN3_PRIME_BLS12_381_R, /* the BLS12-381 scalar field: what zkbench proves over */
    IDEN3_PRIME_BLS12_381_Q, /* the BLS12-381 base field */
    IDEN3_PRIME_BN128_R,     /* bn128 (alt_bn128, BN254) scalar field: circom's default */
    IDEN3_PRIME_BN128_Q,
    IDEN3_PRIME_OTHER,
};
/* Identifies an n8-byte little-endian prime. */
enum iden3_prime iden3_prime_identify(const uint8_t *p, uint32_t n8);
/* "bls12381", "bn128", ... for messages. */
const char *iden3_prime_name(enum iden3_prime p);

/* Formats "<path>: <message>" into err and returns code (negative errno),
 * for `return iden3_error(err, -EINVAL, path, "...")`. */
int iden3_error(iden3_error_t *err, int code, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
