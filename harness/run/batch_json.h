/*
 * The sections of a batch's run.json (README: "Files of a run"; the keys
 * are a contract), each a new json_t reference the caller owns (NULL when
 * out of memory).
 */
#ifndef ZKB_BATCH_JSON_H
#define ZKB_BATCH_JSON_H

#include <jansson.h>
#include <stdbool.h>

#include "harness/run/batch.h"
#include "harness/run/param_cache.h"
#include "harness/run/sampler.h"
#include "harness/run/sysinfo.h"
#include "prover/groth16.h"

/* "config": the settings, with the circuit as resolved (spec) and the
 * parameter file; backend is the one the run uses. */
json_t *batch_json_config(const struct batch_opts *o, const char *backend, const char *spec,
                          const char *params_path);
/* "params": how the parameters were loaded (README, "--params-load"). */
json_t *batch_json_params(const struct param_cache_info *in);
/* "circuit_shape": the sizes behind the bytes of a partition
 * (docs/diagnosis.md, "Bytes per partition"). */
json_t *batch_json_circuit_shape(const groth16_shape_t *sh);
json_t *batch_json_machine(const sysinfo_t *si);
json_t *batch_json_versions(const sysinfo_t *si);
/* "baseline": each layer after the parameters, before the first proof. */
json_t *batch_json_baseline(const sample_t *b);
/* Sets run.json's state in root: status and outcome, interrupted. */
void batch_json_set_state(json_t *root, const char *state, bool interrupted);

#endif
