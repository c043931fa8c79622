/*
 * Fixed-base multiplication for the parameter setup (prover/setup.c): for
 * many scalars k_i and one generator G, out_i = k_i G. setup.c's window
 * table (`windows` rows of the 2^c - 1 affine multiples d 2^(w c) G) is
 * uploaded once; each thread takes one scalar (fixed_base.cuh: out of
 * Montgomery form, the table point of each nonzero c-bit digit added, XYZZ
 * mixed additions as the CPU does in Jacobian) and writes the sum as a
 * Jacobian point. The host turns those into affine points with its batch
 * inversion. Affine coordinates are unique and the field results
 * canonical, so the points equal the CPU's byte for byte. Scalars go in and points come out chunk
 * by chunk, so device memory stays small whatever n is.
 */
#include <errno.h>
#include <stdint.h>

#include "kernels/alloc.cuh"
#include "kernels/cuda_check.cuh"
#include "kernels/fixed_base.cuh"
#include "kernels/kernels.h"

#define FB_CHUNK ((size_t)1 << 22) /* scalars per chunk */

template <class F>
static __global__ void fixed_base_kernel(dev_jac_t<F> *out, const dev_affine_t<F> *table, unsigned windows,
                                         unsigned c, const dev_fr_t *scalars, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        fixed_base_one(out[i], table, windows, c, scalars[i]);
}

template <class F>
static int fixed_base_run(dev_jac_t<F> *ret, const dev_affine_t<F> *table, unsigned windows, unsigned c,
                          const dev_fr_t *scalars, size_t n)
{
    struct kbuf d_table = {}, d_sc = {}, d_out = {};
    size_t chunk = n < FB_CHUNK ? n : FB_CHUNK, entries = (size_t)windows * (((size_t)1 << c) - 1);
    int rc = 0;
    if ((rc = kbuf_alloc(&d_table, KERNELS_MEM_OTHER, entries * sizeof *table)) < 0 ||
        (rc = kbuf_alloc(&d_sc, KERNELS_MEM_OTHER, chunk * sizeof *scalars)) < 0 ||
        (rc = kbuf_alloc(&d_out, KERNELS_MEM_OTHER, chunk * sizeof *ret)) < 0)
        goto fail;
    CUDA_TRY(cudaMemcpy(d_table.p, table, entries * sizeof *table, cudaMemcpyHostToDevice));
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        size_t blocks = (len + 127) / 128;
        CUDA_TRY(cudaMemcpy(d_sc.p, scalars + off, len * sizeof *scalars, cudaMemcpyHostToDevice));
        fixed_base_kernel<F><<<(unsigned)(blocks < 65536 ? blocks : 65536), 128>>>(
            (dev_jac_t<F> *)d_out.p, (const dev_affine_t<F> *)d_table.p, windows, c, (const dev_fr_t *)d_sc.p, len);
        if ((rc = CUDA_CHECK_LAUNCH("fixed_base_kernel")) < 0)
            goto fail;
        CUDA_TRY(cudaMemcpy(ret + off, d_out.p, len * sizeof *ret, cudaMemcpyDeviceToHost));
    }
fail:
    kbuf_free(&d_out);
    kbuf_free(&d_sc);
    kbuf_free(&d_table);
    return rc;
}

int kernels_fixed_base(void *ret_jac, enum kernels_curve curve, const void *table, unsigned windows, unsigned c,
                       const void *scalars, size_t n)
{
    if (!ret_jac || !table || (n && !scalars) || c < 1 || c > 16 || windows == 0 || windows * c < 255 ||
        windows * c > 256 + c)
        return -EINVAL;
    if (n == 0)
        return 0;
    if (curve == KERNELS_CURVE_G1)
        return fixed_base_run<dev_fp_t>((dev_jac_t<dev_fp_t> *)ret_jac, (const dev_affine_t<dev_fp_t> *)table,
                                        windows, c, (const dev_fr_t *)scalars, n);
    if (curve == KERNELS_CURVE_G2)
        return fixed_base_run<dev_fp2_t>((dev_jac_t<dev_fp2_t> *)ret_jac, (const dev_affine_t<dev_fp2_t> *)table,
                                         windows, c, (const dev_fr_t *)scalars, n);
    return -EINVAL;
}
