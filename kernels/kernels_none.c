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
