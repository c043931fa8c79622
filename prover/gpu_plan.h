/*
 * The device memory plan of a GPU backend (prover/backend.c): given what
 * zkbench may take on a device (--gpu-mem, else what the device has free),
 * whether the proving key stays resident there or streams from the host
 * copy pass by pass (as production provers do on 16-24 GiB cards), and how
 * many scalars an MSM pass takes, so that the key (when resident), the
 * NTT twiddles and every lane's workspaces fit. Plain C, no device: the
 * scratch of an MSM pass comes from a callback (kernels_msm_scratch_bytes
 * on a GPU, a model in tests).
 *
 * The rule: the key resident with the largest pass that fits (at most
 * GPU_PLAN_MAX_CHUNK: a pass of 2^23 scalars sorts 2^27 pairs, 2 GiB of
 * keys and values, so a lane stays within ~17 GiB at 2^27), halving the
 * pass down to GPU_PLAN_MIN_CHUNK; else the key streamed, the same way;
 * else no plan, and a message with the numbers of the smallest one.
 */
#ifndef ZKB_GPU_PLAN_H
#define ZKB_GPU_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GPU_PLAN_MAX_CHUNK ((size_t)1 << 23)
#define GPU_PLAN_MIN_CHUNK ((size_t)1 << 16)

/* The MSM queries of a partition, in the key's order. */
enum gpu_plan_query { GPU_PLAN_H, GPU_PLAN_L, GPU_PLAN_A, GPU_PLAN_B_G1, GPU_PLAN_B_G2, GPU_PLAN_QUERIES };

/* One MSM call's scratch (device and page-locked bytes) for a pass of
 * chunk scalars; 0 or -errno. */
typedef int (*gpu_plan_scratch_fn)(void *ctx, bool g2, size_t n_scalars, size_t n_bases, bool density,
                                   bool scalars_on_device, bool host_bases, size_t chunk, size_t *device_bytes,
                                   size_t *pinned_bytes);

struct gpu_plan_in {
    size_t budget;      /* device bytes the backend may take, beyond what is kept back */
    unsigned workers;   /* lanes on the device */
    size_t n;           /* the domain */
    size_t nv;          /* the witness's values */
    size_t points[GPU_PLAN_QUERIES]; /* points of each query */
    size_t ntt_bytes;   /* the device's twiddle table */
    size_t lane_h_bytes; /* a lane's H workspace (a, b, c, the witness, staging) */
    size_t max_chunk;   /* 0: GPU_PLAN_MAX_CHUNK; the largest pass to consider */
    gpu_plan_scratch_fn scratch;
    void *ctx;
};

/* One MSM of the plan: its scalars and how the pass walks them. */
struct gpu_plan_msm {
    size_t n_scalars, n_bases;
    bool density, scalars_on_device;
    size_t passes;
};

struct gpu_plan {
    bool resident;       /* the key on the device; false: streamed from the host */
    size_t chunk;        /* scalars per MSM pass */
    size_t key_bytes;    /* the key's bytes (on the device when resident) */
    size_t lane_bytes;   /* one lane: H workspace + its G1 and G2 MSM scratch */
    size_t lane_h_bytes, lane_g1_bytes, lane_g2_bytes;
    size_t device_bytes; /* what the device holds: key if resident, twiddles, lanes */
    struct gpu_plan_msm msm[GPU_PLAN_QUERIES];
};

/* The bytes of each query's points (G1 96, G2 192 a point). */
size_t gpu_plan_key_bytes(const size_t points[GPU_PLAN_QUERIES]);

/*
 * The plan for in (*ret), or -ENOMEM with msg (cap bytes) giving the
 * numbers: what the smallest plan needs against the budget, and how many
 * workers would fit. -EINVAL for a bad input; the callback's errors.
 */
int gpu_plan_make(struct gpu_plan *ret, const struct gpu_plan_in *in, char *msg, size_t cap);

#endif
