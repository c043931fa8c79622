/*
 * The MSM entry points of kernels.h (the algorithm: msm_impl.cuh), the pool
 * of reusable MSM workspaces, and the G1 instance; the G2 instance compiles
 * apart in msm_g2.cu.
 */
#include <errno.h>
#include <stdlib.h>

#include <mutex>

#include "kernels/msm_impl.cuh"

/* ---- the workspace pool (msm_impl.cuh) ---------------------------------- */

static std::mutex ws_lock;
static struct msm_ws *ws_idle; /* idle workspaces, any device */
static thread_local struct kernels_msm_profile last_profile;
static thread_local bool have_last_profile;

/* Frees everything of ws on its device (the caller's device is restored). */
static int ws_destroy(struct msm_ws *ws)
{
    int rc = 0, prev = -1, r;
    if (!ws)
        return 0;
    if (cudaGetDevice(&prev) == cudaSuccess && prev != ws->device)
        cudaSetDevice(ws->device);
    if (ws->s0)
        cudaStreamSynchronize(ws->s0);
    if (ws->s1)
        cudaStreamSynchronize(ws->s1);
    cudaEvent_t *evs[] = {&ws->ev_stage[0],   &ws->ev_stage[1],   &ws->ev_bstage[0],
                          &ws->ev_bstage[1],  &ws->ev_bases_in[0], &ws->ev_bases_in[1],
                          &ws->ev_bases_used[0], &ws->ev_bases_used[1]};
    for (cudaEvent_t *e : evs)
        if (*e)
            cudaEventDestroy(*e);
    for (int i = 0; i < MSM_R_COUNT; i++)
        if (ws->ev_r[i])
            cudaEventDestroy(ws->ev_r[i]);
    for (unsigned p = 0; p < ws->ev_passes; p++) {
        for (int i = 0; i < MSM_P_COUNT; i++)
            cudaEventDestroy(ws->ev_p[p][i]);
        cudaEventDestroy(ws->ev_b[p][0]);
        cudaEventDestroy(ws->ev_b[p][1]);
    }
    free(ws->ev_p);
    free(ws->ev_b);
    if (ws->s0)
        cudaStreamDestroy(ws->s0);
    if (ws->s1)
        cudaStreamDestroy(ws->s1);
    struct kbuf *bufs[] = {&ws->sc, &ws->keys[0], &ws->keys[1], &ws->vals[0], &ws->vals[1],
                           &ws->start, &ws->end, &ws->buck, &ws->pbuck, &ws->head, &ws->tail, &ws->seg[0], &ws->seg[1],
                           &ws->ones[0], &ws->ones[1], &ws->fin, &ws->dens, &ws->pref,
                           &ws->bases[0], &ws->bases[1], &ws->tmp, &ws->stage[0], &ws->stage[1],
                           &ws->bstage[0], &ws->bstage[1]};
    for (struct kbuf *b : bufs)
        if ((r = kbuf_free(b)) < 0 && rc == 0)
            rc = r;
    if (prev >= 0 && prev != ws->device)
        cudaSetDevice(prev);
    free(ws);
    return rc;
}

int msm_ws_take(struct msm_ws **ret, size_t point_bytes)
{
    int rc, dev;
    if ((rc = CUDA_CHECK(cudaGetDevice(&dev))) < 0)
        return rc;
    {
        /* one of the same curve: its buffers have that curve's sizes, so
         * the pool holds a G1 and a G2 workspace per concurrent caller
         * (what prover/backend.c budgets), never two grown to the larger
         * sizes of both */
        std::lock_guard<std::mutex> g(ws_lock);
        for (struct msm_ws **pp = &ws_idle; *pp; pp = &(*pp)->next)
            if ((*pp)->device == dev && (*pp)->point_bytes == point_bytes) {
                struct msm_ws *ws = *pp;
                *pp = ws->next;
                ws->next = NULL;
                *ret = ws;
                return 0;
            }
    }
    struct msm_ws *ws = (struct msm_ws *)calloc(1, sizeof *ws);
    if (!ws)
        return -ENOMEM;
    ws->device = dev;
    ws->point_bytes = point_bytes;
    CUDA_TRY(cudaStreamCreateWithFlags(&ws->s0, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&ws->s1, cudaStreamNonBlocking));
    for (int i = 0; i < 2; i++) {
        CUDA_TRY(cudaEventCreateWithFlags(&ws->ev_stage[i], cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&ws->ev_bstage[i], cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&ws->ev_bases_in[i], cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&ws->ev_bases_used[i], cudaEventDisableTiming));
    }
    for (int i = 0; i < MSM_R_COUNT; i++)
        CUDA_TRY(cudaEventCreate(&ws->ev_r[i]));
    *ret = ws;
    return 0;
fail:
    ws_destroy(ws);
    return rc;
}

void msm_ws_give(struct msm_ws *ws, bool healthy)
{
    if (!ws)
        return;
    if (!healthy) {
        ws_destroy(ws);
        return;
    }
    std::lock_guard<std::mutex> g(ws_lock);
    ws->next = ws_idle;
    ws_idle = ws;
}

int msm_ws_reserve(struct kbuf *b, int role, size_t bytes)
{
    int rc;
    if (b->p && b->bytes >= bytes)
        return 0;
    if ((rc = kbuf_free(b)) < 0)
        return rc;
    return kbuf_alloc(b, role, bytes);
}

int msm_ws_events(struct msm_ws *ws, unsigned passes)
{
    int rc = 0;
    if (passes <= ws->ev_passes)
        return 0;
    cudaEvent_t(*p)[MSM_P_COUNT] = (cudaEvent_t(*)[MSM_P_COUNT])realloc(ws->ev_p, passes * sizeof *p);
    if (p)
        ws->ev_p = p;
    cudaEvent_t(*b)[2] = (cudaEvent_t(*)[2])realloc(ws->ev_b, passes * sizeof *b);
    if (b)
        ws->ev_b = b;
    if (!p || !b)
        return -ENOMEM;
    /* ev_passes counts the passes whose events all exist */
    for (; ws->ev_passes < passes; ws->ev_passes++) {
        unsigned q = ws->ev_passes;
        int made = 0;
        for (; made < MSM_P_COUNT + 2; made++) {
            cudaEvent_t *e = made < MSM_P_COUNT ? &ws->ev_p[q][made] : &ws->ev_b[q][made - MSM_P_COUNT];
            if ((rc = CUDA_CHECK(cudaEventCreate(e))) < 0)
                break;
        }
        if (rc < 0) {
            for (int i = 0; i < made; i++)
                cudaEventDestroy(i < MSM_P_COUNT ? ws->ev_p[q][i] : ws->ev_b[q][i - MSM_P_COUNT]);
            return rc;
        }
    }
    return 0;
}

void msm_note_profile(const struct kernels_msm_profile *p)
{
    last_profile = *p;
    have_last_profile = true;
}

int kernels_msm_last_profile(struct kernels_msm_profile *p)
{
    if (!p)
        return -EINVAL;
    if (!have_last_profile)
        return -ENOENT;
    *p = last_profile;
    return 0;
}

int kernels_msm_release(void)
{
    struct msm_ws *list;
    int rc = 0, r;
    {
        std::lock_guard<std::mutex> g(ws_lock);
        list = ws_idle;
        ws_idle = NULL;
    }
    while (list) {
        struct msm_ws *next = list->next;
        if ((r = ws_destroy(list)) < 0 && rc == 0)
            rc = r;
        list = next;
    }
    return rc;
}

/* One shape's scratch reserved in ws (msm_scratch with a workspace). */
template <class F>
static int msm_ws_grow(struct msm_ws *ws, const struct kernels_msm_shape *sh)
{
    struct msm_plan pl;
    int rc = msm_plan_make<F>(&pl, sh->n_scalars, sh->n_bases, sh->has_density != 0, sh->host_bases != 0,
                              sh->scalars_on_device ? MSM_SRC_DEVICE : MSM_SRC_PAGEABLE, 0, sh->chunk, 0);
    if (rc == 0)
        rc = msm_scratch<F>(ws, &pl, NULL, NULL);
    return rc < 0 ? rc : msm_ws_events(ws, (unsigned)pl.passes);
}

int kernels_msm_prepare(enum kernels_curve curve, const struct kernels_msm_shape *shapes, size_t n_shapes,
                        unsigned count)
{
    size_t point_bytes = curve == KERNELS_CURVE_G1   ? sizeof(dev_affine_t<dev_fp_t>)
                         : curve == KERNELS_CURVE_G2 ? sizeof(dev_affine_t<dev_fp2_t>)
                                                     : 0;
    if (!point_bytes || (n_shapes && !shapes) || count > 1024)
        return -EINVAL;
    struct msm_ws **taken = (struct msm_ws **)calloc(count ? count : 1, sizeof *taken);
    if (!taken)
        return -ENOMEM;
    /* all count at once: a workspace given back would be taken again */
    int rc = 0;
    unsigned k = 0;
    for (; k < count && rc == 0; k++) {
        if ((rc = msm_ws_take(&taken[k], point_bytes)) < 0)
            break;
        for (size_t i = 0; i < n_shapes && rc == 0; i++)
            if (shapes[i].n_scalars)
                rc = curve == KERNELS_CURVE_G1 ? msm_ws_grow<dev_fp_t>(taken[k], &shapes[i])
                                               : msm_ws_grow<dev_fp2_t>(taken[k], &shapes[i]);
    }
    for (unsigned i = 0; i < count; i++)
        if (taken[i])
            msm_ws_give(taken[i], rc == 0);
    free(taken);
    return rc;
}

int msm_run_g1(dev_jac_t<dev_fp_t> *ret, const dev_affine_t<dev_fp_t> *host_bases,
               const dev_affine_t<dev_fp_t> *dev_bases, size_t n_bases, const dev_fr_t *scalars, size_t n,
               const uint64_t *density, const struct kernels_msm_opts *opts)
{
    return msm_run<dev_fp_t>(ret, host_bases, dev_bases, n_bases, scalars, n, density, opts);
}

/* ---- API --------------------------------------------------------------- */

static size_t msm_point_bytes(enum kernels_curve curve)
{
    switch (curve) {
    case KERNELS_CURVE_G1:
        return sizeof(dev_affine_t<dev_fp_t>);
    case KERNELS_CURVE_G2:
        return sizeof(dev_affine_t<dev_fp2_t>);
    }
    return 0;
}

size_t kernels_msm_max_chunk(size_t n_scalars)
{
    /* the narrower of G1's and G2's widths: more windows, the smaller pass */
    unsigned c1 = msm_window_for(n_scalars, false), c2 = msm_window_for(n_scalars, true);
    unsigned c = c1 < c2 ? c1 : c2;
    return msm_max_chunk((int)((256 + c - 1) / c));
}

int kernels_msm_scratch_bytes(enum kernels_curve curve, size_t n_scalars, size_t n_bases, int has_density,
                              int scalars_on_device, int host_bases, size_t chunk, size_t *device_bytes,
                              size_t *pinned_bytes)
{
    struct msm_plan pl;
    enum msm_src src = scalars_on_device ? MSM_SRC_DEVICE : MSM_SRC_PAGEABLE;
    int rc;
    if (!device_bytes || !pinned_bytes)
        return -EINVAL;
    *device_bytes = *pinned_bytes = 0;
    if (n_scalars == 0)
        return 0;
    if (curve == KERNELS_CURVE_G1) {
        if ((rc = msm_plan_make<dev_fp_t>(&pl, n_scalars, n_bases, has_density, host_bases, src, 0, chunk, 0)) < 0)
            return rc;
        return msm_scratch<dev_fp_t>(NULL, &pl, device_bytes, pinned_bytes);
    }
    if (curve == KERNELS_CURVE_G2) {
        if ((rc = msm_plan_make<dev_fp2_t>(&pl, n_scalars, n_bases, has_density, host_bases, src, 0, chunk, 0)) < 0)
            return rc;
        return msm_scratch<dev_fp2_t>(NULL, &pl, device_bytes, pinned_bytes);
    }
    return -EINVAL;
}

int kernels_msm(void *ret, enum kernels_curve curve, const void *bases, size_t n_bases, const void *scalars,
                size_t n_scalars, const uint64_t *density, unsigned window)
{
    struct kernels_msm_opts o = {window, 0};
    if (curve == KERNELS_CURVE_G1)
        return msm_run_g1((dev_jac_t<dev_fp_t> *)ret, (const dev_affine_t<dev_fp_t> *)bases, NULL, n_bases,
                          (const dev_fr_t *)scalars, n_scalars, density, &o);
    if (curve == KERNELS_CURVE_G2)
        return msm_run_g2((dev_jac_t<dev_fp2_t> *)ret, (const dev_affine_t<dev_fp2_t> *)bases, NULL, n_bases,
                          (const dev_fr_t *)scalars, n_scalars, density, &o);
    return -EINVAL;
}

int kernels_msm_bases_upload(kernels_msm_bases_t **ret, enum kernels_curve curve, const void *bases, size_t n_bases)
{
    size_t pb = msm_point_bytes(curve);
    kernels_msm_bases_t *h;
    int rc;
    if (!ret || !pb || (n_bases && !bases))
        return -EINVAL;
    h = (kernels_msm_bases_t *)calloc(1, sizeof *h);
    if (!h)
        return -ENOMEM;
    h->curve = curve;
    h->n = n_bases;
    if (n_bases) {
        if ((rc = kbuf_alloc(&h->buf, KERNELS_MEM_PARAMS, n_bases * pb)) < 0)
            goto fail;
        CUDA_TRY(cudaMemcpy(h->buf.p, bases, n_bases * pb, cudaMemcpyHostToDevice));
    }
    *ret = h;
    return 0;
fail:
    kbuf_free(&h->buf);
    free(h);
    return rc;
}

int kernels_msm_bases_host(kernels_msm_bases_t **ret, enum kernels_curve curve, const void *bases, size_t n_bases)
{
    kernels_msm_bases_t *h;
    if (!ret || !msm_point_bytes(curve) || (n_bases && !bases))
        return -EINVAL;
    h = (kernels_msm_bases_t *)calloc(1, sizeof *h);
    if (!h)
        return -ENOMEM;
    h->curve = curve;
    h->n = n_bases;
    h->host = bases;
    *ret = h;
    return 0;
}

void kernels_msm_bases_free(kernels_msm_bases_t *h)
{
    if (!h)
        return;
    kbuf_free(&h->buf);
    free(h);
}

int kernels_msm_run(void *ret, const kernels_msm_bases_t *h, const void *scalars, size_t n_scalars,
                    const uint64_t *density, const struct kernels_msm_opts *opts)
{
    if (!h)
        return -EINVAL;
    if (h->curve == KERNELS_CURVE_G1)
        return msm_run_g1((dev_jac_t<dev_fp_t> *)ret, (const dev_affine_t<dev_fp_t> *)h->host,
                          h->host ? NULL : (const dev_affine_t<dev_fp_t> *)h->buf.p, h->n,
                          (const dev_fr_t *)scalars, n_scalars, density, opts);
    if (h->curve == KERNELS_CURVE_G2)
        return msm_run_g2((dev_jac_t<dev_fp2_t> *)ret, (const dev_affine_t<dev_fp2_t> *)h->host,
                          h->host ? NULL : (const dev_affine_t<dev_fp2_t> *)h->buf.p, h->n,
                          (const dev_fr_t *)scalars, n_scalars, density, opts);
    return -EINVAL;
}

int kernels_msm_resident(void *ret, const kernels_msm_bases_t *h, const void *scalars, size_t n_scalars,
                         const uint64_t *density, unsigned window)
{
    struct kernels_msm_opts o = {window, 0};
    return kernels_msm_run(ret, h, scalars, n_scalars, density, &o);
}
