/*
 * Multi-scalar multiplication on the GPU, G1 and G2 (one template over the
 * coordinate field): ret = sum_i s_i P_i with the semantics of msm_g1 /
 * msm_g2 (prover/msm.h), density bitmaps included.
 *
 * Pippenger's bucket method with signed digits, over the scalars in passes
 * of `chunk` scalars (all of them when they fit one pass): a pass's digits
 * are sorted and summed into the call's buckets, which outlive the passes,
 * so a pass's scratch is sized to the chunk, not to n, and a pass never
 * sorts 2^31 pairs or more (cub's counts are 32-bit):
 *  1. digits: each scalar (from Montgomery form) is cut into nw = ceil(256/c)
 *     signed c-bit digits in [-2^(c-1), 2^(c-1)]; each nonzero digit d of
 *     window w becomes a pair (key = w 2^(c-1) + |d| - 1, value = the index
 *     of its base in the pass's bases, with the sign in bit 31). Scalars 0
 *     give no pair; scalars 1 give one pair with the key ONE, summed apart
 *     (witnesses are full of bits, and one bucket holding all of them would
 *     serialize on one thread).
 *  2. sort: cub::DeviceRadixSort orders the pairs by key, so each bucket's
 *     points are contiguous; a boundary pass finds each bucket's range.
 *  3. buckets: the sorted pairs of real buckets are cut into equal chunks,
 *     one per thread; a thread sums each run of one bucket in its chunk
 *     (XYZZ, mixed adds) and adds a run that is the whole bucket straight
 *     to it; a bucket that crosses chunks is put together from the pieces
 *     by the thread whose chunk it starts in (segmented combine). A bucket
 *     of 17,000 points then costs what 17,000 points spread over many
 *     buckets cost, where one thread per bucket summed it alone (witness
 *     scalars repeat values: 4-7x slower than random).
 *  4. windows, once after the last pass: segments of 8 buckets are reduced
 *     with running sums (sum_j (j+1) B_j) in parallel, then summed in groups
 *     of 8 until at most 16 are left per window. The reduction is
 *     latency-bound (one thread's chain of dependent additions, about 35 us
 *     each on the H200 for G1), so it keeps every chain short: segments and
 *     groups of 32 and a one-thread Horner on the device were a fixed 17 ms
 *     for G1 and 50 ms for G2 at every size.
 *  5. final, on the host (the prover's CPU curve code, a microsecond an
 *     addition): each window's last sums, Horner over the windows (c
 *     doublings each), plus the ones.
 * Bases are resident on the device, or in host memory (the proving key
 * when it does not fit the device): then each pass's bases travel to one
 * of two device buffers through page-locked staging on a second stream
 * while the device works on the pass before. Page-locked scalars are
 * copied on the second stream while the digits of the previous piece are
 * computed; pageable ones go through page-locked staging buffers, filled
 * by several host threads. Scratch memory comes from a pool of reusable
 * workspaces (struct msm_ws), and each call's phases are timed with CUDA
 * events (kernels_msm_last_profile).
 */
#ifndef ZKB_KERNELS_MSM_IMPL_CUH
#define ZKB_KERNELS_MSM_IMPL_CUH

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cub/cub.cuh>

#include "kernels/alloc.cuh"
#include "kernels/cuda_check.cuh"
#include "kernels/curve.cuh"
#include "kernels/host_copy.cuh"
#include "kernels/kernels.h"
#include "kernels/msm_kernels.cuh"
#include "kernels/msm_passes.h"

#include "kernels/msm_final.h"

#define MSM_SEG 8             /* buckets per segment of the window reduction */
#define MSM_GROUP 8           /* points per thread in the group sums */
#define MSM_HOST_SUMS 16      /* sums per window left to the host */
/* Threads summing the points of scalars 1, and the partial sums left for
 * the host. A porep witness is mostly bits: at 2^24 half its scalars are 1,
 * and 1024 threads made 8192 additions each, one after the other: 297 ms
 * of buckets where random scalars took 208 (H200, 2026-12-03,
 * results/h200/msm-witness.md). */
#define MSM_ONES_THREADS 32768
#define MSM_ONES_HOST 64
static_assert(MSM_ONES_THREADS == MSM_ONES_HOST * MSM_GROUP * MSM_GROUP * MSM_GROUP,
              "the ones' group sums end at MSM_ONES_HOST");
#define MSM_CHUNK ((size_t)1 << 20) /* scalars per staging copy (32 MiB) */
#define MSM_BASE_PIECE ((size_t)32 << 20) /* bytes of host bases per staging copy */
#define MSM_MAX_ITEMS 0x7fffffffu /* pairs one pass may sort (cub's int count) */
#define MSM_MAX_PASSES 4096

/* Bases kept on the device (buf) or borrowed from host memory (host). */
struct kernels_msm_bases {
    enum kernels_curve curve;
    size_t n;
    struct kbuf buf;
    const void *host;
};

/* ---- host side --------------------------------------------------------- */

static inline unsigned blocks_for(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    return b ? (unsigned)b : 1;
}

/* Step 5 runs on the host (msm_final.c) on points of the device's layout. */
static_assert(sizeof(dev_xyzz_t<dev_fp_t>) == 4 * BLS12_381_FP_BYTES, "G1 XYZZ layout");
static_assert(sizeof(dev_xyzz_t<dev_fp2_t>) == 8 * BLS12_381_FP_BYTES, "G2 XYZZ layout");
static_assert(sizeof(dev_jac_t<dev_fp_t>) == 3 * BLS12_381_FP_BYTES, "G1 Jacobian layout");
static_assert(sizeof(dev_jac_t<dev_fp2_t>) == 6 * BLS12_381_FP_BYTES, "G2 Jacobian layout");

static inline void msm_host_final(dev_jac_t<dev_fp_t> *ret, const dev_xyzz_t<dev_fp_t> *sums, int nw, uint32_t m,
                                  const dev_xyzz_t<dev_fp_t> *ones, uint32_t k, int c)
{
    msm_final_g1(ret, sums, nw, m, ones, k, c);
}
static inline void msm_host_final(dev_jac_t<dev_fp2_t> *ret, const dev_xyzz_t<dev_fp2_t> *sums, int nw, uint32_t m,
                                  const dev_xyzz_t<dev_fp2_t> *ones, uint32_t k, int c)
{
    msm_final_g2(ret, sums, nw, m, ones, k, c);
}

/* ---- the workspace --------------------------------------------------- */

/* Everything one MSM call needs besides its inputs: device scratch, the
 * page-locked staging buffers, streams and events. Workspaces are kept in a
 * pool per process (msm.cu) and reused, so a prover's MSMs of the same sizes
 * allocate nothing after the first: cudaMalloc, cudaFree and cudaHostAlloc
 * synchronize or are slow, and a Groth16 proof makes five MSMs a partition.
 * Buffers grow to the largest call seen; kernels_msm_release frees them. */
enum msm_phase {
    MSM_P_START,   /* a pass starts */
    MSM_P_DIGITS,  /* its scalars copied in, digits written */
    MSM_P_SORT,    /* sorted, bucket bounds found */
    MSM_P_BUCKETS, /* its bases in, buckets and ones summed */
    MSM_P_COUNT
};
enum msm_reduce_phase {
    MSM_R_START,    /* the reduction starts (after the last pass) */
    MSM_R_SEGMENTS, /* segments summed */
    MSM_R_GROUPS,   /* windows and ones summed */
    MSM_R_END,      /* their last sums copied out */
    MSM_R_COUNT
};

struct msm_ws {
    struct msm_ws *next; /* in the pool's idle list */
    int device;
    size_t point_bytes;  /* the curve it serves: affine point bytes (G1 or G2) */
    struct kbuf sc, keys[2], vals[2], start, end, buck, pbuck, head, tail, seg[2], ones[2], fin,
        dens, pref, bases[2], tmp, stage[2], bstage[2];
    cudaStream_t s0, s1;
    cudaEvent_t ev_stage[2], ev_bstage[2], ev_bases_in[2], ev_bases_used[2], ev_r[MSM_R_COUNT];
    /* per pass, grown to the most passes seen: the phases (s0) and the
     * bases' copy (s1) */
    cudaEvent_t (*ev_p)[MSM_P_COUNT], (*ev_b)[2];
    unsigned ev_passes;
};

/* msm.cu: an idle workspace of the current device for points of
 * point_bytes (G1 or G2 affine), or a new one; 0 or -errno. */
int msm_ws_take(struct msm_ws **ret, size_t point_bytes);
/* Back to the pool; after a failed call (healthy false) it is destroyed. */
void msm_ws_give(struct msm_ws *ws, bool healthy);
/* b holds at least bytes (> 0) of role's memory: kept if large enough, else
 * reallocated (contents lost). 0 or -errno. */
int msm_ws_reserve(struct kbuf *b, int role, size_t bytes);
/* Events for `passes` passes in ws (created where it has fewer). */
int msm_ws_events(struct msm_ws *ws, unsigned passes);
/* Records the calling thread's last profile (kernels_msm_last_profile). */
void msm_note_profile(const struct kernels_msm_profile *p);

static inline double msm_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Where an MSM's scalars are: pageable host memory (through the staging
 * buffers), page-locked host memory (cudaHostAlloc, kernels_host_alloc,
 * cudaHostRegister: the copy engine reads it directly), or device memory
 * of the current device (read in place: H, which never leaves the device). */
enum msm_src { MSM_SRC_PAGEABLE, MSM_SRC_PINNED, MSM_SRC_DEVICE };

static inline int msm_scalars_src(const void *p, enum msm_src *src)
{
    cudaPointerAttributes a;
    int dev = -1;
    *src = MSM_SRC_PAGEABLE;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: clear it */
        return 0;
    }
    if (a.type == cudaMemoryTypeHost) {
        *src = MSM_SRC_PINNED;
    } else if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) {
        /* another device's memory would be read across the bus, if at all */
        if (cudaGetDevice(&dev) != cudaSuccess || (a.type == cudaMemoryTypeDevice && a.device != dev))
            return -EINVAL;
        *src = MSM_SRC_DEVICE;
    }
    return 0;
}

/* The shape of one MSM call: window, buckets, passes (chunk scalars each)
 * and the pairs of one pass, the sort's scratch (cub's query, which reads
 * no device memory). */
struct msm_plan {
    int c, nw, end_bit;
    uint32_t nb, nseg, chunks;
    size_t n, chunk, passes, items, used_bases, pass_bases, words, stage, tmp_bytes;
    bool density, host_bases;
    enum msm_src src;
};

/* The largest pass: a multiple of 64 scalars (a density word) whose pairs
 * fit one sort. */
static inline size_t msm_max_chunk(int nw)
{
    return ((size_t)MSM_MAX_ITEMS / (size_t)nw) & ~(size_t)63;
}

/* ZKBENCH_MSM_WINDOW=C, C in 2 .. MSM_MAX_WINDOW: an experiment's switch
 * (results/h200/msm-vs-sppark.md) that gives every MSM whose window is
 * chosen from its size C bits instead, so that one binary times several
 * widths in the benchmark and in the prover. *c: C, or 0 when it is unset
 * or empty; any other value fails the MSM with -EINVAL. */
static int msm_window_override(unsigned *c)
{
    const char *e = getenv("ZKBENCH_MSM_WINDOW");
    *c = 0;
    if (!e || !*e)
        return 0;
    char *end;
    long v = strtol(e, &end, 10);
    if (*end || v < 2 || v > MSM_MAX_WINDOW)
        return kernels_record_error(-EINVAL, "ZKBENCH_MSM_WINDOW: not a window width (2 .. 20 bits)");
    *c = (unsigned)v;
    return 0;
}

/* pass_bases: the most bases one pass reads; when 0 (a budget, no density
 * at hand), the upper bound min(chunk, n_bases). */
template <class F>
static int msm_plan_make(struct msm_plan *pl, size_t n, size_t n_bases, bool density, bool host_bases,
                         enum msm_src src, unsigned window, size_t chunk, size_t pass_bases)
{
    memset(pl, 0, sizeof *pl);
    pl->n = n;
    if (chunk & 63)
        return -EINVAL;
    if (n > MSM_MAX_ITEMS)
        return -EOVERFLOW;
    int rc;
    if (!window && (rc = msm_window_override(&window)) < 0)
        return rc;
    pl->c = window ? (int)window : (int)msm_window_for(n, msm_is_g2<F>());
    pl->nw = (256 + pl->c - 1) / pl->c;
    pl->nb = (uint32_t)pl->nw << (pl->c - 1);
    size_t most = msm_max_chunk(pl->nw);
    pl->chunk = chunk ? chunk : most;
    if (pl->chunk > most)
        return -EOVERFLOW;
    if (pl->chunk >= n)
        pl->chunk = n;
    pl->passes = msm_passes_count(n, pl->chunk);
    if (pl->passes > MSM_MAX_PASSES)
        return -EOVERFLOW;
    pl->items = (size_t)pl->nw * pl->chunk;
    pl->end_bit = 32 - __builtin_clz(pl->nb + 1);
    pl->nseg = (1u << (pl->c - 1)) / ((1u << (pl->c - 1)) < MSM_SEG ? (1u << (pl->c - 1)) : MSM_SEG);
    pl->density = density;
    pl->used_bases = density ? n_bases : n;
    pl->pass_bases = pass_bases ? pass_bases : (pl->chunk < pl->used_bases ? pl->chunk : pl->used_bases);
    pl->words = density ? (n + 63) / 64 : 0;
    pl->host_bases = host_bases && pl->used_bases;
    pl->src = src;
    /* chunks of 64 pairs and more, at most 2^18 (2^17 for G2): enough
     * threads to fill the GPU, pieces of 2 x 48 (96) MiB at most, and a
     * bucket of k points crosses at most k / 64 + 1 chunks, which its
     * combine adds one after the other (chunks of 16 made 250 repeated
     * values at 2^18 cost 1.95x random scalars on the H200) */
    pl->chunks = (uint32_t)(pl->items / 64 ? pl->items / 64 : 1);
    if (pl->chunks > (msm_is_g2<F>() ? (1u << 17) : (1u << 18)))
        pl->chunks = msm_is_g2<F>() ? (1u << 17) : (1u << 18);
    pl->stage = pl->chunk < MSM_CHUNK ? pl->chunk : MSM_CHUNK;
    cub::DoubleBuffer<uint32_t> dk(NULL, NULL), dv(NULL, NULL);
    return CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, pl->tmp_bytes, dk, dv, (int)pl->items, 0,
                                                      pl->end_bit));
}

/* The scratch of a call, buffer by buffer, from one list: reserved in ws
 * (grown where too small), or, with ws NULL, only added up into
 * *device_bytes and *pinned_bytes (kernels_msm_scratch_bytes). */
template <class F>
static int msm_scratch(struct msm_ws *ws, const struct msm_plan *pl, size_t *device_bytes, size_t *pinned_bytes)
{
    typedef dev_xyzz_t<F> xyzz_t;
    int rc = 0;
    size_t dev = 0, pin = 0;
#define MSM_NEED(field, role, bytes)                                               \
    do {                                                                           \
        size_t b_ = (bytes);                                                       \
        *((role) == KERNELS_MEM_PINNED ? &pin : &dev) += b_;                       \
        if (ws && (rc = msm_ws_reserve(&ws->field, (role), b_)) < 0)               \
            return rc;                                                             \
    } while (0)
    if (pl->src != MSM_SRC_DEVICE)
        MSM_NEED(sc, KERNELS_MEM_MSM, pl->chunk * sizeof(dev_fr_t));
    for (int i = 0; i < 2; i++) {
        MSM_NEED(keys[i], KERNELS_MEM_MSM, pl->items * sizeof(uint32_t));
        MSM_NEED(vals[i], KERNELS_MEM_MSM, pl->items * sizeof(uint32_t));
        MSM_NEED(seg[i], KERNELS_MEM_MSM, (size_t)pl->nw * pl->nseg * sizeof(xyzz_t));
        MSM_NEED(ones[i], KERNELS_MEM_MSM, MSM_ONES_THREADS * sizeof(xyzz_t));
    }
    MSM_NEED(start, KERNELS_MEM_MSM, (pl->nb + 2) * sizeof(uint32_t));
    MSM_NEED(end, KERNELS_MEM_MSM, (pl->nb + 2) * sizeof(uint32_t));
    MSM_NEED(buck, KERNELS_MEM_MSM, (size_t)pl->nb * sizeof(xyzz_t));
    if (pl->passes > 1)
        MSM_NEED(pbuck, KERNELS_MEM_MSM, (size_t)pl->nb * sizeof(xyzz_t)); /* a later pass's buckets */
    MSM_NEED(head, KERNELS_MEM_MSM, (size_t)pl->chunks * sizeof(xyzz_t));
    MSM_NEED(tail, KERNELS_MEM_MSM, (size_t)pl->chunks * sizeof(xyzz_t));
    /* what step 5 takes to the host: at most MSM_HOST_SUMS sums a window and
     * the ones' partial sums */
    MSM_NEED(fin, KERNELS_MEM_PINNED,
             ((size_t)pl->nw * MSM_HOST_SUMS + MSM_ONES_HOST) * sizeof(xyzz_t));
    if (pl->density) {
        MSM_NEED(dens, KERNELS_MEM_MSM, pl->words * sizeof(uint64_t));
        MSM_NEED(pref, KERNELS_MEM_MSM, pl->words * sizeof(uint32_t));
    }
    if (pl->host_bases) {
        /* a pass's bases on the device while the next pass's arrive; pieces
         * of them through page-locked staging */
        size_t bytes = pl->pass_bases * sizeof(dev_affine_t<F>);
        size_t piece = bytes < MSM_BASE_PIECE ? bytes : MSM_BASE_PIECE;
        MSM_NEED(bases[0], KERNELS_MEM_MSM, bytes);
        MSM_NEED(bstage[0], KERNELS_MEM_PINNED, piece);
        MSM_NEED(bstage[1], KERNELS_MEM_PINNED, piece);
        if (pl->passes > 1)
            MSM_NEED(bases[1], KERNELS_MEM_MSM, bytes);
    }
    MSM_NEED(tmp, KERNELS_MEM_MSM, pl->tmp_bytes ? pl->tmp_bytes : 1);
    if (pl->src == MSM_SRC_PAGEABLE) {
        MSM_NEED(stage[0], KERNELS_MEM_PINNED, pl->stage * sizeof(dev_fr_t));
        MSM_NEED(stage[1], KERNELS_MEM_PINNED, pl->stage * sizeof(dev_fr_t));
    }
#undef MSM_NEED
    if (device_bytes)
        *device_bytes = dev;
    if (pinned_bytes)
        *pinned_bytes = pin;
    return rc;
}

/* The digits of scalars [i0 + k0, i0 + k1) of the pass at i0 (len scalars)
 * from sc (sc[k]: scalar i0 + k), on s0. */
static inline int msm_launch_digits(struct msm_ws *ws, const struct msm_plan *pl, const dev_fr_t *sc, size_t i0,
                                    size_t k0, size_t k1, size_t len, uint32_t base_off)
{
    msm_digits_kernel<<<blocks_for(k1 - k0, 256), 256, 0, ws->s0>>>(
        sc, i0, k0, k1, len, pl->density ? (const uint64_t *)ws->dens.p : NULL,
        pl->density ? (const uint32_t *)ws->pref.p : NULL, base_off, (uint32_t *)ws->keys[0].p,
        (uint32_t *)ws->vals[0].p, pl->c, pl->nw);
    return CUDA_CHECK_LAUNCH("msm_digits_kernel");
}

/* Step 1 for the pass of len scalars at i0: its scalars to the device
 * (unless they are there) and their digits, on s0. */
static int msm_pass_digits(struct msm_ws *ws, const struct msm_plan *pl, const dev_fr_t *scalars, size_t i0,
                           size_t len, uint32_t base_off, cudaEvent_t prev_digits)
{
    int rc = 0;
    dev_fr_t *sc = (dev_fr_t *)ws->sc.p;
    if (pl->src == MSM_SRC_DEVICE)
        /* already there (the caller's work that wrote them is complete) */
        return msm_launch_digits(ws, pl, scalars + i0, i0, 0, len, len, base_off);
    if (pl->src == MSM_SRC_PINNED) {
        /* page-locked: the copy engine reads them directly on s1, piece by
         * piece, and s0 computes a piece's digits once it is in; the pass
         * before must have read sc first */
        if (prev_digits)
            CUDA_TRY(cudaStreamWaitEvent(ws->s1, prev_digits, 0));
        for (size_t k = 0; k < len; k += pl->stage) {
            size_t m = len - k < pl->stage ? len - k : pl->stage;
            CUDA_TRY(cudaMemcpyAsync(sc + k, scalars + i0 + k, m * sizeof(dev_fr_t), cudaMemcpyHostToDevice,
                                     ws->s1));
            CUDA_TRY(cudaEventRecord(ws->ev_stage[0], ws->s1));
            CUDA_TRY(cudaStreamWaitEvent(ws->s0, ws->ev_stage[0], 0));
            if ((rc = msm_launch_digits(ws, pl, sc, i0, k, k + m, len, base_off)) < 0)
                return rc;
        }
        return 0;
    }
    for (size_t k = 0, q = 0; k < len; k += pl->stage, q++) {
        size_t m = len - k < pl->stage ? len - k : pl->stage;
        int sb = (int)(q & 1);
        /* the staging buffer's previous copy (this call's or the last
         * call's) must be done before it is overwritten */
        CUDA_TRY(cudaEventSynchronize(ws->ev_stage[sb]));
        host_copy(ws->stage[sb].p, scalars + i0 + k, m * sizeof(dev_fr_t));
        CUDA_TRY(cudaMemcpyAsync(sc + k, ws->stage[sb].p, m * sizeof(dev_fr_t), cudaMemcpyHostToDevice, ws->s0));
        CUDA_TRY(cudaEventRecord(ws->ev_stage[sb], ws->s0));
        if ((rc = msm_launch_digits(ws, pl, sc, i0, k, k + m, len, base_off)) < 0)
            return rc;
    }
fail:
    return rc;
}

/* The bases [b0, b1) from host memory into ws->bases[slot] on s1, once the
 * pass that used that buffer last is done, through the staging buffers (the
 * host copies of one piece overlap the bus copy of the one before); records
 * ev_bases_in[slot] and times the copy with evs. */
template <class F>
static int msm_pass_bases(struct msm_ws *ws, const dev_affine_t<F> *host, size_t b0, size_t b1, int slot,
                          cudaEvent_t evs[2])
{
    const size_t pb = sizeof(dev_affine_t<F>);
    size_t bytes = (b1 - b0) * pb, piece = ws->bstage[0].bytes;
    const uint8_t *src = (const uint8_t *)(host + b0);
    uint8_t *dst = (uint8_t *)ws->bases[slot].p;
    int rc = 0;
    CUDA_TRY(cudaStreamWaitEvent(ws->s1, ws->ev_bases_used[slot], 0));
    CUDA_TRY(cudaEventRecord(evs[0], ws->s1));
    for (size_t off = 0, q = 0; off < bytes; off += piece, q++) {
        size_t m = bytes - off < piece ? bytes - off : piece;
        int sb = (int)(q & 1);
        CUDA_TRY(cudaEventSynchronize(ws->ev_bstage[sb]));
        host_copy(ws->bstage[sb].p, src + off, m);
        CUDA_TRY(cudaMemcpyAsync(dst + off, ws->bstage[sb].p, m, cudaMemcpyHostToDevice, ws->s1));
        CUDA_TRY(cudaEventRecord(ws->ev_bstage[sb], ws->s1));
    }
    CUDA_TRY(cudaEventRecord(evs[1], ws->s1));
    CUDA_TRY(cudaEventRecord(ws->ev_bases_in[slot], ws->s1));
fail:
    return rc;
}

/* Steps 2 and 3 for a pass of len scalars whose bases are at dev_bases:
 * sort, bounds, the buckets and the ones summed into the call's, on s0. */
template <class F>
static int msm_pass_buckets(struct msm_ws *ws, const struct msm_plan *pl, size_t pass, size_t len,
                            const dev_affine_t<F> *dev_bases, cudaEvent_t ev_sorted, cudaEvent_t bases_in)
{
    typedef dev_xyzz_t<F> xyzz_t;
    size_t items = (size_t)pl->nw * len;
    uint32_t nb = pl->nb;
    size_t tmp_bytes = pl->tmp_bytes;
    int rc = 0;
    cub::DoubleBuffer<uint32_t> dk((uint32_t *)ws->keys[0].p, (uint32_t *)ws->keys[1].p);
    cub::DoubleBuffer<uint32_t> dv((uint32_t *)ws->vals[0].p, (uint32_t *)ws->vals[1].p);
    CUDA_TRY(cub::DeviceRadixSort::SortPairs(ws->tmp.p, tmp_bytes, dk, dv, (int)items, 0, pl->end_bit, ws->s0));
    CUDA_TRY(cudaMemsetAsync(ws->start.p, 0, (nb + 2) * sizeof(uint32_t), ws->s0));
    CUDA_TRY(cudaMemsetAsync(ws->end.p, 0, (nb + 2) * sizeof(uint32_t), ws->s0));
    msm_bounds_kernel<<<blocks_for(items, 256) > 65536 ? 65536 : blocks_for(items, 256), 256, 0, ws->s0>>>(
        dk.Current(), items, (uint32_t *)ws->start.p, (uint32_t *)ws->end.p, nb);
    if ((rc = CUDA_CHECK_LAUNCH("msm_bounds_kernel")) < 0)
        return rc;
    CUDA_TRY(cudaEventRecord(ev_sorted, ws->s0));
    if (bases_in)
        CUDA_TRY(cudaStreamWaitEvent(ws->s0, bases_in, 0));
    {
        const uint32_t *vals = dv.Current();
        uint32_t chunks = pl->chunks;
        /* the first pass sums into the call's buckets, a later one into
         * its own, merged after */
        xyzz_t *buck = (xyzz_t *)(pass ? ws->pbuck.p : ws->buck.p);
        if (pass)
            CUDA_TRY(cudaMemsetAsync(buck, 0, (size_t)nb * sizeof(xyzz_t), ws->s0)); /* infinity */
        typedef typename msm_acc_field<F>::type acc_t;
        msm_accumulate_kernel<F, acc_t, msm_accumulate_min_blocks<acc_t>()>
            <<<blocks_for((size_t)chunks * msm_acc_lanes<acc_t>::n, 128), 128, 0, ws->s0>>>(
            dev_bases, dk.Current(), vals, (const uint32_t *)ws->start.p, (const uint32_t *)ws->end.p, nb, chunks,
            buck, (xyzz_t *)ws->head.p, (xyzz_t *)ws->tail.p);
        if ((rc = CUDA_CHECK_LAUNCH("msm_accumulate_kernel")) < 0)
            return rc;
        msm_combine_kernel<F><<<blocks_for(chunks, 128), 128, 0, ws->s0>>>(
            dk.Current(), (const uint32_t *)ws->start.p, (const uint32_t *)ws->end.p, nb, chunks, buck,
            (const xyzz_t *)ws->head.p, (const xyzz_t *)ws->tail.p);
        if ((rc = CUDA_CHECK_LAUNCH("msm_combine_kernel")) < 0)
            return rc;
        if (pass) {
            msm_merge_kernel<F><<<blocks_for(nb, 128), 128, 0, ws->s0>>>((xyzz_t *)ws->buck.p, buck, nb);
            if ((rc = CUDA_CHECK_LAUNCH("msm_merge_kernel")) < 0)
                return rc;
        }
        msm_ones_kernel<F, acc_t><<<MSM_ONES_THREADS * msm_acc_lanes<acc_t>::n / 128, 128, 0, ws->s0>>>(
            dev_bases, vals, (const uint32_t *)ws->start.p, (const uint32_t *)ws->end.p, nb,
            (xyzz_t *)ws->ones[0].p);
        if ((rc = CUDA_CHECK_LAUNCH("msm_ones_kernel")) < 0)
            return rc;
    }
fail:
    return rc;
}

/* Steps 4 and 5: the windows of the buckets, on s0, then the host's final
 * sums into *ret; *host_ms: the host's part. */
template <class F>
static int msm_reduce(struct msm_ws *ws, const struct msm_plan *pl, dev_jac_t<F> *ret, double *host_ms)
{
    typedef dev_xyzz_t<F> xyzz_t;
    int c = pl->c, nw = pl->nw, rc = 0;
    uint32_t nseg = pl->nseg;
    CUDA_TRY(cudaEventRecord(ws->ev_r[MSM_R_START], ws->s0));
    {
        /* ones: MSM_ONES_THREADS partial sums, MSM_GROUP at a time, down
         * to MSM_ONES_HOST for the host (ones[0] and ones[1] in turn) */
        uint32_t ones_left = MSM_ONES_THREADS;
        int ones_cur = 0;
        while (ones_left > MSM_ONES_HOST) {
            ones_left /= MSM_GROUP;
            msm_group_sum_kernel<F><<<blocks_for(ones_left, 128), 128, 0, ws->s0>>>(
                (const xyzz_t *)ws->ones[ones_cur].p, (xyzz_t *)ws->ones[ones_cur ^ 1].p, ones_left, MSM_GROUP);
            if ((rc = CUDA_CHECK_LAUNCH("msm_group_sum_kernel")) < 0)
                return rc;
            ones_cur ^= 1;
        }
        int seg = (int)((1u << (c - 1)) / nseg);
        msm_segment_kernel<F><<<blocks_for((size_t)nw * nseg, 128), 128, 0, ws->s0>>>(
            (const xyzz_t *)ws->buck.p, (xyzz_t *)ws->seg[0].p, c, nw, seg);
        if ((rc = CUDA_CHECK_LAUNCH("msm_segment_kernel")) < 0)
            return rc;
        CUDA_TRY(cudaEventRecord(ws->ev_r[MSM_R_SEGMENTS], ws->s0));
        int cur = 0;
        uint32_t m = nseg; /* sums per window, a power of 2 */
        while (m > MSM_HOST_SUMS) {
            uint32_t groups = (uint32_t)nw * (m / MSM_GROUP);
            msm_group_sum_kernel<F><<<blocks_for(groups, 128), 128, 0, ws->s0>>>(
                (const xyzz_t *)ws->seg[cur].p, (xyzz_t *)ws->seg[cur ^ 1].p, groups, MSM_GROUP);
            if ((rc = CUDA_CHECK_LAUNCH("msm_group_sum_kernel")) < 0)
                return rc;
            cur ^= 1;
            m /= MSM_GROUP;
        }
        CUDA_TRY(cudaEventRecord(ws->ev_r[MSM_R_GROUPS], ws->s0));
        size_t left = (size_t)nw * m;
        CUDA_TRY(cudaMemcpyAsync(ws->fin.p, ws->seg[cur].p, left * sizeof(xyzz_t), cudaMemcpyDeviceToHost, ws->s0));
        CUDA_TRY(cudaMemcpyAsync((xyzz_t *)ws->fin.p + left, ws->ones[ones_cur].p, ones_left * sizeof(xyzz_t),
                                 cudaMemcpyDeviceToHost, ws->s0));
        CUDA_TRY(cudaEventRecord(ws->ev_r[MSM_R_END], ws->s0));
        CUDA_TRY(cudaStreamSynchronize(ws->s0));
        double t_host = msm_wall_ms();
        msm_host_final(ret, (const xyzz_t *)ws->fin.p, nw, m, (const xyzz_t *)ws->fin.p + left, ones_left, c);
        *host_ms = msm_wall_ms() - t_host;
    }
fail:
    return rc;
}

/* ret = the MSM of n scalars over bases resident on the device (dev_bases)
 * or in host memory (host_bases), in passes of opts->chunk scalars. */
template <class F>
static int msm_run(dev_jac_t<F> *ret, const dev_affine_t<F> *host_bases, const dev_affine_t<F> *dev_bases,
                   size_t n_bases, const dev_fr_t *scalars, size_t n, const uint64_t *density,
                   const struct kernels_msm_opts *opts)
{
    typedef dev_xyzz_t<F> xyzz_t;
    struct msm_ws *ws = NULL;
    struct kernels_msm_profile prof = {};
    struct msm_plan pl;
    uint32_t *prefix = NULL;
    size_t words = 0, pass_bases = 0;
    int rc = 0;
    enum msm_src src;
    unsigned window = opts ? opts->window : 0;
    double t_call = msm_wall_ms(), host_final_ms = 0;

    if (!ret || (n && !scalars))
        return -EINVAL;
    if (window && (window < 2 || window > MSM_MAX_WINDOW))
        return -EINVAL;
    if (opts && (opts->chunk & 63))
        return -EINVAL;
    if (n == 0) {
        dev_jac_t<F> inf;
        field_set_one(inf.x);
        field_set_one(inf.y);
        field_set_zero(inf.z);
        *ret = inf;
        return 0;
    }
    if (n > MSM_MAX_ITEMS)
        return -EOVERFLOW;
    if (!density && n_bases < n)
        return -EINVAL;
    if ((density ? n_bases : n) && !host_bases && !dev_bases)
        return -EINVAL;
    if ((rc = msm_scalars_src(scalars, &src)) < 0)
        return rc;
    if (density && (rc = msm_density_prefix(density, n, n_bases, &prefix, &words)) < 0)
        return rc;
    if ((rc = msm_plan_make<F>(&pl, n, n_bases, density != NULL, dev_bases == NULL, src, window,
                               opts ? opts->chunk : 0, 0)) < 0) {
        free(prefix);
        return rc;
    }
    if (density && pl.host_bases) {
        /* the most bases one pass reads, for its device buffers */
        pass_bases = msm_pass_bases_max(prefix, n, n_bases, pl.chunk);
        if ((rc = msm_plan_make<F>(&pl, n, n_bases, true, true, src, window, opts ? opts->chunk : 0,
                                   pass_bases ? pass_bases : 1)) < 0) {
            free(prefix);
            return rc;
        }
    }
    prof.n = n;
    prof.window = (unsigned)pl.c;
    prof.windows = (unsigned)pl.nw;
    prof.passes = (unsigned)pl.passes;
    prof.chunk = pl.chunk;

    if ((rc = msm_ws_take(&ws, sizeof(dev_affine_t<F>))) < 0) {
        free(prefix);
        return rc;
    }
    /* ---- scratch, grown to this call ---- */
    if ((rc = msm_scratch<F>(ws, &pl, NULL, NULL)) < 0 || (rc = msm_ws_events(ws, (unsigned)pl.passes)) < 0)
        goto fail;
    prof.setup_ms = msm_wall_ms() - t_call;

    CUDA_TRY(cudaEventRecord(ws->ev_p[0][MSM_P_START], ws->s0));
    if (density) {
        CUDA_TRY(cudaMemcpyAsync(ws->dens.p, density, words * sizeof(uint64_t), cudaMemcpyHostToDevice, ws->s0));
        CUDA_TRY(cudaMemcpyAsync(ws->pref.p, prefix, words * sizeof(uint32_t), cudaMemcpyHostToDevice, ws->s0));
        /* the prefix copy reads host memory: wait before freeing it */
        CUDA_TRY(cudaStreamSynchronize(ws->s0));
    }
    /* the call's buckets and ones start at infinity and gather every pass */
    CUDA_TRY(cudaMemsetAsync(ws->buck.p, 0, (size_t)pl.nb * sizeof(xyzz_t), ws->s0));
    CUDA_TRY(cudaMemsetAsync(ws->ones[0].p, 0, MSM_ONES_THREADS * sizeof(xyzz_t), ws->s0));
    if (pl.host_bases) {
        /* the buffers are free (nothing of this call used them yet) */
        for (int s = 0; s < 2; s++)
            CUDA_TRY(cudaEventRecord(ws->ev_bases_used[s], ws->s0));
        size_t b0, b1;
        msm_pass_bases_range(prefix, n, n_bases, 0, pl.chunk, &b0, &b1);
        if ((rc = msm_pass_bases<F>(ws, host_bases, b0, b1, 0, ws->ev_b[0])) < 0)
            goto fail;
    }

    for (size_t p = 0; p < pl.passes; p++) {
        size_t i0, len, b0, b1;
        int slot = (int)(p & 1);
        msm_pass_scalars(p, n, pl.chunk, &i0, &len);
        msm_pass_bases_range(prefix, n, n_bases, i0, len, &b0, &b1);
        if (p > 0)
            CUDA_TRY(cudaEventRecord(ws->ev_p[p][MSM_P_START], ws->s0));
        if ((rc = msm_pass_digits(ws, &pl, scalars, i0, len, pl.host_bases ? (uint32_t)b0 : 0,
                                  p ? ws->ev_p[p - 1][MSM_P_DIGITS] : NULL)) < 0)
            goto fail;
        CUDA_TRY(cudaEventRecord(ws->ev_p[p][MSM_P_DIGITS], ws->s0));
        const dev_affine_t<F> *bases = pl.host_bases ? (const dev_affine_t<F> *)ws->bases[slot].p : dev_bases;
        if ((rc = msm_pass_buckets<F>(ws, &pl, p, len, bases, ws->ev_p[p][MSM_P_SORT],
                                      pl.host_bases ? ws->ev_bases_in[slot] : NULL)) < 0)
            goto fail;
        CUDA_TRY(cudaEventRecord(ws->ev_p[p][MSM_P_BUCKETS], ws->s0));
        if (pl.host_bases) {
            CUDA_TRY(cudaEventRecord(ws->ev_bases_used[slot], ws->s0));
            /* the next pass's bases travel while this one is summed */
            if (p + 1 < pl.passes) {
                size_t nb0, nb1, ni0, nlen;
                msm_pass_scalars(p + 1, n, pl.chunk, &ni0, &nlen);
                msm_pass_bases_range(prefix, n, n_bases, ni0, nlen, &nb0, &nb1);
                if ((rc = msm_pass_bases<F>(ws, host_bases, nb0, nb1, slot ^ 1, ws->ev_b[p + 1])) < 0)
                    goto fail;
            }
        }
    }
    if ((rc = msm_reduce<F>(ws, &pl, ret, &host_final_ms)) < 0)
        goto fail;

    /* ---- the profile ---- */
    {
        float ms = 0;
        for (size_t p = 0; p < pl.passes; p++) {
            CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_p[p][MSM_P_START], ws->ev_p[p][MSM_P_DIGITS]));
            prof.digits_ms += ms;
            CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_p[p][MSM_P_DIGITS], ws->ev_p[p][MSM_P_SORT]));
            prof.sort_ms += ms;
            CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_p[p][MSM_P_SORT], ws->ev_p[p][MSM_P_BUCKETS]));
            prof.buckets_ms += ms;
            if (pl.host_bases) {
                CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_b[p][0], ws->ev_b[p][1]));
                prof.bases_ms += ms;
            }
        }
        CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_r[MSM_R_START], ws->ev_r[MSM_R_SEGMENTS]));
        prof.segments_ms = ms;
        CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_r[MSM_R_SEGMENTS], ws->ev_r[MSM_R_GROUPS]));
        prof.groups_ms = ms;
        CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_r[MSM_R_GROUPS], ws->ev_r[MSM_R_END]));
        prof.final_ms = ms + host_final_ms;
        CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_r[MSM_R_START], ws->ev_r[MSM_R_END]));
        prof.reduce_ms = ms + host_final_ms;
        CUDA_TRY(cudaEventElapsedTime(&ms, ws->ev_p[0][MSM_P_START], ws->ev_r[MSM_R_END]));
        prof.device_ms = ms;
        prof.total_ms = msm_wall_ms() - t_call;
        msm_note_profile(&prof);
    }

fail:
    if (rc < 0 && ws) {
        /* nothing may still read the staging buffers or the inputs */
        cudaStreamSynchronize(ws->s1);
        cudaStreamSynchronize(ws->s0);
    }
    msm_ws_give(ws, rc == 0);
    free(prefix);
    return rc;
}

/* The G1 and G2 instances, compiled in msm.cu and msm_g2.cu. */
int msm_run_g1(dev_jac_t<dev_fp_t> *ret, const dev_affine_t<dev_fp_t> *host_bases,
               const dev_affine_t<dev_fp_t> *dev_bases, size_t n_bases, const dev_fr_t *scalars, size_t n,
               const uint64_t *density, const struct kernels_msm_opts *opts);
int msm_run_g2(dev_jac_t<dev_fp2_t> *ret, const dev_affine_t<dev_fp2_t> *host_bases,
               const dev_affine_t<dev_fp2_t> *dev_bases, size_t n_bases, const dev_fr_t *scalars, size_t n,
               const uint64_t *density, const struct kernels_msm_opts *opts);

#endif
