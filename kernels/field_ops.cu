/*
 * Batched element-wise field arithmetic on the GPU (kernels_field_op) and the
 * multiplication throughput benchmark (kernels_field_mul_throughput): the
 * entry points through which tests compare field.cuh with the host's
 * arith/field and benchmarks time it. Neither is on the prover's path.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "kernels/cuda_check.cuh"
#include "kernels/field.cuh"
#include "kernels/kernels.h"

#define FIELD_OPS_THREADS 256
#define FIELD_OPS_MAX_BLOCKS (1u << 16)

size_t kernels_field_bytes(enum kernels_field f)
{
    switch (f) {
    case KERNELS_FIELD_FR:
        return sizeof(dev_fr_t);
    case KERNELS_FIELD_FP:
        return sizeof(dev_fp_t);
    case KERNELS_FIELD_FP2:
        return sizeof(dev_fp2_t);
    }
    return 0;
}

static bool op_is_binary(enum kernels_op op)
{
    return op == KERNELS_OP_ADD || op == KERNELS_OP_SUB || op == KERNELS_OP_MUL;
}

static bool op_is_valid(enum kernels_op op)
{
    switch (op) {
    case KERNELS_OP_ADD:
    case KERNELS_OP_SUB:
    case KERNELS_OP_MUL:
    case KERNELS_OP_NEG:
    case KERNELS_OP_DBL:
    case KERNELS_OP_SQR:
        return true;
    }
    return false;
}

/* x[i] = op(x[i], y[i]) over a grid-stride loop; y is not read by unary ops. */
template <class F, enum kernels_op OP>
__global__ void field_op_kernel(F *x, const F *y, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        F a = x[i], r;
        if (OP == KERNELS_OP_ADD) {
            F b = y[i];
            field_add(r, a, b);
        } else if (OP == KERNELS_OP_SUB) {
            F b = y[i];
            field_sub(r, a, b);
        } else if (OP == KERNELS_OP_MUL) {
            F b = y[i];
            field_mul(r, a, b);
        } else if (OP == KERNELS_OP_NEG) {
            field_neg(r, a);
        } else if (OP == KERNELS_OP_DBL) {
            field_dbl(r, a);
        } else {
            field_sqr(r, a);
        }
        x[i] = r;
    }
}

static unsigned grid_for(size_t n)
{
    size_t blocks = (n + FIELD_OPS_THREADS - 1) / FIELD_OPS_THREADS;
    return blocks > FIELD_OPS_MAX_BLOCKS ? FIELD_OPS_MAX_BLOCKS
                                         : (unsigned)blocks;
}

template <class F>
static int launch_op(enum kernels_op op, void *x, const void *y, size_t n,
                     cudaStream_t s)
{
    F *dx = (F *)x;
    const F *dy = (const F *)y;
    unsigned grid = grid_for(n);
    switch (op) {
    case KERNELS_OP_ADD:
        field_op_kernel<F, KERNELS_OP_ADD><<<grid, FIELD_OPS_THREADS, 0, s>>>(dx, dy, n);
        break;
    case KERNELS_OP_SUB:
        field_op_kernel<F, KERNELS_OP_SUB><<<grid, FIELD_OPS_THREADS, 0, s>>>(dx, dy, n);
        break;
    case KERNELS_OP_MUL:
        field_op_kernel<F, KERNELS_OP_MUL><<<grid, FIELD_OPS_THREADS, 0, s>>>(dx, dy, n);
        break;
    case KERNELS_OP_NEG:
        field_op_kernel<F, KERNELS_OP_NEG><<<grid, FIELD_OPS_THREADS, 0, s>>>(dx, dy, n);
        break;
    case KERNELS_OP_DBL:
        field_op_kernel<F, KERNELS_OP_DBL><<<grid, FIELD_OPS_THREADS, 0, s>>>(dx, dy, n);
        break;
    case KERNELS_OP_SQR:
        field_op_kernel<F, KERNELS_OP_SQR><<<grid, FIELD_OPS_THREADS, 0, s>>>(dx, dy, n);
        break;
    }
    return CUDA_CHECK_LAUNCH("field_op_kernel");
}

/* Cleanup after a failure keeps the first error's record: later failures
 * of the frees are not recorded over it. */
static int release(int rc, void *p0, void *p1, cudaStream_t s, bool have_s)
{
    if (rc >= 0) {
        int r;
        if ((r = CUDA_CHECK(cudaFree(p0))) < 0 && rc >= 0)
            rc = r;
        if ((r = CUDA_CHECK(cudaFree(p1))) < 0 && rc >= 0)
            rc = r;
        if (have_s && (r = CUDA_CHECK(cudaStreamDestroy(s))) < 0 && rc >= 0)
            rc = r;
    } else {
        (void)cudaFree(p0);
        (void)cudaFree(p1);
        if (have_s)
            (void)cudaStreamDestroy(s);
        (void)cudaGetLastError();
    }
    return rc;
}

int kernels_field_op(enum kernels_field f, enum kernels_op op, void *out,
                     const void *a, const void *b, size_t n)
{
    size_t esz = kernels_field_bytes(f);
    if (esz == 0 || !op_is_valid(op))
        return -EINVAL;
    if (n == 0)
        return 0;
    bool binary = op_is_binary(op);
    if (!out || !a || (binary && !b))
        return -EINVAL;
    if (n > SIZE_MAX / esz)
        return -EOVERFLOW;
    size_t bytes = n * esz;

    int rc = 0;
    void *dx = NULL, *dy = NULL;
    cudaStream_t s = NULL;
    bool have_s = false;
    /* The kernel works in place on dx, so out needs no buffer of its own;
     * allocate before copying, so that an oversized n fails fast. */
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    have_s = true;
    CUDA_TRY(cudaMalloc(&dx, bytes));
    if (binary)
        CUDA_TRY(cudaMalloc(&dy, bytes));
    CUDA_TRY(cudaMemcpyAsync(dx, a, bytes, cudaMemcpyHostToDevice, s));
    if (binary)
        CUDA_TRY(cudaMemcpyAsync(dy, b, bytes, cudaMemcpyHostToDevice, s));
    switch (f) {
    case KERNELS_FIELD_FR:
        rc = launch_op<dev_fr_t>(op, dx, dy, n, s);
        break;
    case KERNELS_FIELD_FP:
        rc = launch_op<dev_fp_t>(op, dx, dy, n, s);
        break;
    case KERNELS_FIELD_FP2:
        rc = launch_op<dev_fp2_t>(op, dx, dy, n, s);
        break;
    }
    if (rc < 0)
        goto fail;
    /* Synchronize before writing out: on failure out stays untouched. */
    CUDA_TRY(cudaStreamSynchronize(s));
    CUDA_TRY(cudaMemcpyAsync(out, dx, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaStreamSynchronize(s));
fail:
    return release(rc, dx, dy, s, have_s);
}

/* ---- throughput ---------------------------------------------------------- */

/* splitmix64: distinct, well-mixed inputs per thread without a copy from the
 * host. */
__device__ __forceinline__ uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A value below the modulus: random limbs with the top one cleared. */
template <class P>
__device__ __forceinline__ void fill(field_t<P> &x, uint64_t seed)
{
#pragma unroll
    for (int j = 0; j < P::N - 1; j++)
        x.l[j] = (uint32_t)mix64(seed * 64 + j);
    x.l[P::N - 1] = 0;
}

__device__ __forceinline__ void fill(dev_fp2_t &x, uint64_t seed)
{
    fill(x.c0, 2 * seed);
    fill(x.c1, 2 * seed + 1);
}

template <class P>
__device__ __forceinline__ uint32_t digest(const field_t<P> &x)
{
    uint32_t d = 0;
#pragma unroll
    for (int j = 0; j < P::N; j++)
        d ^= x.l[j];
    return d;
}

__device__ __forceinline__ uint32_t digest(const dev_fp2_t &x)
{
    return digest(x.c0) ^ digest(x.c1);
}

/* Each thread: x <- x * y, reps times, every product depending on the last;
 * one word per thread is written so that nothing is optimized away. */
template <class F>
__global__ void field_mul_chain_kernel(uint32_t *out, size_t n, int reps)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    F x, y;
    fill(x, 2 * i);
    fill(y, 2 * i + 1);
#pragma unroll 1
    for (int r = 0; r < reps; r++)
        field_mul(x, x, y);
    out[i] = digest(x);
}

template <class F>
static int launch_chain(uint32_t *out, size_t n, int reps, cudaStream_t s)
{
    size_t blocks = (n + FIELD_OPS_THREADS - 1) / FIELD_OPS_THREADS;
    field_mul_chain_kernel<F><<<(unsigned)blocks, FIELD_OPS_THREADS, 0, s>>>(
        out, n, reps);
    return CUDA_CHECK_LAUNCH("field_mul_chain_kernel");
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int kernels_field_mul_throughput(enum kernels_field f, size_t n, int reps,
                                 double *ns_per_mul)
{
    enum { RUNS = 5 };
    if (kernels_field_bytes(f) == 0 || reps < 0)
        return -EINVAL;
    if (n == 0)
        n = (size_t)4 << 20;
    if (reps == 0)
        reps = 256;
    /* One thread per element in a one-dimensional grid. */
    if (n > (size_t)0x7fffffff * FIELD_OPS_THREADS)
        return -EINVAL;

    int rc = 0;
    uint32_t *d_out = NULL;
    cudaStream_t s = NULL;
    bool have_s = false;
    cudaEvent_t ev[2 * RUNS] = {};
    int n_ev = 0;
    float ms[RUNS];

    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    have_s = true;
    for (; n_ev < 2 * RUNS; n_ev++)
        CUDA_TRY(cudaEventCreate(&ev[n_ev]));
    CUDA_TRY(cudaMalloc(&d_out, n * sizeof *d_out));
    /* The first launch warms up clocks and loads the module; not timed. */
    for (int run = -1; run < RUNS; run++) {
        if (run >= 0)
            CUDA_TRY(cudaEventRecord(ev[2 * run], s));
        switch (f) {
        case KERNELS_FIELD_FR:
            rc = launch_chain<dev_fr_t>(d_out, n, reps, s);
            break;
        case KERNELS_FIELD_FP:
            rc = launch_chain<dev_fp_t>(d_out, n, reps, s);
            break;
        case KERNELS_FIELD_FP2:
            rc = launch_chain<dev_fp2_t>(d_out, n, reps, s);
            break;
        }
        if (rc < 0)
            goto fail;
        if (run >= 0)
            CUDA_TRY(cudaEventRecord(ev[2 * run + 1], s));
    }
    CUDA_TRY(cudaStreamSynchronize(s));
    for (int run = 0; run < RUNS; run++)
        CUDA_TRY(cudaEventElapsedTime(&ms[run], ev[2 * run], ev[2 * run + 1]));
    qsort(ms, RUNS, sizeof ms[0], cmp_float);
    *ns_per_mul = (double)ms[RUNS / 2] * 1e6 / ((double)n * reps);
fail:
    for (int i = 0; i < n_ev; i++) {
        if (rc >= 0) {
            int r = CUDA_CHECK(cudaEventDestroy(ev[i]));
            if (r < 0)
                rc = r;
        } else {
            (void)cudaEventDestroy(ev[i]);
        }
    }
    return release(rc, d_out, NULL, s, have_s);
}
