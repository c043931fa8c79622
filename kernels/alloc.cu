/*
 * The allocation hook (kernels_set_alloc_hook) and the one place where
 * kernels/ allocates device and page-locked memory (alloc.cuh).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <atomic>

#include <cuda_runtime.h>

#include "kernels/alloc.cuh"
#include "kernels/cuda_check.cuh"
#include "kernels/kernels.h"

struct hook {
    kernels_alloc_hook_fn fn;
    void *ctx;
};

/* Set rarely (at start-up), read on every allocation: a plain pair read
 * under no lock would tear, so the pair lives behind one atomic pointer to
 * one of two static slots. */
static struct hook hook_slots[2];
static std::atomic<struct hook *> hook_cur;
static int hook_next;

void kernels_set_alloc_hook(kernels_alloc_hook_fn fn, void *ctx)
{
    struct hook *h = &hook_slots[hook_next];
    hook_next ^= 1;
    h->fn = fn;
    h->ctx = ctx;
    hook_cur.store(fn ? h : (struct hook *)NULL);
}

static void hook_call(int role, int device, size_t bytes, int is_free,
                      uint64_t *id)
{
    struct hook *h = hook_cur.load();
    if (h && h->fn)
        h->fn(h->ctx, role, device, bytes, is_free, id);
}

int kbuf_alloc(struct kbuf *b, int role, size_t bytes)
{
    int rc, dev = -1;
    void *p = NULL;
    memset(b, 0, sizeof *b);
    if (bytes == 0)
        return -EINVAL;
    if (role == KERNELS_MEM_PINNED) {
        rc = CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocDefault));
    } else {
        rc = CUDA_CHECK(cudaGetDevice(&dev));
        if (rc < 0)
            return rc;
        rc = CUDA_CHECK(cudaMalloc(&p, bytes));
    }
    if (rc < 0)
        return rc;
    b->p = p;
    b->bytes = bytes;
    b->role = role;
    b->device = dev;
    b->id = 0;
    hook_call(role, dev, bytes, 0, &b->id);
    return 0;
}

int kbuf_free(struct kbuf *b)
{
    int rc;
    if (!b || !b->p)
        return 0;
    hook_call(b->role, b->device, b->bytes, 1, &b->id);
    if (b->role == KERNELS_MEM_PINNED)
        rc = CUDA_CHECK(cudaFreeHost(b->p));
    else
        rc = CUDA_CHECK(cudaFree(b->p));
    memset(b, 0, sizeof *b);
    return rc;
}

/* A kernels_host_alloc block: the kbuf sits in front of the caller's bytes,
 * so the free finds the hook's id without a table. */
#define HOST_HEADER 64

int kernels_host_alloc(void **ret, size_t bytes)
{
    if (!ret || bytes == 0 || bytes > SIZE_MAX - HOST_HEADER)
        return -EINVAL;
    struct kbuf b;
    int rc = kbuf_alloc(&b, KERNELS_MEM_PINNED, bytes + HOST_HEADER);
    if (rc < 0)
        return rc;
    memcpy(b.p, &b, sizeof b);
    *ret = (char *)b.p + HOST_HEADER;
    return 0;
}

void kernels_host_free(void *p)
{
    if (!p)
        return;
    struct kbuf b;
    memcpy(&b, (char *)p - HOST_HEADER, sizeof b);
    kbuf_free(&b);
}

int kernels_host_register(void *p, size_t bytes)
{
    if (!p || bytes == 0)
        return -EINVAL;
    int rc = CUDA_CHECK(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
    if (rc < 0)
        (void)cudaGetLastError(); /* not sticky: a later check must not see it */
    return rc;
}

int kernels_host_unregister(void *p)
{
    if (!p)
        return -EINVAL;
    return CUDA_CHECK(cudaHostUnregister(p));
}
