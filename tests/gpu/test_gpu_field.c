/*
 * GPU field arithmetic against the host's: every op of kernels_field_op
 * (add, sub, mul, neg, dbl, sqr) on Fr, Fp and Fp2, at sizes 0, 1, 7, 1000
 * and 2^20, with edge values (0, 1, -1, 2, the largest representation m-1,
 * values whose sum is exactly m, long carry runs) paired with each other,
 * then fresh random values; results must equal arith/field's bit for bit.
 * Also the error paths: bad arguments, an allocation far too large (must be
 * a negative errno with a message, not a crash), and device queries.
 *
 * Exits 77 (skipped) when no CUDA device is present.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "arith/field/fp.h"
#include "arith/field/fp2.h"
#include "arith/field/fr.h"
#include "tests/common.h"

#define N_FIELDS 3
#define N_OPS 6
#define MAX_EDGES 32

static const enum kernels_field FIELDS[N_FIELDS] = {
    KERNELS_FIELD_FR, KERNELS_FIELD_FP, KERNELS_FIELD_FP2};
static const char *const FIELD_NAMES[N_FIELDS] = {"fr", "fp", "fp2"};
static const enum kernels_op OPS[N_OPS] = {
    KERNELS_OP_ADD, KERNELS_OP_SUB, KERNELS_OP_MUL,
    KERNELS_OP_NEG, KERNELS_OP_DBL, KERNELS_OP_SQR};
static const char *const OP_NAMES[N_OPS] = {"add", "sub", "mul",
                                            "neg", "dbl", "sqr"};

static int op_is_binary(enum kernels_op op)
{
    return op == KERNELS_OP_ADD || op == KERNELS_OP_SUB || op == KERNELS_OP_MUL;
}

/* The host's answer for one element. */
static void ref_op(enum kernels_field f, enum kernels_op op, void *r,
                   const void *a, const void *b)
{
    switch (f) {
    case KERNELS_FIELD_FR:
        switch (op) {
        case KERNELS_OP_ADD: fr_add(r, a, b); return;
        case KERNELS_OP_SUB: fr_sub(r, a, b); return;
        case KERNELS_OP_MUL: fr_mul(r, a, b); return;
        case KERNELS_OP_NEG: fr_neg(r, a); return;
        case KERNELS_OP_DBL: fr_dbl(r, a); return;
        case KERNELS_OP_SQR: fr_sqr(r, a); return;
        }
        break;
    case KERNELS_FIELD_FP:
        switch (op) {
        case KERNELS_OP_ADD: fp_add(r, a, b); return;
        case KERNELS_OP_SUB: fp_sub(r, a, b); return;
        case KERNELS_OP_MUL: fp_mul(r, a, b); return;
        case KERNELS_OP_NEG: fp_neg(r, a); return;
        case KERNELS_OP_DBL: fp_dbl(r, a); return;
        case KERNELS_OP_SQR: fp_sqr(r, a); return;
        }
        break;
    case KERNELS_FIELD_FP2:
        switch (op) {
        case KERNELS_OP_ADD: fp2_add(r, a, b); return;
        case KERNELS_OP_SUB: fp2_sub(r, a, b); return;
        case KERNELS_OP_MUL: fp2_mul(r, a, b); return;
        case KERNELS_OP_NEG: fp2_neg(r, a); return;
        case KERNELS_OP_DBL: fp2_dbl(r, a); return;
        case KERNELS_OP_SQR: fp2_sqr(r, a); return;
        }
        break;
    }
    abort();
}

/*
 * Edge values of Fr or Fp given the modulus limbs m (n limbs), as raw
 * Montgomery representations: 0; one (R mod m); -1; 2; the representation 1;
 * m - 1 (the largest); (m-1)/2 and (m+1)/2 (whose sum and doubles straddle
 * m); all ones below a zero top limb (the longest carry runs). Returns the
 * count written to out (n limbs each).
 */
static int prime_edges(uint64_t *out, const uint64_t *m, int n,
                       const uint64_t *one, const uint64_t *minus_one,
                       const uint64_t *two)
{
    int k = 0;
    memset(out, 0, (size_t)MAX_EDGES * n * 8);
    k++;                                    /* 0 */
    memcpy(out + n * k++, one, n * 8);       /* 1 */
    memcpy(out + n * k++, minus_one, n * 8); /* -1 */
    memcpy(out + n * k++, two, n * 8);       /* 2 */
    out[n * k++] = 1;                       /* representation 1 */
    uint64_t *v = out + n * k++;            /* m - 1 */
    memcpy(v, m, n * 8);
    v[0] -= 1;                              /* m is odd: no borrow */
    uint64_t *h = out + n * k++;            /* (m - 1) / 2 */
    for (int i = 0; i < n; i++)
        h[i] = (v[i] >> 1) | (i + 1 < n ? v[i + 1] << 63 : 0);
    uint64_t *h1 = out + n * k++;           /* (m + 1) / 2 */
    memcpy(h1, h, n * 8);
    for (int i = 0; i < n && ++h1[i] == 0; i++) /* + 1 */
        ;
    uint64_t *ones = out + n * k++;         /* 2^(64(n-1)) - 1 */
    for (int i = 0; i < n - 1; i++)
        ones[i] = ~(uint64_t)0;
    return k;
}

static int fr_edges(fr_t *out)
{
    uint64_t e[MAX_EDGES * 4];
    fr_t minus_one, two;
    fr_neg(&minus_one, &FR_ONE);
    fr_from_u64(&two, 2);
    int k = prime_edges(e, FR_MODULUS, 4, FR_ONE.l, minus_one.l, two.l);
    memcpy(out, e, (size_t)k * sizeof *out);
    return k;
}

static int fp_edges(fp_t *out)
{
    uint64_t e[MAX_EDGES * 6];
    fp_t minus_one, two;
    fp_neg(&minus_one, &FP_ONE);
    fp_from_u64(&two, 2);
    int k = prime_edges(e, FP_MODULUS, 6, FP_ONE.l, minus_one.l, two.l);
    memcpy(out, e, (size_t)k * sizeof *out);
    return k;
}

/* Fp2 edges: pairs (c0, c1) of the first five Fp edges (0, 1, -1, 2, and the
 * representation 1) and of m - 1 with itself. */
static int fp2_edges(fp2_t *out)
{
    fp_t e[MAX_EDGES];
    fp_edges(e);
    int k = 0;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            out[k++] = (fp2_t){e[i], e[j]};
    out[k++] = (fp2_t){e[5], e[5]};
    return k;
}

static void rand_elem(enum kernels_field f, void *r)
{
    switch (f) {
    case KERNELS_FIELD_FR:
        test_rand_fr(r);
        break;
    case KERNELS_FIELD_FP:
        test_rand_fp(r);
        break;
    case KERNELS_FIELD_FP2:
        test_rand_fp(&((fp2_t *)r)->c0);
        test_rand_fp(&((fp2_t *)r)->c1);
        break;
    }
}

/* a[i], b[i]: every pair of edges first, then random elements. */
static void fill_inputs(enum kernels_field f, unsigned char *a,
                        unsigned char *b, size_t n)
{
    size_t esz = kernels_field_bytes(f);
    /* fp2_t is the largest element */
    static fp2_t edges[MAX_EDGES * MAX_EDGES];
    int ne = f == KERNELS_FIELD_FR   ? fr_edges((fr_t *)edges)
             : f == KERNELS_FIELD_FP ? fp_edges((fp_t *)edges)
                                     : fp2_edges(edges);
    size_t pairs = (size_t)ne * ne;
    for (size_t i = 0; i < n; i++) {
        if (i < pairs) {
            memcpy(a + i * esz, (unsigned char *)edges + (i / ne) * esz, esz);
            memcpy(b + i * esz, (unsigned char *)edges + (i % ne) * esz, esz);
        } else {
            rand_elem(f, a + i * esz);
            rand_elem(f, b + i * esz);
        }
    }
}

static void print_elem(const char *label, const unsigned char *e, size_t esz)
{
    fprintf(stderr, "  %s = 0x", label);
    for (size_t i = esz / 8; i-- > 0;) {
        uint64_t w;
        memcpy(&w, e + i * 8, 8);
        fprintf(stderr, "%016" PRIx64, w);
    }
    fprintf(stderr, "\n");
}

/* Compares out with the host's results; prints the first few mismatches. */
static void compare(int fi, int oi, const unsigned char *out,
                    const unsigned char *a, const unsigned char *b, size_t n)
{
    enum kernels_field f = FIELDS[fi];
    enum kernels_op op = OPS[oi];
    size_t esz = kernels_field_bytes(f);
    unsigned char want[96];
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        ref_op(f, op, want, a + i * esz, b + i * esz);
        if (memcmp(want, out + i * esz, esz) == 0)
            continue;
        if (bad++ < 3) {
            fprintf(stderr, "%s %s n=%zu: element %zu differs\n",
                    FIELD_NAMES[fi], OP_NAMES[oi], n, i);
            print_elem("a     ", a + i * esz, esz);
            if (op_is_binary(op))
                print_elem("b     ", b + i * esz, esz);
            print_elem("device", out + i * esz, esz);
            print_elem("host  ", want, esz);
        }
    }
    if (bad)
        fprintf(stderr, "%s %s n=%zu: %zu of %zu elements differ\n",
                FIELD_NAMES[fi], OP_NAMES[oi], n, bad, n);
    CHECK(bad == 0);
}

static void test_ops(void)
{
    /* 2^12 at most under compute-sanitizer (ZKB_GPU_TEST_SMALL) */
    const size_t sizes[] = {1, 7, 1000, getenv("ZKB_GPU_TEST_SMALL") ? (size_t)1 << 12 : (size_t)1 << 20};
    size_t max_n = sizes[sizeof sizes / sizeof sizes[0] - 1];
    size_t max_bytes = max_n * kernels_field_bytes(KERNELS_FIELD_FP2);
    unsigned char *a = malloc(max_bytes), *b = malloc(max_bytes);
    unsigned char *out = malloc(max_bytes);
    if (!CHECK(a && b && out))
        goto done;

    for (int fi = 0; fi < N_FIELDS; fi++) {
        for (int oi = 0; oi < N_OPS; oi++) {
            /* n = 0: nothing to do, NULL arrays allowed. */
            CHECK(kernels_field_op(FIELDS[fi], OPS[oi], NULL, NULL, NULL, 0)
                  == 0);
        }
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si], esz = kernels_field_bytes(FIELDS[fi]);
            fill_inputs(FIELDS[fi], a, b, n);
            for (int oi = 0; oi < N_OPS; oi++) {
                memset(out, 0xa5, n * esz);
                const void *bb = op_is_binary(OPS[oi]) ? b : NULL;
                int rc = kernels_field_op(FIELDS[fi], OPS[oi], out, a, bb, n);
                if (!CHECK(rc == 0)) {
                    fprintf(stderr, "%s %s n=%zu: rc %d: %s\n",
                            FIELD_NAMES[fi], OP_NAMES[oi], n, rc,
                            kernels_last_error());
                    continue;
                }
                compare(fi, oi, out, a, b, n);
            }
        }
    }

    /* out may alias an input. */
    {
        size_t n = 1000, esz = kernels_field_bytes(KERNELS_FIELD_FP);
        fill_inputs(KERNELS_FIELD_FP, a, b, n);
        memcpy(out, a, n * esz);
        CHECK(kernels_field_op(KERNELS_FIELD_FP, KERNELS_OP_MUL, out, out, b,
                               n) == 0);
        compare(1, 2, out, a, b, n);
    }
done:
    free(a);
    free(b);
    free(out);
}

static void test_errors(int count)
{
    fp_t x[2] = {FP_ONE, FP_ONE}, y[2];

    CHECK(kernels_field_op((enum kernels_field)7, KERNELS_OP_MUL, y, x, x, 1)
          == -EINVAL);
    CHECK(kernels_field_op(KERNELS_FIELD_FP, (enum kernels_op)99, y, x, x, 1)
          == -EINVAL);
    CHECK(kernels_field_op(KERNELS_FIELD_FP, KERNELS_OP_MUL, y, NULL, x, 1)
          == -EINVAL);
    CHECK(kernels_field_op(KERNELS_FIELD_FP, KERNELS_OP_MUL, NULL, x, x, 1)
          == -EINVAL);
    CHECK(kernels_field_op(KERNELS_FIELD_FP, KERNELS_OP_ADD, y, x, NULL, 1)
          == -EINVAL);
    CHECK(kernels_field_op(KERNELS_FIELD_FP, KERNELS_OP_MUL, y, x, x,
                           SIZE_MAX / 16) == -EOVERFLOW);

    /* 2^40 Fp elements = 48 TiB: the device allocation must fail cleanly
     * (before the small host arrays are read) and be reported. */
    int rc = kernels_field_op(KERNELS_FIELD_FP, KERNELS_OP_MUL, y, x, x,
                              (size_t)1 << 40);
    const char *msg = kernels_last_error();
    if (!CHECK(rc == -ENOMEM) || !CHECK(strstr(msg, "cudaMalloc failed at") &&
                                        strstr(msg, "field_ops.cu:")))
        fprintf(stderr, "huge allocation: rc %d, last error \"%s\"\n", rc,
                msg);
    else
        printf("2^40 Fp elements: %d (%s), as expected\n", rc, msg);
    /* ... and leave the runtime usable. */
    rc = kernels_field_op(KERNELS_FIELD_FP, KERNELS_OP_MUL, y, x, x, 2);
    CHECK(rc == 0);
    if (rc == 0) {
        fp_t want;
        fp_mul(&want, &FP_ONE, &FP_ONE);
        CHECK(fp_eq(&y[0], &want) && fp_eq(&y[1], &want));
    }

    struct kernels_device_props props;
    CHECK(kernels_device_props(count, &props) == -ENODEV);
    CHECK(kernels_device_props(-1, &props) == -ENODEV);
    for (int d = 0; d < count; d++) {
        if (!CHECK(kernels_device_props(d, &props) == 0))
            continue;
        CHECK(props.name[0] != '\0');
        CHECK(props.total_mem > 0 && props.sm_count > 0 && props.cc_major > 0);
        size_t free_b = 0, total_b = 0;
        CHECK(kernels_device_mem(d, &free_b, &total_b) == 0);
        CHECK(total_b > 0 && free_b <= total_b);
    }
    int runtime = 0, driver = 0;
    CHECK(kernels_cuda_version(&runtime, &driver) == 0);
    CHECK(runtime >= 12000 && driver >= 12000);
}

int main(void)
{
    test_init("test_gpu_field");
    int count = -1;
    int rc = kernels_device_count(&count);
    if (!CHECK(rc == 0)) {
        fprintf(stderr, "kernels_device_count: %d: %s\n", rc,
                kernels_last_error());
        return test_finish();
    }
    if (count == 0) {
        printf("no CUDA device: skipped (%s)\n", kernels_last_error());
        return 77;
    }
    struct kernels_device_props props;
    if (kernels_device_props(0, &props) == 0)
        printf("device 0: %s, sm_%d%d\n", props.name, props.cc_major,
               props.cc_minor);
    test_errors(count);
    test_ops();
    if (test_failures == 0)
        printf("fr, fp, fp2 x add, sub, mul, neg, dbl, sqr at n = 0, 1, 7, "
               "1000, 2^%d: equal to the host\n", getenv("ZKB_GPU_TEST_SMALL") ? 12 : 20);
    return test_finish();
}
