/*
 * Where the heavy stages of a proof run: the quotient H (NTTs) and the
 * MSMs, on the CPU (prover/ntt.c, prover/msm.c) or on GPUs (kernels/).
 *
 * A GPU backend spans one or more devices. On each it uploads the proving
 * key's query points once and keeps them there (the H200 holds a whole
 * production parameter set) when they fit its budget (gpu_mem), else the
 * MSMs stream them from the host copy pass by pass, as production provers
 * do on 16-24 GiB cards (prover/gpu_plan.h); it reports every device
 * allocation to the tracked-buffer API (gpu_* kinds). Its work is divided into lanes,
 * `workers` per device: a lane is one prover worker's share of a device,
 * with its own streams, its own workspace (a, b, c, h and the witness on the
 * device, page-locked staging) and its own MSM workspaces, so lanes share no lock
 * and their proofs overlap on the device. The device memory the lanes will
 * take is budgeted when the backend is made: workers that do not fit beside
 * the key are refused then, with the numbers, rather than failing a proof
 * later. Lane l runs on device l % n_devices, so consecutive workers go to
 * different devices. A NULL backend is the CPU (lanes are then ignored).
 *
 * A lane runs one proof at a time: H and the four G1 MSMs of a proof on
 * its worker's thread, while the b_g2 MSMs of its proofs run one at a time
 * on their own stream beside them.
 */
#ifndef ZKB_BACKEND_H
#define ZKB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "prover/msm.h"
#include "prover/ntt.h"
#include "prover/params.h"

/* The proving-key queries an MSM runs over. */
enum backend_query { BACKEND_H, BACKEND_L, BACKEND_A, BACKEND_B_G1, BACKEND_B_G2 };

typedef struct backend backend_t;

#define BACKEND_MAX_DEVICES 16

struct backend_gpu_config {
    const int *devices;  /* CUDA ordinals, n_devices (1 .. BACKEND_MAX_DEVICES) of them, distinct */
    unsigned n_devices;
    unsigned workers;    /* lanes per device, >= 1 */
    /* device memory the backend may take on each device (--gpu-mem): 0 =
     * what the device has free; more than it has free is refused */
    size_t gpu_mem;
};

/* What one device holds, as planned (bytes; prover/gpu_plan.h). */
struct backend_device_info {
    int device;
    bool key_resident;       /* the query points on the device; false: streamed from the host copy */
    size_t key_bytes;        /* the query points' bytes (on the device when resident) */
    size_t budget;           /* what the backend may take there */
    size_t ntt_bytes;        /* the twiddle table */
    size_t chunk;            /* scalars per MSM pass */
    size_t lane_bytes;       /* device memory one lane takes at most */
    size_t lane_h_bytes;     /* of it: the H workspace */
    size_t lane_msm_bytes;   /* of it: the G1 and G2 MSM workspaces */
};

/* The device's own time of a lane's last stage of each kind (CUDA events,
 * ms): H (uploads and transforms), and each query's MSM. */
enum backend_stage { BACKEND_STAGE_H, BACKEND_STAGE_MSM_H, BACKEND_STAGE_MSM_L, BACKEND_STAGE_MSM_A,
                     BACKEND_STAGE_MSM_B_G1, BACKEND_STAGE_MSM_B_G2,
                     BACKEND_STAGE_H_UPLOAD, /* of H: until a, b and c are on the device */
                     BACKEND_STAGES };
/* 0 on the CPU or before the stage ran on that lane. */
double backend_device_ms(const backend_t *be, unsigned lane, enum backend_stage stage);

/*
 * A GPU backend for the key pk (borrowed: must outlive it) on cfg's
 * devices. -ENODEV without a usable GPU (or in a build without CUDA) or for
 * a device that does not exist, -ENOMEM when the key or the lanes do not
 * fit a device, -EINVAL for a bad configuration; msg (cap bytes) then says
 * which device and why (the CUDA call that failed, or the budget's numbers
 * and how many workers would fit).
 */
int backend_gpu_new_cfg(backend_t **ret, const groth16_params_t *pk, const struct backend_gpu_config *cfg,
                        char *msg, size_t cap);
/* One lane on one device. */
int backend_gpu_new(backend_t **ret, const groth16_params_t *pk, int device, char *msg, size_t cap);
/* NULL is accepted. */
void backend_free(backend_t *be);

/* Page-locks host memory the backend's devices will copy from (a
 * partition's a, b, c while they are computed), so uploads run straight
 * from it at the bus's speed instead of through staging copies on host
 * threads: 0 when pinned; -ENOTSUP on the CPU (be NULL) and unless
 * ZKBENCH_H_UPLOAD=pinned (an experiment until measured), or the driver's
 * error (the memory then stays pageable and is uploaded as before). The
 * memory must be unpinned (backend_host_unpin) before it is freed. */
int backend_host_pin(const backend_t *be, void *p, size_t bytes);
/* Undoes backend_host_pin; p as pinned. */
void backend_host_unpin(void *p);

/* Holds the lane's G1 (with g2, its G2) lock across several calls, so a
 * stage's use of the device begins when this returns: the wait for the
 * lane (behind another proof's call on it) is known apart from the work.
 * The calls on that lane made meanwhile by the same thread take the lock
 * again, recursively; backend_lane_drop releases it. A no-op on the CPU
 * (be NULL). 0, or the error making the lane's device current. */
int backend_lane_hold(const backend_t *be, unsigned lane, bool g2);
void backend_lane_drop(const backend_t *be, unsigned lane, bool g2);

/* Lanes: n_devices x workers (1 for the CPU). */
unsigned backend_lanes(const backend_t *be);
/* Devices spanned, and what the i-th holds (0 .. n-1); -EINVAL past the end. */
unsigned backend_devices(const backend_t *be);
int backend_device_info(const backend_t *be, unsigned i, struct backend_device_info *info);

/*
 * The quotient h from the evaluations a, b, c over the domain, on lane
 * (taken modulo the lanes). The CPU computes h in place in a (b and c are
 * consumed: their contents are undefined afterwards). A GPU keeps h on
 * the lane's device for backend_msm_h and leaves a, b, c unchanged: they
 * may be freed as soon as this returns.
 */
int backend_compute_h(const backend_t *be, unsigned lane, fr_t *a, fr_t *b, fr_t *c, const ntt_domain_t *d,
                      unsigned threads);
/* sum h_i * H query for the lane's last backend_compute_h: h is the CPU's
 * result (n of them); a GPU ignores it and uses the h on its device. */
int backend_msm_h(const backend_t *be, unsigned lane, g1_jac_t *ret, const groth16_params_t *pk, const fr_t *h,
                  size_t n, const struct msm_opts *o);
/* Where the G1 MSMs of a proof read its witness w (nv values) from: the
 * CPU's w itself, or on a GPU a copy in the lane's device memory, made
 * once for the three MSMs over it (valid until the lane's next call of
 * this). Pass *ret (and offsets into it) as their scalars. */
int backend_witness(const backend_t *be, unsigned lane, const fr_t *w, size_t nv, const fr_t **ret);
/* sum scalars[i] * query point, density as msm_g1 (NULL: dense); scalars
 * in host memory, or from backend_witness. */
int backend_msm_g1(const backend_t *be, unsigned lane, g1_jac_t *ret, enum backend_query q,
                   const groth16_params_t *pk, const fr_t *scalars, size_t n_scalars, const uint64_t *density,
                   const struct msm_opts *o);
int backend_msm_g2(const backend_t *be, unsigned lane, g2_jac_t *ret, const groth16_params_t *pk,
                   const fr_t *scalars, size_t n_scalars, const uint64_t *density, const struct msm_opts *o);

#endif
