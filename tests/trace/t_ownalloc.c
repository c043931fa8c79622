/* A program with its own allocator linked in (malloc defined here, as a
 * static jemalloc or tcmalloc would be): a bump allocator growing the heap
 * with sbrk in 1 MiB steps. leak_nodes keeps 24 MiB of 4 KiB nodes; the
 * tracer's malloc is never called, so only sbrk can be seen. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_common.h"

void *volatile t_sink;

static char boot[1 << 18] __attribute__((aligned(16)));
static char *cur = boot, *end = boot + sizeof boot;

__attribute__((noinline)) static void *morecore(size_t n)
{
    size_t step = n > MIB ? (n + MIB - 1) & ~(MIB - 1) : MIB;
    char *p = sbrk((intptr_t)step);
    if (p == (void *)-1)
        return NULL;
    cur = p;
    end = p + step;
    return p;
}

void *malloc(size_t n)
{
    n = (n + 16 + 15) & ~(size_t)15;
    if ((size_t)(end - cur) < n && !morecore(n)) {
        errno = ENOMEM;
        return NULL;
    }
    char *p = cur;
    cur += n;
    *(size_t *)p = n - 16;
    return p + 16;
}

void free(void *p)
{
    (void)p;
}

void *calloc(size_t k, size_t n)
{
    void *p = malloc(k * n);
    if (p)
        memset(p, 0, k * n);
    return p;
}

void *realloc(void *p, size_t n)
{
    void *q = malloc(n);
    if (q && p) {
        size_t old = *(size_t *)((char *)p - 16);
        memcpy(q, p, old < n ? old : n);
    }
    return q;
}

__attribute__((noinline)) static void leak_nodes(size_t n)
{
    for (size_t i = 0; i < n; i++)
        T_KEEP(malloc(4096 - 16));
}

int main(void)
{
    leak_nodes(24 * 256);
    printf("leaked %zu bytes\n", (size_t)24 * MIB);
    return 0;
}
