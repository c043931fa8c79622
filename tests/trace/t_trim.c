/* Mappings cut by range: trim_leak maps 4 MiB and unmaps 1 MiB at each
 * end (map-then-trim, as aligned allocators do: 2 MiB kept), hole_leak
 * unmaps the middle MiB of 3 (2 MiB kept, in two pieces), grow_leak
 * mremaps 2 MiB to 6 MiB and keeps it; tidy maps 4 MiB and unmaps it in
 * two halves. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "t_common.h"

void *volatile t_sink;

static char *map(size_t n)
{
    char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(1);
    return p;
}

__attribute__((noinline)) static void trim_leak(void)
{
    char *p = map(4 * MIB);
    munmap(p, MIB);               /* the unaligned head */
    munmap(p + 3 * MIB, MIB);     /* and tail */
    p[MIB] = 1;
    T_KEEP(p + MIB);              /* 2 MiB kept */
}

__attribute__((noinline)) static void hole_leak(void)
{
    char *p = map(3 * MIB);
    munmap(p + MIB, MIB);         /* 2 MiB kept, in two pieces */
    T_KEEP(p);
}

__attribute__((noinline)) static void grow_leak(void)
{
    char *p = map(2 * MIB);
    p = mremap(p, 2 * MIB, 6 * MIB, MREMAP_MAYMOVE);
    if (p == MAP_FAILED)
        exit(1);
    T_KEEP(p);
}

__attribute__((noinline)) static void tidy(void)
{
    char *p = map(4 * MIB);
    munmap(p + 2 * MIB, 2 * MIB);
    munmap(p, 2 * MIB);
}

int main(void)
{
    for (int i = 0; i < 3; i++) {
        trim_leak();
        hole_leak();
        grow_leak();
        tidy();
    }
    printf("kept %zu bytes\n", (size_t)3 * (2 + 2 + 6) * MIB);
    return 0;
}
