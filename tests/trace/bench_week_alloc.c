/* The traced program of scripts/bench-week.sh (results/long-watch.md): N
 * allocations in a prover-like mix, for the trace files' size and the
 * collector's and analyze's time against N. One in ten is large (1..4 MiB,
 * recorded one by one at the default --trace-min) from four sites: two
 * freed at once (synth_abc, msm_scratch), one held in a cache of 64 and
 * replaced (cache_put), one kept for good one time in a thousand
 * (pending_leak); the other nine are small (16..1024 B, held in a ring of
 * 4096 and replaced; counted, and sampled by the tracer) from three sites.
 * A zkbench_mark("proof") every PROOF allocations.
 *   bench_week_alloc N [PROOF]   (default PROOF 10000) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/trace/zkbench_trace.h"
#include "t_common.h"

void *volatile t_sink;

static void *cache[64];
static void *ring[4096];

__attribute__((noinline)) static void synth_abc(size_t n)
{
    char *p = malloc(n);
    p[0] = 1;
    free(T_KEEP(p));
}

__attribute__((noinline)) static void msm_scratch(size_t n)
{
    char *p = malloc(n);
    p[0] = 1;
    free(T_KEEP(p));
}

__attribute__((noinline)) static void cache_put(size_t n, size_t slot)
{
    free(cache[slot]);
    char *p = malloc(n);
    p[0] = 1;
    cache[slot] = p;
}

__attribute__((noinline)) static size_t pending_leak(size_t n)
{
    char *p = malloc(n);
    p[0] = 1;
    T_KEEP(p);
    return n;
}

#define SMALL_SITE(name)                                                                                          \
    __attribute__((noinline)) static void name(size_t k, size_t n)                                                \
    {                                                                                                            \
        free(ring[k]);                                                                                           \
        ring[k] = malloc(n);                                                                                     \
        ((char *)ring[k])[0] = 1;                                                                                \
    }
SMALL_SITE(small_parse)
SMALL_SITE(small_node)
SMALL_SITE(small_string)

int main(int argc, char **argv)
{
    unsigned long long n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000, proof = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000;
    if (!proof)
        return 2;
    unsigned long long large = 0, leaked_n = 0, leaked = 0;
    for (unsigned long long i = 0; i < n; i++) {
        if (i % 10 == 9) {
            size_t sz = MIB + (size_t)(t_next() % (3 * MIB));
            switch (large++ % 4) {
            case 0: synth_abc(sz); break;
            case 1: msm_scratch(sz); break;
            case 2: cache_put(sz, (size_t)(large / 4) % 64); break;
            default:
                if ((large / 4) % 1000 == 999) {
                    leaked += pending_leak(sz);
                    leaked_n++;
                } else {
                    synth_abc(sz);
                }
            }
        } else {
            size_t k = (size_t)t_next() & 4095, sz = 16 + (size_t)(t_next() & 1008);
            switch (i % 3) {
            case 0: small_parse(k, sz); break;
            case 1: small_node(k, sz); break;
            default: small_string(k, sz); break;
            }
        }
        if ((i + 1) % proof == 0)
            zkbench_mark("proof");
    }
    for (int k = 0; k < 4096; k++)
        free(ring[k]);
    for (int k = 0; k < 64; k++)
        free(cache[k]);
    printf("allocations %llu large %llu leaked %llu in %llu\n", n, large, leaked, leaked_n);
    return 0;
}
