/* A stand-in for libcudart.so where there is no GPU: the allocation entry
 * points hand out addresses of a fake device range (never dereferenced),
 * so t_cuda checks the preload library's CUDA interposers anywhere. The
 * current device is 1, to check that it is looked up. */
#include <stddef.h>
#include <stdint.h>

int cudaMalloc(void **p, size_t n);
int cudaMallocAsync(void **p, size_t n, void *stream);
int cudaFree(void *p);
int cudaFreeAsync(void *p, void *stream);
int cudaMallocHost(void **p, size_t n);
int cudaHostAlloc(void **p, size_t n, unsigned flags);
int cudaFreeHost(void *p);
int cudaGetDevice(int *d);

static uintptr_t next_dev = (uintptr_t)0x200000000000ull, next_host = (uintptr_t)0x300000000000ull;

static void *bump(uintptr_t *at, size_t n)
{
    void *p = (void *)__atomic_fetch_add(at, (n + 4095) & ~(size_t)4095, __ATOMIC_RELAXED);
    return p;
}

int cudaMalloc(void **p, size_t n)
{
    *p = bump(&next_dev, n);
    return 0;
}

int cudaMallocAsync(void **p, size_t n, void *stream)
{
    (void)stream;
    *p = bump(&next_dev, n);
    return 0;
}

int cudaFree(void *p)
{
    (void)p;
    return 0;
}

int cudaFreeAsync(void *p, void *stream)
{
    (void)p;
    (void)stream;
    return 0;
}

int cudaMallocHost(void **p, size_t n)
{
    *p = bump(&next_host, n);
    return 0;
}

int cudaHostAlloc(void **p, size_t n, unsigned flags)
{
    (void)flags;
    *p = bump(&next_host, n);
    return 0;
}

int cudaFreeHost(void *p)
{
    (void)p;
    return 0;
}

int cudaGetDevice(int *d)
{
    *d = 1;
    return 0;
}
