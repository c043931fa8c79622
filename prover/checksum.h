/*
 * Fast non-cryptographic checksums for the files the prover maps (the
 * parameter layout cache): XXH64 (Yann Collet's xxHash, 64-bit variant, as
 * specified in xxhash's doc/xxhash_spec.md) and a block tree of it that
 * several threads compute. They detect corruption (a flipped bit, a torn
 * write, a stale file), not tampering.
 */
#ifndef ZKB_CHECKSUM_H
#define ZKB_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Bytes per block of checksum_tree. */
#define CHECKSUM_BLOCK_BYTES ((size_t)1 << 20)

/* XXH64 of n bytes (the standard algorithm, little-endian reads). */
uint64_t checksum_xxh64(const void *data, size_t n, uint64_t seed);

/*
 * The tree checksum of n bytes: every CHECKSUM_BLOCK_BYTES block (the last
 * one may be shorter) hashed with XXH64 (seed 0), then XXH64 of the block
 * digests as little-endian u64s, seeded with n. The value does not depend
 * on threads (0: all cores). Reading every byte, it also faults a mapping
 * in. 0 and *ret, or -ENOMEM (the digest list: 8 bytes per block).
 */
int checksum_tree(uint64_t *ret, const void *data, size_t n, unsigned threads);

#endif
