/* XXH64 and its block tree; see checksum.h. Written from the xxHash
 * specification (doc/xxhash_spec.md, "XXH64 algorithm description"). */
#include "prover/checksum.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prover/parallel.h"

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, unsigned r)
{
    return x << r | x >> (64 - r);
}

static inline uint64_t read64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t read32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t round64(uint64_t acc, uint64_t in)
{
    acc += in * P2;
    return rotl64(acc, 31) * P1;
}

static inline uint64_t merge64(uint64_t acc, uint64_t v)
{
    acc ^= round64(0, v);
    return acc * P1 + P4;
}

uint64_t checksum_xxh64(const void *data, size_t n, uint64_t seed)
{
    const uint8_t *p = data, *end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        const uint8_t *limit = end - 32;
        do {
            v1 = round64(v1, read64(p));
            v2 = round64(v2, read64(p + 8));
            v3 = round64(v3, read64(p + 16));
            v4 = round64(v4, read64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = merge64(h, v1);
        h = merge64(h, v2);
        h = merge64(h, v3);
        h = merge64(h, v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)n;
    for (; end - p >= 8; p += 8)
        h = rotl64(h ^ round64(0, read64(p)), 27) * P1 + P4;
    if (end - p >= 4) {
        h = rotl64(h ^ (uint64_t)read32(p) * P1, 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; p++)
        h = rotl64(h ^ *p * P5, 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

struct tree_job {
    const uint8_t *data;
    size_t n;
    uint8_t *digests; /* little-endian u64 per block */
};

static void tree_block(void *ctx, size_t i)
{
    struct tree_job *job = ctx;
    size_t begin = i * CHECKSUM_BLOCK_BYTES;
    size_t len = job->n - begin < CHECKSUM_BLOCK_BYTES ? job->n - begin : CHECKSUM_BLOCK_BYTES;
    uint64_t d = checksum_xxh64(job->data + begin, len, 0);
    for (int b = 0; b < 8; b++)
        job->digests[i * 8 + (size_t)b] = (uint8_t)(d >> (8 * b));
}

int checksum_tree(uint64_t *ret, const void *data, size_t n, unsigned threads)
{
    size_t blocks = n / CHECKSUM_BLOCK_BYTES + (n % CHECKSUM_BLOCK_BYTES != 0);
    uint8_t *digests = malloc(blocks ? blocks * 8 : 1);
    if (!digests)
        return -ENOMEM;
    struct tree_job job = {.data = data, .n = n, .digests = digests};
    parallel_for(blocks, threads, tree_block, &job);
    *ret = checksum_xxh64(digests, blocks * 8, (uint64_t)n);
    free(digests);
    return 0;
}
