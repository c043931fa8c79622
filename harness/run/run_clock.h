/*
 * The one clock of a run: CLOCK_MONOTONIC in seconds. The console, the
 * sampler and every timestamp written to a run's files read it, so a time
 * printed on the console and one in a CSV can be compared directly.
 */
#ifndef ZKB_RUN_CLOCK_H
#define ZKB_RUN_CLOCK_H

#include <time.h>

static inline double run_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif
