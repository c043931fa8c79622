// A CUDA program that leaks device memory on purpose, for `zkbench watch
// --trace` on the GPU machine (scripts/device/h200-trace.sh). Built twice:
// with -cudart shared (the preload library interposes cudaMalloc) and with
// -cudart static (only the CUPTI injection library sees the calls). Each
// iteration gpu_leak_step keeps 4 MiB of device memory, gpu_work_step
// allocates 6 MiB and frees it, and every other iteration pinned_leak keeps
// 2 MiB of page-locked host memory. Prints the totals it leaked.
//   leak_gpu [ITERATIONS]
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void touch(char *p, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = 1;
}

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "leak_gpu: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

__attribute__((noinline)) static void *gpu_leak_step(size_t n)
{
    void *p = nullptr;
    check(cudaMalloc(&p, n), "cudaMalloc");
    touch<<<4, 256>>>(static_cast<char *>(p), 1024);
    return p;
}

__attribute__((noinline)) static void gpu_work_step(size_t n)
{
    void *p = nullptr;
    check(cudaMalloc(&p, n), "cudaMalloc");
    touch<<<4, 256>>>(static_cast<char *>(p), 1024);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    check(cudaFree(p), "cudaFree");
}

__attribute__((noinline)) static void *pinned_leak(size_t n)
{
    void *h = nullptr;
    check(cudaMallocHost(&h, n), "cudaMallocHost");
    static_cast<char *>(h)[0] = 1;
    return h;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? std::atoi(argv[1]) : 10;
    size_t leaked = 0, pinned = 0;
    for (int i = 0; i < iters; i++) {
        gpu_leak_step(4u << 20);
        leaked += 4u << 20;
        gpu_work_step(6u << 20);
        if (i % 2 == 0) {
            pinned_leak(2u << 20);
            pinned += 2u << 20;
        }
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::printf("device leaked %zu bytes in %d allocations; pinned leaked %zu bytes\n", leaked, iters, pinned);
    return 0;
}
