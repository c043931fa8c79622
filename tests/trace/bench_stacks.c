/* The collector's workload of scripts/bench-trace-collect.sh: N allocations
 * (each freed) from S distinct stacks (S <= 10000): allocation i descends 4
 * levels, at each through one of ten functions picked by a decimal digit of
 * i % S, so each of the S stacks is its own within the tracer's 16 frames.
 *   bench_stacks N S   (run with --trace-min 1: every allocation recorded) */
#include <stdio.h>
#include <stdlib.h>

#include "t_common.h"

void *volatile t_sink;

static void descend(unsigned id, int depth);

/* ten distinct callers; the empty asm keeps each call from being a tail call */
#define STEP(k)                                                                                                  \
    __attribute__((noinline)) static void step##k(unsigned id, int depth)                                       \
    {                                                                                                            \
        descend(id, depth);                                                                                      \
        __asm__ volatile("" ::: "memory");                                                                       \
    }
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9)

static void (*const steps[10])(unsigned, int) = {step0, step1, step2, step3, step4,
                                                 step5, step6, step7, step8, step9};

__attribute__((noinline)) static void descend(unsigned id, int depth)
{
    if (depth == 0) {
        free(T_KEEP(malloc(64)));
        return;
    }
    unsigned digit = id % 10;
    steps[digit](id / 10, depth - 1);
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 600000;
    unsigned s = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 10000;
    if (s == 0 || s > 10000)
        return 2;
    for (unsigned long i = 0; i < n; i++)
        descend((unsigned)(i % s), 4);
    printf("%lu allocations from %u stacks\n", n, s);
    return 0;
}
