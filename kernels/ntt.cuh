/*
 * The device NTT's internals shared by ntt.cu and h.cu (private to kernels/).
 */
#ifndef ZKB_KERNELS_NTT_CUH
#define ZKB_KERNELS_NTT_CUH

#include <cuda_runtime.h>

#include "kernels/field.cuh"

/* Host-computed constants of a domain of size 2^log_n (Montgomery form). */
struct ntt_consts {
    dev_fr_t one, gen, gen_inv, n_inv, z_coset_inv;
};

/* Fills *k for size 2^log_n (host arithmetic, field.cuh's host path). */
void ntt_consts_get(struct ntt_consts *k, unsigned log_n);

/* The transform dir (enum kernels_ntt_dir) of the 2^log_n elements at d, in
 * place, queued on s; builds the twiddle table first if needed (then
 * synchronously). 0 or -errno. */
int ntt_run(dev_fr_t *d, unsigned log_n, int dir, cudaStream_t s);

/* x[i] = x[i] * c * g^i for i < n (g = one: a plain scaling), queued on s. */
int ntt_scale_powers(dev_fr_t *x, size_t n, const dev_fr_t &c,
                     const dev_fr_t &g, cudaStream_t s);

#endif
