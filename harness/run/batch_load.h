/*
 * A batch's circuit and parameters, loaded (or the parameters generated,
 * once per circuit) on a thread of its own while the console says what
 * runs, so that SIGINT is answered at once: the generation or load of a
 * large circuit takes minutes.
 */
#ifndef ZKB_BATCH_LOAD_H
#define ZKB_BATCH_LOAD_H

#include <stdatomic.h>
#include <stdbool.h>

#include "harness/run/batch.h"
#include "harness/run/console.h"
#include "harness/run/param_cache.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"

enum batch_load_phase { BATCH_LOAD_CIRCUIT, BATCH_LOAD_PARAMS };

/* What the load makes. The caller frees circ, shape and pk (each NULL
 * when not made). */
struct batch_load {
    const struct batch_opts *o;
    int setup_device; /* a generation's fixed-base multiplications: this CUDA device, or -1 the CPU */
    circuit_t *circ;
    groth16_shape_t *shape; /* NULL for a circuit with its own keys (zkey) */
    groth16_params_t *pk;
    struct param_cache_info *pinfo;
    bool have_pinfo;
    char params_path[4096];
    int status; /* 0: loaded; else the exit status for msg */
    char msg[1100];
    atomic_int phase;      /* enum batch_load_phase: what the loader is doing now */
    char phase_text[4600]; /* what it is doing, for the console (set before phase) */
    atomic_bool done;
};

/* Loads into j (o, setup_device and pinfo set by the caller), a phase
 * line on con once it has lasted a second. When *stop is set during the
 * load, on_stop(ctx) is called once (to record the interrupt) and a line
 * says the run stops once the load is over. Returns j->status. */
int batch_load(struct batch_load *j, console_t *con, atomic_int *stop, void (*on_stop)(void *ctx), void *ctx);

#endif
