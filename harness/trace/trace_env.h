/*
 * What `zkbench watch --trace` sets up for the command: the trace libraries
 * found beside zkbench and the environment that loads them
 * (docs/trace-format.md, "Environment").
 */
#ifndef ZKB_TRACE_ENV_H
#define ZKB_TRACE_ENV_H

#include <stddef.h>
#include <stdint.h>

/* Finds libzkbench-trace.so / libzkbench-cupti.so (name) next to the running
 * zkbench: its folder, trace/ below it (the build tree), then lib, lib64 or
 * lib/<multiarch> beside the folder.
 * 0 with the path in out, or -ENOENT. */
int trace_find_lib(char *out, size_t cap, const char *name);

/* For the command watch starts: LD_PRELOAD (the tracer prepended),
 * ZKBENCH_TRACE_DIR (RUN_DIR/trace, made here), ZKBENCH_TRACE_MIN and, where
 * the CUPTI library was built and is found, CUDA_INJECTION64_PATH, set in
 * this process until trace_env_restore(). 0, or -errno with a line in err. */
int trace_env_set(const char *run_dir, uint64_t min, char *err, size_t errlen);
/* abandoned_run_dir: the run's folder when the command could not start
 * (its empty trace/ is removed), else NULL. */
void trace_env_restore(const char *abandoned_run_dir);

/* Writes RUN_DIR/trace/t0 (the run's clock origin, seconds of
 * CLOCK_MONOTONIC) for `zkbench trace collect`; best effort. Reads it back:
 * 0, or -errno. */
void trace_env_save_t0(const char *run_dir, double t0);
int trace_env_load_t0(const char *run_dir, double *t0);

#endif
