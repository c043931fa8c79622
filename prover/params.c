/* Groth16 key files in bellperson's layout; see params.h. */
#define _GNU_SOURCE
#include "prover/params.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/curve/encode.h"
#include "prover/mem.h"
#include "prover/parallel.h"

#define G1_BYTES ENCODE_G1_UNCOMPRESSED_BYTES
#define G2_BYTES ENCODE_G2_UNCOMPRESSED_BYTES
#define DECODE_CHUNK 4096

int params_error_set(params_error_t *err, int rc, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* ---- allocation ------------------------------------------------------- */

/* Not zeroed: every caller writes every point, and zeroing a 2^24 key's
 * 7.7 GiB first cost seconds of a setup. */
static void *params_array(size_t n, size_t size)
{
    if (n && size > SIZE_MAX / n)
        return NULL;
    return mem_alloc(MEM_KIND_PARAMS, -1, -1, n * size);
}

int params_alloc(groth16_params_t **ret, size_t n_ic, size_t n_h, size_t n_l, size_t n_a,
                 size_t n_b_g1, size_t n_b_g2)
{
    groth16_params_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->vk.n_ic = n_ic;
    p->n_h = n_h;
    p->n_l = n_l;
    p->n_a = n_a;
    p->n_b_g1 = n_b_g1;
    p->n_b_g2 = n_b_g2;
    p->vk.ic = params_array(n_ic, sizeof(g1_affine_t));
    p->h = params_array(n_h, sizeof(g1_affine_t));
    p->l = params_array(n_l, sizeof(g1_affine_t));
    p->a = params_array(n_a, sizeof(g1_affine_t));
    p->b_g1 = params_array(n_b_g1, sizeof(g1_affine_t));
    p->b_g2 = params_array(n_b_g2, sizeof(g2_affine_t));
    if (!p->vk.ic || !p->h || !p->l || !p->a || !p->b_g1 || !p->b_g2) {
        params_free(p);
        return -ENOMEM;
    }
    *ret = p;
    return 0;
}

void params_vk_clear(groth16_vk_t *vk)
{
    if (!vk)
        return;
    mem_free(vk->ic);
    vk->ic = NULL;
    vk->n_ic = 0;
}

void params_free(groth16_params_t *p)
{
    if (!p)
        return;
    if (p->map) {
        munmap(p->map, p->map_bytes);
        free(p);
        return;
    }
    params_vk_clear(&p->vk);
    mem_free(p->h);
    mem_free(p->l);
    mem_free(p->a);
    mem_free(p->b_g1);
    mem_free(p->b_g2);
    free(p);
}

uint64_t params_mapped_bytes(const groth16_params_t *p)
{
    return p && p->map ? (uint64_t)p->map_bytes : 0;
}

uint64_t params_file_bytes(const groth16_params_t *p)
{
    return 3 * G1_BYTES + 3 * G2_BYTES /* alpha_g1, beta_g1, delta_g1; beta, gamma, delta in G2 */
           + 6 * 4                     /* six counts */
           + (uint64_t)(p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1) * G1_BYTES
           + (uint64_t)p->n_b_g2 * G2_BYTES;
}

/* ---- reading ---------------------------------------------------------- */

struct cursor {
    const uint8_t *base;
    size_t size, pos;
    const char *path;
    params_error_t *err;
};

static int cursor_u32(struct cursor *c, const char *what, uint32_t *ret)
{
    if (c->size - c->pos < 4)
        return params_error_set(c->err, -EINVAL, "%s: truncated at byte %zu: expected the %s count", c->path,
                         c->pos, what);
    const uint8_t *b = c->base + c->pos;
    *ret = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
    c->pos += 4;
    return 0;
}

/* Parallel decoding of one section: every point validated; the failure
 * with the lowest index is the one reported. */
struct decode_job {
    const uint8_t *src;
    void *dst;
    size_t n;
    bool g2;
    unsigned flags;
    atomic_size_t bad_index; /* SIZE_MAX: none */
    atomic_int bad_code;
};

static void decode_chunk(void *ctx, size_t chunk)
{
    struct decode_job *job = ctx;
    size_t begin = chunk * DECODE_CHUNK;
    size_t end = begin + DECODE_CHUNK < job->n ? begin + DECODE_CHUNK : job->n;
    for (size_t i = begin; i < end; i++) {
        int rc;
        if (job->g2)
            rc = encode_g2_read((g2_affine_t *)job->dst + i, job->src + i * G2_BYTES, G2_BYTES, job->flags);
        else
            rc = encode_g1_read((g1_affine_t *)job->dst + i, job->src + i * G1_BYTES, G1_BYTES, job->flags);
        if (rc < 0) {
            size_t cur = atomic_load(&job->bad_index);
            while (i < cur && !atomic_compare_exchange_weak(&job->bad_index, &cur, i))
                ;
            if (atomic_load(&job->bad_index) == i)
                atomic_store(&job->bad_code, rc);
            return; /* later points of this chunk cannot be the lowest */
        }
    }
}

static int decode_points(struct cursor *c, const char *what, void *dst, size_t n, bool g2,
                         unsigned flags, unsigned threads)
{
    size_t size = g2 ? G2_BYTES : G1_BYTES;
    if (n > (c->size - c->pos) / size)
        return params_error_set(c->err, -EINVAL, "%s: truncated: %s holds %zu points of %zu bytes at byte %zu, "
                         "but only %zu bytes remain", c->path, what, n, size, c->pos, c->size - c->pos);
    struct decode_job job = {.src = c->base + c->pos, .dst = dst, .n = n, .g2 = g2, .flags = flags};
    atomic_init(&job.bad_index, SIZE_MAX);
    atomic_init(&job.bad_code, 0);
    parallel_for((n + DECODE_CHUNK - 1) / DECODE_CHUNK, threads, decode_chunk, &job);
    size_t bad = atomic_load(&job.bad_index);
    if (bad != SIZE_MAX)
        return params_error_set(c->err, -EINVAL, "%s: %s point %zu (byte offset %zu): %s", c->path, what, bad,
                         c->pos + bad * size, encode_strerror(atomic_load(&job.bad_code)));
    c->pos += n * size;
    return 0;
}

static int read_vk_fixed(struct cursor *c, groth16_vk_t *vk, unsigned flags)
{
    int rc;
    if ((rc = decode_points(c, "vk alpha_g1", &vk->alpha_g1, 1, false, flags, 1)) < 0 ||
        (rc = decode_points(c, "vk beta_g1", &vk->beta_g1, 1, false, flags, 1)) < 0 ||
        (rc = decode_points(c, "vk beta_g2", &vk->beta_g2, 1, true, flags, 1)) < 0 ||
        (rc = decode_points(c, "vk gamma_g2", &vk->gamma_g2, 1, true, flags, 1)) < 0 ||
        (rc = decode_points(c, "vk delta_g1", &vk->delta_g1, 1, false, flags, 1)) < 0 ||
        (rc = decode_points(c, "vk delta_g2", &vk->delta_g2, 1, true, flags, 1)) < 0)
        return rc;
    return 0;
}

struct mapped_file {
    const uint8_t *data;
    size_t size;
};

int params_file_map(const uint8_t **data, size_t *size, const char *path, int map_flags, params_error_t *err)
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
    if ((uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return params_error_set(err, -EFBIG, "%s: too large to map", path);
    }
    *size = (size_t)st.st_size;
    *data = NULL;
    if (*size > 0) {
        void *p = mmap(NULL, *size, PROT_READ, map_flags, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return params_error_set(err, -e, "%s: cannot map: %s", path, strerror(e));
        }
        *data = p;
    }
    close(fd);
    return 0;
}

static int map_file(struct mapped_file *m, const char *path, params_error_t *err)
{
    int rc = params_file_map(&m->data, &m->size, path, MAP_PRIVATE, err);
    if (rc == 0 && m->data)
        madvise((void *)m->data, m->size, MADV_SEQUENTIAL); /* decoded front to back, once */
    return rc;
}

static void unmap_file(struct mapped_file *m)
{
    if (m->data)
        munmap((void *)m->data, m->size);
}

static int read_count(struct cursor *c, const char *what, size_t point_bytes, uint32_t *n)
{
    int rc = cursor_u32(c, what, n);
    if (rc < 0)
        return rc;
    if ((uint64_t)*n * point_bytes > c->size - c->pos)
        return params_error_set(c->err, -EINVAL, "%s: %s count %u needs %llu bytes, only %zu remain (truncated file?)",
                         c->path, what, *n, (unsigned long long)*n * point_bytes, c->size - c->pos);
    return 0;
}

/* The section counts after the verifying key's fixed part, each checked
 * against the bytes left, and the file's length against the layout they
 * give: a lying count fails here, before anything is allocated. c->pos is
 * left past the end. */
static int walk_counts(struct cursor *c, uint32_t *n_ic, uint32_t *n_h, uint32_t *n_l, uint32_t *n_a, uint32_t *n_b1,
                       uint32_t *n_b2)
{
    int rc;
    if ((rc = read_count(c, "ic", G1_BYTES, n_ic)) < 0)
        return rc;
    if (*n_ic == 0)
        return params_error_set(c->err, -EINVAL, "%s: a verifying key with no ic point (it needs one for the "
                                "constant input and one per public input)", c->path);
    c->pos += (size_t)*n_ic * G1_BYTES;
    if ((rc = read_count(c, "h", G1_BYTES, n_h)) < 0)
        return rc;
    c->pos += (size_t)*n_h * G1_BYTES;
    if ((rc = read_count(c, "l", G1_BYTES, n_l)) < 0)
        return rc;
    c->pos += (size_t)*n_l * G1_BYTES;
    if ((rc = read_count(c, "a", G1_BYTES, n_a)) < 0)
        return rc;
    c->pos += (size_t)*n_a * G1_BYTES;
    if ((rc = read_count(c, "b_g1", G1_BYTES, n_b1)) < 0)
        return rc;
    c->pos += (size_t)*n_b1 * G1_BYTES;
    if ((rc = read_count(c, "b_g2", G2_BYTES, n_b2)) < 0)
        return rc;
    c->pos += (size_t)*n_b2 * G2_BYTES;
    if (c->pos != c->size)
        return params_error_set(c->err, -EINVAL, "%s: %zu unexpected bytes after the b_g2 points (file is %zu bytes, "
                                "the layout ends at %zu)", c->path, c->size - c->pos, c->size, c->pos);
    return 0;
}

int params_check_layout(const char *path, params_error_t *err)
{
    struct mapped_file m;
    int rc = params_file_map(&m.data, &m.size, path, MAP_PRIVATE, err);
    if (rc < 0)
        return rc;
    struct cursor c = {.base = m.data, .size = m.size, .path = path, .err = err};
    groth16_vk_t vk = {0};
    uint32_t n_ic, n_h, n_l, n_a, n_b1, n_b2;
    if ((rc = read_vk_fixed(&c, &vk, 0)) == 0)
        rc = walk_counts(&c, &n_ic, &n_h, &n_l, &n_a, &n_b1, &n_b2);
    unmap_file(&m);
    return rc;
}

int params_read(groth16_params_t **ret, const char *path, unsigned flags, unsigned threads,
                params_error_t *err)
{
    struct mapped_file m;
    int rc = map_file(&m, path, err);
    if (rc < 0)
        return rc;
    struct cursor c = {.base = m.data, .size = m.size, .path = path, .err = err};
    unsigned eflags = (flags & PARAMS_NO_SUBGROUP_CHECK) ? ENCODE_NO_SUBGROUP_CHECK : 0;
    groth16_params_t *p = NULL;
    groth16_vk_t vk = {0};
    uint32_t n_ic, n_h, n_l, n_a, n_b1, n_b2;

    if ((rc = read_vk_fixed(&c, &vk, eflags)) < 0)
        goto fail;
    /* The counts of the later sections are read ahead of the points, so
     * one allocation sizes everything and a lying count fails early. */
    size_t save = c.pos + sizeof(uint32_t); /* the ic points, after their count */
    if ((rc = walk_counts(&c, &n_ic, &n_h, &n_l, &n_a, &n_b1, &n_b2)) < 0)
        goto fail;
    c.pos = save;

    if ((rc = params_alloc(&p, n_ic, n_h, n_l, n_a, n_b1, n_b2)) < 0) {
        params_error_set(err, rc, "%s: out of memory for %llu bytes of parameters", path,
                  (unsigned long long)m.size);
        goto fail;
    }
    g1_affine_t *ic = p->vk.ic;
    p->vk = vk;
    p->vk.ic = ic;
    p->vk.n_ic = n_ic;
    uint32_t skip;
    if ((rc = decode_points(&c, "ic", p->vk.ic, n_ic, false, eflags, threads)) < 0 ||
        (rc = cursor_u32(&c, "h", &skip)) < 0 ||
        (rc = decode_points(&c, "h", p->h, n_h, false, eflags, threads)) < 0 ||
        (rc = cursor_u32(&c, "l", &skip)) < 0 ||
        (rc = decode_points(&c, "l", p->l, n_l, false, eflags, threads)) < 0 ||
        (rc = cursor_u32(&c, "a", &skip)) < 0 ||
        (rc = decode_points(&c, "a", p->a, n_a, false, eflags, threads)) < 0 ||
        (rc = cursor_u32(&c, "b_g1", &skip)) < 0 ||
        (rc = decode_points(&c, "b_g1", p->b_g1, n_b1, false, eflags, threads)) < 0 ||
        (rc = cursor_u32(&c, "b_g2", &skip)) < 0 ||
        (rc = decode_points(&c, "b_g2", p->b_g2, n_b2, true, eflags, threads)) < 0)
        goto fail;
    unmap_file(&m);
    *ret = p;
    return 0;
fail:
    params_free(p);
    unmap_file(&m);
    return rc;
}

int params_vk_read(groth16_vk_t *out, const char *path, params_error_t *err)
{
    struct mapped_file m;
    int rc = map_file(&m, path, err);
    if (rc < 0)
        return rc;
    struct cursor c = {.base = m.data, .size = m.size, .path = path, .err = err};
    groth16_vk_t vk = {0};
    uint32_t n_ic;
    if ((rc = read_vk_fixed(&c, &vk, 0)) < 0 || (rc = read_count(&c, "ic", G1_BYTES, &n_ic)) < 0)
        goto done;
    if (n_ic == 0) {
        rc = params_error_set(err, -EINVAL, "%s: a verifying key with no ic point (it needs one for the constant "
                              "input and one per public input)", path);
        goto done;
    }
    if (c.pos + (size_t)n_ic * G1_BYTES != c.size) {
        rc = params_error_set(err, -EINVAL, "%s: a verifying key with %u ic points is %zu bytes, the file has %zu",
                       path, n_ic, c.pos + (size_t)n_ic * G1_BYTES, c.size);
        goto done;
    }
    vk.ic = params_array(n_ic, sizeof(g1_affine_t));
    if (!vk.ic) {
        rc = params_error_set(err, -ENOMEM, "%s: out of memory", path);
        goto done;
    }
    vk.n_ic = n_ic;
    if ((rc = decode_points(&c, "ic", vk.ic, n_ic, false, 0, 1)) < 0) {
        params_vk_clear(&vk);
        goto done;
    }
    *out = vk;
done:
    unmap_file(&m);
    return rc;
}

/* ---- writing ---------------------------------------------------------- */

static void put_u32(FILE *f, size_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    fwrite(b, 1, 4, f);
}

/* Points a write encodes at a time (on all threads) before it hands them
 * to stdio, and the share of one thread. Encoding takes a conversion out
 * of Montgomery form per coordinate: on one thread it was most of the
 * time a 2^24 key's 7.7 GiB took to write. */
#define PUT_BLOCK ((size_t)1 << 18)
#define PUT_SPAN ((size_t)1 << 12)

/* Point i of an array of G1 or G2 affine points, uncompressed, into out. */
static void put_encode(uint8_t *out, const void *points, size_t i, bool g2)
{
    if (g2)
        encode_g2_write_uncompressed(out, (const g2_affine_t *)points + i);
    else
        encode_g1_write_uncompressed(out, (const g1_affine_t *)points + i);
}

struct put_job {
    const void *points;
    uint8_t *out;
    size_t n;
    bool g2;
};

static void put_encode_span(void *ctx, size_t k)
{
    struct put_job *job = ctx;
    size_t bytes = job->g2 ? G2_BYTES : G1_BYTES;
    size_t end = (k + 1) * PUT_SPAN < job->n ? (k + 1) * PUT_SPAN : job->n;
    for (size_t i = k * PUT_SPAN; i < end; i++)
        put_encode(job->out + i * bytes, job->points, i, job->g2);
}

/* n points, uncompressed: encoded a block at a time on all threads, or a
 * point at a time when they are few or a block's buffer cannot be had. */
static void put_points(FILE *f, const void *points, size_t n, bool g2)
{
    size_t bytes = g2 ? G2_BYTES : G1_BYTES;
    uint8_t *buf = n > PUT_SPAN ? malloc((n < PUT_BLOCK ? n : PUT_BLOCK) * bytes) : NULL;
    if (!buf) {
        uint8_t b[G2_BYTES];
        for (size_t i = 0; i < n; i++) {
            put_encode(b, points, i, g2);
            fwrite(b, 1, bytes, f);
        }
        return;
    }
    for (size_t off = 0; off < n; off += PUT_BLOCK) {
        size_t len = n - off < PUT_BLOCK ? n - off : PUT_BLOCK;
        struct put_job job = {(const uint8_t *)points + off * (g2 ? sizeof(g2_affine_t) : sizeof(g1_affine_t)),
                              buf, len, g2};
        parallel_for((len + PUT_SPAN - 1) / PUT_SPAN, 0, put_encode_span, &job);
        fwrite(buf, bytes, len, f);
    }
    free(buf);
}

static void put_g1s(FILE *f, const g1_affine_t *p, size_t n)
{
    put_points(f, p, n, false);
}

static void put_g2s(FILE *f, const g2_affine_t *p, size_t n)
{
    put_points(f, p, n, true);
}

static void put_vk(FILE *f, const groth16_vk_t *vk)
{
    put_g1s(f, &vk->alpha_g1, 1);
    put_g1s(f, &vk->beta_g1, 1);
    put_g2s(f, &vk->beta_g2, 1);
    put_g2s(f, &vk->gamma_g2, 1);
    put_g1s(f, &vk->delta_g1, 1);
    put_g2s(f, &vk->delta_g2, 1);
    put_u32(f, vk->n_ic);
    put_g1s(f, vk->ic, vk->n_ic);
}

/* Opens a temporary file beside path; *tmp receives its name. */
static FILE *open_temp(const char *path, char *tmp, size_t cap, params_error_t *err, int *rc)
{
    if ((size_t)snprintf(tmp, cap, "%s.tmp.XXXXXX", path) >= cap) {
        *rc = params_error_set(err, -ENAMETOOLONG, "%s: path too long", path);
        return NULL;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        *rc = params_error_set(err, -e, "%s: cannot create a file there: %s", path, strerror(e));
        return NULL;
    }
    fchmod(fd, 0644);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        *rc = params_error_set(err, -e, "%s: %s", path, strerror(e));
        return NULL;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    return f;
}

static int close_temp(FILE *f, const char *tmp, const char *path, params_error_t *err)
{
    bool bad = ferror(f) != 0;
    int e = errno;
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        bad = true;
        e = errno;
    }
    if (fclose(f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = true;
        e = errno;
    }
    if (bad) {
        unlink(tmp);
        return params_error_set(err, -(e ? e : EIO), "%s: write failed: %s", path, strerror(e ? e : EIO));
    }
    return 0;
}

int params_write(const char *path, const groth16_params_t *p, params_error_t *err)
{
    char tmp[4096];
    int rc = 0;
    if (p->vk.n_ic > UINT32_MAX || p->n_h > UINT32_MAX || p->n_l > UINT32_MAX || p->n_a > UINT32_MAX ||
        p->n_b_g1 > UINT32_MAX || p->n_b_g2 > UINT32_MAX)
        return params_error_set(err, -EOVERFLOW, "%s: a section has more than 2^32 - 1 points", path);
    FILE *f = open_temp(path, tmp, sizeof tmp, err, &rc);
    if (!f)
        return rc;
    put_vk(f, &p->vk);
    put_u32(f, p->n_h);
    put_g1s(f, p->h, p->n_h);
    put_u32(f, p->n_l);
    put_g1s(f, p->l, p->n_l);
    put_u32(f, p->n_a);
    put_g1s(f, p->a, p->n_a);
    put_u32(f, p->n_b_g1);
    put_g1s(f, p->b_g1, p->n_b_g1);
    put_u32(f, p->n_b_g2);
    put_g2s(f, p->b_g2, p->n_b_g2);
    return close_temp(f, tmp, path, err);
}

int params_vk_write(const char *path, const groth16_vk_t *vk, params_error_t *err)
{
    char tmp[4096];
    int rc = 0;
    FILE *f = open_temp(path, tmp, sizeof tmp, err, &rc);
    if (!f)
        return rc;
    put_vk(f, vk);
    return close_temp(f, tmp, path, err);
}
