/*
 * The one clock of a run: CLOCK_MONOTONIC in seconds. The console, the
 * sampler and every timestamp written to a run's files read it, so a time
 * printed on the console and one in a CSV can be compared directly.
 */
#ifndef ZKB_RUN_CLOCK_H
#define ZKB_RUN_CLOCK_H

#include <stdio.h>
#include <time.h>

static inline double run_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The wall-clock time (UTC, ISO 8601 with milliseconds) at run clock time
 * t: run.json's started_at, the moment every t_ms of a run counts from. */
static inline void run_clock_utc(char out[40], double t)
{
    struct timespec real;
    clock_gettime(CLOCK_REALTIME, &real);
    double at = (double)real.tv_sec + (double)real.tv_nsec * 1e-9 - (run_clock_now() - t);
    time_t sec = (time_t)at;
    struct tm tm;
    gmtime_r(&sec, &tm);
    char day[24];
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, 40, "%s.%03dZ", day, (int)((at - (double)sec) * 1000) % 1000);
}

#endif
