/*
 * The CUDA kernels' C API. Every function returns >= 0 on success or a
 * negative errno (-ENOMEM: device memory exhausted; -ENODEV: no usable
 * device or driver; -EINVAL: bad arguments; -EIO: any other CUDA failure),
 * leaving its output arguments untouched on failure; kernels_last_error()
 * then names the failing CUDA call. In a build without CUDA every entry
 * point reports -ENODEV, except kernels_device_count, which reports 0
 * devices.
 *
 * Work runs on the calling thread's current CUDA device (device 0 unless the
 * thread selected another one).
 */
#ifndef ZKB_KERNELS_H
#define ZKB_KERNELS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- devices and errors (device.cu) ---- */

/* Number of usable CUDA devices: 0, and success, without a GPU or driver. */
int kernels_device_count(int *count);

struct kernels_device_props {
    char name[256];
    size_t total_mem;       /* bytes of device memory */
    size_t l2_bytes;
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    int pci_domain, pci_bus, pci_device;
};

/* Properties of device dev (0 .. count-1); -ENODEV for a bad index. */
int kernels_device_props(int dev, struct kernels_device_props *props);

/* Free and total device memory of dev as the driver reports them
 * (cudaMemGetInfo): used = total - free counts every process and the
 * runtime's own reservations. Creates the CUDA context on dev if this
 * process has none there yet (a few hundred MiB of device memory). */
int kernels_device_mem(int dev, size_t *free_bytes, size_t *total_bytes);

/* CUDA runtime and driver versions as 1000 * major + 10 * minor
 * (13000 = 13.0); driver is 0 when no driver is installed. */
int kernels_cuda_version(int *runtime, int *driver);

/* The last failed CUDA call of the calling thread, e.g. "cudaMalloc failed
 * at kernels/field_ops.cu:120: out of memory". A static string (per thread),
 * valid until the thread's next failing call; never NULL. */
const char *kernels_last_error(void);

/* ---- field arithmetic (field_ops.cu) ---- */

/* Element layouts are the host's: fr_t (32 bytes), fp_t (48), fp2_t (96),
 * Montgomery form, fully reduced. */
enum kernels_field {
    KERNELS_FIELD_FR,
    KERNELS_FIELD_FP,
    KERNELS_FIELD_FP2,
};

enum kernels_op {
    KERNELS_OP_ADD, /* out = a + b */
    KERNELS_OP_SUB, /* out = a - b */
    KERNELS_OP_MUL, /* out = a * b */
    KERNELS_OP_NEG, /* out = -a      (b unused, may be NULL) */
    KERNELS_OP_DBL, /* out = 2a      (b unused, may be NULL) */
    KERNELS_OP_SQR, /* out = a^2     (b unused, may be NULL) */
};

/* Bytes of one element of field f, 0 for an unknown field. */
size_t kernels_field_bytes(enum kernels_field f);

/*
 * out[i] = op(a[i], b[i]) for i < n, element-wise on the GPU. out, a and b
 * are host arrays of n elements of field f (out may alias a or b); the
 * function allocates device memory, copies in, computes, copies back and
 * frees it, synchronously. n = 0 does nothing and succeeds (the pointers may
 * then be NULL). Errors: -EINVAL for an unknown field or op or a NULL array
 * with n > 0; -EOVERFLOW when n elements don't fit in size_t bytes; -ENOMEM
 * when device memory runs out (out is then untouched).
 */
int kernels_field_op(enum kernels_field f, enum kernels_op op, void *out,
                     const void *a, const void *b, size_t n);

/*
 * Multiplication throughput of field f: n threads (0: 4 Mi) each run a chain
 * of reps (0: 256) dependent multiplications; after a warm-up, the median of
 * 5 timed launches (CUDA events) gives *ns_per_mul = time / (n * reps), the
 * device-wide cost of one multiplication. A benchmark, not a test.
 */
int kernels_field_mul_throughput(enum kernels_field f, size_t n, int reps,
                                 double *ns_per_mul);

#ifdef __cplusplus
}
#endif

#endif
