/*
 * Reader of snarkjs Groth16 .zkey files (see zkey_file.h).
 */
#include "prover/iden3/zkey_file.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <time.h>

#include "prover/cache_dir.h"
#include "prover/iden3/csr.h"
#include "prover/iden3/zkey_check.h"
#include "prover/mem.h"
#include "prover/ntt.h"
#include "prover/parallel.h"

#define G1_BYTES 96
#define G2_BYTES 192
#define COEF_BYTES (12 + 32)

/* ---- roots of unity -------------------------------------------------- */

int iden3_snarkjs_root(fr_t *ret, unsigned log_n)
{
    if (log_n > 32)
        return -EINVAL;
    /* t = (r - 1) / 2^32 */
    uint64_t t[4];
    uint64_t m[4] = {FR_MODULUS[0] - 1, FR_MODULUS[1], FR_MODULUS[2], FR_MODULUS[3]};
    for (int i = 0; i < 4; i++)
        t[i] = (m[i] >> 32) | (i < 3 ? m[i + 1] << 32 : 0);
    fr_t five, w;
    fr_from_u64(&five, 5);
    fr_pow(&w, &five, t, 4);
    for (unsigned i = log_n; i < 32; i++)
        fr_sqr(&w, &w);
    *ret = w;
    return 0;
}

static uint32_t root_k;
static pthread_once_t root_once = PTHREAD_ONCE_INIT;

/* Discrete logarithm in the cyclic group of order 2^32 (Pohlig-Hellman:
 * one bit per step). */
static void root_k_init(void)
{
    fr_t g, g_inv, h;
    fr_root_of_unity(&g, 32);
    fr_inv(&g_inv, &g);
    iden3_snarkjs_root(&h, 32);
    uint32_t k = 0;
    for (unsigned i = 0; i < 32; i++) {
        fr_t y, gk;
        uint64_t e = k;
        fr_pow(&gk, &g_inv, &e, 1);
        fr_mul(&y, &h, &gk); /* h g^-k: order divides 2^(32-i) */
        for (unsigned j = 0; j < 31 - i; j++)
            fr_sqr(&y, &y);
        if (!fr_is_one(&y))
            k |= 1u << i;
    }
    root_k = k;
}

uint32_t iden3_snarkjs_root_exponent(void)
{
    pthread_once(&root_once, root_k_init);
    return root_k;
}

/* ---- points ---------------------------------------------------------- */

static bool fp_read(fp_t *ret, const uint8_t *p)
{
    for (int k = 0; k < 6; k++)
        ret->l[k] = iden3_u64(p + 8 * k);
    for (int k = 5; k >= 0; k--) {
        if (ret->l[k] != FP_MODULUS[k])
            return ret->l[k] < FP_MODULUS[k];
    }
    return false;
}

/* 0, or a short description of the problem. */
static const char *g1_read(g1_affine_t *ret, const uint8_t *p, bool subgroup)
{
    if (!fp_read(&ret->x, p) || !fp_read(&ret->y, p + 48))
        return "a coordinate is not below the base field prime";
    if (g1_affine_is_infinity(ret))
        return NULL;
    if (!g1_affine_is_on_curve(ret))
        return "not on the curve";
    if (subgroup && !g1_affine_in_subgroup(ret))
        return "not in the subgroup";
    return NULL;
}

static const char *g2_read(g2_affine_t *ret, const uint8_t *p, bool subgroup)
{
    if (!fp_read(&ret->x.c0, p) || !fp_read(&ret->x.c1, p + 48) || !fp_read(&ret->y.c0, p + 96) ||
        !fp_read(&ret->y.c1, p + 144))
        return "a coordinate is not below the base field prime";
    if (g2_affine_is_infinity(ret))
        return NULL;
    if (!g2_affine_is_on_curve(ret))
        return "not on the curve";
    if (subgroup && !g2_affine_in_subgroup(ret))
        return "not in the subgroup";
    return NULL;
}

/* Decodes n points of a section on several threads; out_index (may be
 * NULL: i) maps point i to its slot. The first bad point wins. */
typedef struct {
    const uint8_t *src;
    void *dst;
    size_t n;
    bool g2, subgroup;
    uint32_t k_mask, k; /* slot = (k * i) & k_mask when k_mask != 0 */
    size_t bad;
    const char *why;
    pthread_mutex_t lock;
} decode_t;

#define DECODE_CHUNK 2048

static void decode_chunk(void *ctx, size_t c)
{
    decode_t *d = ctx;
    size_t end = (c + 1) * DECODE_CHUNK < d->n ? (c + 1) * DECODE_CHUNK : d->n;
    for (size_t i = c * DECODE_CHUNK; i < end; i++) {
        size_t slot = d->k_mask ? (size_t)((d->k * (uint64_t)i) & d->k_mask) : i;
        const char *why = d->g2 ? g2_read((g2_affine_t *)d->dst + slot, d->src + i * G2_BYTES, d->subgroup)
                                : g1_read((g1_affine_t *)d->dst + slot, d->src + i * G1_BYTES, d->subgroup);
        if (why) {
            pthread_mutex_lock(&d->lock);
            if (i < d->bad) {
                d->bad = i;
                d->why = why;
            }
            pthread_mutex_unlock(&d->lock);
            return;
        }
    }
}

static int decode_points(void *dst, const uint8_t *src, size_t n, bool g2, bool subgroup, uint32_t k,
                         uint32_t k_mask, unsigned threads, const char *path, const char *what,
                         iden3_error_t *err)
{
    decode_t d = {.src = src, .dst = dst, .n = n, .g2 = g2, .subgroup = subgroup, .k = k, .k_mask = k_mask};
    d.bad = SIZE_MAX;
    pthread_mutex_init(&d.lock, NULL);
    parallel_for((n + DECODE_CHUNK - 1) / DECODE_CHUNK, threads, decode_chunk, &d);
    pthread_mutex_destroy(&d.lock);
    if (d.bad != SIZE_MAX)
        return iden3_error(err, -EINVAL, path, "%s point %zu: %s", what, d.bad, d.why);
    return 0;
}

/* Keeps the points that are not infinity, in order, with their bitmap. */
static int compact(void *pts, size_t n, size_t size, uint64_t **density, size_t *kept)
{
    uint64_t *bits = mem_calloc(MEM_KIND_PARAMS, -1, -1, ((n + 63) / 64 + 1) * sizeof(uint64_t));
    if (!bits)
        return -ENOMEM;
    size_t out = 0;
    uint8_t *p = pts;
    for (size_t i = 0; i < n; i++) {
        bool inf = size == sizeof(g1_affine_t) ? g1_affine_is_infinity((g1_affine_t *)(p + i * size))
                                               : g2_affine_is_infinity((g2_affine_t *)(p + i * size));
        if (inf)
            continue;
        bits[i / 64] |= 1ull << (i % 64);
        if (out != i)
            memcpy(p + out * size, p + i * size, size);
        out++;
    }
    *density = bits;
    *kept = out;
    return 0;
}

/* ---- the file -------------------------------------------------------- */

void iden3_zkey_free(iden3_zkey_t *z)
{
    if (!z)
        return;
    mem_free(z->vk.ic);
    r1cs_free(z->ab);
    mem_free(z->a);
    mem_free(z->b_g1);
    mem_free(z->b_g2);
    mem_free(z->density_a);
    mem_free(z->density_b1);
    mem_free(z->density_b2);
    mem_free(z->c);
    mem_free(z->h);
    free(z);
}

static int section_size(const uint8_t **data, const iden3_binfile_t *f, uint32_t type, const char *what,
                        uint64_t expect, const char *why, iden3_error_t *err)
{
    uint64_t size;
    int rc = iden3_binfile_section(data, &size, f, type, what, err);
    if (rc < 0)
        return rc;
    if (size != expect)
        return iden3_error(err, -EINVAL, f->path, "section %u (%s) holds %llu bytes, expected %llu (%s)", type,
                           what, (unsigned long long)size, (unsigned long long)expect, why);
    return 0;
}

static void *params_alloc_bytes(size_t n, size_t size)
{
    return mem_calloc(MEM_KIND_PARAMS, -1, -1, n ? n * size : 1);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/*
 * The subgroup check of the query points, decoded and not yet compacted:
 * with records (dir not NULL) skipped when dir's record names the points'
 * digest, else run and then recorded. 0, or -EINVAL naming the first point
 * outside, or -ENOMEM.
 */
static int check_queries(const iden3_points_t *sets, size_t n_sets, const iden3_zkey_t *z, const char *dir,
                         unsigned threads, iden3_zkey_info_t *info, const char *path, iden3_error_t *err)
{
    uint8_t digest[IDEN3_DIGEST_BYTES];
    for (size_t i = 0; i < n_sets; i++)
        *(sets[i].g2 ? &info->n_g2 : &info->n_g1) += sets[i].n;
    double t0 = now_s();
    if (dir) {
        if (iden3_points_digest(digest, sets, n_sets, z->n_vars, z->n_public, (uint32_t)z->n, threads) < 0)
            return iden3_error(err, -ENOMEM, path, "out of memory for the digest of the key's points");
        info->digest_s = now_s() - t0;
        if (iden3_check_record_path(info->record, sizeof info->record, dir, digest) < 0)
            info->record[0] = 0;
        if (iden3_check_record_find(dir, digest, info->n_g1, info->n_g2)) {
            info->from_record = true;
            return 0;
        }
    }
    t0 = now_s();
    for (size_t i = 0; i < n_sets; i++) {
        size_t bad;
        if (!iden3_points_in_subgroup(&sets[i], threads, &bad))
            return iden3_error(err, -EINVAL, path, "%s point %zu: not in the subgroup", sets[i].what, bad);
    }
    info->subgroup_s = now_s() - t0;
    if (dir) {
        info->record_error = iden3_check_record_write(dir, digest, info->n_g1, info->n_g2);
        info->recorded = info->record_error == 0;
    }
    return 0;
}

/* iden3_zkey_read and iden3_zkey_open: records in dir, or none (NULL). */
static int zkey_load(iden3_zkey_t **ret, const char *path, unsigned flags, const char *dir, unsigned threads,
                     iden3_zkey_info_t *info, iden3_error_t *err)
{
    double t_start = now_s();
    iden3_binfile_t f;
    iden3_zkey_t *z = NULL;
    iden3_csr_t *csr = NULL;
    char why[128];
    bool sub = !(flags & IDEN3_ZKEY_NO_SUBGROUP_CHECK);
    int rc = iden3_binfile_open(&f, path, "zkey", 1, err);
    if (rc < 0)
        return rc;
    const uint8_t *s1, *s2, *s3, *s4, *s5, *s6, *s7, *s8, *s9;
    uint64_t n1, n2;
    if ((rc = iden3_binfile_section(&s1, &n1, &f, 1, "header", err)) < 0)
        goto done;
    rc = -EINVAL;
    if (n1 != 4) {
        iden3_error(err, rc, path, "section 1 (header) holds %llu bytes, expected 4", (unsigned long long)n1);
        goto done;
    }
    uint32_t protocol = iden3_u32(s1);
    if (protocol != 1) {
        iden3_error(err, rc, path, "not a Groth16 key: protocol %u (%s); zkbench proves Groth16 only", protocol,
                    protocol == 2 ? "PLONK" : protocol == 10 ? "FFLONK" : "unknown");
        goto done;
    }
    if ((rc = iden3_binfile_section(&s2, &n2, &f, 2, "Groth16 header", err)) < 0)
        goto done;
    rc = -EINVAL;
    uint32_t n8q = n2 >= 4 ? iden3_u32(s2) : 0;
    if (n2 < 8 || n8q == 0 || n8q > 64 || n2 < 8 + (uint64_t)n8q) {
        iden3_error(err, rc, path, "section 2 (Groth16 header) is truncated (%llu bytes)", (unsigned long long)n2);
        goto done;
    }
    uint32_t n8r = iden3_u32(s2 + 4 + n8q);
    if (n8r == 0 || n8r > 64 || n2 < 8 + (uint64_t)n8q + n8r + 12) {
        iden3_error(err, rc, path, "section 2 (Groth16 header) is truncated (%llu bytes)", (unsigned long long)n2);
        goto done;
    }
    enum iden3_prime pq = iden3_prime_identify(s2 + 4, n8q), pr = iden3_prime_identify(s2 + 8 + n8q, n8r);
    if (pq != IDEN3_PRIME_BLS12_381_Q || pr != IDEN3_PRIME_BLS12_381_R) {
        iden3_error(err, rc, path, "the key is for %s, not bls12381; zkbench proves over bls12381 only",
                    pq == IDEN3_PRIME_BN128_Q ? "bn128" : "another curve");
        goto done;
    }
    const uint8_t *h = s2 + 8 + n8q + n8r;
    uint64_t expect2 = 8 + (uint64_t)n8q + n8r + 12 + 3 * G1_BYTES + 3 * G2_BYTES;
    if (n2 != expect2) {
        iden3_error(err, rc, path, "section 2 (Groth16 header) holds %llu bytes, expected %llu",
                    (unsigned long long)n2, (unsigned long long)expect2);
        goto done;
    }
    z = calloc(1, sizeof *z);
    if (!z) {
        rc = -ENOMEM;
        goto done;
    }
    z->n_vars = iden3_u32(h);
    z->n_public = iden3_u32(h + 4);
    uint32_t domain = iden3_u32(h + 8);
    if (domain < 2 || (domain & (domain - 1)) || domain > (1u << NTT_MAX_LOG)) {
        iden3_error(err, rc, path, "domain size %u is not a power of two in [2, 2^%d]", domain, NTT_MAX_LOG);
        goto done;
    }
    if ((uint64_t)z->n_public + 1 > z->n_vars) {
        iden3_error(err, rc, path, "%u public inputs do not fit %u variables", z->n_public, z->n_vars);
        goto done;
    }
    z->n = domain;
    z->log_n = (unsigned)__builtin_ctz(domain);
    h += 12;
    const char *bad;
    groth16_vk_t *vk = &z->vk;
    static const char *const vk_names[6] = {"alpha_1", "beta_1", "beta_2", "gamma_2", "delta_1", "delta_2"};
    for (int i = 0; i < 6; i++) {
        bad = NULL;
        switch (i) {
        case 0: bad = g1_read(&vk->alpha_g1, h, true); h += G1_BYTES; break;
        case 1: bad = g1_read(&vk->beta_g1, h, true); h += G1_BYTES; break;
        case 2: bad = g2_read(&vk->beta_g2, h, true); h += G2_BYTES; break;
        case 3: bad = g2_read(&vk->gamma_g2, h, true); h += G2_BYTES; break;
        case 4: bad = g1_read(&vk->delta_g1, h, true); h += G1_BYTES; break;
        case 5: bad = g2_read(&vk->delta_g2, h, true); h += G2_BYTES; break;
        }
        if (bad) {
            iden3_error(err, rc, path, "section 2 (Groth16 header): %s: %s", vk_names[i], bad);
            goto done;
        }
    }
    uint64_t nv = z->n_vars, npub = z->n_public + 1ull, npriv = nv - npub;
    snprintf(why, sizeof why, "%llu public variables with the ONE", (unsigned long long)npub);
    if ((rc = section_size(&s3, &f, 3, "IC points", npub * G1_BYTES, why, err)) < 0)
        goto done;
    snprintf(why, sizeof why, "%llu variables", (unsigned long long)nv);
    if ((rc = section_size(&s5, &f, 5, "A points", nv * G1_BYTES, why, err)) < 0 ||
        (rc = section_size(&s6, &f, 6, "B1 points", nv * G1_BYTES, why, err)) < 0 ||
        (rc = section_size(&s7, &f, 7, "B2 points", nv * G2_BYTES, why, err)) < 0)
        goto done;
    snprintf(why, sizeof why, "%llu private variables", (unsigned long long)npriv);
    if ((rc = section_size(&s8, &f, 8, "C points", npriv * G1_BYTES, why, err)) < 0)
        goto done;
    snprintf(why, sizeof why, "a domain of %u", domain);
    if ((rc = section_size(&s9, &f, 9, "H points", (uint64_t)domain * G1_BYTES, why, err)) < 0)
        goto done;
    uint64_t n4;
    if ((rc = iden3_binfile_section(&s4, &n4, &f, 4, "coefficients", err)) < 0)
        goto done;
    rc = -EINVAL;
    uint32_t n_coef = n4 >= 4 ? iden3_u32(s4) : 0;
    if (n4 < 4 || n4 != 4 + (uint64_t)n_coef * COEF_BYTES) {
        iden3_error(err, rc, path, "section 4 (coefficients) holds %llu bytes, expected 4 + %u x %d for %u coefficients",
                    (unsigned long long)n4, n_coef, COEF_BYTES, n_coef);
        goto done;
    }

    /* The A and B matrices. */
    if ((rc = iden3_csr_new(&csr, domain, (uint32_t)npub, (uint32_t)npriv)) < 0)
        goto done;
    /* A coefficient is stored as c R^2: as our Montgomery limbs that is
     * c R, and one Montgomery multiplication by the raw limb 1 (R^-1)
     * leaves c. */
    const fr_t raw_one = {{1, 0, 0, 0}};
    for (uint32_t i = 0; i < n_coef; i++) {
        const uint8_t *e = s4 + 4 + (size_t)i * COEF_BYTES;
        uint32_t m = iden3_u32(e), c = iden3_u32(e + 4), sig = iden3_u32(e + 8);
        if (m > 1 || c >= domain || sig >= nv) {
            rc = iden3_error(err, -EINVAL, path,
                             "coefficient %u: matrix %u, constraint %u, signal %u out of range (2 matrices, %u rows, %u variables)",
                             i, m, c, sig, domain, z->n_vars);
            goto done;
        }
        fr_t raw, v;
        for (int k = 0; k < 4; k++)
            raw.l[k] = iden3_u64(e + 12 + 8 * k);
        bool in_range = false;
        for (int k = 3; k >= 0; k--) {
            if (raw.l[k] != FR_MODULUS[k]) {
                in_range = raw.l[k] < FR_MODULUS[k];
                break;
            }
        }
        if (!in_range) {
            rc = iden3_error(err, -EINVAL, path, "coefficient %u is not below the prime", i);
            goto done;
        }
        fr_mul(&v, &raw, &raw_one);
        if ((rc = iden3_csr_add(csr, m ? R1CS_B : R1CS_A, c, sig, &v)) < 0) {
            iden3_error(err, rc, path, "out of memory reading the coefficients");
            goto done;
        }
    }
    if ((rc = iden3_csr_finish(&z->ab, csr)) < 0) {
        iden3_error(err, rc, path, "out of memory building the A and B matrices");
        goto done;
    }

    /* Points. */
    vk->n_ic = npub;
    vk->ic = params_alloc_bytes(npub, sizeof(g1_affine_t));
    z->a = params_alloc_bytes(nv, sizeof(g1_affine_t));
    z->b_g1 = params_alloc_bytes(nv, sizeof(g1_affine_t));
    z->b_g2 = params_alloc_bytes(nv, sizeof(g2_affine_t));
    z->c = params_alloc_bytes(npriv, sizeof(g1_affine_t));
    z->h = params_alloc_bytes(domain, sizeof(g1_affine_t));
    if (!vk->ic || !z->a || !z->b_g1 || !z->b_g2 || !z->c || !z->h) {
        rc = iden3_error(err, -ENOMEM, path, "out of memory for the key's points");
        goto done;
    }
    /* The range and curve checks while decoding; the query points' subgroup
     * check after (check_queries), the few IC points' right away. */
    uint32_t k = iden3_snarkjs_root_exponent();
    if ((rc = decode_points(vk->ic, s3, npub, false, true, 0, 0, threads, path, "IC", err)) < 0 ||
        (rc = decode_points(z->a, s5, nv, false, false, 0, 0, threads, path, "A", err)) < 0 ||
        (rc = decode_points(z->b_g1, s6, nv, false, false, 0, 0, threads, path, "B1", err)) < 0 ||
        (rc = decode_points(z->b_g2, s7, nv, true, false, 0, 0, threads, path, "B2", err)) < 0 ||
        (rc = decode_points(z->c, s8, npriv, false, false, 0, 0, threads, path, "C", err)) < 0 ||
        (rc = decode_points(z->h, s9, domain, false, false, k, domain - 1, threads, path, "H", err)) < 0)
        goto done;
    info->decode_s = now_s() - t_start;
    if (sub) {
        const iden3_points_t sets[] = {
            {z->a, nv, false, "A", 0, 0},          {z->b_g1, nv, false, "B1", 0, 0},
            {z->b_g2, nv, true, "B2", 0, 0},       {z->c, npriv, false, "C", 0, 0},
            {z->h, domain, false, "H", k, domain - 1},
        };
        if ((rc = check_queries(sets, sizeof sets / sizeof sets[0], z, dir, threads, info, path, err)) < 0)
            goto done;
    }
    if ((rc = compact(z->a, nv, sizeof(g1_affine_t), &z->density_a, &z->n_a)) < 0 ||
        (rc = compact(z->b_g1, nv, sizeof(g1_affine_t), &z->density_b1, &z->n_b_g1)) < 0 ||
        (rc = compact(z->b_g2, nv, sizeof(g2_affine_t), &z->density_b2, &z->n_b_g2)) < 0) {
        iden3_error(err, rc, path, "out of memory");
        goto done;
    }
    *ret = z;
    z = NULL;
    rc = 0;
done:
    iden3_csr_free(csr);
    iden3_zkey_free(z);
    iden3_binfile_close(&f);
    return rc;
}

int iden3_zkey_read(iden3_zkey_t **ret, const char *path, unsigned flags, unsigned threads, iden3_error_t *err)
{
    iden3_zkey_info_t info;
    memset(&info, 0, sizeof info);
    return zkey_load(ret, path, flags, NULL, threads, &info, err);
}

int iden3_zkey_open(iden3_zkey_t **ret, const char *path, const char *record_dir, unsigned threads,
                    iden3_zkey_info_t *info, iden3_error_t *err)
{
    iden3_zkey_info_t local;
    iden3_zkey_info_t *in = info ? info : &local;
    memset(in, 0, sizeof *in);
    if (record_dir) {
        if (strlen(record_dir) >= sizeof in->dir)
            return iden3_error(err, -ENAMETOOLONG, record_dir, "the records' folder: path too long");
        strcpy(in->dir, record_dir);
    } else {
        char base[4096];
        int rc = cache_dir_default(base, sizeof base);
        if (rc < 0 || (size_t)snprintf(in->dir, sizeof in->dir, "%s/checked", base) >= sizeof in->dir)
            return iden3_error(err, -ENAMETOOLONG, path, "the records' folder (ZKBENCH_PARAMS_DIR): path too long");
    }
    return zkey_load(ret, path, 0, in->dir, threads, in, err);
}

static bool row_eq(const r1cs_t *x, const r1cs_t *y, enum r1cs_matrix_id m, uint64_t row)
{
    const r1cs_matrix_t *a = &x->m[m], *b = &y->m[m];
    uint64_t s = a->row_ptr[row], t = a->row_ptr[row + 1], u = b->row_ptr[row], v = b->row_ptr[row + 1];
    if (t - s != v - u)
        return false;
    for (uint64_t i = 0; i < t - s; i++) {
        if (a->col[s + i] != b->col[u + i] || !fr_eq(&x->coeffs[a->coeff[s + i]], &y->coeffs[b->coeff[u + i]]))
            return false;
    }
    return true;
}

int iden3_zkey_match_r1cs(const iden3_zkey_t *z, const r1cs_t *cs, char *msg, size_t cap)
{
    if (r1cs_num_vars(cs) != z->n_vars) {
        snprintf(msg, cap, "the circuit has %llu variables, the key %u", (unsigned long long)r1cs_num_vars(cs),
                 z->n_vars);
        return -EINVAL;
    }
    if (cs->num_inputs != z->n_public + 1) {
        snprintf(msg, cap, "the circuit has %u public inputs, the key %u", cs->num_inputs - 1, z->n_public);
        return -EINVAL;
    }
    if (cs->num_constraints + cs->num_inputs > z->n) {
        snprintf(msg, cap, "the circuit's %llu constraints and %u inputs do not fit the key's domain of %zu",
                 (unsigned long long)cs->num_constraints, cs->num_inputs, z->n);
        return -EINVAL;
    }
    for (uint64_t i = 0; i < cs->num_constraints; i++) {
        for (int m = 0; m < 2; m++) {
            if (!row_eq(cs, z->ab, (enum r1cs_matrix_id)m, i)) {
                snprintf(msg, cap, "constraint %llu differs (%s): the key was made for another circuit",
                         (unsigned long long)i, m ? "B" : "A");
                return -EINVAL;
            }
        }
    }
    return 0;
}
