/* The proving key file; see params_map.h and docs/params-cache.md. */
#define _GNU_SOURCE
#include "prover/params_map.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prover/checksum.h"
#include "arith/field/fp.h"
#include "prover/parallel.h"

#define MAP_MAGIC "ZKBPMAP\0"
#define MAP_ALIGN 4096u         /* every section starts on a page */
#define MAP_BYTE_ORDER 0x0102030405060708ull
#define MAP_BLOCK CHECKSUM_BLOCK_BYTES
#define SOURCE_SAMPLES 64
#define SOURCE_SAMPLE_BYTES ((size_t)64 << 10)
#define POPULATE_PIECE ((size_t)64 << 20)

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif

/* Sections, in file order. */
enum { SEC_VK, SEC_IC, SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2, SEC_COUNT };

/* The fixed points of the verifying key, as one section. */
struct vk_fixed {
    g1_affine_t alpha_g1, beta_g1, delta_g1;
    g2_affine_t beta_g2, gamma_g2, delta_g2;
};

/* The header, at byte 0, in the byte order of the writer (byte_order
 * tells). Every field is fixed-width, so the layout is the same on every
 * build that can read the payload at all. */
struct map_header {
    char magic[8];           /* "ZKBPMAP\0" */
    uint32_t version;        /* PARAMS_MAP_VERSION */
    uint32_t header_bytes;   /* sizeof(struct map_header) */
    uint64_t byte_order;     /* MAP_BYTE_ORDER as the writer stored it */
    uint32_t limb_bits;      /* 64 */
    uint32_t fp_limbs;       /* 6 */
    uint32_t g1_bytes;       /* sizeof(g1_affine_t) */
    uint32_t g2_bytes;       /* sizeof(g2_affine_t) */
    uint64_t fp_one[6];      /* FP_ONE: R mod p, so the Montgomery R is the reader's */
    uint64_t align;          /* every offset is a multiple of it */
    uint64_t count[SEC_COUNT];  /* points per section (vk: 1 struct vk_fixed) */
    uint64_t offset[SEC_COUNT]; /* byte offset of each section in the file */
    uint64_t payload_offset; /* = offset[SEC_VK] */
    uint64_t payload_bytes;  /* file_bytes - payload_offset */
    uint64_t file_bytes;     /* the whole file */
    uint64_t payload_checksum; /* checksum_tree of the payload: XXH64 of the block table, seeded with payload_bytes */
    uint64_t block_bytes;    /* MAP_BLOCK */
    uint64_t table_offset;   /* the block table: one little-endian XXH64 per block */
    uint64_t table_count;    /* blocks of the payload */
    uint64_t origin_kind;    /* enum params_origin_kind */
    uint64_t seed;           /* SETUP: the seed */
    uint64_t source_bytes, source_mtime_ns, source_sample; /* FILE: the .params file */
    char spec[256];          /* SETUP: the circuit's canonical spec, NUL-padded */
    uint64_t header_checksum; /* XXH64 (seed 0) of the header bytes before this field */
};

_Static_assert(sizeof(struct map_header) == 568, "the header layout is part of the format");
_Static_assert(offsetof(struct map_header, header_checksum) == 560, "the checksum is the last field");
_Static_assert(sizeof(struct vk_fixed) == 3 * sizeof(g1_affine_t) + 3 * sizeof(g2_affine_t),
               "no padding in the vk section");
_Static_assert(sizeof(struct map_header) <= MAP_ALIGN, "the header fits before the table");

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- load modes -------------------------------------------------------- */

int params_load_parse(enum params_load *ret, const char *s)
{
    if (s && strcmp(s, "mmap") == 0)
        *ret = PARAMS_LOAD_MMAP;
    else if (s && strcmp(s, "heap") == 0)
        *ret = PARAMS_LOAD_HEAP;
    else
        return -EINVAL;
    return 0;
}

const char *params_load_name(enum params_load load)
{
    switch (load) {
    case PARAMS_LOAD_MMAP: return "mmap";
    case PARAMS_LOAD_HEAP: return "heap";
    }
    return NULL;
}

/* ---- a .params file's identity ------------------------------------------ */

static int read_full(int fd, void *buf, size_t n, uint64_t off)
{
    uint8_t *b = buf;
    while (n > 0) {
        ssize_t r = pread(fd, b, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? -errno : -EIO;
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

int params_source_identify(params_source_t *ret, const char *path, params_error_t *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return params_error_set(err, -e, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return params_error_set(err, -EINVAL, "%s: not a regular file", path);
    }
    uint64_t size = (uint64_t)st.st_size, digests[SOURCE_SAMPLES];
    uint8_t *buf = malloc(SOURCE_SAMPLE_BYTES);
    int rc = buf ? 0 : -ENOMEM;
    for (int i = 0; i < SOURCE_SAMPLES && rc == 0; i++) {
        /* samples spread from the head to the tail */
        uint64_t len = size < SOURCE_SAMPLE_BYTES ? size : SOURCE_SAMPLE_BYTES;
        uint64_t off = (size - len) / (SOURCE_SAMPLES - 1) * (uint64_t)i;
        if ((rc = read_full(fd, buf, (size_t)len, off)) == 0)
            digests[i] = checksum_xxh64(buf, (size_t)len, off);
    }
    free(buf);
    close(fd);
    if (rc < 0)
        return params_error_set(err, rc, "%s: cannot read: %s", path, strerror(-rc));
    ret->bytes = size;
    ret->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    ret->sample = checksum_xxh64(digests, sizeof digests, size);
    return 0;
}

/* ---- layout -------------------------------------------------------------- */

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

static uint64_t sec_elt_bytes(int s)
{
    return s == SEC_VK ? sizeof(struct vk_fixed) : s == SEC_B_G2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t);
}

static uint64_t blocks_of(uint64_t bytes)
{
    return bytes / MAP_BLOCK + (bytes % MAP_BLOCK != 0);
}

/* The header of a key of these section counts without checksums or
 * origin: layout, offsets, the table's place. */
static int layout_init(struct map_header *h, const size_t counts[6])
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, MAP_MAGIC, 8);
    h->version = PARAMS_MAP_VERSION;
    h->header_bytes = sizeof *h;
    h->byte_order = MAP_BYTE_ORDER;
    h->limb_bits = 64;
    h->fp_limbs = 6;
    h->g1_bytes = sizeof(g1_affine_t);
    h->g2_bytes = sizeof(g2_affine_t);
    memcpy(h->fp_one, FP_ONE.l, sizeof h->fp_one);
    h->align = MAP_ALIGN;
    h->block_bytes = MAP_BLOCK;
    /* the payload's size first: the table before it depends on it */
    uint64_t payload = 0;
    for (int s = 0; s < SEC_COUNT; s++) {
        uint64_t n = s == SEC_VK ? 1 : counts[s - 1];
        if (n > (UINT64_MAX / 4) / sec_elt_bytes(s))
            return -EOVERFLOW;
        h->count[s] = n;
        payload = align_up(payload, MAP_ALIGN) + n * sec_elt_bytes(s);
        if (payload > UINT64_MAX / 4)
            return -EOVERFLOW;
    }
    h->table_offset = MAP_ALIGN;
    h->table_count = blocks_of(payload);
    uint64_t end = align_up(h->table_offset + h->table_count * 8, MAP_ALIGN);
    for (int s = 0; s < SEC_COUNT; s++) {
        h->offset[s] = align_up(end, MAP_ALIGN);
        end = h->offset[s] + h->count[s] * sec_elt_bytes(s);
    }
    h->payload_offset = h->offset[SEC_VK];
    h->file_bytes = end;
    h->payload_bytes = end - h->payload_offset;
    return 0;
}

static void origin_to_header(struct map_header *h, const params_origin_t *o)
{
    if (!o)
        return;
    h->origin_kind = (uint64_t)o->kind;
    if (o->kind == PARAMS_ORIGIN_SETUP) {
        h->seed = o->seed;
        snprintf(h->spec, sizeof h->spec, "%s", o->spec);
    } else if (o->kind == PARAMS_ORIGIN_FILE) {
        h->source_bytes = o->source.bytes;
        h->source_mtime_ns = o->source.mtime_ns;
        h->source_sample = o->source.sample;
    }
}

static void origin_from_header(params_origin_t *o, const struct map_header *h)
{
    memset(o, 0, sizeof *o);
    o->kind = (int)h->origin_kind;
    o->seed = h->seed;
    memcpy(o->spec, h->spec, sizeof o->spec);
    o->spec[sizeof o->spec - 1] = 0;
    o->source = (params_source_t){h->source_bytes, h->source_mtime_ns, h->source_sample};
}

/* A header read from a file: everything but the checksums of the blocks
 * and the origin. Returns 0 or -EINVAL with err naming the first mismatch. */
static int header_check(const struct map_header *h, uint64_t file_size, const char *path, params_error_t *err)
{
    if (memcmp(h->magic, MAP_MAGIC, 8) != 0)
        return params_error_set(err, -EINVAL, "%s: not a zkbench proving key file (bad magic)", path);
    if (h->version != PARAMS_MAP_VERSION)
        return params_error_set(err, -EINVAL, "%s: format version %u, this build reads version %u", path,
                                h->version, PARAMS_MAP_VERSION);
    uint64_t hc = checksum_xxh64(h, offsetof(struct map_header, header_checksum), 0);
    if (h->header_checksum != hc)
        return params_error_set(err, -EINVAL, "%s: header checksum %016llx, the header hashes to %016llx "
                                "(corrupted header)", path, (unsigned long long)h->header_checksum,
                                (unsigned long long)hc);
    if (h->header_bytes != sizeof *h || h->byte_order != MAP_BYTE_ORDER || h->limb_bits != 64 ||
        h->fp_limbs != 6 || h->g1_bytes != sizeof(g1_affine_t) || h->g2_bytes != sizeof(g2_affine_t) ||
        memcmp(h->fp_one, FP_ONE.l, sizeof h->fp_one) != 0)
        return params_error_set(err, -EINVAL, "%s: written for another layout (header %u bytes, byte order "
                                "%016llx, %u x %u-bit limbs, G1 %u bytes, G2 %u bytes, or another Montgomery R); "
                                "this build has header %zu, byte order %016llx, 6 x 64-bit limbs, G1 %zu, G2 %zu",
                                path, h->header_bytes, (unsigned long long)h->byte_order, h->fp_limbs,
                                h->limb_bits, h->g1_bytes, h->g2_bytes, sizeof *h,
                                (unsigned long long)MAP_BYTE_ORDER, sizeof(g1_affine_t), sizeof(g2_affine_t));
    if (h->file_bytes != file_size)
        return params_error_set(err, -EINVAL, "%s: %llu bytes, the header says %llu (%s)", path,
                                (unsigned long long)file_size, (unsigned long long)h->file_bytes,
                                file_size < h->file_bytes ? "truncated" : "trailing bytes");
    if (h->align != MAP_ALIGN || h->block_bytes != MAP_BLOCK)
        return params_error_set(err, -EINVAL, "%s: section alignment %llu and block %llu bytes, expected %u and %zu",
                                path, (unsigned long long)h->align, (unsigned long long)h->block_bytes, MAP_ALIGN,
                                MAP_BLOCK);
    /* every count and offset must be the ones the layout gives for the
     * counts: nothing else can be trusted to be in range */
    struct map_header want;
    size_t counts[6];
    for (int s = 1; s < SEC_COUNT; s++)
        counts[s - 1] = (size_t)h->count[s];
    if (h->count[SEC_VK] != 1 || layout_init(&want, counts) < 0 || want.file_bytes != h->file_bytes ||
        want.table_offset != h->table_offset || want.table_count != h->table_count ||
        want.payload_offset != h->payload_offset || want.payload_bytes != h->payload_bytes ||
        memcmp(want.offset, h->offset, sizeof want.offset) != 0)
        return params_error_set(err, -EINVAL, "%s: the sections' counts and offsets do not make the layout "
                                "(vk count %llu, payload at %llu, %llu blocks)", path,
                                (unsigned long long)h->count[SEC_VK], (unsigned long long)h->payload_offset,
                                (unsigned long long)h->table_count);
    if (h->origin_kind > PARAMS_ORIGIN_FILE || memchr(h->spec, 0, sizeof h->spec) == NULL)
        return params_error_set(err, -EINVAL, "%s: origin %llu or its spec is malformed", path,
                                (unsigned long long)h->origin_kind);
    return 0;
}

/* ---- the block table ----------------------------------------------------- */

static uint64_t table_get(const uint8_t *table, uint64_t i)
{
    uint64_t v = 0;
    for (int b = 7; b >= 0; b--)
        v = v << 8 | table[i * 8 + (uint64_t)b];
    return v;
}

struct blocks_job {
    const uint8_t *payload;
    uint64_t bytes;
    const uint8_t *table;   /* check against it, or */
    uint8_t *out;           /* write it */
    const uint64_t *which;  /* the blocks (NULL: block i is the i-th) */
    uint64_t bad;           /* the lowest mismatching block + 1 (0: none) */
    pthread_mutex_t lock;
};

static void blocks_one(void *ctx, size_t k)
{
    struct blocks_job *job = ctx;
    uint64_t i = job->which ? job->which[k] : k;
    uint64_t off = i * MAP_BLOCK, len = job->bytes - off < MAP_BLOCK ? job->bytes - off : MAP_BLOCK;
    uint64_t d = checksum_xxh64(job->payload + off, (size_t)len, 0);
    if (job->out) {
        for (int b = 0; b < 8; b++)
            job->out[i * 8 + (uint64_t)b] = (uint8_t)(d >> (8 * b));
        return;
    }
    if (d != table_get(job->table, i)) {
        pthread_mutex_lock(&job->lock);
        if (!job->bad || i + 1 < job->bad)
            job->bad = i + 1;
        pthread_mutex_unlock(&job->lock);
    }
}

/* Checks `sample` blocks besides the first and last (all for
 * PARAMS_MAP_SAMPLE_ALL) against the table: 0, or the lowest bad block + 1
 * in *bad. */
static int blocks_check(uint64_t *bad, uint64_t *checked, const uint8_t *payload, uint64_t bytes,
                        const uint8_t *table, uint64_t count, unsigned sample, unsigned threads)
{
    struct blocks_job job = {.payload = payload, .bytes = bytes, .table = table};
    pthread_mutex_init(&job.lock, NULL);
    uint64_t *which = NULL, n = count;
    if (sample != PARAMS_MAP_SAMPLE_ALL && (uint64_t)sample + 2 < count) {
        n = (uint64_t)sample + 2;
        which = malloc(n * sizeof *which);
        if (!which) {
            pthread_mutex_destroy(&job.lock);
            return -ENOMEM;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)getpid() << 40;
        which[0] = 0;
        which[1] = count - 1;
        for (uint64_t k = 2; k < n; k++) {
            /* splitmix64: a fresh draw every start */
            uint64_t z = (s += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            which[k] = (z ^ (z >> 31)) % count;
        }
        job.which = which;
    }
    parallel_for((size_t)n, threads, blocks_one, &job);
    pthread_mutex_destroy(&job.lock);
    free(which);
    *bad = job.bad;
    *checked = n;
    return 0;
}

/* ---- populating --------------------------------------------------------- */

struct populate_job {
    uint8_t *data;
    size_t bytes;
    volatile uint8_t sink;
};

static void populate_piece(void *ctx, size_t k)
{
    struct populate_job *job = ctx;
    size_t off = k * POPULATE_PIECE, len = job->bytes - off < POPULATE_PIECE ? job->bytes - off : POPULATE_PIECE;
    if (madvise(job->data + off, len, MADV_POPULATE_READ) == 0)
        return;
    /* before Linux 5.14: a read per page faults it in */
    uint8_t acc = 0;
    for (size_t i = 0; i < len; i += 4096)
        acc ^= job->data[off + i];
    job->sink = acc;
}

/* Faults the mapping's pages in on threads: the key is resident from the
 * start, as a production prover's loaded SRS is. */
static void populate(void *data, size_t bytes, unsigned threads)
{
    struct populate_job job = {.data = data, .bytes = bytes};
    parallel_for((bytes + POPULATE_PIECE - 1) / POPULATE_PIECE, threads, populate_piece, &job);
}

/* ---- reading ------------------------------------------------------------- */

bool params_map_is_key_file(const char *path)
{
    char magic[8];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool yes = read_full(fd, magic, sizeof magic, 0) == 0 && memcmp(magic, MAP_MAGIC, 8) == 0;
    close(fd);
    return yes;
}

static bool origin_matches(const params_origin_t *want, const struct map_header *h)
{
    if ((uint64_t)want->kind != h->origin_kind)
        return false;
    if (want->kind == PARAMS_ORIGIN_SETUP)
        return want->seed == h->seed && strncmp(want->spec, h->spec, sizeof h->spec) == 0;
    if (want->kind == PARAMS_ORIGIN_FILE)
        return want->source.bytes == h->source_bytes && want->source.mtime_ns == h->source_mtime_ns &&
               want->source.sample == h->source_sample;
    return true;
}

static void origin_text(char *out, size_t cap, const params_origin_t *o)
{
    if (o->kind == PARAMS_ORIGIN_SETUP)
        snprintf(out, cap, "the setup of %.200s with seed %llu", o->spec, (unsigned long long)o->seed);
    else if (o->kind == PARAMS_ORIGIN_FILE)
        snprintf(out, cap, "a parameter file of %llu bytes (mtime %llu ns, sample %016llx)",
                 (unsigned long long)o->source.bytes, (unsigned long long)o->source.mtime_ns,
                 (unsigned long long)o->source.sample);
    else
        snprintf(out, cap, "an unrecorded origin");
}

/* Maps and checks path; keeps the mapping in *data_out, *size_out on success. */
static int map_check(const uint8_t **data_out, size_t *size_out, struct map_header *h, const char *path,
                     const params_origin_t *expect, unsigned sample, unsigned threads, params_map_stats_t *st,
                     params_error_t *err)
{
    const uint8_t *data = NULL;
    size_t size = 0;
    double t0 = now_s();
    int rc = params_file_map(&data, &size, path, MAP_SHARED, err);
    if (rc < 0)
        return rc;
    if (size < sizeof *h) {
        rc = params_error_set(err, -EINVAL, "%s: %zu bytes, shorter than the %zu-byte header (truncated)", path,
                              size, sizeof *h);
        goto fail;
    }
    memcpy(h, data, sizeof *h);
    if ((rc = header_check(h, size, path, err)) < 0)
        goto fail;
    /* the gaps are zeros: after the header, after the table */
    uint64_t table_end = h->table_offset + h->table_count * 8;
    for (uint64_t i = sizeof *h; i < h->payload_offset; i++) {
        if (i == h->table_offset)
            i = table_end;
        if (i < h->payload_offset && data[i] != 0) {
            rc = params_error_set(err, -EINVAL, "%s: byte %llu between the header, the block table and the payload "
                                  "is not zero", path, (unsigned long long)i);
            goto fail;
        }
    }
    const uint8_t *table = data + h->table_offset;
    if (checksum_xxh64(table, (size_t)(h->table_count * 8), h->payload_bytes) != h->payload_checksum) {
        rc = params_error_set(err, -EBADMSG, "%s: the block table does not hash to the header's checksum %016llx "
                              "(corrupted table)", path, (unsigned long long)h->payload_checksum);
        goto fail;
    }
    if (expect && !origin_matches(expect, h)) {
        char want[320], have[320];
        params_origin_t o;
        origin_from_header(&o, h);
        origin_text(want, sizeof want, expect);
        origin_text(have, sizeof have, &o);
        rc = params_error_set(err, -ESTALE, "%s: made by %s, not %s", path, have, want);
        goto fail;
    }
    uint64_t bad = 0, checked = 0;
    madvise((void *)(uintptr_t)data, size, MADV_WILLNEED);
    if ((rc = blocks_check(&bad, &checked, data + h->payload_offset, h->payload_bytes, table, h->table_count,
                           sample, threads)) < 0) {
        params_error_set(err, rc, "%s: out of memory", path);
        goto fail;
    }
    if (bad) {
        uint64_t off = h->payload_offset + (bad - 1) * MAP_BLOCK;
        rc = params_error_set(err, -EBADMSG, "%s: block %llu (bytes %llu..%llu) does not match its checksum "
                              "(corrupted contents)", path, (unsigned long long)(bad - 1), (unsigned long long)off,
                              (unsigned long long)(off + MAP_BLOCK < size ? off + MAP_BLOCK : size));
        goto fail;
    }
    if (st) {
        memset(st, 0, sizeof *st);
        st->blocks = h->table_count;
        st->blocks_checked = checked;
        st->payload_bytes = h->payload_bytes;
        st->check_s = now_s() - t0;
        origin_from_header(&st->origin, h);
    }
    *data_out = data;
    *size_out = size;
    return 0;
fail:
    if (data)
        munmap((void *)(uintptr_t)data, size);
    return rc;
}

/* The key's arrays at their sections of a mapping (the mapped form). */
static void params_point_into(groth16_params_t *p, const uint8_t *data, size_t size, const struct map_header *h)
{
    const struct vk_fixed *vk = (const void *)(data + h->offset[SEC_VK]);
    p->vk.alpha_g1 = vk->alpha_g1;
    p->vk.beta_g1 = vk->beta_g1;
    p->vk.delta_g1 = vk->delta_g1;
    p->vk.beta_g2 = vk->beta_g2;
    p->vk.gamma_g2 = vk->gamma_g2;
    p->vk.delta_g2 = vk->delta_g2;
    /* The arrays are read-only (PROT_READ); the struct's pointers are not
     * const because the heap form shares them. */
    p->vk.ic = (g1_affine_t *)(uintptr_t)(data + h->offset[SEC_IC]);
    p->h = (g1_affine_t *)(uintptr_t)(data + h->offset[SEC_H]);
    p->l = (g1_affine_t *)(uintptr_t)(data + h->offset[SEC_L]);
    p->a = (g1_affine_t *)(uintptr_t)(data + h->offset[SEC_A]);
    p->b_g1 = (g1_affine_t *)(uintptr_t)(data + h->offset[SEC_B_G1]);
    p->b_g2 = (g2_affine_t *)(uintptr_t)(data + h->offset[SEC_B_G2]);
    p->vk.n_ic = (size_t)h->count[SEC_IC];
    p->n_h = (size_t)h->count[SEC_H];
    p->n_l = (size_t)h->count[SEC_L];
    p->n_a = (size_t)h->count[SEC_A];
    p->n_b_g1 = (size_t)h->count[SEC_B_G1];
    p->n_b_g2 = (size_t)h->count[SEC_B_G2];
    p->map = (void *)(uintptr_t)data;
    p->map_bytes = size;
}

int params_map_read(groth16_params_t **ret, const char *path, const params_origin_t *expect, unsigned sample,
                    unsigned threads, params_map_stats_t *stats, params_error_t *err)
{
    const uint8_t *data;
    size_t size;
    struct map_header h;
    params_map_stats_t local;
    params_map_stats_t *st = stats ? stats : &local;
    int rc = map_check(&data, &size, &h, path, expect, sample, threads, st, err);
    if (rc < 0)
        return rc;
    groth16_params_t *p = calloc(1, sizeof *p);
    if (!p) {
        munmap((void *)(uintptr_t)data, size);
        return params_error_set(err, -ENOMEM, "%s: out of memory", path);
    }
    double t0 = now_s();
    populate((void *)(uintptr_t)data, size, threads);
    st->populate_s = now_s() - t0;
    params_point_into(p, data, size, &h);
    *ret = p;
    return 0;
}

int params_map_verify(const char *path, unsigned threads, params_map_stats_t *stats, params_error_t *err)
{
    const uint8_t *data;
    size_t size;
    struct map_header h;
    int rc = map_check(&data, &size, &h, path, NULL, PARAMS_MAP_SAMPLE_ALL, threads, stats, err);
    if (rc == 0)
        munmap((void *)(uintptr_t)data, size);
    return rc;
}

int params_map_to_heap(groth16_params_t **ret, const groth16_params_t *p)
{
    groth16_params_t *q;
    int rc = params_alloc(&q, p->vk.n_ic, p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2);
    if (rc < 0)
        return rc;
    g1_affine_t *ic = q->vk.ic;
    q->vk = p->vk;
    q->vk.ic = ic;
    memcpy(q->vk.ic, p->vk.ic, p->vk.n_ic * sizeof(g1_affine_t));
    memcpy(q->h, p->h, p->n_h * sizeof(g1_affine_t));
    memcpy(q->l, p->l, p->n_l * sizeof(g1_affine_t));
    memcpy(q->a, p->a, p->n_a * sizeof(g1_affine_t));
    memcpy(q->b_g1, p->b_g1, p->n_b_g1 * sizeof(g1_affine_t));
    memcpy(q->b_g2, p->b_g2, p->n_b_g2 * sizeof(g2_affine_t));
    *ret = q;
    return 0;
}

/* ---- writing ------------------------------------------------------------- */

struct params_map_writer {
    char path[4096], tmp[4100];
    int fd;
    uint8_t *data;
    struct map_header h;
};

/* Makes a rename in the folder of path durable. */
static int sync_dir_of(const char *path)
{
    char buf[4096];
    if ((size_t)snprintf(buf, sizeof buf, "%s", path) >= sizeof buf)
        return -ENAMETOOLONG;
    int fd = open(dirname(buf), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) == 0 || errno == EINVAL ? 0 : -errno; /* some filesystems refuse it */
    close(fd);
    return rc;
}

int params_map_create(groth16_params_t **ret, params_map_writer_t **wret, const char *path, const size_t counts[6],
                      params_error_t *err)
{
    params_map_writer_t *w = calloc(1, sizeof *w);
    groth16_params_t *p = calloc(1, sizeof *p);
    int rc = 0;
    if (!w || !p) {
        free(w);
        free(p);
        return params_error_set(err, -ENOMEM, "%s: out of memory", path);
    }
    w->fd = -1;
    if (layout_init(&w->h, counts) < 0) {
        rc = params_error_set(err, -EOVERFLOW, "%s: the parameters are too large for a key file", path);
        goto fail;
    }
    if ((size_t)snprintf(w->path, sizeof w->path, "%s", path) >= sizeof w->path ||
        (size_t)snprintf(w->tmp, sizeof w->tmp, "%s.tmp.XXXXXX", path) >= sizeof w->tmp) {
        rc = params_error_set(err, -ENAMETOOLONG, "%s: path too long", path);
        goto fail;
    }
    if ((w->fd = mkstemp(w->tmp)) < 0) {
        int e = errno;
        w->tmp[0] = 0;
        rc = params_error_set(err, -e, "%s: cannot create the key file there: %s", path, strerror(e));
        goto fail;
    }
    fchmod(w->fd, 0644);
    /* every block reserved now: a full disk is an error here, not SIGBUS
     * on a page of the mapping later */
    int e = posix_fallocate(w->fd, 0, (off_t)w->h.file_bytes);
    if (e == EOPNOTSUPP || e == EINVAL)
        e = ftruncate(w->fd, (off_t)w->h.file_bytes) == 0 ? 0 : errno;
    if (e) {
        rc = params_error_set(err, -e, "%s: cannot reserve %llu bytes for the key file: %s", path,
                              (unsigned long long)w->h.file_bytes, strerror(e));
        goto fail;
    }
    void *m = mmap(NULL, (size_t)w->h.file_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, 0);
    if (m == MAP_FAILED) {
        e = errno;
        rc = params_error_set(err, -e, "%s: cannot map the key file: %s", path, strerror(e));
        goto fail;
    }
    w->data = m;
    params_point_into(p, w->data, (size_t)w->h.file_bytes, &w->h);
    *ret = p;
    *wret = w;
    return 0;
fail:
    params_map_abort(w, p);
    return rc;
}

void params_map_abort(params_map_writer_t *w, groth16_params_t *p)
{
    if (p && w && p->map == (void *)w->data)
        p->map = NULL; /* unmapped below, not by params_free */
    free(p);
    if (!w)
        return;
    if (w->data)
        munmap(w->data, (size_t)w->h.file_bytes);
    if (w->fd >= 0)
        close(w->fd);
    if (w->tmp[0])
        unlink(w->tmp);
    free(w);
}

int params_map_commit(params_map_writer_t *w, groth16_params_t *p, const params_origin_t *origin, unsigned threads,
                      params_error_t *err)
{
    struct map_header *h = &w->h;
    const char *what = "checksum";
    /* the fixed vk points live in the struct: their section gets them now */
    struct vk_fixed vk = {
        .alpha_g1 = p->vk.alpha_g1, .beta_g1 = p->vk.beta_g1, .delta_g1 = p->vk.delta_g1,
        .beta_g2 = p->vk.beta_g2,   .gamma_g2 = p->vk.gamma_g2, .delta_g2 = p->vk.delta_g2,
    };
    memcpy(w->data + h->offset[SEC_VK], &vk, sizeof vk);
    origin_to_header(h, origin);
    struct blocks_job job = {.payload = w->data + h->payload_offset, .bytes = h->payload_bytes,
                             .out = w->data + h->table_offset};
    pthread_mutex_init(&job.lock, NULL);
    parallel_for((size_t)h->table_count, threads, blocks_one, &job);
    pthread_mutex_destroy(&job.lock);
    h->payload_checksum = checksum_xxh64(w->data + h->table_offset, (size_t)(h->table_count * 8), h->payload_bytes);
    h->header_checksum = checksum_xxh64(h, offsetof(struct map_header, header_checksum), 0);
    memcpy(w->data, h, sizeof *h);
    int rc = 0;
    if (msync(w->data, (size_t)h->file_bytes, MS_SYNC) != 0 || fsync(w->fd) != 0) {
        rc = -errno;
        what = "sync";
    }
    if (rc == 0 && close(w->fd) != 0) {
        rc = -errno;
        what = "close";
    }
    w->fd = -1;
    if (rc == 0 && rename(w->tmp, w->path) != 0) {
        rc = -errno;
        what = "rename";
    }
    if (rc < 0) {
        params_error_set(err, rc, "%s: cannot write the key file (%s): %s", w->path, what, strerror(-rc));
        params_map_abort(w, p);
        return rc;
    }
    w->tmp[0] = 0;
    mprotect(w->data, (size_t)h->file_bytes, PROT_READ);
    if ((rc = sync_dir_of(w->path)) < 0) {
        /* the file is in place and whole; its name may not survive a crash */
        params_error_set(err, rc, "%s: written, but syncing its folder failed: %s", w->path, strerror(-rc));
        params_map_abort(w, p);
        return rc;
    }
    /* p keeps the mapping (params_free unmaps it) */
    free(w);
    return 0;
}

int params_map_write(const char *path, const groth16_params_t *src, const params_origin_t *origin, unsigned threads,
                     params_error_t *err)
{
    const size_t counts[6] = {src->vk.n_ic, src->n_h, src->n_l, src->n_a, src->n_b_g1, src->n_b_g2};
    groth16_params_t *p;
    params_map_writer_t *w;
    int rc = params_map_create(&p, &w, path, counts, err);
    if (rc < 0)
        return rc;
    g1_affine_t *ic = p->vk.ic;
    p->vk = src->vk;
    p->vk.ic = ic;
    memcpy(p->vk.ic, src->vk.ic, src->vk.n_ic * sizeof(g1_affine_t));
    memcpy(p->h, src->h, src->n_h * sizeof(g1_affine_t));
    memcpy(p->l, src->l, src->n_l * sizeof(g1_affine_t));
    memcpy(p->a, src->a, src->n_a * sizeof(g1_affine_t));
    memcpy(p->b_g1, src->b_g1, src->n_b_g1 * sizeof(g1_affine_t));
    memcpy(p->b_g2, src->b_g2, src->n_b_g2 * sizeof(g2_affine_t));
    if ((rc = params_map_commit(w, p, origin, threads, err)) < 0)
        return rc;
    params_free(p);
    return 0;
}

/* ---- open: map or rebuild ---------------------------------------------- */

int params_map_open(groth16_params_t **ret, const char *map_path, const char *params_path, unsigned flags,
                    unsigned threads, params_map_info_t *info, params_error_t *err)
{
    params_map_info_t local;
    params_map_info_t *in = info ? info : &local;
    memset(in, 0, sizeof *in);
    params_origin_t origin = {.kind = PARAMS_ORIGIN_FILE};
    int rc = params_source_identify(&origin.source, params_path, err);
    if (rc < 0)
        return rc;
    in->source = origin.source;
    groth16_params_t *p = NULL;
    params_error_t why;
    double t0 = now_s();
    rc = params_map_read(&p, map_path, &origin, PARAMS_MAP_SAMPLE, threads, NULL, &why);
    if (rc == -ENOMEM) {
        params_error_set(err, rc, "%s", why.msg);
        return rc;
    }
    if (rc < 0) {
        in->rebuilt = true;
        in->reason = rc;
        snprintf(in->why, sizeof in->why, "%s", why.msg);
        groth16_params_t *heap;
        if ((rc = params_read(&heap, params_path, flags, threads, err)) < 0)
            return rc;
        rc = params_map_write(map_path, heap, &origin, threads, err);
        params_free(heap);
        if (rc < 0)
            return rc;
        t0 = now_s();
        if ((rc = params_map_read(&p, map_path, &origin, PARAMS_MAP_SAMPLE, threads, NULL, err)) < 0)
            return rc;
    }
    in->verify_s = now_s() - t0;
    in->mapped_bytes = p->map_bytes;
    *ret = p;
    return 0;
}
