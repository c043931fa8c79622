/*
 * The kernels API in a build without CUDA: no device is ever present, so
 * kernels_device_count reports 0 and every other entry point -ENODEV (after
 * the same argument checks as the CUDA build, so that bad input is reported
 * the same way in both).
 */
#include <errno.h>
#include <stdint.h>

#include "kernels/kernels.h"

int kernels_device_count(int *count)
{
    *count = 0;
    return 0;
}

int kernels_device_props(int dev, struct kernels_device_props *props)
{
    return -ENODEV;
}

int kernels_device_mem(int dev, size_t *free_bytes, size_t *total_bytes)
{
    return -ENODEV;
}

int kernels_cuda_version(int *runtime, int *driver)
{
    return -ENODEV;
}

const char *kernels_last_error(void)
{
    return "built without CUDA";
}

size_t kernels_field_bytes(enum kernels_field f)
{
    switch (f) {
    case KERNELS_FIELD_FR:
        return 32;
    case KERNELS_FIELD_FP:
        return 48;
    case KERNELS_FIELD_FP2:
        return 96;
    }
    return 0;
}

int kernels_field_op(enum kernels_field f, enum kernels_op op, void *out,
                     const void *a, const void *b, size_t n)
{
    size_t esz = kernels_field_bytes(f);
    if (esz == 0 || (unsigned)op > KERNELS_OP_SQR)
        return -EINVAL;
    if (n == 0)
        return 0;
    return -ENODEV;
}

int kernels_field_mul_throughput(enum kernels_field f, size_t n, int reps,
                                 double *ns_per_mul)
{
    if (kernels_field_bytes(f) == 0 || reps < 0)
        return -EINVAL;
    return -ENODEV;
}

/* No device: the hook is kept (nothing will ever call it). */
void kernels_set_alloc_hook(kernels_alloc_hook_fn fn, void *ctx)
{
    (void)fn;
    (void)ctx;
}

int kernels_ntt_device(void *d_data, unsigned log_n, enum kernels_ntt_dir dir,
                       void *stream)
{
    (void)stream;
    if (!d_data || log_n > KERNELS_NTT_MAX_LOG || (unsigned)dir > KERNELS_NTT_COSET_INVERSE)
        return -EINVAL;
    return -ENODEV;
}

int kernels_ntt(void *data, unsigned log_n, enum kernels_ntt_dir dir)
{
    if (!data || log_n > KERNELS_NTT_MAX_LOG || (unsigned)dir > KERNELS_NTT_COSET_INVERSE)
        return -EINVAL;
    return -ENODEV;
}

int kernels_ntt_prepare(unsigned log_n)
{
    if (log_n > KERNELS_NTT_MAX_LOG)
        return -EINVAL;
    return -ENODEV;
}

int kernels_ntt_release(void)
{
    return -ENODEV;
}

int kernels_ntt_bench(unsigned log_n, enum kernels_ntt_dir dir, int reps,
                      double *ms_median)
{
    (void)dir;
    (void)reps;
    if (log_n > KERNELS_NTT_MAX_LOG || !ms_median)
        return -EINVAL;
    return -ENODEV;
}

int kernels_compute_h(void *h, const void *a, const void *b, const void *c,
                      size_t n)
{
    if (!h || !a || !b || !c || n == 0 || (n & (n - 1)))
        return -EINVAL;
    return -ENODEV;
}

int kernels_set_device(int dev)
{
    (void)dev;
    return -ENODEV;
}

int kernels_prove_ws_new(kernels_prove_ws_t **ret, size_t n, size_t n_witness)
{
    (void)n_witness;
    if (!ret || n == 0 || (n & (n - 1)))
        return -EINVAL;
    return -ENODEV;
}

void kernels_prove_ws_free(kernels_prove_ws_t *ws)
{
    (void)ws;
}

/* Plain arithmetic, the same as with CUDA (h.cu). */
void kernels_prove_ws_bytes(size_t n, size_t n_witness, size_t *device_bytes, size_t *pinned_bytes)
{
    size_t chunk = n < ((size_t)1 << 21) ? n : ((size_t)1 << 21);
    *device_bytes = (3 * n + (n_witness <= n ? 0 : n_witness)) * 32; /* the witness in b's place when it fits */
    *pinned_bytes = 2 * chunk * 32;
}

int kernels_prove_ws_h(kernels_prove_ws_t *ws, const void *a, const void *b, const void *c, const void **d_h)
{
    if (!ws || !a || !b || !c || !d_h)
        return -EINVAL;
    return -ENODEV;
}

int kernels_prove_ws_last_profile(const kernels_prove_ws_t *ws, struct kernels_h_profile *p)
{
    return ws && p ? -ENODEV : -EINVAL;
}

int kernels_prove_ws_witness(kernels_prove_ws_t *ws, const void *w, size_t n, const void **d_w)
{
    if (!ws || !d_w || (n && !w))
        return -EINVAL;
    return -ENODEV;
}

int kernels_msm_scratch_bytes(enum kernels_curve curve, size_t n_scalars, size_t n_bases, int has_density,
                              int scalars_on_device, int host_bases, size_t chunk, size_t *device_bytes,
                              size_t *pinned_bytes)
{
    (void)n_scalars;
    (void)n_bases;
    (void)has_density;
    (void)scalars_on_device;
    (void)host_bases;
    if ((unsigned)curve > KERNELS_CURVE_G2 || !device_bytes || !pinned_bytes || (chunk & 63))
        return -EINVAL;
    return -ENODEV;
}

size_t kernels_msm_max_chunk(size_t n_scalars)
{
    /* the CUDA build's bound: its narrowest window for the size (8 bits up
     * to 4096 scalars, 13 up to 2^21, 16 above), pairs below 2^31 */
    size_t windows = n_scalars <= 4096 ? 32 : n_scalars <= ((size_t)1 << 21) ? 20 : 16;
    return ((size_t)0x7fffffff / windows) & ~(size_t)63;
}

int kernels_msm(void *ret, enum kernels_curve curve, const void *bases,
                size_t n_bases, const void *scalars, size_t n_scalars,
                const uint64_t *density, unsigned window)
{
    (void)bases;
    (void)n_bases;
    (void)density;
    if (!ret || (unsigned)curve > KERNELS_CURVE_G2 || (n_scalars && !scalars) ||
        (window && (window < 2 || window > 20)))
        return -EINVAL;
    return -ENODEV;
}

int kernels_msm_bases_upload(kernels_msm_bases_t **ret, enum kernels_curve curve,
                             const void *bases, size_t n_bases)
{
    if (!ret || (unsigned)curve > KERNELS_CURVE_G2 || (n_bases && !bases))
        return -EINVAL;
    return -ENODEV;
}

int kernels_msm_bases_host(kernels_msm_bases_t **ret, enum kernels_curve curve, const void *bases, size_t n_bases)
{
    if (!ret || (unsigned)curve > KERNELS_CURVE_G2 || (n_bases && !bases))
        return -EINVAL;
    return -ENODEV;
}

int kernels_msm_run(void *ret, const kernels_msm_bases_t *bases, const void *scalars, size_t n_scalars,
                    const uint64_t *density, const struct kernels_msm_opts *opts)
{
    (void)ret;
    (void)scalars;
    (void)n_scalars;
    (void)density;
    if (!bases || (opts && (opts->chunk & 63)))
        return -EINVAL;
    return -ENODEV;
}

void kernels_msm_bases_free(kernels_msm_bases_t *bases)
{
    (void)bases;
}

int kernels_msm_resident(void *ret, const kernels_msm_bases_t *bases,
                         const void *scalars, size_t n_scalars,
                         const uint64_t *density, unsigned window)
{
    (void)ret;
    (void)scalars;
    (void)n_scalars;
    (void)density;
    (void)window;
    if (!bases)
        return -EINVAL;
    return -ENODEV;
}

/* No device: no workspace was ever made. */
int kernels_msm_release(void)
{
    return 0;
}

int kernels_msm_prepare(enum kernels_curve curve, const struct kernels_msm_shape *shapes, size_t n_shapes,
                        unsigned count)
{
    (void)curve;
    (void)count;
    if (n_shapes && !shapes)
        return -EINVAL;
    return -ENODEV;
}

int kernels_msm_last_profile(struct kernels_msm_profile *p)
{
    return p ? -ENOENT : -EINVAL;
}

int kernels_host_alloc(void **ret, size_t bytes)
{
    if (!ret || bytes == 0)
        return -EINVAL;
    return -ENODEV;
}

void kernels_host_free(void *p)
{
    (void)p;
}

int kernels_host_register(void *p, size_t bytes)
{
    return p && bytes ? -ENODEV : -EINVAL;
}

int kernels_host_unregister(void *p)
{
    return p ? -ENODEV : -EINVAL;
}

int kernels_fixed_base(void *ret_affine, enum kernels_curve curve, const void *table, unsigned windows, unsigned c,
                       const void *scalars, size_t n)
{
    if (!ret_affine || !table || (n && !scalars) || (unsigned)curve > KERNELS_CURVE_G2 || c < 1 || c > 16 ||
        windows == 0 || windows * c < 255 || windows * c > 256 + c)
        return -EINVAL;
    return -ENODEV;
}
