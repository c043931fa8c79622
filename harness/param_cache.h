/*
 * The parameter cache: like production provers' parameter folders, the
 * keys of a circuit are generated once (zkbench's seeded setup), written to
 * ZKBENCH_PARAMS_DIR (default $XDG_CACHE_HOME/zkbench/params, or
 * ~/.cache/zkbench/params) and mapped from there by later runs.
 */
#ifndef ZKB_PARAM_CACHE_H
#define ZKB_PARAM_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "prover/circuit/circuit.h"
#include "prover/groth16.h"

/* The cache folder (created if missing). -errno with err set. */
int param_cache_dir(char *out, size_t cap, char *err, size_t err_cap);

/*
 * The circuit's parameters: read from the cache, or generated (all threads),
 * written there and then read back, so every run measures the same mapped
 * file. *generated tells which. Cached files were validated when written,
 * so they are read without the per-point subgroup check.
 */
int param_cache_load(groth16_params_t **ret, const circuit_t *circ, const groth16_shape_t *shape,
                     unsigned threads, bool *generated, char *path_out, size_t path_cap, char *err,
                     size_t err_cap);

#endif
