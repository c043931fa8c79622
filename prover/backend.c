/* CPU and GPU backends for the heavy stages; see backend.h. */
#include "prover/backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "prover/mem.h"

struct backend {
    int device;
    kernels_msm_bases_t *bases[5]; /* by enum backend_query */
    pthread_mutex_t lock;          /* one proof at a time on the device */
};

/* Device allocations become tracked buffers of the gpu_* kinds. */
static void track_device_alloc(void *ctx, int role, int device, size_t bytes, int is_free, uint64_t *id)
{
    (void)ctx;
    enum mem_kind kind;
    switch (role) {
    case KERNELS_MEM_PARAMS: kind = MEM_KIND_GPU_PARAMS; break;
    case KERNELS_MEM_ABC: kind = MEM_KIND_GPU_ABC; break;
    case KERNELS_MEM_NTT: kind = MEM_KIND_GPU_NTT; break;
    case KERNELS_MEM_H: kind = MEM_KIND_GPU_H; break;
    case KERNELS_MEM_MSM: kind = MEM_KIND_GPU_MSM; break;
    case KERNELS_MEM_PINNED: kind = MEM_KIND_PINNED; break;
    default: kind = MEM_KIND_GPU_OTHER; break;
    }
    int dev = device < 0 ? MEM_HOST : device;
    if (is_free)
        mem_note_free(*id, kind, dev, -1, -1, bytes);
    else
        *id = mem_note_alloc(kind, dev, -1, -1, bytes);
}

void backend_free(backend_t *be)
{
    if (!be)
        return;
    for (int q = 0; q < 5; q++)
        kernels_msm_bases_free(be->bases[q]);
    /* the kernels' caches: MSM workspaces and the NTT twiddles */
    kernels_msm_release();
    kernels_ntt_release();
    pthread_mutex_destroy(&be->lock);
    free(be);
}

int backend_gpu_new(backend_t **ret, const groth16_params_t *pk, int device, char *msg, size_t cap)
{
    int n = 0;
    if (kernels_device_count(&n) != 0 || n <= device || device < 0) {
        snprintf(msg, cap, "no CUDA device %d (%s)", device, kernels_last_error());
        return -ENODEV;
    }
    backend_t *be = calloc(1, sizeof *be);
    if (!be)
        return -ENOMEM;
    be->device = device;
    pthread_mutex_init(&be->lock, NULL);
    kernels_set_alloc_hook(track_device_alloc, NULL);
    const void *pts[5] = {pk->h, pk->l, pk->a, pk->b_g1, pk->b_g2};
    const size_t cnt[5] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2};
    int rc = 0;
    for (int q = 0; q < 5 && rc == 0; q++)
        rc = kernels_msm_bases_upload(&be->bases[q], q == BACKEND_B_G2 ? KERNELS_CURVE_G2 : KERNELS_CURVE_G1,
                                      pts[q], cnt[q]);
    if (rc < 0) {
        snprintf(msg, cap, "uploading the proving key to GPU %d failed: %s", device, kernels_last_error());
        backend_free(be);
        return rc;
    }
    *ret = be;
    return 0;
}

int backend_compute_h(const backend_t *be, fr_t *a, fr_t *b, fr_t *c, const ntt_domain_t *d, unsigned threads)
{
    if (be) {
        pthread_mutex_lock((pthread_mutex_t *)&be->lock);
        int rc = kernels_compute_h(a, a, b, c, d->n);
        pthread_mutex_unlock((pthread_mutex_t *)&be->lock);
        return rc;
    }
    int rc;
    if ((rc = ntt_inverse(d, a, threads)) < 0 || (rc = ntt_coset_forward(d, a, threads)) < 0 ||
        (rc = ntt_inverse(d, b, threads)) < 0 || (rc = ntt_coset_forward(d, b, threads)) < 0 ||
        (rc = ntt_pointwise_mul_sub(a, b, NULL, NULL, d->n, threads)) < 0 ||
        (rc = ntt_inverse(d, c, threads)) < 0 || (rc = ntt_coset_forward(d, c, threads)) < 0 ||
        (rc = ntt_pointwise_mul_sub(a, NULL, c, &d->z_coset_inv, d->n, threads)) < 0)
        return rc;
    return ntt_coset_inverse(d, a, threads);
}

static int gpu_msm(const backend_t *be, void *ret, enum backend_query q, const fr_t *scalars, size_t n_scalars,
                   const uint64_t *density, const struct msm_opts *o)
{
    pthread_mutex_lock((pthread_mutex_t *)&be->lock);
    int rc = kernels_msm_resident(ret, be->bases[q], scalars, n_scalars, density, o->window);
    pthread_mutex_unlock((pthread_mutex_t *)&be->lock);
    return rc;
}

int backend_msm_g1(const backend_t *be, g1_jac_t *ret, enum backend_query q, const groth16_params_t *pk,
                   const fr_t *scalars, size_t n_scalars, const uint64_t *density, const struct msm_opts *o)
{
    if (be)
        return gpu_msm(be, ret, q, scalars, n_scalars, density, o);
    const g1_affine_t *bases[4] = {pk->h, pk->l, pk->a, pk->b_g1};
    const size_t cnt[4] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1};
    if ((unsigned)q > BACKEND_B_G1)
        return -EINVAL;
    return msm_g1(ret, bases[q], cnt[q], scalars, n_scalars, density, o);
}

int backend_msm_g2(const backend_t *be, g2_jac_t *ret, const groth16_params_t *pk, const fr_t *scalars,
                   size_t n_scalars, const uint64_t *density, const struct msm_opts *o)
{
    if (be)
        return gpu_msm(be, ret, BACKEND_B_G2, scalars, n_scalars, density, o);
    return msm_g2(ret, pk->b_g2, pk->n_b_g2, scalars, n_scalars, density, o);
}
