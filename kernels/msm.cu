/*
 * The MSM entry points of kernels.h (the algorithm: msm_impl.cuh), with the
 * G1 instance; the G2 instance compiles apart in msm_g2.cu.
 */
#include <errno.h>
#include <stdlib.h>

#include "kernels/msm_impl.cuh"

int msm_run_g1(dev_jac_t<dev_fp_t> *ret, const dev_affine_t<dev_fp_t> *host_bases,
               const dev_affine_t<dev_fp_t> *dev_bases, size_t n_bases,
               const dev_fr_t *scalars, size_t n, const uint64_t *density,
               unsigned window)
{
    return msm_run<dev_fp_t>(ret, host_bases, dev_bases, n_bases, scalars, n,
                             density, window);
}

/* ---- API --------------------------------------------------------------- */

static size_t msm_point_bytes(enum kernels_curve curve)
{
    switch (curve) {
    case KERNELS_CURVE_G1:
        return sizeof(dev_affine_t<dev_fp_t>);
    case KERNELS_CURVE_G2:
        return sizeof(dev_affine_t<dev_fp2_t>);
    }
    return 0;
}

int kernels_msm(void *ret, enum kernels_curve curve, const void *bases,
                size_t n_bases, const void *scalars, size_t n_scalars,
                const uint64_t *density, unsigned window)
{
    if (curve == KERNELS_CURVE_G1)
        return msm_run_g1((dev_jac_t<dev_fp_t> *)ret,
                                 (const dev_affine_t<dev_fp_t> *)bases, NULL,
                                 n_bases, (const dev_fr_t *)scalars, n_scalars,
                                 density, window);
    if (curve == KERNELS_CURVE_G2)
        return msm_run_g2((dev_jac_t<dev_fp2_t> *)ret,
                                  (const dev_affine_t<dev_fp2_t> *)bases, NULL,
                                  n_bases, (const dev_fr_t *)scalars, n_scalars,
                                  density, window);
    return -EINVAL;
}

int kernels_msm_bases_upload(kernels_msm_bases_t **ret, enum kernels_curve curve,
                             const void *bases, size_t n_bases)
{
    size_t pb = msm_point_bytes(curve);
    kernels_msm_bases_t *h;
    int rc;
    if (!ret || !pb || (n_bases && !bases))
        return -EINVAL;
    h = (kernels_msm_bases_t *)calloc(1, sizeof *h);
    if (!h)
        return -ENOMEM;
    h->curve = curve;
    h->n = n_bases;
    if (n_bases) {
        if ((rc = kbuf_alloc(&h->buf, KERNELS_MEM_PARAMS, n_bases * pb)) < 0)
            goto fail;
        CUDA_TRY(cudaMemcpy(h->buf.p, bases, n_bases * pb, cudaMemcpyHostToDevice));
    }
    *ret = h;
    return 0;
fail:
    kbuf_free(&h->buf);
    free(h);
    return rc;
}

void kernels_msm_bases_free(kernels_msm_bases_t *h)
{
    if (!h)
        return;
    kbuf_free(&h->buf);
    free(h);
}

int kernels_msm_resident(void *ret, const kernels_msm_bases_t *h,
                         const void *scalars, size_t n_scalars,
                         const uint64_t *density, unsigned window)
{
    if (!h)
        return -EINVAL;
    if (h->curve == KERNELS_CURVE_G1)
        return msm_run_g1((dev_jac_t<dev_fp_t> *)ret, NULL,
                                 (const dev_affine_t<dev_fp_t> *)h->buf.p, h->n,
                                 (const dev_fr_t *)scalars, n_scalars, density,
                                 window);
    if (h->curve == KERNELS_CURVE_G2)
        return msm_run_g2((dev_jac_t<dev_fp2_t> *)ret, NULL,
                                  (const dev_affine_t<dev_fp2_t> *)h->buf.p, h->n,
                                  (const dev_fr_t *)scalars, n_scalars, density,
                                  window);
    return -EINVAL;
}
