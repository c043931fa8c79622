/*
 * The subgroup check of a snarkjs key's query points and its records
 * (prover/iden3/zkey_check.h, iden3_zkey_open), on keys written here in
 * snarkjs's layout with thousands of points (several check chunks):
 *   - a key of group points reads, is recorded, and read again is vouched
 *     for by the record (no check), the points the same as a full read;
 *   - crafted points (a group point plus the order-3 point (0, 2) in G1, a
 *     curve point outside G2) in each query, in a later chunk, are refused
 *     by name and file index on 1, 2 and all threads, the lowest index of
 *     two winning, and never recorded;
 *   - a record vouches only for the points it was made for: the recorded
 *     key with one point replaced (outside the group: refused; another
 *     group point: checked again) and damaged or foreign records are not
 *     trusted; an unwritable folder leaves the key read, not recorded;
 *   - the digest does not depend on the threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/field/fp.h"
#include "arith/field/fp2.h"
#include "arith/field/fr.h"
#include "prover/iden3/zkey_check.h"
#include "prover/iden3/zkey_file.h"
#include "tests/common.h"
#include "tests/iden3/zkey_writer.h"

/* more points than one check chunk (1024) in every query */
enum { NV = 1100, NPUB = 1, DOMAIN = 2048 };

static g1_affine_t *g1s; /* group points: [i + 1]G */
static g2_affine_t *g2s;
static g1_affine_t off1; /* on the curve, outside G1 */
static g2_affine_t off2; /* on the twist, outside G2 */

static zkey_writer_t zw;

/* A replaced point: section (5 A, 6 B1, 7 B2, 8 C, 9 H), file index, and
 * the point (G1 or G2 by section). */
typedef struct {
    int section;
    size_t index;
    const void *pt;
} swap_t;

static const void *point(int section, size_t i, const swap_t *sw, size_t n_sw)
{
    for (size_t k = 0; k < n_sw; k++)
        if (sw[k].section == section && sw[k].index == i)
            return sw[k].pt;
    return section == 7 ? (const void *)&g2s[i] : (const void *)&g1s[(i * 7 + (size_t)section) % (DOMAIN + NV)];
}

static void build(const swap_t *sw, size_t n_sw)
{
    zw.len = 0;
    zkey_writer_header(&zw, NV, NPUB, DOMAIN,
                       &g1s[0], &g1s[1], &g2s[0], &g2s[1], &g1s[2], &g2s[2]);
    zkey_writer_begin(&zw, 3); /* IC */
    for (int i = 0; i < NPUB + 1; i++)
        zkey_writer_g1(&zw, &g1s[i]);
    zkey_writer_end(&zw);
    zkey_writer_begin(&zw, 4);
    zkey_writer_u32(&zw, 0);
    zkey_writer_end(&zw);
    static const int sections[5] = {5, 6, 7, 8, 9};
    static const size_t counts[5] = {NV, NV, NV, NV - NPUB - 1, DOMAIN};
    for (int s = 0; s < 5; s++) {
        zkey_writer_begin(&zw, (uint32_t)sections[s]);
        for (size_t i = 0; i < counts[s]; i++) {
            const void *p = point(sections[s], i, sw, n_sw);
            if (sections[s] == 7)
                zkey_writer_g2(&zw, p);
            else
                zkey_writer_g1(&zw, p);
        }
        zkey_writer_end(&zw);
    }
}

static char dir[] = "/tmp/zkey-check-XXXXXX";
static char key_path[256], rec_dir[256];

static void write_key(void)
{
    CHECK(zkey_writer_save(&zw, key_path) == 0);
}

/* iden3_zkey_open of the built key: rc, the info and the error line. */
static int open_key(unsigned threads, const char *records, iden3_zkey_info_t *info, char *msg, size_t cap)
{
    write_key();
    iden3_zkey_t *z = NULL;
    iden3_error_t err;
    err.msg[0] = 0;
    int rc = iden3_zkey_open(&z, key_path, records, threads, info, &err);
    snprintf(msg, cap, "%s", rc < 0 ? err.msg : "");
    CHECK((rc == 0) == (z != NULL));
    iden3_zkey_free(z);
    return rc;
}

static size_t count_records(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls %s 2>/dev/null | grep -c '^zkey-[0-9a-f]\\{64\\}\\.checked$'", rec_dir);
    FILE *p = popen(cmd, "r");
    unsigned long n = 0;
    if (!p || fscanf(p, "%lu", &n) != 1)
        n = 0;
    if (p)
        pclose(p);
    return n;
}

static void make_points(void)
{
    size_t n1 = DOMAIN + NV;
    g1s = calloc(n1, sizeof *g1s);
    g2s = calloc(NV, sizeof *g2s);
    g1_jac_t *j1 = calloc(n1, sizeof *j1);
    g2_jac_t *j2 = calloc(NV, sizeof *j2);
    CHECK(g1s && g2s && j1 && j2);
    g1_jac_from_affine(&j1[0], &G1_GENERATOR);
    for (size_t i = 1; i < n1; i++)
        g1_jac_add_mixed(&j1[i], &j1[i - 1], &G1_GENERATOR);
    g2_jac_from_affine(&j2[0], &G2_GENERATOR);
    for (size_t i = 1; i < NV; i++)
        g2_jac_add_mixed(&j2[i], &j2[i - 1], &G2_GENERATOR);
    CHECK(g1_batch_to_affine(g1s, j1, n1) == 0);
    CHECK(g2_batch_to_affine(g2s, j2, NV) == 0);
    free(j1);
    free(j2);

    /* G1: a group point plus T = (0, 2), of order 3 (x = 0: y^2 = 4) */
    g1_affine_t t3;
    fp_from_u64(&t3.x, 0);
    fp_from_u64(&t3.y, 2);
    CHECK(g1_affine_is_on_curve(&t3));
    g1_jac_t s;
    g1_jac_from_affine(&s, &g1s[41]);
    g1_jac_add_mixed(&s, &s, &t3);
    g1_jac_to_affine(&off1, &s);
    CHECK(g1_affine_is_on_curve(&off1) && !g1_affine_in_subgroup(&off1));
    /* G2: a random curve point (outside G2 but with probability 1 / cofactor) */
    for (;;) {
        fp2_t x;
        test_rand_fp(&x.c0);
        test_rand_fp(&x.c1);
        if (g2_affine_from_x(&off2, &x, false))
            break;
    }
    CHECK(g2_affine_is_on_curve(&off2) && !g2_affine_in_subgroup(&off2));
}

static void test_bad_points(void)
{
    static const struct {
        int section;
        size_t index;
        const char *name;
    } cases[] = {
        {5, 1050, "A"}, {6, 1099, "B1"}, {7, 1030, "B2"}, {8, 0, "C"}, {9, 1801, "H"},
    };
    const unsigned threads[3] = {1, 2, 0};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        swap_t sw = {cases[c].section, cases[c].index, cases[c].section == 7 ? (const void *)&off2 : &off1};
        build(&sw, 1);
        char want[64];
        snprintf(want, sizeof want, ": %s point %zu: not in the subgroup", cases[c].name, cases[c].index);
        for (int t = 0; t < (c == 0 ? 3 : 1); t++) {
            iden3_zkey_info_t info;
            char msg[600];
            int rc = open_key(threads[t], rec_dir, &info, msg, sizeof msg);
            CHECK(rc == -EINVAL);
            if (!CHECK(strstr(msg, want) != NULL))
                printf("  want '%s', got '%s'\n", want, msg);
            CHECK(!info.recorded && !info.from_record);
        }
    }
    /* two bad points in different chunks: the lower index is named, whatever
     * the threads */
    swap_t two[2] = {{5, 1090, &off1}, {5, 500, &off1}};
    build(two, 2);
    for (int t = 0; t < 3; t++) {
        iden3_zkey_info_t info;
        char msg[600];
        CHECK(open_key(threads[t], rec_dir, &info, msg, sizeof msg) == -EINVAL);
        CHECK(strstr(msg, ": A point 500: not in the subgroup") != NULL);
    }
    CHECK(count_records() == 0);
}

static void test_records(void)
{
    iden3_zkey_info_t info;
    char msg[600];
    build(NULL, 0);
    /* first: checked and recorded */
    CHECK(open_key(2, rec_dir, &info, msg, sizeof msg) == 0);
    CHECK(!info.from_record && info.recorded && info.record_error == 0);
    CHECK(info.n_g1 == 3 * NV - NPUB - 1 + DOMAIN && info.n_g2 == NV);
    CHECK(count_records() == 1);
    char record[4200];
    snprintf(record, sizeof record, "%s", info.record);
    CHECK(access(record, R_OK) == 0);
    /* again: vouched for by the record, on any threads */
    for (unsigned t = 0; t < 3; t++) {
        CHECK(open_key(t, rec_dir, &info, msg, sizeof msg) == 0);
        CHECK(info.from_record && !info.recorded && info.subgroup_s == 0);
        CHECK(strcmp(info.record, record) == 0);
    }
    /* the points read through the record are a full read's */
    write_key();
    iden3_zkey_t *a = NULL, *b = NULL;
    iden3_error_t err;
    CHECK(iden3_zkey_open(&a, key_path, rec_dir, 0, &info, &err) == 0 && info.from_record);
    CHECK(iden3_zkey_read(&b, key_path, IDEN3_ZKEY_NO_SUBGROUP_CHECK, 1, &err) == 0);
    if (a && b) {
        CHECK(a->n_a == b->n_a && a->n_b_g1 == b->n_b_g1 && a->n_b_g2 == b->n_b_g2);
        CHECK(memcmp(a->a, b->a, a->n_a * sizeof(g1_affine_t)) == 0);
        CHECK(memcmp(a->b_g2, b->b_g2, a->n_b_g2 * sizeof(g2_affine_t)) == 0);
        CHECK(memcmp(a->h, b->h, DOMAIN * sizeof(g1_affine_t)) == 0);
        CHECK(memcmp(a->c, b->c, (NV - NPUB - 1) * sizeof(g1_affine_t)) == 0);
    }
    iden3_zkey_free(a);
    iden3_zkey_free(b);

    /* the recorded key with one point outside the group: refused */
    swap_t bad = {9, 17, &off1};
    build(&bad, 1);
    CHECK(open_key(0, rec_dir, &info, msg, sizeof msg) == -EINVAL);
    CHECK(strstr(msg, "H point 17: not in the subgroup") != NULL);
    /* with another group point: checked again, and recorded apart */
    swap_t other = {7, 5, &g2s[6]};
    build(&other, 1);
    CHECK(open_key(0, rec_dir, &info, msg, sizeof msg) == 0);
    CHECK(!info.from_record && info.recorded && strcmp(info.record, record) != 0);
    CHECK(count_records() == 2);
    char record2[4200];
    snprintf(record2, sizeof record2, "%s", info.record);

    /* damaged records are not trusted: cut short, another key's line */
    build(NULL, 0);
    FILE *f = fopen(record, "r+");
    char line[300] = "";
    CHECK(f && fgets(line, sizeof line, f));
    if (f)
        fclose(f);
    CHECK(truncate(record, (off_t)strlen(line) - 2) == 0);
    CHECK(open_key(0, rec_dir, &info, msg, sizeof msg) == 0);
    CHECK(!info.from_record && info.recorded);
    CHECK(rename(record2, record) == 0); /* the other key's record under this key's name */
    CHECK(open_key(0, rec_dir, &info, msg, sizeof msg) == 0);
    CHECK(!info.from_record && info.recorded);
    CHECK(open_key(0, rec_dir, &info, msg, sizeof msg) == 0 && info.from_record);

    /* a folder that cannot be made: read all the same, not recorded */
    char not_dir[300];
    snprintf(not_dir, sizeof not_dir, "%s/checked", key_path); /* under a regular file */
    CHECK(open_key(1, not_dir, &info, msg, sizeof msg) == 0);
    CHECK(!info.from_record && !info.recorded && info.record_error == -ENOTDIR);
}

static void test_digest(void)
{
    const iden3_points_t sets[2] = {{g1s, DOMAIN + NV, false, "G", 0, 0}, {g2s, NV, true, "H", 0, 0}};
    uint8_t d1[IDEN3_DIGEST_BYTES], d2[IDEN3_DIGEST_BYTES], d3[IDEN3_DIGEST_BYTES];
    CHECK(iden3_points_digest(d1, sets, 2, NV, NPUB, DOMAIN, 1) == 0);
    CHECK(iden3_points_digest(d2, sets, 2, NV, NPUB, DOMAIN, 0) == 0);
    CHECK(memcmp(d1, d2, sizeof d1) == 0);
    /* the sizes are part of it */
    CHECK(iden3_points_digest(d3, sets, 2, NV, NPUB + 1, DOMAIN, 0) == 0);
    CHECK(memcmp(d1, d3, sizeof d1) != 0);
    /* an empty set, and none */
    const iden3_points_t empty = {g1s, 0, false, "E", 0, 0};
    CHECK(iden3_points_digest(d3, &empty, 1, 0, 0, 0, 0) == 0);
    CHECK(iden3_points_digest(d3, NULL, 0, 0, 0, 0, 0) == 0);
    size_t bad = 0;
    CHECK(iden3_points_in_subgroup(&empty, 0, &bad));
}

int main(void)
{
    test_init("zkey-check");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(key_path, sizeof key_path, "%s/k.zkey", dir);
    snprintf(rec_dir, sizeof rec_dir, "%s/records/checked", dir);
    make_points();
    test_digest();
    test_bad_points();
    test_records();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    zkey_writer_free(&zw);
    free(g1s);
    free(g2s);
    return test_finish();
}
