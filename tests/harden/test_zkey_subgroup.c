/*
 * Issue 16, defect 11: zkey query points are checked for the order-r
 * subgroup on decode. A minimal .zkey (two variables, one public, domain 2,
 * generator points, written in snarkjs's layout: Montgomery limbs, little
 * endian) reads; the same file with one A, B1, B2 or H query point
 * replaced by a point of the curve outside the subgroup (a random solution
 * of the curve equation, not multiplied by the cofactor) is refused, and
 * accepted only with IDEN3_ZKEY_NO_SUBGROUP_CHECK.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prover/curve/g1.h"
#include "prover/curve/g2.h"
#include "prover/field/fp.h"
#include "prover/field/fp2.h"
#include "prover/field/fr.h"
#include "prover/iden3/zkey_file.h"
#include "tests/common.h"

static unsigned char buf[1 << 16];
static size_t len;

static void put(const void *p, size_t n)
{
    memcpy(buf + len, p, n);
    len += n;
}
static void put_u32(uint32_t v) { put(&v, 4); }
static void put_u64(uint64_t v) { put(&v, 8); }
/* snarkjs stores coordinates as Montgomery limbs, little endian: our
 * in-memory layout on x86-64 */
static void put_g1(const g1_affine_t *p) { put(&p->x, 48), put(&p->y, 48); }
static void put_g2(const g2_affine_t *p) { put(&p->x.c0, 48), put(&p->x.c1, 48), put(&p->y.c0, 48), put(&p->y.c1, 48); }

static size_t sec_start;
static void sec_begin(uint32_t type)
{
    put_u32(type);
    sec_start = len;
    put_u64(0);
}
static void sec_end(void)
{
    uint64_t n = len - sec_start - 8;
    memcpy(buf + sec_start, &n, 8);
}

/* which: -1 none, 0 A[1], 1 B1[1], 2 H[0], 3 B2[1] (G2) off the subgroup */
static void build(int which, const g1_affine_t *off1, const g2_affine_t *off2)
{
    const g1_affine_t *g1 = &G1_GENERATOR;
    const g2_affine_t *g2 = &G2_GENERATOR;
    len = 0;
    put("zkey", 4);
    put_u32(1);
    put_u32(9);
    sec_begin(1);
    put_u32(1); /* Groth16 */
    sec_end();
    sec_begin(2);
    put_u32(48);
    put(FP_MODULUS, 48);
    put_u32(32);
    put(FR_MODULUS, 32);
    put_u32(2); /* variables: ONE and one public */
    put_u32(1); /* public */
    put_u32(2); /* domain */
    put_g1(g1), put_g1(g1), put_g2(g2), put_g2(g2), put_g1(g1), put_g2(g2);
    sec_end();
    sec_begin(3); /* IC */
    put_g1(g1), put_g1(g1);
    sec_end();
    sec_begin(4);
    put_u32(0);
    sec_end();
    sec_begin(5); /* A */
    put_g1(g1), put_g1(which == 0 ? off1 : g1);
    sec_end();
    sec_begin(6); /* B1 */
    put_g1(g1), put_g1(which == 1 ? off1 : g1);
    sec_end();
    sec_begin(7); /* B2 */
    put_g2(g2), put_g2(which == 3 ? off2 : g2);
    sec_end();
    sec_begin(8); /* C: no private variable */
    sec_end();
    sec_begin(9); /* H */
    put_g1(which == 2 ? off1 : g1), put_g1(g1);
    sec_end();
}

static int read_back(const char *path, unsigned flags, char *msg, size_t cap)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(buf, 1, len, f) == len && fclose(f) == 0);
    iden3_zkey_t *z = NULL;
    iden3_error_t err;
    int rc = iden3_zkey_read(&z, path, flags, 1, &err);
    if (rc < 0)
        snprintf(msg, cap, "%s", err.msg);
    iden3_zkey_free(z);
    return rc;
}

int main(void)
{
    test_init("zkey-subgroup");
    /* a G1 point on the curve, outside the subgroup */
    g1_affine_t off1;
    fp_t four, rhs;
    fp_from_u64(&four, 4);
    for (;;) {
        test_rand_fp(&off1.x);
        fp_sqr(&rhs, &off1.x);
        fp_mul(&rhs, &rhs, &off1.x);
        fp_add(&rhs, &rhs, &four);
        if (fp_sqrt(&off1.y, &rhs) && g1_affine_is_on_curve(&off1) && !g1_affine_in_subgroup(&off1))
            break;
    }
    /* and a G2 one: y^2 = x^3 + 4(u + 1) over Fp2 */
    g2_affine_t off2;
    fp2_t b2, rhs2;
    fp_from_u64(&b2.c0, 4);
    fp_from_u64(&b2.c1, 4);
    for (;;) {
        test_rand_fp(&off2.x.c0);
        test_rand_fp(&off2.x.c1);
        fp2_sqr(&rhs2, &off2.x);
        fp2_mul(&rhs2, &rhs2, &off2.x);
        fp2_add(&rhs2, &rhs2, &b2);
        if (fp2_sqrt(&off2.y, &rhs2) && g2_affine_is_on_curve(&off2) && !g2_affine_in_subgroup(&off2))
            break;
    }
    char path[] = "/tmp/zkey-subgroup-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    char msg[600] = "";
    build(-1, &off1, &off2);
    CHECK(read_back(path, 0, msg, sizeof msg) == 0);
    static const char *const where[4] = {"A", "B1", "H", "B2"};
    for (int w = 0; w < 4; w++) {
        build(w, &off1, &off2);
        msg[0] = 0;
        int rc = read_back(path, 0, msg, sizeof msg);
        CHECK(rc == -EINVAL);
        CHECK(strstr(msg, "subgroup") != NULL && strstr(msg, where[w]) != NULL);
        printf("off-subgroup %s point: %s\n", where[w], msg);
        CHECK(read_back(path, IDEN3_ZKEY_NO_SUBGROUP_CHECK, msg, sizeof msg) == 0);
    }
    unlink(path);
    return test_finish();
}
