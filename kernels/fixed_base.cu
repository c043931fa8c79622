/*
 * Fixed-base multiplication for the parameter setup (prover/setup.c): for
 * many scalars k_i and one generator G, out_i = k_i G as affine points.
 * setup.c's window table (`windows` rows of the 2^c - 1 affine multiples
 * d 2^(w c) G) is uploaded once; each thread of the first kernel takes one
 * scalar (fixed_base.cuh: out of Montgomery form, the table point of each
 * nonzero c-bit digit added, XYZZ mixed additions as the CPU does in
 * Jacobian) and writes a Jacobian point; each thread of the second turns a
 * group of FB_GROUP of them into affine points with one inversion. Affine
 * coordinates are unique and the field results canonical, so the points
 * equal the CPU's byte for byte. Scalars go in and points come out chunk
 * by chunk through page-locked staging, two chunks in flight, so device
 * memory stays small whatever n is and the host's copies overlap the
 * device's work.
 */
#include <errno.h>
#include <stdint.h>

#include "kernels/alloc.cuh"
#include "kernels/cuda_check.cuh"
#include "kernels/fixed_base.cuh"
#include "kernels/host_copy.cuh"
#include "kernels/kernels.h"

#define FB_CHUNK ((size_t)1 << 20) /* scalars per chunk; two chunks are in flight */
#define FB_GROUP 16                 /* points per inversion in the conversion to affine */

template <class F>
static __global__ void fixed_base_kernel(dev_jac_t<F> *out, const dev_affine_t<F> *table, unsigned windows,
                                         unsigned c, const dev_fr_t *scalars, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        fixed_base_one(out[i], table, windows, c, scalars[i]);
}

template <class F>
static __global__ void to_affine_kernel(dev_affine_t<F> *out, const dev_jac_t<F> *in, size_t n)
{
    size_t groups = (n + FB_GROUP - 1) / FB_GROUP, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += stride) {
        size_t begin = g * FB_GROUP;
        fixed_base_to_affine(out + begin, in + begin, n - begin < FB_GROUP ? n - begin : FB_GROUP);
    }
}

template <class F>
static int fixed_base_run(dev_affine_t<F> *ret, const dev_affine_t<F> *table, unsigned windows, unsigned c,
                          const dev_fr_t *scalars, size_t n)
{
    struct kbuf d_table = {}, d_sc[2] = {}, d_jac[2] = {}, d_out[2] = {}, h_sc[2] = {}, h_out[2] = {};
    cudaStream_t st[2] = {};
    size_t chunk = n < FB_CHUNK ? n : FB_CHUNK, entries = (size_t)windows * (((size_t)1 << c) - 1);
    size_t chunks = (n + chunk - 1) / chunk;
    int rc = 0;
    if ((rc = kbuf_alloc(&d_table, KERNELS_MEM_OTHER, entries * sizeof *table)) < 0)
        goto fail;
    for (int s = 0; s < 2; s++) {
        if ((rc = kbuf_alloc(&d_sc[s], KERNELS_MEM_OTHER, chunk * sizeof *scalars)) < 0 ||
            (rc = kbuf_alloc(&d_jac[s], KERNELS_MEM_OTHER, chunk * sizeof(dev_jac_t<F>))) < 0 ||
            (rc = kbuf_alloc(&d_out[s], KERNELS_MEM_OTHER, chunk * sizeof *ret)) < 0 ||
            (rc = kbuf_alloc(&h_sc[s], KERNELS_MEM_PINNED, chunk * sizeof *scalars)) < 0 ||
            (rc = kbuf_alloc(&h_out[s], KERNELS_MEM_PINNED, chunk * sizeof *ret)) < 0)
            goto fail;
        CUDA_TRY(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
    }
    CUDA_TRY(cudaMemcpy(d_table.p, table, entries * sizeof *table, cudaMemcpyHostToDevice));
    /* Chunk i runs on slot i % 2 while the host stages chunk i's scalars
     * and then takes chunk i - 1's points out of the other slot: the
     * copies between pageable and page-locked memory (several threads,
     * host_copy) overlap the device's work. A slot is reused two chunks
     * later, after the host has waited for it and emptied it. */
    for (size_t i = 0; i <= chunks; i++) {
        int s = (int)(i & 1);
        if (i < chunks) {
            size_t off = i * chunk, len = n - off < chunk ? n - off : chunk;
            size_t blocks = (len + 127) / 128, group_blocks = ((len + FB_GROUP - 1) / FB_GROUP + 127) / 128;
            host_copy(h_sc[s].p, scalars + off, len * sizeof *scalars);
            CUDA_TRY(cudaMemcpyAsync(d_sc[s].p, h_sc[s].p, len * sizeof *scalars, cudaMemcpyHostToDevice, st[s]));
            fixed_base_kernel<F><<<(unsigned)(blocks < 65536 ? blocks : 65536), 128, 0, st[s]>>>(
                (dev_jac_t<F> *)d_jac[s].p, (const dev_affine_t<F> *)d_table.p, windows, c, (const dev_fr_t *)d_sc[s].p,
                len);
            if ((rc = CUDA_CHECK_LAUNCH("fixed_base_kernel")) < 0)
                goto fail;
            to_affine_kernel<F><<<(unsigned)(group_blocks < 65536 ? group_blocks : 65536), 128, 0, st[s]>>>(
                (dev_affine_t<F> *)d_out[s].p, (const dev_jac_t<F> *)d_jac[s].p, len);
            if ((rc = CUDA_CHECK_LAUNCH("to_affine_kernel")) < 0)
                goto fail;
            CUDA_TRY(cudaMemcpyAsync(h_out[s].p, d_out[s].p, len * sizeof *ret, cudaMemcpyDeviceToHost, st[s]));
        }
        if (i > 0) {
            int p = s ^ 1;
            size_t off = (i - 1) * chunk, len = n - off < chunk ? n - off : chunk;
            CUDA_TRY(cudaStreamSynchronize(st[p]));
            host_copy(ret + off, h_out[p].p, len * sizeof *ret);
        }
    }
fail:
    /* nothing may still use the buffers when they are freed */
    for (int s = 0; s < 2; s++)
        if (st[s]) {
            cudaStreamSynchronize(st[s]);
            cudaStreamDestroy(st[s]);
        }
    for (int s = 0; s < 2; s++) {
        kbuf_free(&h_out[s]);
        kbuf_free(&h_sc[s]);
        kbuf_free(&d_out[s]);
        kbuf_free(&d_jac[s]);
        kbuf_free(&d_sc[s]);
    }
    kbuf_free(&d_table);
    return rc;
}

int kernels_fixed_base(void *ret_affine, enum kernels_curve curve, const void *table, unsigned windows, unsigned c,
                       const void *scalars, size_t n)
{
    if (!ret_affine || !table || (n && !scalars) || c < 1 || c > 16 || windows == 0 || windows * c < 255 ||
        windows * c > 256 + c)
        return -EINVAL;
    if (n == 0)
        return 0;
    if (curve == KERNELS_CURVE_G1)
        return fixed_base_run<dev_fp_t>((dev_affine_t<dev_fp_t> *)ret_affine, (const dev_affine_t<dev_fp_t> *)table,
                                        windows, c, (const dev_fr_t *)scalars, n);
    if (curve == KERNELS_CURVE_G2)
        return fixed_base_run<dev_fp2_t>((dev_affine_t<dev_fp2_t> *)ret_affine, (const dev_affine_t<dev_fp2_t> *)table,
                                         windows, c, (const dev_fr_t *)scalars, n);
    return -EINVAL;
}
