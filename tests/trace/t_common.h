/* Shared by the trace test programs: a sink the compiler cannot see
 * through, so no malloc/free pair is optimized away, and the benchmarks'
 * sizes from a fixed xorshift stream (the same allocations every run). */
#ifndef T_COMMON_H
#define T_COMMON_H
#include <stddef.h>
#include <stdint.h>
extern void *volatile t_sink;
#define T_KEEP(p) (t_sink = (p))
#define MIB ((size_t)1 << 20)
static inline uint64_t t_next(void)
{
    static uint64_t rng = 0x9e3779b97f4a7c15ull;
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
#endif
