/*
 * CUDA_CHECK: the one way kernels/ calls the CUDA runtime. Private to
 * kernels/ (included by .cu files only).
 *
 *   int rc = CUDA_CHECK(cudaMalloc(&p, bytes));
 *   if (rc < 0) goto fail;
 *
 * evaluates to 0 when the call succeeds and otherwise records "cudaMalloc
 * failed at kernels/field_ops.cu:NN: out of memory" for kernels_last_error()
 * and evaluates to a negative errno: -ENOMEM for cudaErrorMemoryAllocation,
 * -ENODEV when there is no usable device or driver, -EIO for anything else.
 * CUDA_TRY does the same and jumps to `fail` with the errno in `rc`.
 */
#ifndef ZKB_KERNELS_CUDA_CHECK_H
#define ZKB_KERNELS_CUDA_CHECK_H

#include <cuda_runtime.h>

/* Records a failed call (err != cudaSuccess) and maps it to -errno; returns 0
 * for cudaSuccess. call is the expression's text: only the function name in
 * front of '(' is kept. */
int kernels_cuda_check(cudaError_t err, const char *call, const char *file,
                       int line);
/* Records msg for kernels_last_error() (a failure that is not a CUDA
 * call's) and returns rc. */
int kernels_record_error(int rc, const char *msg);
/* The errno for a CUDA error, without recording anything. */
int kernels_cuda_errno(cudaError_t err);

#define CUDA_CHECK(expr) kernels_cuda_check((expr), #expr, __FILE__, __LINE__)

#define CUDA_TRY(expr)                                                        \
    do {                                                                      \
        rc = CUDA_CHECK(expr);                                                \
        if (rc < 0)                                                           \
            goto fail;                                                        \
    } while (0)

/* After a kernel launch: launch errors (bad configuration, no kernel image
 * for this device) are reported by cudaGetLastError under the kernel's name. */
#define CUDA_CHECK_LAUNCH(name)                                               \
    kernels_cuda_check(cudaGetLastError(), name "<<<>>>", __FILE__, __LINE__)

#endif
