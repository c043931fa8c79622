/*
 * The Groth16 quotient H on the GPU, step for step the CPU's compute_h
 * (prover/groth16.c): a, b, c are interpolated (inverse NTT) and evaluated
 * on the coset gH (coset NTT); h = (a b - c) / Z on gH, where Z(x) = x^n - 1
 * is the constant g^n - 1; a coset inverse NTT gives h's coefficients. Field
 * results are canonical, so the output equals the CPU's bit for bit.
 *
 * A prover worker keeps one workspace (struct kernels_prove_ws): a, b and c
 * on the device, room for the witness, page-locked staging, two streams,
 * all allocated once. Each array's transforms start as soon as it is on
 * the device, while the next one is copied; h stays on the device for its
 * MSM, and the witness goes up once for the three MSMs over it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* ---- the per-worker workspace ---- */

/* Scalars per staging copy: 64 MiB, large enough that a copy runs at the
 * bus's speed, small enough that the next one's host copy overlaps it. */
#define H_CHUNK ((size_t)1 << 21)

struct kernels_prove_ws {
    int device;
    size_t n;
    unsigned log_n;
    size_t n_witness;
    struct kbuf d[3];     /* a (then h), b, c on the device */
    struct kbuf w;        /* the witness, when it does not fit b's place */
    struct kbuf stage[2]; /* page-locked staging */
    cudaStream_t s_copy, s_comp;
    cudaEvent_t ev_stage[2], ev_in[3], ev_t0, ev_t1;
    int next_stage;       /* the staging buffer the next chunk goes through */
    struct kernels_h_profile prof; /* the last H's */
    bool pageable;        /* ZKBENCH_H_UPLOAD=pageable: copies straight from pageable memory */
};

/* The witness takes b's place once H is done with it, when it fits. */
static bool ws_witness_in_b(size_t n, size_t n_witness)
{
    return n_witness <= n;
}

static double h_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static size_t h_chunk(size_t n)
{
    return n < H_CHUNK ? n : H_CHUNK;
}

void kernels_prove_ws_bytes(size_t n, size_t n_witness, size_t *device_bytes, size_t *pinned_bytes)
{
    *device_bytes = (3 * n + (ws_witness_in_b(n, n_witness) ? 0 : n_witness)) * sizeof(dev_fr_t);
    *pinned_bytes = 2 * h_chunk(n) * sizeof(dev_fr_t);
}

void kernels_prove_ws_free(kernels_prove_ws_t *ws)
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
    if (ws->ev_t0)
        cudaEventDestroy(ws->ev_t0);
    if (ws->ev_t1)
        cudaEventDestroy(ws->ev_t1);
    kbuf_free(&ws->w);
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

int kernels_prove_ws_new(kernels_prove_ws_t **ret, size_t n, size_t n_witness)
{
    kernels_prove_ws_t *ws;
    unsigned L;
    int rc;
    if (!ret || h_log2(n, &L) < 0)
        return -EINVAL;
    /* the twiddles first: building them synchronizes the device */
    if ((rc = kernels_ntt_prepare(L)) < 0)
        return rc;
    ws = (kernels_prove_ws_t *)calloc(1, sizeof *ws);
    if (!ws)
        return -ENOMEM;
    ws->n = n;
    ws->n_witness = n_witness;
    ws->log_n = L;
    CUDA_TRY(cudaGetDevice(&ws->device));
    if ((rc = kbuf_alloc(&ws->d[0], KERNELS_MEM_H, n * sizeof(dev_fr_t))) < 0 ||
        (rc = kbuf_alloc(&ws->d[1], KERNELS_MEM_ABC, n * sizeof(dev_fr_t))) < 0 ||
        (rc = kbuf_alloc(&ws->d[2], KERNELS_MEM_ABC, n * sizeof(dev_fr_t))) < 0 ||
        (!ws_witness_in_b(n, n_witness) && (rc = kbuf_alloc(&ws->w, KERNELS_MEM_MSM, n_witness * sizeof(dev_fr_t))) < 0) ||
        (rc = kbuf_alloc(&ws->stage[0], KERNELS_MEM_PINNED, h_chunk(n) * sizeof(dev_fr_t))) < 0 ||
        (rc = kbuf_alloc(&ws->stage[1], KERNELS_MEM_PINNED, h_chunk(n) * sizeof(dev_fr_t))) < 0)
        goto fail;
    CUDA_TRY(cudaStreamCreateWithFlags(&ws->s_copy, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&ws->s_comp, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++)
        CUDA_TRY(cudaEventCreateWithFlags(&ws->ev_stage[i], cudaEventDisableTiming));
    for (int i = 0; i < 3; i++)
        CUDA_TRY(cudaEventCreate(&ws->ev_in[i]));
    CUDA_TRY(cudaEventCreate(&ws->ev_t0));
    CUDA_TRY(cudaEventCreate(&ws->ev_t1));
    {
        /* an experiment's switch (results/h200/porep-32g.md): the driver
         * stages pageable copies itself */
        const char *up = getenv("ZKBENCH_H_UPLOAD");
        ws->pageable = up && strcmp(up, "pageable") == 0;
    }
    *ret = ws;
    return 0;
fail:
    kernels_prove_ws_free(ws);
    return rc;
}

/* n values from host src to device dst, queued on s_copy: straight from
 * page-locked memory, else through the staging buffers in turn (the host
 * copy of one chunk overlaps the bus copy of the one before). Returns once
 * every chunk is queued. */
static int ws_upload(kernels_prove_ws_t *ws, void *dst, const void *src, size_t n)
{
    size_t chunk = h_chunk(ws->n);
    int rc = 0;
    double t0 = h_wall_ms();
    cudaPointerAttributes attr;
    bool pinned = cudaPointerGetAttributes(&attr, src) == cudaSuccess && attr.type == cudaMemoryTypeHost;
    if (!pinned)
        (void)cudaGetLastError(); /* not sticky: clear it */
    if (pinned || ws->pageable) {
        /* page-locked (a, b, c pinned while computed): the copy engine reads
         * it directly, at the bus's speed and with no host thread busy */
        CUDA_TRY(cudaMemcpyAsync(dst, src, n * sizeof(dev_fr_t), cudaMemcpyHostToDevice, ws->s_copy));
        ws->prof.host_ms += h_wall_ms() - t0;
        return 0;
    }
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk, bytes = len * sizeof(dev_fr_t);
        int q = ws->next_stage;
        ws->next_stage ^= 1;
        /* the buffer's previous copy must be done before it is refilled */
        CUDA_TRY(cudaEventSynchronize(ws->ev_stage[q]));
        host_copy(ws->stage[q].p, (const dev_fr_t *)src + off, bytes);
        CUDA_TRY(cudaMemcpyAsync((dev_fr_t *)dst + off, ws->stage[q].p, bytes, cudaMemcpyHostToDevice,
                                 ws->s_copy));
        CUDA_TRY(cudaEventRecord(ws->ev_stage[q], ws->s_copy));
    }
    ws->prof.host_ms += h_wall_ms() - t0;
fail:
    return rc;
}

int kernels_prove_ws_witness(kernels_prove_ws_t *ws, const void *w, size_t n, const void **d_w)
{
    int rc = 0, dev = -1;
    void *dst;
    if (!ws || !d_w || (n && !w) || n > ws->n_witness)
        return -EINVAL;
    CUDA_TRY(cudaGetDevice(&dev));
    if (dev != ws->device)
        return -EINVAL;
    dst = ws_witness_in_b(ws->n, ws->n_witness) ? ws->d[1].p : ws->w.p;
    if ((rc = ws_upload(ws, dst, w, n)) < 0)
        goto fail;
    CUDA_TRY(cudaStreamSynchronize(ws->s_copy));
    *d_w = dst;
    return 0;
fail:
    cudaStreamSynchronize(ws->s_copy);
    return rc;
}

int kernels_prove_ws_h(kernels_prove_ws_t *ws, const void *a, const void *b, const void *c, const void **d_h)
{
    const void *in[3] = {a, b, c};
    unsigned L;
    int rc = 0, dev = -1;
    if (!ws || !a || !b || !c || !d_h)
        return -EINVAL;
    CUDA_TRY(cudaGetDevice(&dev));
    if (dev != ws->device)
        return -EINVAL;
    L = ws->log_n;
    memset(&ws->prof, 0, sizeof ws->prof);
    CUDA_TRY(cudaEventRecord(ws->ev_t0, ws->s_copy));
    /* a, b, c travel through the two staging buffers in turn on s_copy;
     * each array's transforms start on s_comp as soon as it is on the
     * device, while the next one travels */
    for (int i = 0; i < 3; i++) {
        if ((rc = ws_upload(ws, ws->d[i].p, in[i], ws->n)) < 0)
            goto fail;
        CUDA_TRY(cudaEventRecord(ws->ev_in[i], ws->s_copy));
        CUDA_TRY(cudaStreamWaitEvent(ws->s_comp, ws->ev_in[i], 0));
        if ((rc = h_to_coset((dev_fr_t *)ws->d[i].p, L, ws->s_comp)) < 0)
            goto fail;
    }
    if ((rc = h_combine((dev_fr_t *)ws->d[0].p, (const dev_fr_t *)ws->d[1].p, (const dev_fr_t *)ws->d[2].p, L,
                        ws->s_comp)) < 0)
        goto fail;
    CUDA_TRY(cudaEventRecord(ws->ev_t1, ws->s_comp));
    CUDA_TRY(cudaStreamSynchronize(ws->s_comp));
    {
        float ms = 0;
        CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_t0, ws->ev_t1));
        ws->prof.total_ms = ms;
        CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_t0, ws->ev_in[2]));
        ws->prof.upload_ms = ms;
        CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_in[2], ws->ev_t1));
        ws->prof.after_upload_ms = ms;
    }
    *d_h = ws->d[0].p;
    return 0;
fail:
    /* nothing may still read the staging buffers or write d[] */
    cudaStreamSynchronize(ws->s_copy);
    cudaStreamSynchronize(ws->s_comp);
    return rc;
}

int kernels_prove_ws_last_profile(const kernels_prove_ws_t *ws, struct kernels_h_profile *p)
{
    if (!ws || !p)
        return -EINVAL;
    *p = ws->prof;
    return 0;
}

int kernels_compute_h(void *h, const void *a, const void *b, const void *c, size_t n)
{
    kernels_prove_ws_t *ws = NULL;
    const void *d_h = NULL;
    int rc;
    if (!h || !a || !b || !c)
        return -EINVAL;
    if ((rc = kernels_prove_ws_new(&ws, n, 0)) < 0)
        return rc;
    if ((rc = kernels_prove_ws_h(ws, a, b, c, &d_h)) == 0)
        rc = CUDA_CHECK(cudaMemcpy(h, d_h, n * sizeof(dev_fr_t), cudaMemcpyDeviceToHost));
    kernels_prove_ws_free(ws);
    return rc;
}
