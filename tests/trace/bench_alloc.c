/* The allocation-heavy program of scripts/bench-trace.sh: many small
 * allocations (16..1024 B, held in a ring of 4096 and replaced) and some
 * large ones (1..8 MiB), one in eight of which big_leak keeps.
 *   bench_alloc [SMALL_MILLIONS] [LARGE] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void *big_leak(size_t n)
{
    char *p = malloc(n);
    p[0] = 1;
    return T_KEEP(p);
}

__attribute__((noinline)) static void big_work(size_t n)
{
    char *p = malloc(n);
    p[0] = 1;
    T_KEEP(p);
    free(p);
}

int main(int argc, char **argv)
{
    long small = (argc > 1 ? atol(argv[1]) : 5) * 1000000L, large = argc > 2 ? atol(argv[2]) : 2000;
    static void *ring[4096];
    size_t leaked = 0;
    long every = large ? small / large : small + 1;
    for (long i = 0, l = 0; i < small; i++) {
        size_t k = (size_t)t_next() & 4095;
        free(ring[k]);
        ring[k] = malloc(16 + (t_next() & 1008));
        ((char *)ring[k])[0] = 1;
        if (every && i % every == 0 && l < large) {
            size_t n = MIB + (t_next() % (7 * MIB));
            if (l++ % 8 == 0) {
                big_leak(n);
                leaked += n;
            } else {
                big_work(n);
            }
        }
    }
    for (int k = 0; k < 4096; k++)
        free(ring[k]);
    printf("small %ld large %ld leaked %zu\n", small, large, leaked);
    return 0;
}
