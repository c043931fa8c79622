/* A batch's circuit and parameters, loaded while SIGINT is answered; see batch_load.h. */
#include "harness/run/batch_load.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/errmsg.h"
#include "harness/run/run_clock.h"
#include "harness/run/sysinfo.h"

static void *load_main(void *arg)
{
    struct batch_load *j = arg;
    const struct batch_opts *o = j->o;
    char err[1024];
    int rc;
    j->status = 0;
    if ((rc = circuit_from_spec(&j->circ, o->circuit, o->pc.partitions, err, sizeof err)) < 0) {
        j->status = 2;
        snprintf(j->msg, sizeof j->msg, "%s", err);
    } else if (j->circ->prove) {
        /* a circuit with its own keys (zkey): no parameter file, no shape */
        if (o->params) {
            j->status = 2;
            snprintf(j->msg, sizeof j->msg, "--params does not go with --circuit %s (the zkey holds the keys)",
                     o->circuit);
        }
        snprintf(j->params_path, sizeof j->params_path, "(the zkey)");
    } else if ((rc = groth16_shape_new(&j->shape, j->circ->r1cs)) < 0) {
        j->status = 1;
        snprintf(j->msg, sizeof j->msg, "cannot prepare the circuit: %s", strerror(-rc));
    } else {
        /* what the console says while it runs: a generation is the long one */
        char path[4096];
        if (o->params)
            snprintf(j->phase_text, sizeof j->phase_text, "loading the parameters from %s", o->params);
        else if (param_cache_params_path(path, sizeof path, j->circ, err, sizeof err) == 0 && access(path, R_OK) != 0)
            snprintf(j->phase_text, sizeof j->phase_text,
                     "generating the parameters of %.200s (once per circuit, kept in %s)", j->circ->spec, path);
        else
            snprintf(j->phase_text, sizeof j->phase_text, "loading the parameters of %.200s from the cache",
                     j->circ->spec);
        atomic_store(&j->phase, BATCH_LOAD_PARAMS);
        /* an explicit file, or the cache (generated once per circuit); mapped
         * read-only from a layout cache, or decoded onto the heap */
        rc = o->params ? param_cache_open_file(&j->pk, o->params, j->shape, o->params_load, o->pc.threads, j->pinfo,
                                               err, sizeof err)
                       : param_cache_open(&j->pk, j->circ, j->shape, o->params_load, o->pc.threads, j->setup_device,
                                          j->pinfo, err, sizeof err);
        if (rc < 0) {
            j->status = rc == -ENOMEM ? 1 : o->params || rc == -EINVAL ? 2 : 1;
            snprintf(j->msg, sizeof j->msg, "%s", err);
        } else {
            snprintf(j->params_path, sizeof j->params_path, "%s", j->pinfo->params_path);
            j->have_pinfo = true;
        }
    }
    atomic_store(&j->done, true);
    return NULL;
}

int batch_load(struct batch_load *j, console_t *con, atomic_int *stop, void (*on_stop)(void *ctx), void *ctx)
{
    const struct batch_opts *o = j->o;
    pthread_t loader;
    atomic_init(&j->phase, BATCH_LOAD_CIRCUIT);
    atomic_init(&j->done, false);
    if (pthread_create(&loader, NULL, load_main, j) != 0) {
        load_main(j);
        return j->status;
    }
    bool noted = false;
    int phase = -1;
    double phase_t = run_clock_now();
    char what[4700];
    while (!atomic_load(&j->done)) {
        if (atomic_load(stop) && !noted) {
            /* recorded now: a second signal kills the process */
            noted = true;
            on_stop(ctx);
            console_end_live(con);
            errmsg_print(0, "batch: interrupted; stopping once the parameters are %s (again to quit at once)",
                         o->params ? "loaded" : "loaded or generated");
        }
        /* a phase is said once it has lasted a second: a cached load of a
         * small circuit goes by without a line */
        int now_phase = atomic_load(&j->phase);
        if (now_phase != phase && con->phase[0])
            console_phase_end(con);
        if (now_phase != phase) {
            phase = now_phase;
            phase_t = run_clock_now();
        }
        if (!con->phase[0] && run_clock_now() - phase_t >= 1.0) {
            if (phase == BATCH_LOAD_CIRCUIT)
                snprintf(what, sizeof what, "building the circuit %s", o->circuit);
            else
                snprintf(what, sizeof what, "%s", j->phase_text);
            console_phase(con, what);
        }
        if (con->phase[0]) {
            uint64_t rss = 0, hwm = 0;
            sysinfo_rss(&rss, &hwm);
            console_phase_tick(con, rss);
        }
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    pthread_join(loader, NULL);
    console_phase_end(con);
    return j->status;
}
