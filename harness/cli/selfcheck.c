/*
 * `zkbench selfcheck`: a fast known-answer check that the arithmetic this
 * binary was built with is right on this machine (compiler, CPU paths, GPU):
 * published generator encodings and decimal moduli, group orders, pairing
 * bilinearity, and the GPU against the CPU where a GPU is present. The test
 * suite goes much further; this is what an operator runs on a new box.
 */
#include "harness/cli/selfcheck.h"

#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "kernels/kernels.h"
#include "arith/curve/encode.h"
#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "arith/curve/pairing.h"

static int checks, failed;

static void report(bool ok, const char *what)
{
    checks++;
    if (!ok)
        failed++;
    printf("%s  %s\n", ok ? "ok    " : "FAILED", what);
}

static void to_hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

/* Published compressed generators (IETF pairing-friendly-curves draft,
 * zcash serialization appendix). */
static const char G1_COMPRESSED_HEX[] =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
static const char G2_COMPRESSED_HEX[] =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
/* p and r in decimal, as snarkjs prints the curve's primes. */
static const char P_DEC[] = "4002409555221667393417789825735904156556882819939007885332058136124031650490"
                            "837864442687629129015664037894272559787";
static const char R_DEC[] = "52435875175126190479447740508185965837690552500527637822603658699938581184513";

static void check_encodings(void)
{
    uint8_t b1[ENCODE_G1_COMPRESSED_BYTES], b2[ENCODE_G2_COMPRESSED_BYTES];
    char hex[2 * ENCODE_G2_COMPRESSED_BYTES + 1];
    encode_g1_write_compressed(b1, &G1_GENERATOR);
    to_hex(hex, b1, sizeof b1);
    report(strcmp(hex, G1_COMPRESSED_HEX) == 0, "G1 generator: published compressed encoding");
    g1_affine_t p1;
    report(encode_g1_read(&p1, b1, sizeof b1, 0) == 0 && g1_affine_eq(&p1, &G1_GENERATOR),
           "G1 generator: decodes back (curve and subgroup checked)");
    encode_g2_write_compressed(b2, &G2_GENERATOR);
    to_hex(hex, b2, sizeof b2);
    report(strcmp(hex, G2_COMPRESSED_HEX) == 0, "G2 generator: published compressed encoding");
    g2_affine_t p2;
    report(encode_g2_read(&p2, b2, sizeof b2, 0) == 0 && g2_affine_eq(&p2, &G2_GENERATOR),
           "G2 generator: decodes back (curve and subgroup checked)");

    /* p - 1 and r - 1 in decimal: the moduli minus one, digit for digit. */
    char dec[ENCODE_FP_DEC_BYTES], want[ENCODE_FP_DEC_BYTES];
    fp_t m1;
    fp_neg(&m1, &FP_ONE);
    encode_fp_to_dec(dec, sizeof dec, &m1);
    snprintf(want, sizeof want, "%s", P_DEC);
    want[strlen(want) - 1]--; /* ...787 - 1: the last digit is not 0 */
    report(strcmp(dec, want) == 0, "Fp: p - 1 in decimal");
    fr_t r1;
    fr_neg(&r1, &FR_ONE);
    encode_fr_to_dec(dec, sizeof dec, &r1);
    snprintf(want, sizeof want, "%s", R_DEC);
    want[strlen(want) - 1]--;
    report(strcmp(dec, want) == 0, "Fr: r - 1 in decimal");
    fp_t pv;
    report(encode_fp_from_dec(&pv, P_DEC) == ENCODE_ERR_RANGE, "Fp: decimal p rejected as out of range");
}

static void check_groups(void)
{
    g1_jac_t g1, t1;
    g1_jac_from_affine(&g1, &G1_GENERATOR);
    report(g1_affine_is_on_curve(&G1_GENERATOR) && g1_affine_in_subgroup(&G1_GENERATOR),
           "G1 generator on the curve and in the subgroup");
    g1_jac_mul(&t1, &g1, FR_MODULUS, 4);
    report(g1_jac_is_infinity(&t1), "G1: [r]G = O");
    g2_jac_t g2, t2;
    g2_jac_from_affine(&g2, &G2_GENERATOR);
    report(g2_affine_is_on_curve(&G2_GENERATOR) && g2_affine_in_subgroup(&G2_GENERATOR),
           "G2 generator on the curve and in the subgroup");
    g2_jac_mul(&t2, &g2, FR_MODULUS, 4);
    report(g2_jac_is_infinity(&t2), "G2: [r]G = O");

    /* e([a]G1, [b]G2) * e(-[ab]G1, G2) = 1, and not with [ab + 1]. */
    fr_t a, b, ab;
    fr_from_u64(&a, 0x1234567890abcdefull);
    fr_from_u64(&b, 0xfedcba0987654321ull);
    fr_mul(&ab, &a, &b);
    fr_mul(&ab, &ab, &a); /* make it a full-width scalar */
    fr_mul(&a, &a, &a);
    g1_jac_t pa, pab;
    g2_jac_t qb;
    g1_jac_mul_fr(&pa, &g1, &a);
    g2_jac_mul_fr(&qb, &g2, &b);
    fr_t prod;
    fr_mul(&prod, &a, &b);
    g1_jac_mul_fr(&pab, &g1, &prod);
    g1_jac_neg(&pab, &pab);
    g1_affine_t ps[2];
    g2_affine_t qs[2];
    g1_jac_to_affine(&ps[0], &pa);
    g1_jac_to_affine(&ps[1], &pab);
    g2_jac_to_affine(&qs[0], &qb);
    qs[1] = G2_GENERATOR;
    report(pairing_check(ps, qs, 2), "pairing: e([a]P, [b]Q) = e([ab]P, Q)");
    g1_jac_add_mixed(&pab, &pab, &G1_GENERATOR);
    g1_jac_to_affine(&ps[1], &pab);
    report(!pairing_check(ps, qs, 2), "pairing: e([a]P, [b]Q) != e([ab - 1]P, Q)");
    fp12_t e;
    pairing_compute(&e, &G1_GENERATOR, &G2_GENERATOR);
    report(!fp12_is_one(&e), "pairing: e(G1, G2) != 1");
}

static void check_gpu(void)
{
    int n = 0;
    if (kernels_device_count(&n) != 0 || n == 0) {
        printf("skip    GPU checks: no CUDA device\n");
        return;
    }
    enum { N = 4096 };
    static fp_t a[N], b[N], host[N], dev[N];
    fp_t x;
    fp_from_u64(&x, 0x9e3779b97f4a7c15ull);
    for (int i = 0; i < N; i++) {
        fp_sqr(&x, &x);
        a[i] = x;
        fp_add(&x, &x, &FP_ONE);
        b[i] = x;
        fp_mul(&host[i], &a[i], &b[i]);
    }
    int rc = kernels_field_op(KERNELS_FIELD_FP, KERNELS_OP_MUL, dev, a, b, N);
    if (rc < 0) {
        report(false, "GPU: Fp mul ran");
        printf("        %s\n", kernels_last_error());
        return;
    }
    report(memcmp(dev, host, sizeof dev) == 0, "GPU: Fp mul equals the CPU on 4096 elements");
}

const cli_cmd_t cli_cmd_selfcheck = {
    .name = "selfcheck",
    .summary = "known-answer checks of the field, curve, encoding and pairing code",
    .synopsis = "zkbench selfcheck",
    .about = "Known-answer checks of field, curve, encoding, pairing and (with a GPU)\n"
             "device arithmetic.\n",
    .epilog = "exit: 0 all pass; 1 a check failed; 2 bad arguments.\n",
};

int selfcheck_main(int argc, char **argv)
{
    cli_args_t a;
    cli_args_init(&a, &cli_cmd_selfcheck, argc, argv);
    int c;
    while ((c = cli_next(&a)) > 0)
        ;
    if (c == CLI_EXIT)
        return a.status;
    if (!cli_operands(&a, 0, 0, ""))
        return 2;
    check_encodings();
    check_groups();
    check_gpu();
    if (failed) {
        printf("selfcheck: %d of %d checks FAILED\n", failed, checks);
        return 1;
    }
    printf("selfcheck: all %d checks passed\n", checks);
    return 0;
}
