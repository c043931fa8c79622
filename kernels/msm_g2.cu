/* The G2 instance of the GPU MSM (msm_impl.cuh), in a file of its own so
 * that the two instances compile in parallel. */
#include "kernels/msm_impl.cuh"

int msm_run_g2(dev_jac_t<dev_fp2_t> *ret, const dev_affine_t<dev_fp2_t> *host_bases,
               const dev_affine_t<dev_fp2_t> *dev_bases, size_t n_bases, const dev_fr_t *scalars, size_t n,
               const uint64_t *density, const struct kernels_msm_opts *opts)
{
    return msm_run<dev_fp2_t>(ret, host_bases, dev_bases, n_bases, scalars, n, density, opts);
}
