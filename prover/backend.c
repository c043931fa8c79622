/* CPU and GPU backends for the heavy stages; see backend.h. */
#include "prover/backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "prover/backend_lane.h"
#include "prover/gpu_plan.h"
#include "prover/mem.h"

/* Device memory left unbudgeted on each device: the CUDA context's own
 * work memory, cub's launch scratch, allocator granularity. */
#define BACKEND_DEVICE_RESERVE ((size_t)512 << 20)

struct backend_dev {
    struct backend_device_info info;
    kernels_msm_bases_t *bases[5]; /* by enum backend_query */
};

struct lane {
    struct backend_dev *dev;
    kernels_prove_ws_t *ws;
    const void *d_h;       /* the last compute_h's h, on the device; NULL before */
    /* recursive: a stage holds its lane (backend_lane_hold) across the
     * calls it makes */
    pthread_mutex_t g1;    /* H and the G1 MSMs: one caller at a time */
    pthread_mutex_t g2;    /* the b_g2 MSMs: one at a time, so one G2 MSM workspace */
    bool locks_ready;
    double device_ms[BACKEND_STAGES]; /* each stage's last device time (under its lock) */
};

struct backend {
    unsigned n_devs, n_lanes;
    size_t n;              /* the domain: the lanes' workspaces are for it */
    size_t nv;             /* the witness's values */
    struct backend_dev *devs;
    struct lane *lanes;
    bool global_lock;      /* ZKBENCH_LANE_LOCK=global: every lane takes global_lane_lock */
};

/* ZKBENCH_LANE_LOCK=global makes every call of every lane, G1 and G2, take
 * this one lock, as a backend that runs one device call at a time would:
 * the switch shows that the overlap check (tests/gpu/test_gpu_batch.sh)
 * fails on such a build. */
static pthread_mutex_t global_lane_lock;
static pthread_once_t global_lane_once = PTHREAD_ONCE_INIT;

static void recursive_mutex_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

static void global_lane_lock_init(void)
{
    recursive_mutex_init(&global_lane_lock);
}

/* Device allocations become tracked buffers of the gpu_* kinds. */
static void track_device_alloc(void *ctx, int role, int device, size_t bytes, int is_free, uint64_t *id)
{
    (void)ctx;
    enum mem_kind kind;
    switch (role) {
    case KERNELS_MEM_PARAMS: kind = MEM_KIND_GPU_PARAMS; break;
    case KERNELS_MEM_ABC: kind = MEM_KIND_GPU_ABC; break;
    case KERNELS_MEM_NTT: kind = MEM_KIND_GPU_NTT; break;
    case KERNELS_MEM_H: kind = MEM_KIND_GPU_H; break;
    case KERNELS_MEM_MSM: kind = MEM_KIND_GPU_MSM; break;
    case KERNELS_MEM_PINNED: kind = MEM_KIND_PINNED; break;
    default: kind = MEM_KIND_GPU_OTHER; break;
    }
    int dev = device < 0 ? MEM_HOST : device;
    if (is_free)
        mem_note_free(*id, kind, dev, -1, -1, bytes);
    else
        *id = mem_note_alloc(kind, dev, -1, -1, bytes);
}

void backend_free(backend_t *be)
{
    if (!be)
        return;
    for (unsigned i = 0; be->lanes && i < be->n_lanes; i++) {
        struct lane *l = &be->lanes[i];
        if (l->dev)
            kernels_set_device(l->dev->info.device);
        kernels_prove_ws_free(l->ws);
        if (l->locks_ready) {
            pthread_mutex_destroy(&l->g1);
            pthread_mutex_destroy(&l->g2);
        }
    }
    /* the kernels' caches: MSM workspaces (every device's) and each
     * device's NTT twiddles */
    kernels_msm_release();
    for (unsigned d = 0; be->devs && d < be->n_devs; d++) {
        if (kernels_set_device(be->devs[d].info.device) < 0)
            continue;
        for (int q = 0; q < 5; q++)
            kernels_msm_bases_free(be->devs[d].bases[q]);
        kernels_ntt_release();
    }
    free(be->lanes);
    free(be->devs);
    free(be);
}

static double gib(size_t b)
{
    return (double)b / (double)(1u << 30);
}

/* kernels_msm_scratch_bytes as the planner asks for it. */
static int plan_scratch(void *ctx, bool g2, size_t n_scalars, size_t n_bases, bool density, bool on_device,
                        bool host_bases, size_t chunk, size_t *device_bytes, size_t *pinned_bytes)
{
    (void)ctx;
    return kernels_msm_scratch_bytes(g2 ? KERNELS_CURVE_G2 : KERNELS_CURVE_G1, n_scalars, n_bases, density,
                                     on_device, host_bases, chunk, device_bytes, pinned_bytes);
}

/* Plans one device (gpu_plan.h), then uploads the key or keeps it on the
 * host for streaming, and builds the twiddles. */
static int device_open(struct backend_dev *dv, const groth16_params_t *pk, size_t n, size_t nv, unsigned workers,
                       size_t gpu_mem, char *msg, size_t cap)
{
    const void *pts[5] = {pk->h, pk->l, pk->a, pk->b_g1, pk->b_g2};
    const size_t cnt[5] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2};
    int device = dv->info.device, rc;
    size_t free_b = 0, total = 0, pinned;
    if ((rc = kernels_set_device(device)) < 0 || (rc = kernels_device_mem(device, &free_b, &total)) < 0) {
        snprintf(msg, cap, "GPU %d: %s", device, kernels_last_error());
        return rc;
    }
    size_t avail = free_b > BACKEND_DEVICE_RESERVE ? free_b - BACKEND_DEVICE_RESERVE : 0;
    if (gpu_mem > avail) {
        snprintf(msg, cap, "GPU %d: --gpu-mem %.2f GiB, but %.2f GiB is free (less %.2f GiB kept back: %.2f GiB)",
                 device, gib(gpu_mem), gib(free_b), gib(BACKEND_DEVICE_RESERVE), gib(avail));
        return -ENOMEM;
    }
    struct gpu_plan_in in = {
        .budget = gpu_mem ? gpu_mem : avail, .workers = workers, .n = n, .nv = nv,
        .points = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2}, .ntt_bytes = n * sizeof(fr_t),
        .scratch = plan_scratch,
    };
    kernels_prove_ws_bytes(n, nv, &in.lane_h_bytes, &pinned);
    struct gpu_plan plan;
    char why[512];
    if ((rc = gpu_plan_make(&plan, &in, why, sizeof why)) < 0) {
        if (rc == -ENOMEM)
            snprintf(msg, cap, "GPU %d: %s", device, why);
        else
            snprintf(msg, cap, "GPU %d: sizing the prover's workspaces failed: %s", device,
                     rc == -EOVERFLOW ? "the circuit is too large for the GPU MSM" : kernels_last_error());
        return rc;
    }
    dv->info.key_resident = plan.resident;
    dv->info.key_bytes = plan.key_bytes;
    dv->info.budget = in.budget;
    dv->info.ntt_bytes = in.ntt_bytes;
    dv->info.chunk = plan.chunk;
    dv->info.lane_h_bytes = plan.lane_h_bytes;
    dv->info.lane_msm_bytes = plan.lane_g1_bytes + plan.lane_g2_bytes;
    dv->info.lane_bytes = plan.lane_bytes;
    for (int q = 0; q < 5; q++) {
        enum kernels_curve curve = q == BACKEND_B_G2 ? KERNELS_CURVE_G2 : KERNELS_CURVE_G1;
        rc = plan.resident ? kernels_msm_bases_upload(&dv->bases[q], curve, pts[q], cnt[q])
                           : kernels_msm_bases_host(&dv->bases[q], curve, pts[q], cnt[q]);
        if (rc < 0) {
            snprintf(msg, cap, "uploading the proving key to GPU %d failed: %s", device, kernels_last_error());
            return rc;
        }
    }
    /* the twiddles of the domain now: building them later would
     * synchronize the device under running lanes */
    if ((rc = kernels_ntt_prepare((unsigned)__builtin_ctzll(n))) < 0) {
        snprintf(msg, cap, "GPU %d: %s", device, kernels_last_error());
        return rc;
    }
    return 0;
}

/* Each of the device's lanes finds its G1 and G2 MSM workspaces grown to
 * the calls a partition makes (kernels_msm_prepare), before the first
 * partition: grown in it, they would free and allocate under the other
 * lanes' work. The scalars' places are the prover's: H and the witness on
 * the device, b_g2's selected witness values in pageable host memory. */
static int device_prepare_msm(const struct backend_dev *dv, const groth16_params_t *pk, size_t n, size_t nv,
                              unsigned workers, char *msg, size_t cap)
{
    int host = !dv->info.key_resident;
    size_t k = dv->info.chunk;
    const struct kernels_msm_shape g1[4] = {{n - 1, pk->n_h, 0, 1, host, k},
                                            {pk->n_l, pk->n_l, 0, 1, host, k},
                                            {nv, pk->n_a, 1, 1, host, k},
                                            {nv, pk->n_b_g1, 1, 1, host, k}};
    const struct kernels_msm_shape g2 = {pk->n_b_g2, pk->n_b_g2, 0, 0, host, k};
    int rc;
    if ((rc = kernels_set_device(dv->info.device)) < 0 ||
        (rc = kernels_msm_prepare(KERNELS_CURVE_G1, g1, 4, workers)) < 0 ||
        (rc = kernels_msm_prepare(KERNELS_CURVE_G2, &g2, 1, workers)) < 0)
        snprintf(msg, cap, "GPU %d: the MSM workspaces of %u prover worker%s: %s", dv->info.device, workers,
                 workers == 1 ? "" : "s", rc == -ENOMEM ? "out of memory" : kernels_last_error());
    return rc;
}

int backend_gpu_new_cfg(backend_t **ret, const groth16_params_t *pk, const struct backend_gpu_config *cfg,
                        char *msg, size_t cap)
{
    int count = 0, rc;
    size_t n = pk->n_h + 1;
    if (!cfg || !cfg->devices || cfg->n_devices == 0 || cfg->n_devices > BACKEND_MAX_DEVICES || cfg->workers == 0 ||
        cfg->workers > 1024 || (n & (n - 1)) != 0) {
        snprintf(msg, cap, "bad GPU backend configuration");
        return -EINVAL;
    }
    if (kernels_device_count(&count) != 0 || count == 0) {
        snprintf(msg, cap, "no CUDA device (%s)", kernels_last_error());
        return -ENODEV;
    }
    for (unsigned i = 0; i < cfg->n_devices; i++) {
        if (cfg->devices[i] < 0 || cfg->devices[i] >= count) {
            snprintf(msg, cap, "no CUDA device %d (%d present: 0 to %d)", cfg->devices[i], count, count - 1);
            return -ENODEV;
        }
        for (unsigned j = 0; j < i; j++)
            if (cfg->devices[j] == cfg->devices[i]) {
                snprintf(msg, cap, "CUDA device %d is named twice", cfg->devices[i]);
                return -EINVAL;
            }
    }
    backend_t *be = calloc(1, sizeof *be);
    if (!be)
        return -ENOMEM;
    be->n = n;
    be->nv = pk->vk.n_ic + pk->n_l;
    be->n_devs = cfg->n_devices;
    be->n_lanes = cfg->n_devices * cfg->workers;
    const char *lock = getenv("ZKBENCH_LANE_LOCK");
    if (lock && strcmp(lock, "global") == 0) {
        pthread_once(&global_lane_once, global_lane_lock_init);
        be->global_lock = true;
    }
    be->devs = calloc(be->n_devs, sizeof *be->devs);
    be->lanes = calloc(be->n_lanes, sizeof *be->lanes);
    if (!be->devs || !be->lanes) {
        backend_free(be);
        return -ENOMEM;
    }
    kernels_set_alloc_hook(track_device_alloc, NULL);
    for (unsigned d = 0; d < be->n_devs; d++) {
        be->devs[d].info.device = cfg->devices[d];
        if ((rc = device_open(&be->devs[d], pk, n, be->nv, cfg->workers, cfg->gpu_mem, msg, cap)) < 0) {
            backend_free(be);
            return rc;
        }
    }
    for (unsigned i = 0; i < be->n_lanes; i++) {
        struct lane *l = &be->lanes[i];
        l->dev = &be->devs[backend_lane_device(i, be->n_devs)];
        recursive_mutex_init(&l->g1);
        recursive_mutex_init(&l->g2);
        l->locks_ready = true;
        if ((rc = kernels_set_device(l->dev->info.device)) < 0 || (rc = kernels_prove_ws_new(&l->ws, n, be->nv)) < 0) {
            snprintf(msg, cap, "GPU %d: the workspace of prover worker %u: %s", l->dev->info.device, i,
                     kernels_last_error());
            backend_free(be);
            return rc;
        }
    }
    for (unsigned d = 0; d < be->n_devs; d++)
        if ((rc = device_prepare_msm(&be->devs[d], pk, n, be->nv, cfg->workers, msg, cap)) < 0) {
            backend_free(be);
            return rc;
        }
    *ret = be;
    return 0;
}

int backend_gpu_new(backend_t **ret, const groth16_params_t *pk, int device, char *msg, size_t cap)
{
    struct backend_gpu_config cfg = {.devices = &device, .n_devices = 1, .workers = 1};
    return backend_gpu_new_cfg(ret, pk, &cfg, msg, cap);
}

int backend_host_pin(const backend_t *be, void *p, size_t bytes)
{
    /* an experiment until the H200 measures it against the staged uploads
     * (today's default, measured in results/h200/porep-32g.md) */
    const char *up = getenv("ZKBENCH_H_UPLOAD");
    if (!be || !up || strcmp(up, "pinned") != 0)
        return -ENOTSUP;
    /* registration belongs to the process, not a device: any of them will do */
    int rc = kernels_set_device(be->devs[0].info.device);
    return rc < 0 ? rc : kernels_host_register(p, bytes);
}

void backend_host_unpin(void *p)
{
    kernels_host_unregister(p);
}

unsigned backend_lanes(const backend_t *be)
{
    return be ? be->n_lanes : 1;
}

unsigned backend_devices(const backend_t *be)
{
    return be ? be->n_devs : 0;
}

int backend_device_info(const backend_t *be, unsigned i, struct backend_device_info *info)
{
    if (!be || i >= be->n_devs)
        return -EINVAL;
    *info = be->devs[i].info;
    return 0;
}

static pthread_mutex_t *lane_lock(const backend_t *be, struct lane *l, bool g2)
{
    return be->global_lock ? &global_lane_lock : g2 ? &l->g2 : &l->g1;
}

/* The lane, its device made the calling thread's current one and its G1
 * (or, with g2, its G2) lock held: lane_give releases it. */
static int lane_take(const backend_t *be, unsigned lane, bool g2, struct lane **ret)
{
    struct lane *l = &be->lanes[lane % be->n_lanes];
    int rc = kernels_set_device(l->dev->info.device);
    if (rc < 0)
        return rc;
    pthread_mutex_lock(lane_lock(be, l, g2));
    *ret = l;
    return 0;
}

static void lane_give(const backend_t *be, struct lane *l, bool g2)
{
    pthread_mutex_unlock(lane_lock(be, l, g2));
}

int backend_lane_hold(const backend_t *be, unsigned lane, bool g2)
{
    struct lane *l;
    return be ? lane_take(be, lane, g2, &l) : 0;
}

void backend_lane_drop(const backend_t *be, unsigned lane, bool g2)
{
    if (be)
        lane_give(be, &be->lanes[lane % be->n_lanes], g2);
}

/* One MSM over query q's bases with the plan's passes, its device time
 * kept (under the lane's lock of that query). */
static int lane_msm(struct lane *l, enum backend_query q, void *ret, const void *scalars, size_t n,
                    const uint64_t *density, const struct msm_opts *o)
{
    struct kernels_msm_opts ko = {o->window, l->dev->info.chunk};
    int rc = kernels_msm_run(ret, l->dev->bases[q], scalars, n, density, &ko);
    struct kernels_msm_profile prof;
    if (rc == 0 && kernels_msm_last_profile(&prof) == 0)
        l->device_ms[BACKEND_STAGE_MSM_H + q] = prof.device_ms;
    return rc;
}

double backend_device_ms(const backend_t *be, unsigned lane, enum backend_stage stage)
{
    if (!be || (unsigned)stage >= BACKEND_STAGES)
        return 0;
    return be->lanes[lane % be->n_lanes].device_ms[stage];
}

int backend_compute_h(const backend_t *be, unsigned lane, fr_t *a, fr_t *b, fr_t *c, const ntt_domain_t *d,
                      unsigned threads)
{
    if (be) {
        struct lane *l;
        int rc;
        if (d->n != be->n)
            return -EINVAL;
        if ((rc = lane_take(be, lane, false, &l)) < 0)
            return rc;
        l->d_h = NULL;
        rc = kernels_prove_ws_h(l->ws, a, b, c, &l->d_h);
        struct kernels_h_profile hp;
        if (rc == 0 && kernels_prove_ws_last_profile(l->ws, &hp) == 0) {
            l->device_ms[BACKEND_STAGE_H] = hp.total_ms;
            l->device_ms[BACKEND_STAGE_H_UPLOAD] = hp.upload_ms;
        }
        lane_give(be, l, false);
        return rc;
    }
    int rc;
    if ((rc = ntt_inverse(d, a, threads)) < 0 || (rc = ntt_coset_forward(d, a, threads)) < 0 ||
        (rc = ntt_inverse(d, b, threads)) < 0 || (rc = ntt_coset_forward(d, b, threads)) < 0 ||
        (rc = ntt_pointwise_mul_sub(a, b, NULL, NULL, d->n, threads)) < 0 ||
        (rc = ntt_inverse(d, c, threads)) < 0 || (rc = ntt_coset_forward(d, c, threads)) < 0 ||
        (rc = ntt_pointwise_mul_sub(a, NULL, c, &d->z_coset_inv, d->n, threads)) < 0)
        return rc;
    return ntt_coset_inverse(d, a, threads);
}

int backend_msm_h(const backend_t *be, unsigned lane, g1_jac_t *ret, const groth16_params_t *pk, const fr_t *h,
                  size_t n, const struct msm_opts *o)
{
    if (be) {
        struct lane *l;
        int rc;
        if ((rc = lane_take(be, lane, false, &l)) < 0)
            return rc;
        rc = l->d_h && n < be->n ? lane_msm(l, BACKEND_H, ret, l->d_h, n, NULL, o) : -EINVAL;
        lane_give(be, l, false);
        return rc;
    }
    return msm_g1(ret, pk->h, pk->n_h, h, n, NULL, o);
}

int backend_witness(const backend_t *be, unsigned lane, const fr_t *w, size_t nv, const fr_t **ret)
{
    if (be) {
        struct lane *l;
        const void *d_w = NULL;
        int rc;
        if ((rc = lane_take(be, lane, false, &l)) < 0)
            return rc;
        rc = kernels_prove_ws_witness(l->ws, w, nv, &d_w);
        lane_give(be, l, false);
        if (rc == 0)
            *ret = d_w;
        return rc;
    }
    *ret = w;
    return 0;
}

int backend_msm_g1(const backend_t *be, unsigned lane, g1_jac_t *ret, enum backend_query q,
                   const groth16_params_t *pk, const fr_t *scalars, size_t n_scalars, const uint64_t *density,
                   const struct msm_opts *o)
{
    if ((unsigned)q > BACKEND_B_G1)
        return -EINVAL;
    if (be) {
        struct lane *l;
        int rc;
        if ((rc = lane_take(be, lane, false, &l)) < 0)
            return rc;
        rc = lane_msm(l, q, ret, scalars, n_scalars, density, o);
        lane_give(be, l, false);
        return rc;
    }
    const g1_affine_t *bases[4] = {pk->h, pk->l, pk->a, pk->b_g1};
    const size_t cnt[4] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1};
    return msm_g1(ret, bases[q], cnt[q], scalars, n_scalars, density, o);
}

int backend_msm_g2(const backend_t *be, unsigned lane, g2_jac_t *ret, const groth16_params_t *pk,
                   const fr_t *scalars, size_t n_scalars, const uint64_t *density, const struct msm_opts *o)
{
    if (be) {
        struct lane *l;
        int rc;
        if ((rc = lane_take(be, lane, true, &l)) < 0)
            return rc;
        rc = lane_msm(l, BACKEND_B_G2, ret, scalars, n_scalars, density, o);
        lane_give(be, l, true);
        return rc;
    }
    return msm_g2(ret, pk->b_g2, pk->n_b_g2, scalars, n_scalars, density, o);
}
