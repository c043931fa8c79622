/*
 * The subgroup check of a key's query points and its records (see
 * zkey_check.h).
 */
#include "prover/iden3/zkey_check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "prover/cache_dir.h"
#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "prover/parallel.h"

/* ---- the digest ------------------------------------------------------- */

#define DIGEST_BLOCK ((size_t)1 << 20)

typedef struct {
    const uint8_t *data;
    size_t bytes;
} block_t;

typedef struct {
    const block_t *blocks;
    uint8_t (*leaves)[IDEN3_DIGEST_BYTES];
} digest_job_t;

static void digest_block(void *ctx, size_t i)
{
    digest_job_t *j = ctx;
    struct sha256_ctx c;
    sha256_init(&c);
    sha256_update(&c, j->blocks[i].bytes, j->blocks[i].data);
    sha256_digest(&c, IDEN3_DIGEST_BYTES, j->leaves[i]);
}

static void put_u64(struct sha256_ctx *c, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    sha256_update(c, sizeof b, b);
}

static size_t set_bytes(const iden3_points_t *s)
{
    return s->n * (s->g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t));
}

int iden3_points_digest(uint8_t out[IDEN3_DIGEST_BYTES], const iden3_points_t *sets, size_t n_sets,
                        uint32_t n_vars, uint32_t n_public, uint32_t domain, unsigned threads)
{
    size_t n_blocks = 0;
    for (size_t s = 0; s < n_sets; s++)
        n_blocks += (set_bytes(&sets[s]) + DIGEST_BLOCK - 1) / DIGEST_BLOCK;
    block_t *blocks = calloc(n_blocks ? n_blocks : 1, sizeof *blocks);
    uint8_t (*leaves)[IDEN3_DIGEST_BYTES] = calloc(n_blocks ? n_blocks : 1, sizeof *leaves);
    if (!blocks || !leaves) {
        free(blocks);
        free(leaves);
        return -ENOMEM;
    }
    size_t b = 0;
    for (size_t s = 0; s < n_sets; s++) {
        size_t bytes = set_bytes(&sets[s]);
        for (size_t off = 0; off < bytes; off += DIGEST_BLOCK, b++) {
            blocks[b].data = (const uint8_t *)sets[s].pts + off;
            blocks[b].bytes = bytes - off < DIGEST_BLOCK ? bytes - off : DIGEST_BLOCK;
        }
    }
    digest_job_t job = {blocks, leaves};
    parallel_for(n_blocks, threads, digest_block, &job);

    /* The root: a version tag, the layout, the key's sizes, then each
     * query's name, count and block digests in order. */
    struct sha256_ctx c;
    sha256_init(&c);
    static const char tag[] = "zkbench zkey points v1";
    sha256_update(&c, sizeof tag, (const uint8_t *)tag);
    put_u64(&c, sizeof(g1_affine_t));
    put_u64(&c, sizeof(g2_affine_t));
    put_u64(&c, n_vars);
    put_u64(&c, n_public);
    put_u64(&c, domain);
    b = 0;
    for (size_t s = 0; s < n_sets; s++) {
        sha256_update(&c, strlen(sets[s].what) + 1, (const uint8_t *)sets[s].what);
        put_u64(&c, sets[s].n);
        put_u64(&c, sets[s].g2);
        size_t nb = (set_bytes(&sets[s]) + DIGEST_BLOCK - 1) / DIGEST_BLOCK;
        sha256_update(&c, nb * IDEN3_DIGEST_BYTES, leaves[b]);
        b += nb;
    }
    sha256_digest(&c, IDEN3_DIGEST_BYTES, out);
    free(blocks);
    free(leaves);
    return 0;
}

/* ---- the check --------------------------------------------------------- */

#define CHECK_CHUNK 1024

typedef struct {
    const iden3_points_t *set;
    _Atomic size_t bad; /* lowest file index found outside; SIZE_MAX: none */
} check_job_t;

static void check_chunk(void *ctx, size_t c)
{
    check_job_t *j = ctx;
    const iden3_points_t *s = j->set;
    size_t start = c * CHECK_CHUNK, end = start + CHECK_CHUNK < s->n ? start + CHECK_CHUNK : s->n;
    for (size_t i = start; i < end; i++) {
        if (i >= atomic_load_explicit(&j->bad, memory_order_relaxed))
            return; /* a lower index already failed */
        size_t slot = s->k_mask ? (size_t)((s->k * (uint64_t)i) & s->k_mask) : i;
        bool in = s->g2 ? g2_affine_in_subgroup((const g2_affine_t *)s->pts + slot)
                        : g1_affine_in_subgroup((const g1_affine_t *)s->pts + slot);
        if (in)
            continue;
        size_t cur = atomic_load(&j->bad);
        while (i < cur && !atomic_compare_exchange_weak(&j->bad, &cur, i))
            ;
        return;
    }
}

bool iden3_points_in_subgroup(const iden3_points_t *set, unsigned threads, size_t *bad)
{
    check_job_t j = {.set = set};
    atomic_init(&j.bad, SIZE_MAX);
    parallel_for((set->n + CHECK_CHUNK - 1) / CHECK_CHUNK, threads, check_chunk, &j);
    size_t b = atomic_load(&j.bad);
    if (b == SIZE_MAX)
        return true;
    *bad = b;
    return false;
}

/* ---- records ------------------------------------------------------------- */

static void hex(char out[2 * IDEN3_DIGEST_BYTES + 1], const uint8_t digest[IDEN3_DIGEST_BYTES])
{
    for (int i = 0; i < IDEN3_DIGEST_BYTES; i++)
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

/* The record's one line: what was checked, so that a record cannot be
 * mistaken for another key's or for a file of anything else. */
static int record_line(char *out, size_t cap, const uint8_t digest[IDEN3_DIGEST_BYTES], uint64_t n_g1, uint64_t n_g2)
{
    char h[2 * IDEN3_DIGEST_BYTES + 1];
    hex(h, digest);
    return snprintf(out, cap, "zkbench zkey subgroup check passed v1 sha256=%s g1=%llu g2=%llu\n", h,
                    (unsigned long long)n_g1, (unsigned long long)n_g2);
}

int iden3_check_record_path(char *out, size_t cap, const char *dir, const uint8_t digest[IDEN3_DIGEST_BYTES])
{
    char h[2 * IDEN3_DIGEST_BYTES + 1];
    hex(h, digest);
    int n = snprintf(out, cap, "%s/zkey-%s.checked", dir, h);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

bool iden3_check_record_find(const char *dir, const uint8_t digest[IDEN3_DIGEST_BYTES], uint64_t n_g1,
                             uint64_t n_g2)
{
    char path[4200], want[256], got[257];
    if (iden3_check_record_path(path, sizeof path, dir, digest) < 0)
        return false;
    int n = record_line(want, sizeof want, digest, n_g1, n_g2);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t k = read(fd, got, sizeof got);
    close(fd);
    return k == n && memcmp(got, want, (size_t)n) == 0;
}

int iden3_check_record_write(const char *dir, const uint8_t digest[IDEN3_DIGEST_BYTES], uint64_t n_g1,
                             uint64_t n_g2)
{
    char path[4200], tmp[4300], line[256];
    int rc = iden3_check_record_path(path, sizeof path, dir, digest);
    if (rc < 0)
        return rc;
    if ((rc = cache_dir_make(dir)) < 0)
        return rc;
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int n = record_line(line, sizeof line, digest, n_g1, n_g2);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    ssize_t k = write(fd, line, (size_t)n);
    int e = k == n ? 0 : k < 0 ? errno : ENOSPC;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && rename(tmp, path) != 0)
        e = errno;
    if (e) {
        unlink(tmp);
        return -e;
    }
    return 0;
}
