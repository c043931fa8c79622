/* Shared by the trace test programs: a sink the compiler cannot see
 * through, so no malloc/free pair is optimized away. */
#ifndef T_COMMON_H
#define T_COMMON_H
#include <stddef.h>
extern void *volatile t_sink;
#define T_KEEP(p) (t_sink = (p))
#define MIB ((size_t)1 << 20)
#endif
