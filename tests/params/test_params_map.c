/*
 * The proving key file (prover/params_map.h, harness/run/param_cache.h):
 *   - the mapped key equals the heap-decoded key array for array, and a
 *     proof made with it verifies;
 *   - the mapping is read-only, shared and file-backed, resident from the
 *     load on (/proc/self/maps, smaps, status);
 *   - every corruption class is detected with its own error and rebuilt,
 *     never trusted, and the rebuilt key is again the heap-decoded one; a
 *     start samples blocks (the first and the last always), the full check
 *     finds any block;
 *   - bad inputs: missing or corrupt .params files, unwritable caches;
 *   - the harness modes: heap gives tracked MEM_KIND_PARAMS buffers as
 *     before, mmap gives none and a mapped byte count; one key file in the
 *     cache, made once by two processes that find none.
 * The header offsets used here are the ones docs/params-cache.md gives.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/run/param_cache.h"
#include "kernels/kernels.h"
#include "prover/checksum.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/mem.h"
#include "prover/params_map.h"
#include "tests/common.h"

/* Header fields (docs/params-cache.md). */
#define H_MAGIC 0
#define H_VERSION 8
#define H_HEADER_BYTES 12
#define H_BYTE_ORDER 16
#define H_LIMB_BITS 24
#define H_G1_BYTES 32
#define H_FP_ONE 40
#define H_ALIGN 88
#define H_COUNT 96   /* vk, ic, h, l, a, b_g1, b_g2 */
#define H_OFFSET 152 /* the same order */
#define H_PAYLOAD_OFFSET 208
#define H_PAYLOAD_BYTES 216
#define H_FILE_BYTES 224
#define H_PAYLOAD_CHECKSUM 232
#define H_TABLE_OFFSET 248
#define H_TABLE_COUNT 256
#define H_ORIGIN_KIND 264
#define H_SEED 272
#define H_SOURCE_SAMPLE 296
#define H_SPEC 304
#define H_HEADER_CHECKSUM 560
#define H_SIZE 568

static char g_dir[PATH_MAX];

static void path_in(char *out, size_t cap, const char *name)
{
    CHECK((size_t)snprintf(out, cap, "%s/%s", g_dir, name) < cap);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : UINT64_MAX;
}

static bool file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void read_at(const char *path, uint64_t off, void *buf, size_t n)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    CHECK(pread(fd, buf, n, (off_t)off) == (ssize_t)n);
    close(fd);
}

static void write_at(const char *path, uint64_t off, const void *buf, size_t n)
{
    int fd = open(path, O_WRONLY);
    CHECK(fd >= 0);
    CHECK(pwrite(fd, buf, n, (off_t)off) == (ssize_t)n);
    close(fd);
}

static uint64_t header_u64(const char *path, uint64_t off)
{
    uint64_t v = 0;
    read_at(path, off, &v, 8);
    return v;
}

static void flip_byte(const char *path, uint64_t off, uint8_t mask)
{
    uint8_t b;
    read_at(path, off, &b, 1);
    b ^= mask;
    write_at(path, off, &b, 1);
}

/* Rewrites one header field and the header checksum, so the defect is the
 * field's and not a checksum mismatch. */
static void set_field(const char *path, uint64_t off, const void *v, size_t n)
{
    uint8_t h[H_SIZE];
    read_at(path, 0, h, sizeof h);
    memcpy(h + off, v, n);
    uint64_t hc = checksum_xxh64(h, H_HEADER_CHECKSUM, 0);
    memcpy(h + H_HEADER_CHECKSUM, &hc, 8);
    write_at(path, 0, h, sizeof h);
}

static void set_u64(const char *path, uint64_t off, uint64_t v)
{
    set_field(path, off, &v, 8);
}

static void set_u32(const char *path, uint64_t off, uint32_t v)
{
    set_field(path, off, &v, 4);
}

static void copy_file(const char *to, const char *from)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    CHECK(in && out);
    char buf[1 << 14];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        CHECK(fwrite(buf, 1, n, out) == n);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

/* No temporary file of a cache write is left in folder. */
static bool no_temp_files(const char *folder)
{
    DIR *d = opendir(folder);
    if (!d)
        return true;
    bool clean = true;
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".tmp."))
            clean = false;
    closedir(d);
    return clean;
}

static bool keys_equal(const groth16_params_t *a, const groth16_params_t *b)
{
    if (a->vk.n_ic != b->vk.n_ic || a->n_h != b->n_h || a->n_l != b->n_l || a->n_a != b->n_a ||
        a->n_b_g1 != b->n_b_g1 || a->n_b_g2 != b->n_b_g2)
        return false;
    return memcmp(&a->vk.alpha_g1, &b->vk.alpha_g1, sizeof a->vk.alpha_g1) == 0 &&
           memcmp(&a->vk.beta_g1, &b->vk.beta_g1, sizeof a->vk.beta_g1) == 0 &&
           memcmp(&a->vk.delta_g1, &b->vk.delta_g1, sizeof a->vk.delta_g1) == 0 &&
           memcmp(&a->vk.beta_g2, &b->vk.beta_g2, sizeof a->vk.beta_g2) == 0 &&
           memcmp(&a->vk.gamma_g2, &b->vk.gamma_g2, sizeof a->vk.gamma_g2) == 0 &&
           memcmp(&a->vk.delta_g2, &b->vk.delta_g2, sizeof a->vk.delta_g2) == 0 &&
           memcmp(a->vk.ic, b->vk.ic, a->vk.n_ic * sizeof *a->vk.ic) == 0 &&
           memcmp(a->h, b->h, a->n_h * sizeof *a->h) == 0 &&
           memcmp(a->l, b->l, a->n_l * sizeof *a->l) == 0 &&
           memcmp(a->a, b->a, a->n_a * sizeof *a->a) == 0 &&
           memcmp(a->b_g1, b->b_g1, a->n_b_g1 * sizeof *a->b_g1) == 0 &&
           memcmp(a->b_g2, b->b_g2, a->n_b_g2 * sizeof *a->b_g2) == 0;
}

static uint64_t heap_bytes(const groth16_params_t *p)
{
    return (p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1) * sizeof(g1_affine_t) +
           p->n_b_g2 * sizeof(g2_affine_t);
}

/* ---- load modes ----------------------------------------------------------- */

static void test_load_names(void)
{
    enum params_load m = PARAMS_LOAD_HEAP;
    CHECK(params_load_parse(&m, "mmap") == 0 && m == PARAMS_LOAD_MMAP);
    CHECK(params_load_parse(&m, "heap") == 0 && m == PARAMS_LOAD_HEAP);
    const char *bad[] = {NULL, "", "MMAP", "mmap ", "heapx", "map"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        m = PARAMS_LOAD_MMAP;
        CHECK(params_load_parse(&m, bad[i]) == -EINVAL);
        CHECK(m == PARAMS_LOAD_MMAP); /* untouched */
    }
    CHECK(strcmp(params_load_name(PARAMS_LOAD_MMAP), "mmap") == 0);
    CHECK(strcmp(params_load_name(PARAMS_LOAD_HEAP), "heap") == 0);
    CHECK(params_load_name((enum params_load)7) == NULL);
    params_free(NULL);
    CHECK(params_mapped_bytes(NULL) == 0);
}

/* ---- the key: round trip and proof -------------------------------------- */

struct fixture {
    circuit_t *circ;
    groth16_shape_t *shape;
    char src[PATH_MAX]; /* a .params file */
    params_origin_t id; /* its identity, as a key file derived from it records it */
    groth16_params_t *heap; /* params_read of src */
};

static void fixture_key(struct fixture *f, uint64_t seed)
{
    groth16_params_t *pk;
    params_error_t perr;
    CHECK(groth16_setup(&pk, f->shape, seed, 2) == 0);
    CHECK(params_write(f->src, pk, &perr) == 0);
    params_free(pk);
    params_free(f->heap);
    f->heap = NULL;
    CHECK(params_read(&f->heap, f->src, 0, 2, &perr) == 0);
    f->id.kind = PARAMS_ORIGIN_FILE;
    CHECK(params_source_identify(&f->id.source, f->src, &perr) == 0);
    CHECK(f->id.source.bytes == file_size(f->src));
}

static void fixture_init(struct fixture *f, const char *spec)
{
    char err[256];
    memset(f, 0, sizeof *f);
    CHECK(circuit_from_spec(&f->circ, spec, 1, err, sizeof err) == 0);
    CHECK(groth16_shape_new(&f->shape, f->circ->r1cs) == 0);
    path_in(f->src, sizeof f->src, "src.params");
    fixture_key(f, test_rand_u64());
}

static void fixture_free(struct fixture *f)
{
    params_free(f->heap);
    groth16_shape_free(f->shape);
    circuit_free(f->circ);
}

static void prove_and_verify(const struct fixture *f, const groth16_params_t *pk)
{
    fr_t *w;
    CHECK(circuit_witness_alloc(&w, f->circ, test_rand_u64(), 0, 0, 2) == 0);
    size_t ni = f->circ->r1cs->num_inputs - 1;
    struct groth16_prove_opts o;
    groth16_prove_opts_default(&o);
    o.threads = 2;
    groth16_proof_t proof;
    CHECK(groth16_prove(&proof, pk, f->shape, w, &o) == 0);
    groth16_pvk_t *pvk;
    CHECK(groth16_pvk_new(&pvk, &pk->vk) == 0);
    CHECK(groth16_verify(pvk, &proof, &w[1], ni) == 1);
    /* and with the heap key's verifying key: the same key */
    groth16_pvk_t *pvk2;
    CHECK(groth16_pvk_new(&pvk2, &f->heap->vk) == 0);
    CHECK(groth16_verify(pvk2, &proof, &w[1], ni) == 1);
    groth16_pvk_free(pvk);
    groth16_pvk_free(pvk2);
    mem_free(w);
    dealloc_drain();
}

static void test_round_trip(struct fixture *f)
{
    char map[PATH_MAX];
    path_in(map, sizeof map, "src.params.map");
    uint64_t live = mem_live_bytes(MEM_KIND_PARAMS);
    groth16_params_t *pk = NULL;
    params_map_info_t info;
    params_error_t perr;
    CHECK(params_map_open(&pk, map, f->src, 0, 2, &info, &perr) == 0);
    CHECK(info.rebuilt && info.reason == -ENOENT && strstr(info.why, "cannot open"));
    CHECK(info.source.bytes == f->id.source.bytes && info.source.sample == f->id.source.sample &&
          info.source.mtime_ns == f->id.source.mtime_ns);
    CHECK(pk && pk->map && keys_equal(pk, f->heap));
    CHECK(params_mapped_bytes(pk) == file_size(map) && info.mapped_bytes == file_size(map));
    CHECK(params_mapped_bytes(f->heap) == 0);
    /* every array on its own page, so a section maps and pages alone */
    CHECK((uintptr_t)pk->h % 4096 == 0 && (uintptr_t)pk->b_g2 % 4096 == 0 && (uintptr_t)pk->vk.ic % 4096 == 0);
    /* mapped parameters are not tracked heap buffers */
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == live);
    CHECK(no_temp_files(g_dir));
    prove_and_verify(f, pk);
    params_free(pk);
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == live);

    /* a valid cache is used as it is */
    uint64_t sum = header_u64(map, H_HEADER_CHECKSUM);
    pk = NULL;
    CHECK(params_map_open(&pk, map, f->src, 0, 2, &info, &perr) == 0);
    CHECK(!info.rebuilt && info.reason == 0 && info.why[0] == 0);
    CHECK(header_u64(map, H_HEADER_CHECKSUM) == sum);
    CHECK(pk && keys_equal(pk, f->heap));
    params_free(pk);
    /* info is optional; a NULL origin skips the identity check */
    pk = NULL;
    CHECK(params_map_open(&pk, map, f->src, 0, 2, NULL, &perr) == 0);
    params_free(pk);
    pk = NULL;
    params_map_stats_t st;
    CHECK(params_map_read(&pk, map, NULL, PARAMS_MAP_SAMPLE, 1, &st, &perr) == 0 && keys_equal(pk, f->heap));
    CHECK(st.blocks == (st.payload_bytes + CHECKSUM_BLOCK_BYTES - 1) / CHECKSUM_BLOCK_BYTES);
    CHECK(st.blocks_checked == st.blocks && st.origin.kind == PARAMS_ORIGIN_FILE);
    CHECK(st.origin.source.sample == f->id.source.sample);
    params_free(pk);
    /* a fully verified file; a key file is told from a .params file by its magic */
    CHECK(params_map_verify(map, 2, &st, &perr) == 0 && st.blocks_checked == st.blocks);
    CHECK(params_map_is_key_file(map) && !params_map_is_key_file(f->src));
    /* a cache written from the mapped form is the same file */
    char map2[PATH_MAX];
    path_in(map2, sizeof map2, "copy.map");
    pk = NULL;
    CHECK(params_map_read(&pk, map, &f->id, PARAMS_MAP_SAMPLE, 2, NULL, &perr) == 0);
    CHECK(params_map_write(map2, pk, &f->id, 2, &perr) == 0);
    params_free(pk);
    CHECK(file_size(map2) == file_size(map));
    CHECK(header_u64(map2, H_HEADER_CHECKSUM) == header_u64(map, H_HEADER_CHECKSUM));
    unlink(map2);
}

/* ---- read-only, shared, file-backed -------------------------------------- */

/* kB of a field of /proc/self/status ("RssFile:"). */
static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0)
            v = strtol(line + n, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* The VMA of /proc/self/smaps that contains addr: its permissions, path
 * and Size / Rss / Anonymous in kB. */
struct vma {
    bool found;
    char perms[8];
    char path[PATH_MAX];
    long size_kb, rss_kb, anon_kb;
};

static struct vma vma_of(const void *addr)
{
    struct vma v = {0};
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[PATH_MAX + 128];
    bool in = false;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        int pos = 0;
        /* a mapping's first line: "lo-hi perms offset dev inode path" */
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s%n", &lo, &hi, perms, &pos) == 3) {
            in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            if (in) {
                v.found = true;
                snprintf(v.perms, sizeof v.perms, "%s", perms);
                const char *p = line + pos;
                while (*p == ' ')
                    p++;
                snprintf(v.path, sizeof v.path, "%s", p);
                v.path[strcspn(v.path, "\n")] = 0;
            }
            continue;
        }
        if (!in)
            continue;
        long kb;
        if (sscanf(line, "Size: %ld kB", &kb) == 1)
            v.size_kb = kb;
        else if (sscanf(line, "Rss: %ld kB", &kb) == 1)
            v.rss_kb = kb;
        else if (sscanf(line, "Anonymous: %ld kB", &kb) == 1)
            v.anon_kb = kb;
    }
    if (f)
        fclose(f);
    return v;
}

static void test_file_backed(void)
{
    /* A key of random points (params_map_write does not validate): large
     * enough that the resident bytes stand out in /proc/self/status. */
    groth16_params_t *fake;
    CHECK(params_alloc(&fake, 3, 40000, 30000, 20000, 10000, 10000) == 0);
    uint8_t *arrays[] = {(uint8_t *)fake->vk.ic, (uint8_t *)fake->h, (uint8_t *)fake->l, (uint8_t *)fake->a,
                         (uint8_t *)fake->b_g1, (uint8_t *)fake->b_g2};
    size_t bytes[] = {3 * 96, 40000 * 96, 30000 * 96, 20000 * 96, 10000 * 96, 10000 * 192};
    for (size_t k = 0; k < 6; k++)
        for (size_t i = 0; i < bytes[k]; i++)
            arrays[k][i] = (uint8_t)test_rand_u64();
    char map[PATH_MAX], real[PATH_MAX];
    path_in(map, sizeof map, "fake.map");
    params_error_t perr;
    params_origin_t id = {.kind = PARAMS_ORIGIN_FILE, .source = {12345, 678, test_rand_u64()}};
    CHECK(params_map_write(map, fake, &id, 2, &perr) == 0);
    CHECK(realpath(map, real) != NULL);

    struct statfs sf;
    CHECK(statfs(g_dir, &sf) == 0);
    const char *field = sf.f_type == 0x01021994 /* TMPFS_MAGIC */ ? "RssShmem:" : "RssFile:";
    long before = status_kb(field);
    groth16_params_t *pk = NULL;
    CHECK(params_map_read(&pk, map, &id, PARAMS_MAP_SAMPLE, 2, NULL, &perr) == 0);
    long after = status_kb(field);
    CHECK(pk && keys_equal(pk, fake));
    long map_kb = (long)(params_mapped_bytes(pk) / 1024);
    CHECK(map_kb > 9000);
    /* resident from the load on, as file-backed memory */
    CHECK(after - before >= map_kb - 64);
    struct vma v = vma_of(pk->h);
    CHECK(v.found);
    CHECK(strcmp(v.perms, "r--s") == 0); /* read-only, shared */
    CHECK(strcmp(v.path, real) == 0);
    CHECK(v.size_kb * 1024 >= (long)params_mapped_bytes(pk));
    CHECK(v.rss_kb == v.size_kb); /* every page resident */
    CHECK(v.anon_kb == 0);        /* none copied into anonymous memory */
    CHECK(vma_of(pk->b_g2).found && strcmp(vma_of(pk->b_g2).path, real) == 0);

    /* a write faults */
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        signal(SIGSEGV, SIG_DFL);
        ((volatile uint8_t *)pk->h)[0] ^= 1;
        _exit(0);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status) && (WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS));

    /* params_free unmaps */
    const void *h = pk->h;
    params_free(pk);
    CHECK(!vma_of(h).found || strcmp(vma_of(h).path, real) != 0);
    params_free(fake);
    unlink(map);
}

/* ---- corruption: detected, rebuilt, never trusted ------------------------- */

enum corruption {
    C_PAYLOAD_BYTE,
    C_HEADER_BYTE,
    C_PADDING_BYTE,
    C_TRUNCATED_BYTE,
    C_TRUNCATED_HEADER,
    C_EMPTY,
    C_EXTENDED_BYTE,
    C_EXTENDED_PAGE,
    C_MAGIC,
    C_VERSION,
    C_HEADER_BYTES,
    C_BYTE_ORDER,
    C_LIMB_BITS,
    C_G1_BYTES,
    C_MONTGOMERY,
    C_ALIGN,
    C_OFFSET_MISALIGNED,
    C_OFFSET_OVERLAP,
    C_COUNT_HUGE,
    C_COUNT_SHORT,
    C_PAYLOAD_OFFSET,
    C_FILE_BYTES_BOTH,
    C_SOURCE_SAMPLE,
    C_TABLE_BYTE,
    C_TABLE_GAP_BYTE,
    C_NOT_A_FILE,
    C_COUNT
};

static const char *const corruption_name[C_COUNT] = {
    "payload byte", "header byte", "padding byte", "truncated by a byte", "truncated into the header",
    "empty", "extended by a byte", "extended by a page", "magic", "version", "header size", "byte order",
    "limb bits", "G1 size", "Montgomery R", "alignment", "misaligned offset", "overlapping offset",
    "huge count", "short count", "payload offset", "file size in header and file", "source sample",
    "block table byte", "byte between the table and the payload", "a directory",
};

/* Applies c to the cache at map; returns the error params_map_read must
 * give and a word its message must hold. */
static int corrupt(const char *map, enum corruption c, const char **word)
{
    uint64_t size = file_size(map), payload = header_u64(map, H_PAYLOAD_OFFSET);
    *word = "";
    switch (c) {
    case C_PAYLOAD_BYTE:
        flip_byte(map, payload + test_rand_below(size - payload), (uint8_t)(1u << test_rand_below(8)));
        *word = "checksum";
        return -EBADMSG;
    case C_HEADER_BYTE:
        flip_byte(map, test_rand_below(H_SIZE), (uint8_t)(1u << test_rand_below(8)));
        return -EINVAL;
    case C_PADDING_BYTE:
        flip_byte(map, H_SIZE + test_rand_below(header_u64(map, H_TABLE_OFFSET) - H_SIZE), 0x20);
        *word = "not zero";
        return -EINVAL;
    case C_TRUNCATED_BYTE:
        CHECK(truncate(map, (off_t)size - 1) == 0);
        *word = "truncated";
        return -EINVAL;
    case C_TRUNCATED_HEADER:
        CHECK(truncate(map, (off_t)test_rand_below(H_SIZE)) == 0);
        *word = "truncated";
        return -EINVAL;
    case C_EMPTY:
        CHECK(truncate(map, 0) == 0);
        *word = "truncated";
        return -EINVAL;
    case C_EXTENDED_BYTE:
        CHECK(truncate(map, (off_t)size + 1) == 0);
        *word = "trailing";
        return -EINVAL;
    case C_EXTENDED_PAGE: {
        uint8_t page[4096];
        for (size_t i = 0; i < sizeof page; i++)
            page[i] = (uint8_t)test_rand_u64();
        write_at(map, size, page, sizeof page);
        *word = "trailing";
        return -EINVAL;
    }
    case C_MAGIC:
        set_field(map, H_MAGIC, "ZKBPMAQ", 8);
        *word = "magic";
        return -EINVAL;
    case C_VERSION:
        set_u32(map, H_VERSION, 3);
        *word = "version";
        return -EINVAL;
    case C_HEADER_BYTES:
        set_u32(map, H_HEADER_BYTES, 256);
        *word = "layout";
        return -EINVAL;
    case C_BYTE_ORDER:
        set_u64(map, H_BYTE_ORDER, __builtin_bswap64(0x0102030405060708ull));
        *word = "layout";
        return -EINVAL;
    case C_LIMB_BITS:
        set_u32(map, H_LIMB_BITS, 32);
        *word = "layout";
        return -EINVAL;
    case C_G1_BYTES:
        set_u32(map, H_G1_BYTES, 104);
        *word = "layout";
        return -EINVAL;
    case C_MONTGOMERY:
        set_u64(map, H_FP_ONE, header_u64(map, H_FP_ONE) ^ 1);
        *word = "Montgomery";
        return -EINVAL;
    case C_ALIGN:
        set_u64(map, H_ALIGN, 48);
        *word = "alignment";
        return -EINVAL;
    case C_OFFSET_MISALIGNED:
        set_u64(map, H_OFFSET + 3 * 8, header_u64(map, H_OFFSET + 3 * 8) + 8); /* l */
        *word = "layout";
        return -EINVAL;
    case C_OFFSET_OVERLAP:
        set_u64(map, H_OFFSET + 2 * 8, header_u64(map, H_OFFSET + 1 * 8)); /* h onto ic */
        *word = "layout";
        return -EINVAL;
    case C_COUNT_HUGE:
        set_u64(map, H_COUNT + 4 * 8, UINT64_MAX / 8); /* a */
        *word = "layout";
        return -EINVAL;
    case C_COUNT_SHORT:
        set_u64(map, H_COUNT + 6 * 8, header_u64(map, H_COUNT + 6 * 8) - 1); /* b_g2: the file is longer */
        *word = "layout";
        return -EINVAL;
    case C_PAYLOAD_OFFSET:
        set_u64(map, H_PAYLOAD_OFFSET, 8);
        *word = "layout";
        return -EINVAL;
    case C_FILE_BYTES_BOTH:
        /* the header and the file agree on a longer size, the sections do not */
        set_u64(map, H_FILE_BYTES, size + 4096);
        set_u64(map, H_PAYLOAD_BYTES, size + 4096 - payload);
        CHECK(truncate(map, (off_t)size + 4096) == 0);
        *word = "layout";
        return -EINVAL;
    case C_SOURCE_SAMPLE:
        set_u64(map, H_SOURCE_SAMPLE, header_u64(map, H_SOURCE_SAMPLE) + 1);
        *word = "made by";
        return -ESTALE;
    case C_TABLE_BYTE: {
        uint64_t t = header_u64(map, H_TABLE_OFFSET), n = header_u64(map, H_TABLE_COUNT);
        flip_byte(map, t + test_rand_below(8 * n), (uint8_t)(1u << test_rand_below(8)));
        *word = "block table";
        return -EBADMSG;
    }
    case C_TABLE_GAP_BYTE: {
        uint64_t end = header_u64(map, H_TABLE_OFFSET) + 8 * header_u64(map, H_TABLE_COUNT);
        flip_byte(map, end + test_rand_below(payload - end), 0x04);
        *word = "not zero";
        return -EINVAL;
    }
    case C_NOT_A_FILE:
        CHECK(unlink(map) == 0);
        CHECK(mkdir(map, 0755) == 0);
        *word = "regular file";
        return -EINVAL;
    case C_COUNT:
        break;
    }
    return 0;
}

static void test_corruption(struct fixture *f)
{
    char map[PATH_MAX];
    path_in(map, sizeof map, "src.params.map");
    params_error_t perr;
    for (int c = 0; c < C_COUNT; c++) {
        unlink(map);
        rmdir(map);
        CHECK(params_map_write(map, f->heap, &f->id, 2, &perr) == 0);
        const char *word;
        int want = corrupt(map, (enum corruption)c, &word);
        groth16_params_t *pk = (groth16_params_t *)&perr; /* a sentinel: must stay */
        params_error_t e = {{0}};
        int rc = params_map_read(&pk, map, &f->id, PARAMS_MAP_SAMPLE_ALL, 2, NULL, &e);
        if (!CHECK(rc == want) || !CHECK(strstr(e.msg, word) != NULL) || !CHECK(strstr(e.msg, map) != NULL))
            fprintf(stderr, "  corruption '%s': rc %d (want %d), message: %s\n", corruption_name[c], rc, want,
                    e.msg);
        CHECK(pk == (groth16_params_t *)&perr);

        params_map_info_t info;
        pk = NULL;
        rc = params_map_open(&pk, map, f->src, 0, 2, &info, &perr);
        if (c == C_NOT_A_FILE) {
            /* rename cannot replace a folder: a clean error, nothing mapped */
            CHECK(rc < 0 && pk == NULL && strstr(perr.msg, map));
            CHECK(rmdir(map) == 0);
            CHECK(no_temp_files(g_dir));
            continue;
        }
        if (!CHECK(rc == 0) || !CHECK(info.rebuilt && info.reason == want))
            fprintf(stderr, "  corruption '%s': open rc %d, rebuilt %d, reason %d: %s\n", corruption_name[c],
                    rc, info.rebuilt, info.reason, rc ? perr.msg : info.why);
        CHECK(pk && keys_equal(pk, f->heap));
        params_free(pk);
        pk = NULL;
        CHECK(params_map_read(&pk, map, &f->id, PARAMS_MAP_SAMPLE, 2, NULL, &perr) == 0);
        params_free(pk);
    }
    CHECK(no_temp_files(g_dir));

    /* the .params file replaced by another key of the same size: the cache
     * is valid but stale, rebuilt from the new file */
    CHECK(params_map_write(map, f->heap, &f->id, 2, &perr) == 0);
    fixture_key(f, test_rand_u64());
    CHECK(f->id.source.bytes == file_size(f->src));
    groth16_params_t *pk = NULL;
    params_map_info_t info;
    CHECK(params_map_open(&pk, map, f->src, 0, 2, &info, &perr) == 0);
    CHECK(info.rebuilt && info.reason == -ESTALE && strstr(info.why, "made by"));
    CHECK(pk && keys_equal(pk, f->heap));
    prove_and_verify(f, pk);
    params_free(pk);
}

/* ---- bad inputs ----------------------------------------------------------- */

static void test_bad_inputs(struct fixture *f)
{
    params_error_t perr;
    params_map_info_t info;
    groth16_params_t *pk = NULL;
    char map[PATH_MAX], missing[PATH_MAX], bad[PATH_MAX], blocker[PATH_MAX], inside[PATH_MAX];
    path_in(map, sizeof map, "bad.map");
    path_in(missing, sizeof missing, "missing.params");

    /* no .params file */
    CHECK(params_map_open(&pk, map, missing, 0, 2, &info, &perr) == -ENOENT);
    CHECK(pk == NULL && strstr(perr.msg, missing) && !file_exists(map));
    CHECK(params_source_identify(&info.source, missing, &perr) == -ENOENT);
    CHECK(params_map_read(&pk, missing, NULL, PARAMS_MAP_SAMPLE, 1, NULL, &perr) == -ENOENT && pk == NULL);
    CHECK(params_map_verify(missing, 1, NULL, &perr) == -ENOENT);

    /* a corrupt .params file: not mapped, no cache written */
    path_in(bad, sizeof bad, "bad.params");
    copy_file(bad, f->src);
    uint64_t at = 3 * 96 + 3 * 192 + 4 + 10; /* inside the first ic point */
    flip_byte(bad, at, 0x01);
    CHECK(params_map_open(&pk, map, bad, 0, 2, &info, &perr) == -EINVAL);
    CHECK(pk == NULL && strstr(perr.msg, bad) && !file_exists(map));
    /* the same file with a valid cache of the good one: stale, rebuilt,
     * and the rebuild refuses the file */
    CHECK(params_map_write(map, f->heap, &f->id, 2, &perr) == 0);
    CHECK(params_map_open(&pk, map, bad, 0, 2, &info, &perr) == -EINVAL && pk == NULL);
    unlink(map);
    unlink(bad);

    /* a cache that cannot be written: its folder is a file */
    path_in(blocker, sizeof blocker, "blocker");
    FILE *b = fopen(blocker, "w");
    CHECK(b != NULL);
    if (b)
        fclose(b);
    CHECK((size_t)snprintf(inside, sizeof inside, "%s/x.map", blocker) < sizeof inside);
    CHECK(params_map_open(&pk, inside, f->src, 0, 2, &info, &perr) == -ENOTDIR);
    CHECK(pk == NULL && strstr(perr.msg, inside) && strstr(perr.msg, "cannot create"));
    CHECK(params_map_write(inside, f->heap, &f->id, 1, &perr) == -ENOTDIR);
    unlink(blocker);
    /* an unwritable folder (root writes anyway: checked only as a user) */
    if (geteuid() != 0) {
        char ro[PATH_MAX], romap[PATH_MAX + 16];
        path_in(ro, sizeof ro, "readonly");
        CHECK(mkdir(ro, 0555) == 0);
        snprintf(romap, sizeof romap, "%s/x.map", ro);
        CHECK(params_map_open(&pk, romap, f->src, 0, 2, &info, &perr) == -EACCES && pk == NULL);
        CHECK(strstr(perr.msg, romap) != NULL);
        rmdir(ro);
    }
    CHECK(no_temp_files(g_dir));
}

/* ---- a start samples blocks; the full check reads every one ---------------- */

static void test_sampling(void)
{
    /* a key of 80-odd blocks (random points: the file does not validate
     * them), more than a start samples */
    groth16_params_t *fake;
    size_t n = (size_t)200 << 10; /* points per G1 section */
    CHECK(params_alloc(&fake, 3, n, n, n, n / 2, n / 2) == 0);
    uint8_t *arrays[] = {(uint8_t *)fake->h, (uint8_t *)fake->l, (uint8_t *)fake->a, (uint8_t *)fake->b_g1,
                         (uint8_t *)fake->b_g2};
    size_t bytes[] = {n * 96, n * 96, n * 96, n / 2 * 96, n / 2 * 192};
    for (size_t k = 0; k < 5; k++)
        for (size_t i = 0; i < bytes[k]; i += 8) {
            uint64_t v = test_rand_u64();
            memcpy(arrays[k] + i, &v, 8);
        }
    memset(fake->vk.ic, 7, 3 * sizeof(g1_affine_t));
    char map[PATH_MAX];
    path_in(map, sizeof map, "sampled.key");
    params_error_t perr;
    params_origin_t origin = {.kind = PARAMS_ORIGIN_SETUP, .seed = 5};
    snprintf(origin.spec, sizeof origin.spec, "porep:constraints=4096");
    CHECK(params_map_write(map, fake, &origin, 2, &perr) == 0);
    groth16_params_t *pk = NULL;
    params_map_stats_t st;
    CHECK(params_map_read(&pk, map, &origin, PARAMS_MAP_SAMPLE, 2, &st, &perr) == 0 && keys_equal(pk, fake));
    uint64_t blocks = st.blocks;
    CHECK(blocks > PARAMS_MAP_SAMPLE + 2 && st.blocks_checked == PARAMS_MAP_SAMPLE + 2);
    CHECK(st.origin.kind == PARAMS_ORIGIN_SETUP && st.origin.seed == 5 && strcmp(st.origin.spec, origin.spec) == 0);
    params_free(pk);
    /* another origin: stale */
    params_origin_t other = origin;
    other.seed = 6;
    pk = NULL;
    CHECK(params_map_read(&pk, map, &other, PARAMS_MAP_SAMPLE, 2, NULL, &perr) == -ESTALE && pk == NULL);
    CHECK(strstr(perr.msg, "seed 5") && strstr(perr.msg, "seed 6"));
    /* the first and the last block are always checked */
    uint64_t payload = header_u64(map, H_PAYLOAD_OFFSET), size = file_size(map);
    flip_byte(map, payload + 17, 0x01);
    CHECK(params_map_read(&pk, map, NULL, PARAMS_MAP_SAMPLE, 2, NULL, &perr) == -EBADMSG && strstr(perr.msg, "block 0 "));
    flip_byte(map, payload + 17, 0x01);
    flip_byte(map, size - 3, 0x40);
    CHECK(params_map_read(&pk, map, NULL, PARAMS_MAP_SAMPLE, 2, NULL, &perr) == -EBADMSG);
    flip_byte(map, size - 3, 0x40);
    /* a block in the middle: the full check always finds it and names it;
     * starts find it in about (sample / blocks) of the draws */
    uint64_t bad = blocks / 2;
    flip_byte(map, payload + bad * CHECKSUM_BLOCK_BYTES + 5, 0x10);
    char want[64];
    snprintf(want, sizeof want, "block %llu ", (unsigned long long)bad);
    CHECK(params_map_verify(map, 2, &st, &perr) == -EBADMSG && strstr(perr.msg, want));
    pk = NULL;
    CHECK(params_map_read(&pk, map, NULL, PARAMS_MAP_SAMPLE_ALL, 2, NULL, &perr) == -EBADMSG && pk == NULL);
    unsigned found = 0;
    for (int k = 0; k < 20; k++) {
        pk = NULL;
        int rc = params_map_read(&pk, map, NULL, PARAMS_MAP_SAMPLE, 2, NULL, &perr);
        CHECK(rc == 0 || rc == -EBADMSG);
        found += rc == -EBADMSG;
        params_free(pk);
    }
    CHECK(found > 0); /* 20 draws of 64 of ~80 blocks miss it with odds below 1e-13 */
    flip_byte(map, payload + bad * CHECKSUM_BLOCK_BYTES + 5, 0x10);
    CHECK(params_map_verify(map, 2, &st, &perr) == 0 && st.blocks_checked == blocks);
    params_free(fake);
    unlink(map);
}

/* ---- writing in place: a key made straight into its file ------------------- */

static void test_writer(struct fixture *f)
{
    char key[PATH_MAX], blocker[PATH_MAX], inside[PATH_MAX + 8];
    path_in(key, sizeof key, "made.key");
    size_t counts[6];
    groth16_key_counts(counts, f->shape);
    groth16_params_t *pk;
    params_map_writer_t *w;
    params_error_t perr;
    CHECK(params_map_create(&pk, &w, key, counts, &perr) == 0);
    CHECK(!file_exists(key));
    CHECK(groth16_setup_into(pk, f->shape, 77, 2, -1, NULL) == 0);
    params_origin_t origin = {.kind = PARAMS_ORIGIN_SETUP, .seed = 77};
    snprintf(origin.spec, sizeof origin.spec, "%s", f->circ->spec);
    CHECK(params_map_commit(w, pk, &origin, 2, &perr) == 0);
    CHECK(file_exists(key) && no_temp_files(g_dir) && pk->map);
    groth16_params_t *ref;
    CHECK(groth16_setup(&ref, f->shape, 77, 2) == 0);
    CHECK(keys_equal(pk, ref));
    groth16_params_t *again = NULL;
    CHECK(params_map_read(&again, key, &origin, PARAMS_MAP_SAMPLE_ALL, 2, NULL, &perr) == 0 && keys_equal(again, ref));
    /* the same key written from the heap form is the same file */
    char key2[PATH_MAX];
    path_in(key2, sizeof key2, "copy.key");
    CHECK(params_map_write(key2, ref, &origin, 2, &perr) == 0);
    CHECK(header_u64(key2, H_PAYLOAD_CHECKSUM) == header_u64(key, H_PAYLOAD_CHECKSUM));
    CHECK(header_u64(key2, H_HEADER_CHECKSUM) == header_u64(key, H_HEADER_CHECKSUM));
    /* the heap copy of a mapped key */
    groth16_params_t *heap = NULL;
    uint64_t live = mem_live_bytes(MEM_KIND_PARAMS);
    CHECK(params_map_to_heap(&heap, again) == 0 && !heap->map && keys_equal(heap, ref));
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == live + heap_bytes(heap));
    params_free(heap);
    params_free(again);
    params_free(ref);
    params_free(pk);
    unlink(key2);
    unlink(key);
    /* aborted: nothing left */
    CHECK(params_map_create(&pk, &w, key, counts, &perr) == 0);
    params_map_abort(w, pk);
    CHECK(!file_exists(key) && no_temp_files(g_dir));
    /* a folder that is a file */
    path_in(blocker, sizeof blocker, "blocker2");
    FILE *b = fopen(blocker, "w");
    CHECK(b != NULL);
    if (b)
        fclose(b);
    snprintf(inside, sizeof inside, "%s/x.key", blocker);
    pk = (groth16_params_t *)&perr;
    CHECK(params_map_create(&pk, &w, inside, counts, &perr) == -ENOTDIR && strstr(perr.msg, inside));
    CHECK(pk == (groth16_params_t *)&perr);
    unlink(blocker);
}

/* ---- the harness: param_cache in both modes -------------------------------- */

static void test_param_cache(struct fixture *f)
{
    char cache[PATH_MAX], err[1024], line[10000];
    path_in(cache, sizeof cache, "cache");
    CHECK(setenv("ZKBENCH_PARAMS_DIR", cache, 1) == 0);
    struct param_cache_info *info = calloc(1, sizeof *info), *info2 = calloc(1, sizeof *info2);
    CHECK(info && info2);
    uint64_t live = mem_live_bytes(MEM_KIND_PARAMS);

    /* heap: generated on first use into the one key file, copied into
     * tracked buffers, nothing left mapped */
    groth16_params_t *heap = NULL, *mapped = NULL, *pk = NULL;
    CHECK(param_cache_open(&heap, f->circ, f->shape, PARAMS_LOAD_HEAP, 2, -1, info, err, sizeof err) == 0);
    CHECK(heap && info->generated && strcmp(info->map_path, info->params_path) == 0);
    CHECK(heap->map == NULL && params_mapped_bytes(heap) == 0);
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == live + heap_bytes(heap));
    CHECK(strstr(info->params_path, cache) == info->params_path && file_exists(info->params_path));
    size_t plen = strlen(info->params_path);
    CHECK(plen > 4 && strcmp(info->params_path + plen - 4, ".key") == 0);
    CHECK(info->mapped_bytes == file_size(info->params_path));
    char vk[PATH_MAX];
    snprintf(vk, sizeof vk, "%.*s.vk", (int)(plen - 4), info->params_path);
    CHECK(file_exists(vk));
    groth16_params_t *ref;
    CHECK(groth16_setup(&ref, f->shape, 1, 2) == 0);
    CHECK(keys_equal(heap, ref)); /* the cache's key is the seed-1 setup */
    params_free(ref);
    /* generated on the CPU (setup_device -1), timed, no fallback note; the line says so */
    CHECK(info->setup_device == -1 && info->setup_s > 0 && info->setup_note[0] == 0);
    param_cache_describe(line, sizeof line, info);
    CHECK(strstr(line, "heap") && strstr(line, info->params_path) && strstr(line, "keys made on the CPU in ") &&
          !strstr(line, "GPU"));
    /* the former interface is the heap mode */
    bool generated = true;
    char path[4096];
    CHECK(param_cache_load(&pk, f->circ, f->shape, 2, &generated, path, sizeof path, err, sizeof err) == 0);
    CHECK(!generated && strcmp(path, info->params_path) == 0 && pk && !pk->map && keys_equal(pk, heap));
    params_free(pk);
    pk = NULL;
    char key[4096];
    snprintf(key, sizeof key, "%s", info->params_path);
    CHECK(param_cache_params_path(path, sizeof path, f->circ, err, sizeof err) == 0 && strcmp(path, key) == 0);

    /* mmap: the same file mapped, checked by sample, no tracked bytes */
    CHECK(param_cache_open(&mapped, f->circ, f->shape, PARAMS_LOAD_MMAP, 2, -1, info2, err, sizeof err) == 0);
    CHECK(mapped && mapped->map && !info2->generated && !info2->rebuilt);
    CHECK(strcmp(info2->map_path, key) == 0 && info2->blocks > 0 && info2->blocks_checked == info2->blocks);
    CHECK(info2->mapped_bytes == file_size(key) && params_mapped_bytes(mapped) == file_size(key));
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == live + heap_bytes(heap));
    CHECK(keys_equal(mapped, heap));
    param_cache_describe(line, sizeof line, info2);
    CHECK(strstr(line, "mapped") && strstr(line, key) && strstr(line, "blocks checked") && !strstr(line, "anew"));
    params_free(mapped);
    mapped = NULL;
    /* a corrupted key is made anew, and says why */
    flip_byte(key, file_size(key) - 1 - test_rand_below(1000), 0x80);
    CHECK(param_cache_open(&mapped, f->circ, f->shape, PARAMS_LOAD_MMAP, 2, -1, info2, err, sizeof err) == 0);
    CHECK(info2->generated && strstr(info2->why, "checksum") && mapped && keys_equal(mapped, heap));
    param_cache_describe(line, sizeof line, info2);
    CHECK(strstr(line, "made anew") && strstr(line, "checksum"));
    params_free(mapped);
    mapped = NULL;
    /* a key of another seed under the same name: stale, made anew */
    groth16_params_t *other;
    CHECK(groth16_setup(&other, f->shape, 2, 2) == 0);
    params_origin_t o2 = {.kind = PARAMS_ORIGIN_SETUP, .seed = 2};
    params_error_t perr;
    CHECK(params_map_write(key, other, &o2, 2, &perr) == 0);
    params_free(other);
    CHECK(param_cache_open(&mapped, f->circ, f->shape, PARAMS_LOAD_MMAP, 2, -1, info2, err, sizeof err) == 0);
    CHECK(info2->generated && strstr(info2->why, "made by") && keys_equal(mapped, heap));
    params_free(mapped);
    mapped = NULL;
    /* a key that cannot be written: a folder where it should go */
    CHECK(unlink(key) == 0 && mkdir(key, 0755) == 0);
    CHECK(param_cache_open(&mapped, f->circ, f->shape, PARAMS_LOAD_MMAP, 2, -1, info2, err, sizeof err) < 0);
    CHECK(mapped == NULL && strstr(err, key));
    CHECK(rmdir(key) == 0);
    CHECK(no_temp_files(cache));

    /* two processes on an empty cache make the key once: the second waits
     * on the lock, then finds the first's */
    char cache4[PATH_MAX];
    path_in(cache4, sizeof cache4, "cache4");
    CHECK(setenv("ZKBENCH_PARAMS_DIR", cache4, 1) == 0);
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        fflush(NULL);
        if ((kids[k] = fork()) == 0) {
            groth16_params_t *q = NULL;
            struct param_cache_info ci;
            char e2[512];
            int rc = param_cache_open(&q, f->circ, f->shape, PARAMS_LOAD_MMAP, 2, -1, &ci, e2, sizeof e2);
            _exit(rc < 0 ? 3 : ci.generated ? 1 : 0);
        }
    }
    int made = 0, ok = 0;
    for (int k = 0; k < 2; k++) {
        int status = 0;
        CHECK(kids[k] > 0 && waitpid(kids[k], &status, 0) == kids[k] && WIFEXITED(status));
        made += WEXITSTATUS(status) == 1;
        ok += WEXITSTATUS(status) <= 1;
    }
    CHECK(ok == 2 && made == 1);
    CHECK(no_temp_files(cache4));

    /* generated for a GPU run (setup device 0): on the GPU where there is
     * one, else by the CPU with the reason; the same keys either way */
    char cache3[PATH_MAX];
    path_in(cache3, sizeof cache3, "cache3");
    CHECK(setenv("ZKBENCH_PARAMS_DIR", cache3, 1) == 0);
    int devices = 0;
    kernels_device_count(&devices);
    CHECK(param_cache_open(&pk, f->circ, f->shape, PARAMS_LOAD_HEAP, 2, 0, info, err, sizeof err) == 0);
    CHECK(pk && info->generated && keys_equal(pk, heap) && info->setup_s > 0);
    param_cache_describe(line, sizeof line, info);
    if (devices > 0)
        CHECK(info->setup_device == 0 && info->setup_note[0] == 0 && strstr(line, "keys made on GPU 0 in "));
    else
        CHECK(info->setup_device == -1 && strstr(info->setup_note, "the setup on GPU 0 failed: ") &&
              strstr(line, "keys made on the CPU in ") && strstr(line, ", as the setup on GPU 0 failed: "));
    params_free(pk);
    pk = NULL;

    /* an explicit key file: used as it is in either mode; damaged, refused
     * with the way to check it */
    char cache2[PATH_MAX];
    path_in(cache2, sizeof cache2, "cache2");
    CHECK(setenv("ZKBENCH_PARAMS_DIR", cache2, 1) == 0);
    CHECK(param_cache_open_file(&pk, info->params_path, f->shape, PARAMS_LOAD_MMAP, 2, info2, err, sizeof err) == 0);
    CHECK(pk && pk->map && keys_equal(pk, heap) && strcmp(info2->map_path, info->params_path) == 0);
    params_free(pk);
    pk = NULL;
    CHECK(param_cache_open_file(&pk, info->params_path, f->shape, PARAMS_LOAD_HEAP, 2, info2, err, sizeof err) == 0);
    CHECK(pk && !pk->map && keys_equal(pk, heap));
    params_free(pk);
    pk = NULL;
    char damaged[PATH_MAX];
    path_in(damaged, sizeof damaged, "damaged.key");
    copy_file(damaged, info->params_path);
    flip_byte(damaged, file_size(damaged) - 100, 0x02);
    CHECK(param_cache_open_file(&pk, damaged, f->shape, PARAMS_LOAD_MMAP, 2, info2, err, sizeof err) == -EINVAL);
    CHECK(pk == NULL && strstr(err, damaged) && strstr(err, "params verify"));
    unlink(damaged);

    /* an explicit .params file: heap validates and decodes it, mmap keeps
     * its derived key file in CACHE/mapped/ */
    CHECK(param_cache_open_file(&pk, f->src, f->shape, PARAMS_LOAD_HEAP, 2, info, err, sizeof err) == 0);
    CHECK(pk && !pk->map && keys_equal(pk, f->heap) && info->map_path[0] == 0);
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == live + heap_bytes(heap) + heap_bytes(pk));
    param_cache_describe(line, sizeof line, info);
    CHECK(strstr(line, "heap, decoded and checked in full"));
    params_free(pk);
    pk = NULL;
    CHECK(param_cache_open_file(&pk, f->src, f->shape, PARAMS_LOAD_MMAP, 2, info, err, sizeof err) == 0);
    CHECK(pk && pk->map && keys_equal(pk, f->heap) && info->rebuilt && !info->generated);
    char mapped_dir[PATH_MAX + 32], expect[4096];
    snprintf(mapped_dir, sizeof mapped_dir, "%s/mapped/src.params.", cache2);
    CHECK(strstr(info->map_path, mapped_dir) == info->map_path);
    CHECK(strlen(info->map_path) == strlen(mapped_dir) + 16 + 4 && file_exists(info->map_path));
    CHECK(param_cache_map_path(expect, sizeof expect, f->src, err, sizeof err) == 0);
    CHECK(strcmp(expect, info->map_path) == 0);
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == live + heap_bytes(heap));
    params_free(pk);
    pk = NULL;
    CHECK(param_cache_open_file(&pk, f->src, f->shape, PARAMS_LOAD_MMAP, 2, info, err, sizeof err) == 0);
    CHECK(pk && !info->rebuilt);
    params_free(pk);
    pk = NULL;
    /* the same file by another path to it: the same map */
    char other_path[PATH_MAX + 16];
    snprintf(other_path, sizeof other_path, "%s/./src.params", g_dir);
    CHECK(param_cache_map_path(path, sizeof path, other_path, err, sizeof err) == 0 && strcmp(path, expect) == 0);
    /* a missing file, and a key of another circuit */
    char missing[PATH_MAX];
    path_in(missing, sizeof missing, "missing.params");
    for (int mode = 0; mode < 2; mode++) {
        enum params_load load = mode ? PARAMS_LOAD_HEAP : PARAMS_LOAD_MMAP;
        err[0] = 0;
        CHECK(param_cache_open_file(&pk, missing, f->shape, load, 2, info, err, sizeof err) == -ENOENT);
        CHECK(pk == NULL && strstr(err, missing));
    }
    /* the preflight before a run makes its folder */
    CHECK(param_cache_preflight(f->circ->spec, NULL, err, sizeof err) == 0);
    CHECK(param_cache_preflight(f->circ->spec, f->src, err, sizeof err) == 0);
    CHECK(param_cache_preflight(f->circ->spec, missing, err, sizeof err) == -ENOENT && strstr(err, missing));
    char blocker[PATH_MAX], under[PATH_MAX + 8];
    path_in(blocker, sizeof blocker, "blocker3");
    FILE *bf = fopen(blocker, "w");
    CHECK(bf != NULL);
    if (bf)
        fclose(bf);
    snprintf(under, sizeof under, "%s/c", blocker);
    CHECK(setenv("ZKBENCH_PARAMS_DIR", under, 1) == 0);
    CHECK(param_cache_preflight(f->circ->spec, NULL, err, sizeof err) < 0 && strstr(err, blocker));
    unlink(blocker);
    circuit_t *c2;
    groth16_shape_t *s2;
    CHECK(circuit_from_spec(&c2, "porep:constraints=1500", 1, err, sizeof err) == 0);
    CHECK(groth16_shape_new(&s2, c2->r1cs) == 0);
    for (int mode = 0; mode < 2; mode++) {
        enum params_load load = mode ? PARAMS_LOAD_HEAP : PARAMS_LOAD_MMAP;
        CHECK(setenv("ZKBENCH_PARAMS_DIR", cache2, 1) == 0);
        CHECK(param_cache_open_file(&pk, f->src, s2, load, 2, info, err, sizeof err) == -EINVAL);
        CHECK(pk == NULL && strstr(err, f->src));
    }
    groth16_shape_free(s2);
    circuit_free(c2);

    params_free(heap);
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == live);
    free(info);
    free(info2);
    unsetenv("ZKBENCH_PARAMS_DIR");
}

static void remove_tree(const char *path)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "test_params_map: could not remove %s\n", path);
}

int main(void)
{
    test_init("test_params_map");
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/zkb-params-map-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!CHECK(mkdtemp(g_dir) != NULL))
        return test_finish();

    test_load_names();
    struct fixture f;
    fixture_init(&f, "porep:constraints=2^10");
    test_round_trip(&f);
    test_file_backed();
    test_corruption(&f);
    test_sampling();
    test_writer(&f);
    test_bad_inputs(&f);
    test_param_cache(&f);
    fixture_free(&f);

    dealloc_drain();
    uint64_t allocs, frees;
    mem_counts(&allocs, &frees);
    CHECK(allocs == frees);
    CHECK(mem_bad_frees() == 0);
    CHECK(mem_live_bytes(MEM_KIND_PARAMS) == 0);
    if (test_failures == 0)
        remove_tree(g_dir);
    else
        fprintf(stderr, "test_params_map: files kept in %s\n", g_dir);
    return test_finish();
}
