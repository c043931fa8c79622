/*
 * Device and page-locked host allocations of kernels/, reported to the hook
 * of kernels_set_alloc_hook (kernels.h). Private to kernels/: every
 * cudaMalloc/cudaFree and cudaHostAlloc/cudaFreeHost of the kernels goes
 * through kbuf_alloc / kbuf_free so that the prover sees each one.
 */
#ifndef ZKB_KERNELS_ALLOC_CUH
#define ZKB_KERNELS_ALLOC_CUH

#include <stddef.h>
#include <stdint.h>

struct kbuf {
    void *p;        /* NULL when empty */
    size_t bytes;
    int role;       /* enum kernels_mem_role */
    int device;     /* -1 for page-locked host memory */
    uint64_t id;    /* the hook's id for this buffer */
};

/* Allocates bytes (> 0) of device memory on the current device, or of
 * page-locked host memory for role KERNELS_MEM_PINNED; 0 or a negative
 * errno (b left empty). */
int kbuf_alloc(struct kbuf *b, int role, size_t bytes);
/* Frees b (an empty b is accepted) and leaves it empty; 0 or -errno. */
int kbuf_free(struct kbuf *b);

#endif
