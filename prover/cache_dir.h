/*
 * The folder where zkbench keeps what it derives once and reuses: the
 * parameter cache (harness/run/param_cache.h) and, in its checked/
 * subfolder, the records of snarkjs keys whose points passed the subgroup
 * check (prover/iden3/zkey_file.h).
 */
#ifndef ZKB_CACHE_DIR_H
#define ZKB_CACHE_DIR_H

#include <stddef.h>

/*
 * $ZKBENCH_PARAMS_DIR, else $XDG_CACHE_HOME/zkbench/params, else
 * ~/.cache/zkbench/params, else /tmp/zkbench-params, into out (cap bytes).
 * Nothing is created. 0, or -ENAMETOOLONG (out untouched).
 */
int cache_dir_default(char *out, size_t cap);

/* mkdir -p (mode 0755): 0, or -errno of the first folder that could not be made. */
int cache_dir_make(const char *path);

#endif
