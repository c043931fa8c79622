/*
 * prover/checksum.h: XXH64 against published vectors and against libxxhash
 * (an independent implementation, loaded with dlopen where installed, on
 * random lengths, offsets and seeds), and the tree checksum against its
 * definition composed from libxxhash, for every thread count.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover/checksum.h"
#include "tests/common.h"

typedef unsigned long long (*xxh64_fn)(const void *, size_t, unsigned long long);

static void test_checksum(void)
{
    /* Published XXH64 values (libxxhash 0.8 gives the same). */
    static const struct {
        const char *s;
        uint64_t seed, want;
    } vec[] = {
        {"", 0, 0xef46db3751d8e999ull},
        {"a", 0, 0xd24ec4f1a98c6e5bull},
        {"abc", 0, 0x44bc2cf5ad770999ull},
        {"zkbench", 1, 0x4b64f430fbd4e987ull},
        {"0123456789abcdef0123456789abcdef0123", 0, 0xc4255ba3d1af5461ull},
    };
    for (size_t i = 0; i < sizeof vec / sizeof *vec; i++)
        CHECK(checksum_xxh64(vec[i].s, strlen(vec[i].s), vec[i].seed) == vec[i].want);
    uint8_t seq[64];
    for (int i = 0; i < 64; i++)
        seq[i] = (uint8_t)i;
    CHECK(checksum_xxh64(seq, 64, 0x9E3779B185EBCA87ull) == 0x2006c268b7d34f54ull);

    size_t big = 3 * CHECKSUM_BLOCK_BYTES + 5;
    uint8_t *buf = malloc(big);
    CHECK(buf != NULL);
    for (size_t i = 0; i < big; i += 8) {
        uint64_t r = test_rand_u64();
        memcpy(buf + i, &r, big - i < 8 ? big - i : 8);
    }

    void *lib = dlopen("libxxhash.so.0", RTLD_NOW);
    xxh64_fn ref = NULL;
    if (lib)
        *(void **)&ref = dlsym(lib, "XXH64"); /* POSIX's way to a function pointer */
    if (!ref)
        fprintf(stderr, "test_checksum: libxxhash not installed: XXH64 checked against the vectors only\n");
    else
        for (int t = 0; t < 2000; t++) {
            size_t n = t < 300 ? (size_t)t : (size_t)test_rand_below(big);
            size_t off = (size_t)test_rand_below(64);
            if (off + n > big)
                n = big - off;
            uint64_t seed = t % 3 == 0 ? 0 : test_rand_u64();
            CHECK(checksum_xxh64(buf + off, n, seed) == ref(buf + off, n, seed));
        }

    /* The tree: independent of the thread count, and the composition the
     * format says (block digests little-endian, outer seed = length). */
    const size_t lens[] = {0, 1, 31, CHECKSUM_BLOCK_BYTES - 1, CHECKSUM_BLOCK_BYTES,
                           CHECKSUM_BLOCK_BYTES + 1, 2 * CHECKSUM_BLOCK_BYTES, big,
                           (size_t)test_rand_below(big)};
    for (size_t k = 0; k < sizeof lens / sizeof *lens; k++) {
        size_t n = lens[k];
        uint64_t t1 = 0, t2 = 1, t3 = 2;
        CHECK(checksum_tree(&t1, buf, n, 1) == 0);
        CHECK(checksum_tree(&t2, buf, n, 2) == 0);
        CHECK(checksum_tree(&t3, buf, n, 3) == 0);
        CHECK(t1 == t2 && t2 == t3);
        size_t blocks = (n + CHECKSUM_BLOCK_BYTES - 1) / CHECKSUM_BLOCK_BYTES;
        uint8_t dig[8 * 4];
        for (size_t b = 0; b < blocks; b++) {
            size_t len = n - b * CHECKSUM_BLOCK_BYTES < CHECKSUM_BLOCK_BYTES ? n - b * CHECKSUM_BLOCK_BYTES
                                                                            : CHECKSUM_BLOCK_BYTES;
            uint64_t d = ref ? ref(buf + b * CHECKSUM_BLOCK_BYTES, len, 0)
                             : checksum_xxh64(buf + b * CHECKSUM_BLOCK_BYTES, len, 0);
            for (int i = 0; i < 8; i++)
                dig[b * 8 + (size_t)i] = (uint8_t)(d >> (8 * i));
        }
        uint64_t want = ref ? ref(dig, blocks * 8, n) : checksum_xxh64(dig, blocks * 8, n);
        CHECK(t1 == want);
    }
    /* one flipped bit anywhere changes it */
    uint64_t before, after;
    size_t at = (size_t)test_rand_below(big);
    CHECK(checksum_tree(&before, buf, big, 2) == 0);
    buf[at] ^= (uint8_t)(1u << test_rand_below(8));
    CHECK(checksum_tree(&after, buf, big, 2) == 0);
    CHECK(before != after);
    free(buf);
    if (lib)
        dlclose(lib);
}

int main(void)
{
    test_init("test_checksum");
    test_checksum();
    return test_finish();
}
