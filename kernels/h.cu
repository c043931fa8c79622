/*
 * The Groth16 quotient H on the GPU, step for step the CPU's compute_h
 * (prover/groth16.c): a, b, c are interpolated (inverse NTT) and evaluated
 * on the coset gH (coset NTT); h = (a b - c) / Z on gH, where Z(x) = x^n - 1
 * is the constant g^n - 1; a coset inverse NTT gives h's coefficients. Field
 * results are canonical, so the output equals the CPU's bit for bit.
 */
#include <errno.h>
#include <stdint.h>

#include "kernels/alloc.cuh"
#include "kernels/cuda_check.cuh"
#include "kernels/kernels.h"
#include "kernels/ntt.cuh"

__global__ void h_mul_kernel(dev_fr_t *a, const dev_fr_t *b, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        dev_fr_t x = a[i], y = b[i];
        field_mul(x, x, y);
        a[i] = x;
    }
}

__global__ void h_sub_mul_kernel(dev_fr_t *a, const dev_fr_t *c, dev_fr_t z,
                                 size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        dev_fr_t x = a[i], y = c[i];
        field_sub(x, x, y);
        field_mul(x, x, z);
        a[i] = x;
    }
}

static unsigned h_grid(size_t n)
{
    size_t b = (n + 255) / 256;
    return b > 8192 ? 8192 : (b ? (unsigned)b : 1);
}

static int h_log2(size_t n, unsigned *log_n)
{
    unsigned L = 0;
    if (n == 0 || (n & (n - 1)))
        return -EINVAL;
    while (((size_t)1 << L) < n)
        L++;
    if (L > KERNELS_NTT_MAX_LOG)
        return -EINVAL;
    *log_n = L;
    return 0;
}

/* Steps on one evaluation: interpolate, then evaluate on the coset. */
static int h_to_coset(dev_fr_t *x, unsigned L, cudaStream_t s)
{
    int rc = ntt_run(x, L, KERNELS_NTT_INVERSE, s);
    if (rc >= 0)
        rc = ntt_run(x, L, KERNELS_NTT_COSET_FORWARD, s);
    return rc;
}

static int h_combine(dev_fr_t *a, const dev_fr_t *b, const dev_fr_t *c,
                     unsigned L, cudaStream_t s)
{
    struct ntt_consts k;
    size_t n = (size_t)1 << L;
    int rc;
    ntt_consts_get(&k, L);
    h_mul_kernel<<<h_grid(n), 256, 0, s>>>(a, b, n);
    if ((rc = CUDA_CHECK_LAUNCH("h_mul_kernel")) < 0)
        return rc;
    h_sub_mul_kernel<<<h_grid(n), 256, 0, s>>>(a, c, k.z_coset_inv, n);
    if ((rc = CUDA_CHECK_LAUNCH("h_sub_mul_kernel")) < 0)
        return rc;
    return ntt_run(a, L, KERNELS_NTT_COSET_INVERSE, s);
}

int kernels_compute_h_device(void *d_a, void *d_b, void *d_c, size_t n,
                             void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    unsigned L;
    int rc;
    if (!d_a || !d_b || !d_c || (rc = h_log2(n, &L)) < 0)
        return -EINVAL;
    if ((rc = h_to_coset((dev_fr_t *)d_a, L, s)) < 0 ||
        (rc = h_to_coset((dev_fr_t *)d_b, L, s)) < 0 ||
        (rc = h_to_coset((dev_fr_t *)d_c, L, s)) < 0)
        return rc;
    return h_combine((dev_fr_t *)d_a, (const dev_fr_t *)d_b,
                     (const dev_fr_t *)d_c, L, s);
}

int kernels_compute_h(void *h, const void *a, const void *b, const void *c,
                      size_t n)
{
    struct kbuf d[3] = {};
    const void *in[3] = {a, b, c};
    cudaStream_t s_copy = NULL, s_comp = NULL;
    cudaEvent_t ev[3] = {};
    unsigned L;
    size_t bytes;
    int rc;
    if (!h || !a || !b || !c || (rc = h_log2(n, &L)) < 0)
        return -EINVAL;
    bytes = n * sizeof(dev_fr_t);
    if ((rc = kernels_ntt_prepare(L)) < 0)
        return rc;
    for (int i = 0; i < 3; i++)
        if ((rc = kbuf_alloc(&d[i], KERNELS_MEM_ABC, bytes)) < 0)
            goto fail;
    CUDA_TRY(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&s_comp, cudaStreamNonBlocking));
    for (int i = 0; i < 3; i++)
        CUDA_TRY(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming));
    /* Each array's transforms start as soon as it is on the device, while
     * the next one is copied. */
    for (int i = 0; i < 3; i++) {
        CUDA_TRY(cudaMemcpyAsync(d[i].p, in[i], bytes, cudaMemcpyHostToDevice,
                                 s_copy));
        CUDA_TRY(cudaEventRecord(ev[i], s_copy));
        CUDA_TRY(cudaStreamWaitEvent(s_comp, ev[i], 0));
        if ((rc = h_to_coset((dev_fr_t *)d[i].p, L, s_comp)) < 0)
            goto fail;
    }
    if ((rc = h_combine((dev_fr_t *)d[0].p, (const dev_fr_t *)d[1].p,
                        (const dev_fr_t *)d[2].p, L, s_comp)) < 0)
        goto fail;
    CUDA_TRY(cudaMemcpyAsync(h, d[0].p, bytes, cudaMemcpyDeviceToHost, s_comp));
    CUDA_TRY(cudaStreamSynchronize(s_comp));
fail:
    if (s_copy)
        cudaStreamSynchronize(s_copy);
    if (s_comp)
        cudaStreamSynchronize(s_comp);
    for (int i = 0; i < 3; i++) {
        if (ev[i])
            cudaEventDestroy(ev[i]);
        kbuf_free(&d[i]);
    }
    if (s_copy)
        cudaStreamDestroy(s_copy);
    if (s_comp)
        cudaStreamDestroy(s_comp);
    return rc;
}
