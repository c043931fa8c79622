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

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fp.h"
#include "arith/field/fp2.h"
#include "arith/field/fr.h"
#include "prover/iden3/zkey_file.h"
#include "tests/common.h"
#include "tests/iden3/zkey_writer.h"

static zkey_writer_t zw;

/* which: -1 none, 0 A[1], 1 B1[1], 2 H[0], 3 B2[1] (G2) off the subgroup */
static void build(int which, const g1_affine_t *off1, const g2_affine_t *off2)
{
    const g1_affine_t *g1 = &G1_GENERATOR;
    const g2_affine_t *g2 = &G2_GENERATOR;
    zw.len = 0;
    zkey_writer_header(&zw, 2, 1, 2, /* variables: ONE and one public; public; domain */
                       g1, g1, g2, g2, g1, g2);
    zkey_writer_begin(&zw, 3); /* IC */
    zkey_writer_g1(&zw, g1), zkey_writer_g1(&zw, g1);
    zkey_writer_end(&zw);
    zkey_writer_begin(&zw, 4);
    zkey_writer_u32(&zw, 0);
    zkey_writer_end(&zw);
    zkey_writer_begin(&zw, 5); /* A */
    zkey_writer_g1(&zw, g1), zkey_writer_g1(&zw, which == 0 ? off1 : g1);
    zkey_writer_end(&zw);
    zkey_writer_begin(&zw, 6); /* B1 */
    zkey_writer_g1(&zw, g1), zkey_writer_g1(&zw, which == 1 ? off1 : g1);
    zkey_writer_end(&zw);
    zkey_writer_begin(&zw, 7); /* B2 */
    zkey_writer_g2(&zw, g2), zkey_writer_g2(&zw, which == 3 ? off2 : g2);
    zkey_writer_end(&zw);
    zkey_writer_begin(&zw, 8); /* C: no private variable */
    zkey_writer_end(&zw);
    zkey_writer_begin(&zw, 9); /* H */
    zkey_writer_g1(&zw, which == 2 ? off1 : g1), zkey_writer_g1(&zw, g1);
    zkey_writer_end(&zw);
}

static int read_back(const char *path, unsigned flags, char *msg, size_t cap)
{
    CHECK(zkey_writer_save(&zw, path) == 0);
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
    zkey_writer_free(&zw);
    return test_finish();
}
