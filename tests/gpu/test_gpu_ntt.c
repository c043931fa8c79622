/*
 * GPU NTT and H against the CPU's (prover/ntt.h, compute_h's steps): all
 * four transforms at sizes 1, 2, 2^10, 2^16, 2^20 on random data must equal
 * the CPU's bit for bit, through the host wrapper and through the device
 * API on a stream; kernels_compute_h against the CPU steps of
 * prover/groth16.c's compute_h at 2^1, 2^10, 2^16, 2^18; bad arguments;
 * the allocation hook balances (every allocation freed, ids matched).
 *
 * Exits 77 (skipped) when no CUDA device is present.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "arith/field/fr.h"
#include "prover/ntt.h"
#include "tests/common.h"
#include "tests/gpu/gpu_hook.h"

static const char *const DIR_NAMES[4] = {"forward", "inverse", "coset_forward",
                                         "coset_inverse"};

static int cpu_ntt(const ntt_domain_t *d, fr_t *x, int dir)
{
    switch (dir) {
    case KERNELS_NTT_FORWARD: return ntt_forward(d, x, 0);
    case KERNELS_NTT_INVERSE: return ntt_inverse(d, x, 0);
    case KERNELS_NTT_COSET_FORWARD: return ntt_coset_forward(d, x, 0);
    default: return ntt_coset_inverse(d, x, 0);
    }
}

static void test_ntt_size(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    ntt_domain_t d;
    fr_t *in = malloc(n * sizeof *in), *cpu = malloc(n * sizeof *cpu),
         *gpu = malloc(n * sizeof *gpu);
    if (!CHECK(in && cpu && gpu) ||
        !CHECK(ntt_domain_init(&d, n, NTT_DOMAIN_TWIDDLES, -1, -1) == 0))
        goto out;
    for (size_t i = 0; i < n; i++)
        test_rand_fr(&in[i]);
    if (n >= 4) { /* edge values too */
        in[0] = FR_ZERO;
        in[1] = FR_ONE;
        fr_neg(&in[2], &FR_ONE);
    }
    for (int dir = 0; dir < 4; dir++) {
        memcpy(cpu, in, n * sizeof *in);
        memcpy(gpu, in, n * sizeof *in);
        CHECK(cpu_ntt(&d, cpu, dir) == 0);
        int rc = kernels_ntt(gpu, log_n, (enum kernels_ntt_dir)dir);
        if (!CHECK(rc == 0)) {
            fprintf(stderr, "kernels_ntt 2^%u %s: %d (%s)\n", log_n,
                    DIR_NAMES[dir], rc, kernels_last_error());
            continue;
        }
        if (!CHECK(memcmp(cpu, gpu, n * sizeof *in) == 0)) {
            size_t i = 0;
            while (memcmp(&cpu[i], &gpu[i], sizeof *cpu) == 0)
                i++;
            fprintf(stderr, "ntt 2^%u %s differs first at %zu\n", log_n,
                    DIR_NAMES[dir], i);
        }
    }
    /* round trip through the device API on one stream-less call chain */
    memcpy(gpu, in, n * sizeof *in);
    CHECK(kernels_ntt(gpu, log_n, KERNELS_NTT_COSET_FORWARD) == 0);
    CHECK(kernels_ntt(gpu, log_n, KERNELS_NTT_COSET_INVERSE) == 0);
    CHECK(memcmp(gpu, in, n * sizeof *in) == 0);
    ntt_domain_free(&d);
out:
    free(in);
    free(cpu);
    free(gpu);
}

/* compute_h's steps (prover/groth16.c) on the CPU. */
static void cpu_h(const ntt_domain_t *d, fr_t *a, fr_t *b, fr_t *c)
{
    size_t n = d->n;
    ntt_inverse(d, a, 0);
    ntt_coset_forward(d, a, 0);
    ntt_inverse(d, b, 0);
    ntt_coset_forward(d, b, 0);
    for (size_t i = 0; i < n; i++)
        fr_mul(&a[i], &a[i], &b[i]);
    ntt_inverse(d, c, 0);
    ntt_coset_forward(d, c, 0);
    for (size_t i = 0; i < n; i++) {
        fr_sub(&a[i], &a[i], &c[i]);
        fr_mul(&a[i], &a[i], &d->z_coset_inv);
    }
    ntt_coset_inverse(d, a, 0);
}

static void test_h(unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    ntt_domain_t d;
    fr_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b),
         *c = malloc(n * sizeof *c), *h = malloc(n * sizeof *h);
    if (!CHECK(a && b && c && h) ||
        !CHECK(ntt_domain_init(&d, n, NTT_DOMAIN_TWIDDLES, -1, -1) == 0))
        goto out;
    /* a satisfiable-looking instance: c = a * b except in a few places */
    for (size_t i = 0; i < n; i++) {
        test_rand_fr(&a[i]);
        test_rand_fr(&b[i]);
        fr_mul(&c[i], &a[i], &b[i]);
        if (test_rand_below(8) == 0)
            test_rand_fr(&c[i]);
    }
    int rc = kernels_compute_h(h, a, b, c, n);
    if (!CHECK(rc == 0))
        fprintf(stderr, "kernels_compute_h 2^%u: %d (%s)\n", log_n, rc,
                kernels_last_error());
    cpu_h(&d, a, b, c);
    if (!CHECK(memcmp(a, h, n * sizeof *a) == 0))
        fprintf(stderr, "h 2^%u differs\n", log_n);
    ntt_domain_free(&d);
out:
    free(a);
    free(b);
    free(c);
    free(h);
}

int main(void)
{
    int count = 0;
    test_init("gpu-ntt");
    if (kernels_device_count(&count) < 0 || count == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    hook_install();
    /* under compute-sanitizer (ZKB_GPU_TEST_SMALL) the largest sizes are
     * left out: it runs kernels tens of times slower */
    bool small = getenv("ZKB_GPU_TEST_SMALL") != NULL;
    static const unsigned logs[] = {0, 1, 10, 16, 20};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
        if (!small || logs[i] <= 12)
            test_ntt_size(logs[i]);
    static const unsigned hlogs[] = {0, 1, 10, 16, 18};
    for (size_t i = 0; i < sizeof hlogs / sizeof hlogs[0]; i++)
        if (!small || hlogs[i] <= 12)
            test_h(hlogs[i]);

    /* bad arguments */
    fr_t x[4];
    memset(x, 0, sizeof x);
    CHECK(kernels_ntt(x, KERNELS_NTT_MAX_LOG + 1, KERNELS_NTT_FORWARD) == -EINVAL);
    CHECK(kernels_ntt(NULL, 2, KERNELS_NTT_FORWARD) == -EINVAL);
    CHECK(kernels_ntt(x, 2, (enum kernels_ntt_dir)7) == -EINVAL);
    CHECK(kernels_ntt_device(NULL, 2, KERNELS_NTT_FORWARD, NULL) == -EINVAL);
    CHECK(kernels_compute_h(x, x, x, x, 3) == -EINVAL);
    CHECK(kernels_compute_h(x, x, x, x, 0) == -EINVAL);

    /* the hook: everything freed once the twiddle cache is released */
    CHECK(kernels_ntt_release() == 0);
    CHECK(hook_st.allocs > 0);
    CHECK(hook_st.allocs == hook_st.frees);
    CHECK(hook_st.mismatches == 0);
    CHECK(hook_live_total() == 0);
    printf("hook: %lu allocations, %lu frees, %lu mismatches\n", hook_st.allocs,
           hook_st.frees, hook_st.mismatches);
    kernels_set_alloc_hook(NULL, NULL);
    return test_finish();
}
