/*
 * The setup with its fixed-base multiplications on the GPU
 * (groth16_setup_on, kernels_fixed_base) against the CPU's: porep circuits
 * of 2^10 to 2^16 constraints (2^10 to 2^12 under compute-sanitizer,
 * ZKB_GPU_TEST_SMALL), the same seed on both. Every query point, the
 * verifying key, and the parameter file written from each, byte for byte.
 * Prints both setup times for the largest size (a note, not a gate).
 *
 * Exits 77 (skipped) when no CUDA device is present.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/kernels.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/params.h"
#include "tests/common.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The file params_write makes of pk, read back whole; NULL on failure. */
static unsigned char *file_of(const groth16_params_t *pk, const char *path, size_t *len)
{
    params_error_t err;
    if (params_write(path, pk, &err) < 0) {
        fprintf(stderr, "params_write %s: %s\n", path, err.msg);
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

#define SAME(field, count, type)                                                                             \
    do {                                                                                                     \
        if (!CHECK(cpu->count == gpu->count && memcmp(cpu->field, gpu->field, cpu->count * sizeof(type)) == 0)) \
            fprintf(stderr, "2^%u: %s differs\n", log_c, #field);                                          \
    } while (0)

static void test_size(unsigned log_c, bool timed)
{
    char spec[64], err[256], path[2][128];
    snprintf(spec, sizeof spec, "porep:constraints=2^%u", log_c);
    circuit_t *circ = NULL;
    if (!CHECK(circuit_from_spec(&circ, spec, 1, err, sizeof err) == 0)) {
        fprintf(stderr, "%s: %s\n", spec, err);
        return;
    }
    groth16_shape_t *shape = NULL;
    groth16_params_t *cpu = NULL, *gpu = NULL;
    uint64_t seed = test_rand_u64();
    CHECK(groth16_shape_new(&shape, circ->r1cs) == 0);
    double t0 = now_s();
    CHECK(groth16_setup_on(&cpu, shape, seed, 0, -1, NULL) == 0);
    double t_cpu = now_s() - t0;
    t0 = now_s();
    int rc = groth16_setup_on(&gpu, shape, seed, 0, 0, NULL);
    double t_gpu = now_s() - t0;
    if (!CHECK(rc == 0)) {
        fprintf(stderr, "%s: GPU setup failed: %d (%s)\n", spec, rc, kernels_last_error());
        goto done;
    }
    SAME(h, n_h, g1_affine_t);
    SAME(l, n_l, g1_affine_t);
    SAME(a, n_a, g1_affine_t);
    SAME(b_g1, n_b_g1, g1_affine_t);
    SAME(b_g2, n_b_g2, g2_affine_t);
    SAME(vk.ic, vk.n_ic, g1_affine_t);
    CHECK(memcmp(&cpu->vk.alpha_g1, &gpu->vk.alpha_g1, sizeof cpu->vk.alpha_g1) == 0);
    CHECK(memcmp(&cpu->vk.beta_g1, &gpu->vk.beta_g1, sizeof cpu->vk.beta_g1) == 0);
    CHECK(memcmp(&cpu->vk.delta_g1, &gpu->vk.delta_g1, sizeof cpu->vk.delta_g1) == 0);
    CHECK(memcmp(&cpu->vk.beta_g2, &gpu->vk.beta_g2, sizeof cpu->vk.beta_g2) == 0);
    CHECK(memcmp(&cpu->vk.gamma_g2, &gpu->vk.gamma_g2, sizeof cpu->vk.gamma_g2) == 0);
    CHECK(memcmp(&cpu->vk.delta_g2, &gpu->vk.delta_g2, sizeof cpu->vk.delta_g2) == 0);
    {
        size_t len[2] = {0, 0};
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        for (int i = 0; i < 2; i++)
            snprintf(path[i], sizeof path[i], "%s/zkb-gpu-setup-%d-%d.params", tmp, (int)getpid(), i);
        unsigned char *f0 = file_of(cpu, path[0], &len[0]), *f1 = file_of(gpu, path[1], &len[1]);
        if (!CHECK(f0 && f1 && len[0] == len[1] && memcmp(f0, f1, len[0]) == 0))
            fprintf(stderr, "%s: the parameter files differ\n", spec);
        free(f0);
        free(f1);
        remove(path[0]);
        remove(path[1]);
    }
    printf("2^%u constraints: GPU setup equals the CPU's (seed %llu)", log_c, (unsigned long long)seed);
    if (timed)
        printf("; setup %.2f s on the CPU, %.2f s with the GPU", t_cpu, t_gpu);
    printf("\n");
done:
    params_free(cpu);
    params_free(gpu);
    groth16_shape_free(shape);
    circuit_free(circ);
}

int main(void)
{
    int count = 0;
    test_init("gpu-setup");
    if (kernels_device_count(&count) < 0 || count == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    unsigned top = getenv("ZKB_GPU_TEST_SMALL") ? 12 : 16;
    for (unsigned log_c = 10; log_c <= top; log_c++)
        test_size(log_c, log_c == top);
    return test_finish();
}
