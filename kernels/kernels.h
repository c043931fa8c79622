/*
 * The CUDA kernels' C API. Every function returns >= 0 on success or a
 * negative errno; kernels_last_error() names the failing CUDA call.
 * In a build without CUDA every entry point reports -ENODEV.
 */
#ifndef ZKB_KERNELS_H
#define ZKB_KERNELS_H

/* Number of usable CUDA devices (0 without a GPU or driver). */
int kernels_device_count(int *count);

#endif
