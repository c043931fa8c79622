/*
 * Whole proofs on the GPU backend against the CPU: porep partitions of 2^12
 * to 2^16 constraints (2^12 and 2^13 under compute-sanitizer,
 * ZKB_GPU_TEST_SMALL), proved once on each backend with the same blinding
 * r, s (groth16_prove_opts.blind). The 192-byte proofs must be equal byte
 * for byte, both must verify, and a second GPU proof with fresh blinding
 * must verify and differ. Split and monolithic APIs, 1 and 2 partitions
 * per key. Then lanes: a backend of 2 workers a device (every device),
 * one thread per lane proving 3 partitions each at once, every proof equal
 * to the CPU's: lanes share no state, so nothing races. Every tracked
 * buffer, host and device (the backend tracks the kernels' allocations as
 * gpu_* kinds), is freed at the end.
 *
 * Exits 77 (skipped) when no CUDA device is present.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "prover/backend.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/mem.h"
#include "tests/common.h"

static void prove_lane(uint8_t out[GROTH16_PROOF_BYTES], const groth16_params_t *pk, const groth16_shape_t *shape,
                       const fr_t *w, const backend_t *be, unsigned lane, const fr_t *blind, bool split)
{
    struct groth16_prove_opts o;
    groth16_prove_opts_default(&o);
    o.backend = be;
    o.gpu_lane = lane;
    o.blind = blind;
    o.split = split;
    o.threads = 2;
    groth16_proof_t proof;
    memset(&proof, 0, sizeof proof);
    int rc;
    if (split) {
        groth16_pending_t *p = NULL;
        rc = groth16_prove_start(&p, pk, shape, w, &o);
        if (CHECK(rc == 0))
            rc = groth16_prove_finish(&proof, p);
    } else {
        rc = groth16_prove(&proof, pk, shape, w, &o);
    }
    CHECK(rc == 0);
    groth16_proof_write(out, &proof);
}

static void prove_one(uint8_t out[GROTH16_PROOF_BYTES], const groth16_params_t *pk, const groth16_shape_t *shape,
                      const fr_t *w, const backend_t *be, const fr_t *blind, bool split)
{
    prove_lane(out, pk, shape, w, be, 0, blind, split);
}

static void test_size(unsigned log_c, unsigned partitions)
{
    char spec[64], err[256];
    snprintf(spec, sizeof spec, "porep:constraints=2^%u", log_c);
    circuit_t *circ = NULL;
    if (!CHECK(circuit_from_spec(&circ, spec, partitions, err, sizeof err) == 0)) {
        fprintf(stderr, "%s: %s\n", spec, err);
        return;
    }
    groth16_shape_t *shape = NULL;
    groth16_params_t *pk = NULL;
    groth16_pvk_t *pvk = NULL;
    backend_t *be = NULL;
    CHECK(groth16_shape_new(&shape, circ->r1cs) == 0);
    CHECK(groth16_setup(&pk, shape, test_rand_u64(), 0) == 0);
    CHECK(groth16_pvk_new(&pvk, &pk->vk) == 0);
    if (!CHECK(backend_gpu_new(&be, pk, 0, err, sizeof err) == 0)) {
        fprintf(stderr, "backend_gpu_new: %s\n", err);
        goto done;
    }
    size_t ni = circ->r1cs->num_inputs - 1;
    uint64_t seed = test_rand_u64();
    for (unsigned i = 0; i < partitions; i++) {
        fr_t *w = NULL;
        if (!CHECK(circuit_witness_alloc(&w, circ, seed, 0, i, 2) == 0))
            continue;
        fr_t blind[2];
        test_rand_fr(&blind[0]);
        test_rand_fr(&blind[1]);
        bool split = (log_c + i) % 2 == 0;
        uint8_t cpu[GROTH16_PROOF_BYTES], gpu[GROTH16_PROOF_BYTES], fresh[GROTH16_PROOF_BYTES];
        prove_one(cpu, pk, shape, w, NULL, blind, split);
        prove_one(gpu, pk, shape, w, be, blind, !split);
        prove_one(fresh, pk, shape, w, be, NULL, split);
        if (!CHECK(memcmp(cpu, gpu, sizeof cpu) == 0))
            fprintf(stderr, "%s partition %u: GPU proof differs from the CPU's (seed %llu)\n", spec, i,
                    (unsigned long long)seed);
        CHECK(memcmp(fresh, gpu, sizeof gpu) != 0);
        groth16_proof_t p;
        CHECK(groth16_proof_read(&p, gpu) == 0);
        CHECK(groth16_verify(pvk, &p, &w[1], ni) == 1);
        CHECK(groth16_proof_read(&p, fresh) == 0);
        CHECK(groth16_verify(pvk, &p, &w[1], ni) == 1);
        if (i == 0) {
            /* under ZKBENCH_H_UPLOAD=pinned a GPU backend page-locks a, b, c
             * while computed, else and on the CPU they stay pageable; the
             * values are the same */
            const char *up = getenv("ZKBENCH_H_UPLOAD");
            bool want_pin = up && strcmp(up, "pinned") == 0;
            groth16_abc_t on_gpu, on_cpu;
            CHECK(groth16_abc_eval(&on_gpu, shape, w, 2, 0, 0, be) == 0 && on_gpu.pinned == want_pin);
            CHECK(groth16_abc_eval(&on_cpu, shape, w, 2, 0, 0, NULL) == 0 && !on_cpu.pinned);
            CHECK(memcmp(on_gpu.a, on_cpu.a, shape->n * sizeof(fr_t)) == 0 &&
                  memcmp(on_gpu.c, on_cpu.c, shape->n * sizeof(fr_t)) == 0);
            groth16_abc_free(&on_gpu);
            groth16_abc_free(&on_cpu);
            CHECK(!on_gpu.pinned && on_gpu.a == NULL);
        }
        mem_free(w);
    }
    printf("2^%u constraints, %u partition(s): GPU proofs equal the CPU's\n", log_c, partitions);
done:
    backend_free(be);
    groth16_pvk_free(pvk);
    params_free(pk);
    groth16_shape_free(shape);
    circuit_free(circ);
}

/* ---- lanes proving at once ---- */

#define LANE_PARTS 3

struct lane_job {
    const groth16_params_t *pk;
    const groth16_shape_t *shape;
    const backend_t *be;
    unsigned lane;
    fr_t *w[LANE_PARTS];
    fr_t blind[LANE_PARTS][2];
    uint8_t proof[LANE_PARTS][GROTH16_PROOF_BYTES];
};

static void *lane_main(void *arg)
{
    struct lane_job *j = arg;
    for (int i = 0; i < LANE_PARTS; i++)
        prove_lane(j->proof[i], j->pk, j->shape, j->w[i], j->be, j->lane, j->blind[i], i != 1);
    return NULL;
}

static void test_lanes(unsigned log_c)
{
    char spec[64], err[512];
    int devices = 0;
    kernels_device_count(&devices);
    if (devices > BACKEND_MAX_DEVICES)
        devices = BACKEND_MAX_DEVICES;
    unsigned workers = 2, lanes = workers * (unsigned)devices;
    snprintf(spec, sizeof spec, "porep:constraints=2^%u", log_c);
    circuit_t *circ = NULL;
    if (!CHECK(circuit_from_spec(&circ, spec, lanes * LANE_PARTS, err, sizeof err) == 0))
        return;
    groth16_shape_t *shape = NULL;
    groth16_params_t *pk = NULL;
    backend_t *be = NULL;
    struct lane_job *jobs = calloc(lanes, sizeof *jobs);
    pthread_t *tid = calloc(lanes, sizeof *tid);
    int ids[BACKEND_MAX_DEVICES];
    for (int d = 0; d < devices; d++)
        ids[d] = d;
    struct backend_gpu_config cfg = {.devices = ids, .n_devices = (unsigned)devices, .workers = workers};
    CHECK(jobs && tid);
    CHECK(groth16_shape_new(&shape, circ->r1cs) == 0);
    CHECK(groth16_setup(&pk, shape, test_rand_u64(), 0) == 0);
    if (!CHECK(backend_gpu_new_cfg(&be, pk, &cfg, err, sizeof err) == 0)) {
        fprintf(stderr, "backend_gpu_new_cfg: %s\n", err);
        goto done;
    }
    CHECK(backend_lanes(be) == lanes && backend_devices(be) == (unsigned)devices);
    struct backend_device_info info;
    CHECK(backend_device_info(be, 0, &info) == 0 && info.lane_bytes > 0 && info.key_bytes > 0);
    CHECK(backend_device_info(be, (unsigned)devices, &info) == -EINVAL);
    uint64_t seed = test_rand_u64();
    for (unsigned l = 0; l < lanes; l++) {
        jobs[l] = (struct lane_job){.pk = pk, .shape = shape, .be = be, .lane = l};
        for (int i = 0; i < LANE_PARTS; i++) {
            CHECK(circuit_witness_alloc(&jobs[l].w[i], circ, seed, 0, (int)(l * LANE_PARTS + (unsigned)i), 2) == 0);
            test_rand_fr(&jobs[l].blind[i][0]);
            test_rand_fr(&jobs[l].blind[i][1]);
        }
    }
    for (unsigned l = 0; l < lanes; l++)
        CHECK(pthread_create(&tid[l], NULL, lane_main, &jobs[l]) == 0);
    for (unsigned l = 0; l < lanes; l++)
        pthread_join(tid[l], NULL);
    unsigned same = 0;
    for (unsigned l = 0; l < lanes; l++)
        for (int i = 0; i < LANE_PARTS; i++) {
            uint8_t cpu[GROTH16_PROOF_BYTES];
            prove_one(cpu, pk, shape, jobs[l].w[i], NULL, jobs[l].blind[i], true);
            if (CHECK(memcmp(cpu, jobs[l].proof[i], sizeof cpu) == 0))
                same++;
            else
                fprintf(stderr, "%s lane %u partition %d: GPU proof differs from the CPU's (seed %llu)\n", spec, l,
                        i, (unsigned long long)seed);
            mem_free(jobs[l].w[i]);
        }
    printf("2^%u constraints, %u lanes on %d device(s) at once: %u of %u proofs equal the CPU's\n", log_c, lanes,
           devices, same, lanes * LANE_PARTS);
done:
    backend_free(be);
    params_free(pk);
    groth16_shape_free(shape);
    circuit_free(circ);
    free(jobs);
    free(tid);
}

int main(void)
{
    int count = 0;
    test_init("gpu-groth16");
    if (kernels_device_count(&count) < 0 || count == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    unsigned top = getenv("ZKB_GPU_TEST_SMALL") ? 13 : 16;
    for (unsigned log_c = 12; log_c <= top; log_c++)
        test_size(log_c, log_c == 12 ? 2 : 1);
    /* the page-locked a, b, c (an experiment's switch): the same proofs */
    setenv("ZKBENCH_H_UPLOAD", "pinned", 1);
    test_size(14, 2);
    unsetenv("ZKBENCH_H_UPLOAD");
    test_lanes(getenv("ZKB_GPU_TEST_SMALL") ? 12 : 15);
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        if (!CHECK(mem_live_bytes((enum mem_kind)k) == 0))
            fprintf(stderr, "kind %s: %llu bytes still live\n", mem_kind_name((enum mem_kind)k),
                    (unsigned long long)mem_live_bytes((enum mem_kind)k));
    return test_finish();
}
