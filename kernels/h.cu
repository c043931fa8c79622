/*
 * The Groth16 quotient H on the GPU, step for step the CPU's compute_h
 * (prover/groth16.c): a, b, c are interpolated (inverse NTT) and evaluated
 * on the coset gH (coset NTT); h = (a b - c) / Z on gH, where Z(x) = x^n - 1
 * is the constant g^n - 1; a coset inverse NTT gives h's coefficients. Field
 * results are canonical, so the output equals the CPU's bit for bit.
 *
 * A prover worker keeps one workspace (struct kernels_h_ws): a, b and c on
 * the device, page-locked staging, two streams, all allocated once. Each
 * array's transforms start as soon as it is on the device, while the next
 * one is copied, and h stays on the device for its MSM.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "kernels/alloc.cuh"
#include "kernels/cuda_check.cuh"
#include "kernels/host_copy.cuh"
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

/* ---- the per-worker workspace ---- */

/* Scalars per staging copy: 64 MiB, large enough that a copy runs at the
 * bus's speed, small enough that the next one's host copy overlaps it. */
#define H_CHUNK ((size_t)1 << 21)

struct kernels_h_ws {
    int device;
    size_t n;
    unsigned log_n;
    struct kbuf d[3];     /* a (then h), b, c on the device */
    struct kbuf stage[2]; /* page-locked staging */
    cudaStream_t s_copy, s_comp;
    cudaEvent_t ev_stage[2], ev_in[3];
};

static size_t h_chunk(size_t n)
{
    return n < H_CHUNK ? n : H_CHUNK;
}

void kernels_h_ws_bytes(size_t n, size_t *device_bytes, size_t *pinned_bytes)
{
    *device_bytes = 3 * n * sizeof(dev_fr_t);
    *pinned_bytes = 2 * h_chunk(n) * sizeof(dev_fr_t);
}

void kernels_h_ws_free(kernels_h_ws_t *ws)
{
    int prev = -1;
    if (!ws)
        return;
    if (cudaGetDevice(&prev) == cudaSuccess && prev != ws->device)
        cudaSetDevice(ws->device);
    if (ws->s_copy)
        cudaStreamSynchronize(ws->s_copy);
    if (ws->s_comp)
        cudaStreamSynchronize(ws->s_comp);
    for (int i = 0; i < 2; i++)
        if (ws->ev_stage[i])
            cudaEventDestroy(ws->ev_stage[i]);
    for (int i = 0; i < 3; i++) {
        if (ws->ev_in[i])
            cudaEventDestroy(ws->ev_in[i]);
        kbuf_free(&ws->d[i]);
    }
    kbuf_free(&ws->stage[0]);
    kbuf_free(&ws->stage[1]);
    if (ws->s_copy)
        cudaStreamDestroy(ws->s_copy);
    if (ws->s_comp)
        cudaStreamDestroy(ws->s_comp);
    if (prev >= 0 && prev != ws->device)
        cudaSetDevice(prev);
    free(ws);
}

int kernels_h_ws_new(kernels_h_ws_t **ret, size_t n)
{
    kernels_h_ws_t *ws;
    unsigned L;
    int rc;
    if (!ret || h_log2(n, &L) < 0)
        return -EINVAL;
    /* the twiddles first: building them synchronizes the device */
    if ((rc = kernels_ntt_prepare(L)) < 0)
        return rc;
    ws = (kernels_h_ws_t *)calloc(1, sizeof *ws);
    if (!ws)
        return -ENOMEM;
    ws->n = n;
    ws->log_n = L;
    CUDA_TRY(cudaGetDevice(&ws->device));
    if ((rc = kbuf_alloc(&ws->d[0], KERNELS_MEM_H, n * sizeof(dev_fr_t))) < 0 ||
        (rc = kbuf_alloc(&ws->d[1], KERNELS_MEM_ABC, n * sizeof(dev_fr_t))) < 0 ||
        (rc = kbuf_alloc(&ws->d[2], KERNELS_MEM_ABC, n * sizeof(dev_fr_t))) < 0 ||
        (rc = kbuf_alloc(&ws->stage[0], KERNELS_MEM_PINNED, h_chunk(n) * sizeof(dev_fr_t))) < 0 ||
        (rc = kbuf_alloc(&ws->stage[1], KERNELS_MEM_PINNED, h_chunk(n) * sizeof(dev_fr_t))) < 0)
        goto fail;
    CUDA_TRY(cudaStreamCreateWithFlags(&ws->s_copy, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&ws->s_comp, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++)
        CUDA_TRY(cudaEventCreateWithFlags(&ws->ev_stage[i], cudaEventDisableTiming));
    for (int i = 0; i < 3; i++)
        CUDA_TRY(cudaEventCreateWithFlags(&ws->ev_in[i], cudaEventDisableTiming));
    *ret = ws;
    return 0;
fail:
    kernels_h_ws_free(ws);
    return rc;
}

int kernels_h_ws_compute(kernels_h_ws_t *ws, const void *a, const void *b, const void *c, const void **d_h)
{
    const void *in[3] = {a, b, c};
    size_t chunk, bytes;
    unsigned L;
    int rc = 0, dev = -1;
    if (!ws || !a || !b || !c || !d_h)
        return -EINVAL;
    CUDA_TRY(cudaGetDevice(&dev));
    if (dev != ws->device)
        return -EINVAL;
    L = ws->log_n;
    chunk = h_chunk(ws->n);
    /* a, b, c travel through the two staging buffers in turn on s_copy;
     * each array's transforms start on s_comp as soon as it is on the
     * device, while the next one travels */
    for (int i = 0, q = 0; i < 3; i++) {
        for (size_t off = 0; off < ws->n; off += chunk, q ^= 1) {
            size_t len = ws->n - off < chunk ? ws->n - off : chunk;
            bytes = len * sizeof(dev_fr_t);
            /* the buffer's previous copy must be done before it is refilled */
            CUDA_TRY(cudaEventSynchronize(ws->ev_stage[q]));
            host_copy(ws->stage[q].p, (const dev_fr_t *)in[i] + off, bytes);
            CUDA_TRY(cudaMemcpyAsync((dev_fr_t *)ws->d[i].p + off, ws->stage[q].p, bytes,
                                     cudaMemcpyHostToDevice, ws->s_copy));
            CUDA_TRY(cudaEventRecord(ws->ev_stage[q], ws->s_copy));
        }
        CUDA_TRY(cudaEventRecord(ws->ev_in[i], ws->s_copy));
        CUDA_TRY(cudaStreamWaitEvent(ws->s_comp, ws->ev_in[i], 0));
        if ((rc = h_to_coset((dev_fr_t *)ws->d[i].p, L, ws->s_comp)) < 0)
            goto fail;
    }
    if ((rc = h_combine((dev_fr_t *)ws->d[0].p, (const dev_fr_t *)ws->d[1].p, (const dev_fr_t *)ws->d[2].p, L,
                        ws->s_comp)) < 0)
        goto fail;
    CUDA_TRY(cudaStreamSynchronize(ws->s_comp));
    *d_h = ws->d[0].p;
    return 0;
fail:
    /* nothing may still read the staging buffers or write d[] */
    cudaStreamSynchronize(ws->s_copy);
    cudaStreamSynchronize(ws->s_comp);
    return rc;
}

int kernels_compute_h(void *h, const void *a, const void *b, const void *c, size_t n)
{
    kernels_h_ws_t *ws = NULL;
    const void *d_h = NULL;
    int rc;
    if (!h || !a || !b || !c)
        return -EINVAL;
    if ((rc = kernels_h_ws_new(&ws, n)) < 0)
        return rc;
    if ((rc = kernels_h_ws_compute(ws, a, b, c, &d_h)) == 0)
        rc = CUDA_CHECK(cudaMemcpy(h, d_h, n * sizeof(dev_fr_t), cudaMemcpyDeviceToHost));
    kernels_h_ws_free(ws);
    return rc;
}
