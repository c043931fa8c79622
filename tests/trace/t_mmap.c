/* An mmap leak: mmap_leak maps 2 MiB anonymous five times and keeps them;
 * mmap_work maps 3 MiB and unmaps it; a file mapping is not an allocation. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void mmap_leak(void)
{
    char *p = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(1);
    p[0] = 1;
    T_KEEP(p);
}

__attribute__((noinline)) static void mmap_work(void)
{
    char *p = mmap(NULL, 3 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(1);
    p[0] = 1;
    munmap(p, 3 * MIB);
}

int main(void)
{
    for (int i = 0; i < 5; i++) {
        mmap_leak();
        mmap_work();
    }
    printf("mapped %zu bytes\n", 5 * 2 * MIB);
    return 0;
}
