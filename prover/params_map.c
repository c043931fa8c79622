/* The parameter layout cache; see params_map.h and docs/params-cache.md. */
#define _GNU_SOURCE
#include "prover/params_map.h"

#include <errno.h>
#include <fcntl.h>
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
#include "prover/field/fp.h"

#define MAP_MAGIC "ZKBPMAP\0"
#define MAP_ALIGN 4096u         /* every section starts on a page */
#define MAP_BYTE_ORDER 0x0102030405060708ull

/* Sections, in file order. */
enum { SEC_VK, SEC_IC, SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2, SEC_COUNT };
static const char *const sec_name[SEC_COUNT] = {"vk", "ic", "h", "l", "a", "b_g1", "b_g2"};

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
    uint64_t payload_checksum; /* checksum_tree of [payload_offset, file_bytes) */
    uint64_t source_bytes;   /* the .params file this was derived from: size */
    uint64_t source_checksum; /* and checksum_tree of it */
    uint64_t header_checksum; /* XXH64 (seed 0) of the header bytes before this field */
};

_Static_assert(sizeof(struct map_header) == 264, "the header layout is part of the format");
_Static_assert(offsetof(struct map_header, header_checksum) == 256, "the checksum is the last field");
_Static_assert(sizeof(struct vk_fixed) == 3 * sizeof(g1_affine_t) + 3 * sizeof(g2_affine_t),
               "no padding in the vk section");
_Static_assert(sizeof(struct map_header) <= MAP_ALIGN, "the header fits before the payload");

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

/* ---- files --------------------------------------------------------------- */

int params_source_identify(params_source_t *ret, const char *path, unsigned threads,
                           params_error_t *err)
{
    const uint8_t *data = NULL;
    size_t size = 0;
    int rc = params_file_map(&data, &size, path, MAP_PRIVATE, err);
    if (rc < 0)
        return rc;
    if (data)
        madvise((void *)data, size, MADV_WILLNEED);
    uint64_t sum;
    rc = checksum_tree(&sum, data, size, threads);
    if (data)
        munmap((void *)data, size);
    if (rc < 0)
        return params_error_set(err, rc, "%s: out of memory", path);
    ret->bytes = size;
    ret->checksum = sum;
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

/* The header of params without checksums: counts and offsets. */
static int layout_init(struct map_header *h, const groth16_params_t *p)
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
    const size_t n[SEC_COUNT] = {1, p->vk.n_ic, p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    uint64_t end = MAP_ALIGN;
    for (int s = 0; s < SEC_COUNT; s++) {
        h->count[s] = n[s];
        h->offset[s] = align_up(end, MAP_ALIGN);
        if (n[s] > (UINT64_MAX / 2 - h->offset[s]) / sec_elt_bytes(s))
            return -EOVERFLOW;
        end = h->offset[s] + n[s] * sec_elt_bytes(s);
    }
    h->payload_offset = h->offset[SEC_VK];
    h->file_bytes = end;
    h->payload_bytes = end - h->payload_offset;
    return 0;
}

/* A header read from a file: everything but the checksums of the payload
 * and the source. Returns 0 or -EINVAL with err naming the first mismatch. */
static int header_check(const struct map_header *h, uint64_t file_size, const char *path,
                        params_error_t *err)
{
    if (memcmp(h->magic, MAP_MAGIC, 8) != 0)
        return params_error_set(err, -EINVAL, "%s: not a zkbench parameter layout cache (bad magic)", path);
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
    if (h->align < 64 || (h->align & (h->align - 1)) != 0)
        return params_error_set(err, -EINVAL, "%s: section alignment %llu is not a power of two >= 64", path,
                         (unsigned long long)h->align);
    if (h->payload_offset < sizeof *h || h->payload_offset != h->offset[SEC_VK] ||
        h->payload_offset > h->file_bytes || h->payload_bytes != h->file_bytes - h->payload_offset)
        return params_error_set(err, -EINVAL, "%s: payload at %llu (%llu bytes) does not fit a file of %llu "
                         "bytes after a %zu-byte header", path, (unsigned long long)h->payload_offset,
                         (unsigned long long)h->payload_bytes, (unsigned long long)h->file_bytes,
                         sizeof *h);
    if (h->count[SEC_VK] != 1)
        return params_error_set(err, -EINVAL, "%s: vk count %llu, expected 1", path,
                         (unsigned long long)h->count[SEC_VK]);
    uint64_t end = h->payload_offset;
    for (int s = 0; s < SEC_COUNT; s++) {
        uint64_t off = h->offset[s], elt = sec_elt_bytes(s);
        if (off % h->align != 0 || off < end || off > h->file_bytes ||
            h->count[s] > (h->file_bytes - off) / elt)
            return params_error_set(err, -EINVAL, "%s: section %s (%llu points at byte %llu) is misaligned, "
                             "overlaps the one before, or runs past the end of the file", path,
                             sec_name[s], (unsigned long long)h->count[s], (unsigned long long)off);
        end = off + h->count[s] * elt;
    }
    if (end != h->file_bytes)
        return params_error_set(err, -EINVAL, "%s: the sections end at byte %llu, the file at %llu", path,
                         (unsigned long long)end, (unsigned long long)h->file_bytes);
    return 0;
}

/* ---- reading ------------------------------------------------------------- */

int params_map_read(groth16_params_t **ret, const char *path, const params_source_t *src,
                    unsigned threads, params_error_t *err)
{
    const uint8_t *data = NULL;
    size_t size = 0;
    int rc = params_file_map(&data, &size, path, MAP_SHARED, err);
    if (rc < 0)
        return rc;
    struct map_header h;
    if (size < sizeof h) {
        rc = params_error_set(err, -EINVAL, "%s: %zu bytes, shorter than the %zu-byte header (truncated)", path,
                       size, sizeof h);
        goto fail;
    }
    memcpy(&h, data, sizeof h);
    if ((rc = header_check(&h, size, path, err)) < 0)
        goto fail;
    for (size_t i = sizeof h; i < h.payload_offset; i++)
        if (data[i] != 0) {
            rc = params_error_set(err, -EINVAL, "%s: byte %zu between the header and the payload is not zero",
                           path, i);
            goto fail;
        }
    if (src && (h.source_bytes != src->bytes || h.source_checksum != src->checksum)) {
        rc = params_error_set(err, -ESTALE, "%s: derived from a parameter file of %llu bytes with checksum "
                       "%016llx, not this one (%llu bytes, %016llx)", path,
                       (unsigned long long)h.source_bytes, (unsigned long long)h.source_checksum,
                       (unsigned long long)src->bytes, (unsigned long long)src->checksum);
        goto fail;
    }
    /* Reading every byte faults the key in; start the readahead for all of
     * it rather than page by page. */
    madvise((void *)(uintptr_t)data, size, MADV_WILLNEED);
    uint64_t sum;
    if ((rc = checksum_tree(&sum, data + h.payload_offset, h.payload_bytes, threads)) < 0) {
        params_error_set(err, rc, "%s: out of memory", path);
        goto fail;
    }
    if (sum != h.payload_checksum) {
        rc = params_error_set(err, -EBADMSG, "%s: payload checksum %016llx, the header says %016llx "
                       "(corrupted contents)", path, (unsigned long long)sum,
                       (unsigned long long)h.payload_checksum);
        goto fail;
    }
    groth16_params_t *p = calloc(1, sizeof *p);
    if (!p) {
        rc = params_error_set(err, -ENOMEM, "%s: out of memory", path);
        goto fail;
    }
    const struct vk_fixed *vk = (const void *)(data + h.offset[SEC_VK]);
    p->vk.alpha_g1 = vk->alpha_g1;
    p->vk.beta_g1 = vk->beta_g1;
    p->vk.delta_g1 = vk->delta_g1;
    p->vk.beta_g2 = vk->beta_g2;
    p->vk.gamma_g2 = vk->gamma_g2;
    p->vk.delta_g2 = vk->delta_g2;
    /* The arrays are read-only (PROT_READ); the struct's pointers are not
     * const because the heap form shares them. */
    p->vk.ic = (g1_affine_t *)(uintptr_t)(data + h.offset[SEC_IC]);
    p->h = (g1_affine_t *)(uintptr_t)(data + h.offset[SEC_H]);
    p->l = (g1_affine_t *)(uintptr_t)(data + h.offset[SEC_L]);
    p->a = (g1_affine_t *)(uintptr_t)(data + h.offset[SEC_A]);
    p->b_g1 = (g1_affine_t *)(uintptr_t)(data + h.offset[SEC_B_G1]);
    p->b_g2 = (g2_affine_t *)(uintptr_t)(data + h.offset[SEC_B_G2]);
    p->vk.n_ic = (size_t)h.count[SEC_IC];
    p->n_h = (size_t)h.count[SEC_H];
    p->n_l = (size_t)h.count[SEC_L];
    p->n_a = (size_t)h.count[SEC_A];
    p->n_b_g1 = (size_t)h.count[SEC_B_G1];
    p->n_b_g2 = (size_t)h.count[SEC_B_G2];
    p->map = (void *)(uintptr_t)data;
    p->map_bytes = size;
    *ret = p;
    return 0;
fail:
    if (data)
        munmap((void *)(uintptr_t)data, size);
    return rc;
}

/* ---- writing ------------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t n, uint64_t off)
{
    const uint8_t *b = buf;
    while (n > 0) {
        ssize_t w = pwrite(fd, b, n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (w == 0)
            return -EIO;
        b += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

static int write_zeros(int fd, uint64_t from, uint64_t to)
{
    static const uint8_t zeros[MAP_ALIGN];
    while (from < to) {
        size_t n = to - from < sizeof zeros ? (size_t)(to - from) : sizeof zeros;
        int rc = write_all(fd, zeros, n, from);
        if (rc < 0)
            return rc;
        from += n;
    }
    return 0;
}

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

int params_map_write(const char *path, const groth16_params_t *p, const params_source_t *src,
                     unsigned threads, params_error_t *err)
{
    struct map_header h;
    if (layout_init(&h, p) < 0)
        return params_error_set(err, -EOVERFLOW, "%s: the parameters are too large for a layout cache", path);
    h.source_bytes = src->bytes;
    h.source_checksum = src->checksum;

    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= sizeof tmp)
        return params_error_set(err, -ENAMETOOLONG, "%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        return params_error_set(err, -e, "%s: cannot create the layout cache there: %s", path, strerror(e));
    }
    fchmod(fd, 0644);
    const struct vk_fixed vk = {
        .alpha_g1 = p->vk.alpha_g1, .beta_g1 = p->vk.beta_g1, .delta_g1 = p->vk.delta_g1,
        .beta_g2 = p->vk.beta_g2,   .gamma_g2 = p->vk.gamma_g2, .delta_g2 = p->vk.delta_g2,
    };
    const void *src_ptr[SEC_COUNT] = {&vk, p->vk.ic, p->h, p->l, p->a, p->b_g1, p->b_g2};
    const char *what = "write";
    int rc = 0;
    /* Padding is written, not left as holes, so every page of the file
     * holds data and maps like the rest. */
    uint64_t end = 0;
    for (int s = 0; s < SEC_COUNT && rc == 0; s++) {
        rc = write_zeros(fd, end, h.offset[s]);
        if (rc == 0)
            rc = write_all(fd, src_ptr[s], (size_t)(h.count[s] * sec_elt_bytes(s)), h.offset[s]);
        end = h.offset[s] + h.count[s] * sec_elt_bytes(s);
    }
    /* The payload checksum is taken from the file as written, read back
     * through a mapping. */
    if (rc == 0) {
        void *m = mmap(NULL, (size_t)h.file_bytes, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            rc = -errno;
            what = "map";
        } else {
            rc = checksum_tree(&h.payload_checksum, (const uint8_t *)m + h.payload_offset,
                               (size_t)h.payload_bytes, threads);
            munmap(m, (size_t)h.file_bytes);
            what = "checksum";
        }
    }
    if (rc == 0) {
        h.header_checksum = checksum_xxh64(&h, offsetof(struct map_header, header_checksum), 0);
        rc = write_all(fd, &h, sizeof h, 0);
        what = "write";
    }
    if (rc == 0 && fsync(fd) != 0) {
        rc = -errno;
        what = "fsync";
    }
    if (close(fd) != 0 && rc == 0) {
        rc = -errno;
        what = "close";
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -errno;
        what = "rename";
    }
    if (rc < 0) {
        unlink(tmp);
        return params_error_set(err, rc, "%s: cannot write the layout cache (%s): %s", path, what, strerror(-rc));
    }
    if ((rc = sync_dir_of(path)) < 0)
        return params_error_set(err, rc, "%s: written, but syncing its folder failed: %s", path, strerror(-rc));
    return 0;
}

/* ---- open: map or rebuild ---------------------------------------------- */

int params_map_open(groth16_params_t **ret, const char *map_path, const char *params_path,
                    unsigned flags, unsigned threads, params_map_info_t *info, params_error_t *err)
{
    params_map_info_t local;
    params_map_info_t *in = info ? info : &local;
    memset(in, 0, sizeof *in);
    params_source_t src;
    int rc = params_source_identify(&src, params_path, threads, err);
    if (rc < 0)
        return rc;
    in->source = src;
    groth16_params_t *p = NULL;
    params_error_t why;
    double t0 = now_s();
    rc = params_map_read(&p, map_path, &src, threads, &why);
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
        rc = params_map_write(map_path, heap, &src, threads, err);
        params_free(heap);
        if (rc < 0)
            return rc;
        t0 = now_s();
        if ((rc = params_map_read(&p, map_path, &src, threads, err)) < 0)
            return rc;
    }
    in->verify_s = now_s() - t0;
    in->mapped_bytes = p->map_bytes;
    *ret = p;
    return 0;
}
