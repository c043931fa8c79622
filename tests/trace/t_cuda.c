/* The CUDA runtime's allocation calls, linked dynamically (against
 * fake_cudart where there is no GPU): gpu_leak_step keeps 4 MiB of device
 * memory five times, gpu_work_step allocates and frees 6 MiB (plain and
 * stream-ordered), pinned_leak keeps 2 MiB of pinned host memory three
 * times, pinned_work allocates and frees 1 MiB. */
#include <stdio.h>

#include "t_common.h"

int cudaMalloc(void **p, size_t n);
int cudaMallocAsync(void **p, size_t n, void *stream);
int cudaFree(void *p);
int cudaFreeAsync(void *p, void *stream);
int cudaMallocHost(void **p, size_t n);
int cudaHostAlloc(void **p, size_t n, unsigned flags);
int cudaFreeHost(void *p);

void *volatile t_sink;

__attribute__((noinline)) static void gpu_leak_step(void)
{
    void *p;
    cudaMalloc(&p, 4 * MIB);
    T_KEEP(p);
}

__attribute__((noinline)) static void gpu_work_step(void)
{
    void *p, *q;
    cudaMalloc(&p, 6 * MIB);
    cudaFree(p);
    cudaMallocAsync(&q, 6 * MIB, NULL);
    cudaFreeAsync(q, NULL);
}

__attribute__((noinline)) static void pinned_leak(void)
{
    void *h;
    cudaMallocHost(&h, 2 * MIB);
    T_KEEP(h);
}

__attribute__((noinline)) static void pinned_work(void)
{
    void *h;
    cudaHostAlloc(&h, MIB, 0);
    cudaFreeHost(h);
}

int main(void)
{
    for (int i = 0; i < 5; i++) {
        gpu_leak_step();
        gpu_work_step();
        if (i % 2 == 0)
            pinned_leak();
        pinned_work();
    }
    printf("device leaked %zu pinned leaked %zu\n", 5 * 4 * MIB, 3 * 2 * MIB);
    return 0;
}
