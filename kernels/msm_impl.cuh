/*
 * Multi-scalar multiplication on the GPU, G1 and G2 (one template over the
 * coordinate field): ret = sum_i s_i P_i with the semantics of msm_g1 /
 * msm_g2 (prover/msm.h), density bitmaps included.
 *
 * Pippenger's bucket method with signed digits:
 *  1. digits: each scalar (from Montgomery form) is cut into nw = ceil(256/c)
 *     signed c-bit digits in [-2^(c-1), 2^(c-1)]; each nonzero digit d of
 *     window w becomes a pair (key = w 2^(c-1) + |d| - 1, value = base index
 *     with the sign in bit 31). Scalars 0 give no pair; scalars 1 give one
 *     pair with the key ONE, summed apart (witnesses are full of bits, and
 *     one bucket holding all of them would serialize on one thread).
 *  2. sort: cub::DeviceRadixSort orders the pairs by key, so each bucket's
 *     points are contiguous; a boundary pass finds each bucket's range.
 *  3. buckets: the sorted pairs of real buckets are cut into equal chunks,
 *     one per thread; a thread sums each run of one bucket in its chunk
 *     (XYZZ, mixed adds) and writes a run that is the whole bucket
 *     straight to it; a bucket that crosses chunks is put together from
 *     the pieces by the thread whose chunk it starts in (segmented
 *     combine). A bucket of 17,000 points then costs what 17,000 points
 *     spread over many buckets cost, where one thread per bucket summed it
 *     alone (witness scalars repeat values: 4-7x slower than random).
 *  4. windows: segments of 8 buckets are reduced with running sums
 *     (sum_j (j+1) B_j) in parallel, then summed in groups of 8 until at
 *     most 16 are left per window. The reduction is latency-bound (one
 *     thread's chain of dependent additions, about 35 us each on the H200
 *     for G1), so it keeps every chain short: segments and groups of 32
 *     and a one-thread Horner on the device were a fixed 17 ms for G1 and
 *     50 ms for G2 at every size.
 *  5. final, on the host (the prover's CPU curve code, a microsecond an
 *     addition): each window's last sums, Horner over the windows (c
 *     doublings each), plus the ones.
 * Page-locked scalars (kernels_host_alloc) are copied chunk by chunk on a
 * second stream while the digits of the previous chunk are computed;
 * pageable ones go through page-locked staging buffers, filled by several
 * host threads; host
 * bases are copied on a second stream while the digits are sorted. Scratch
 * memory comes from a pool of reusable workspaces (struct msm_ws), and each
 * call's phases are timed with CUDA events (kernels_msm_last_profile).
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
#include "kernels/msm_digits.cuh"
#include "kernels/kernels.h"

#include "kernels/msm_final.h"

#define MSM_SEG 8             /* buckets per segment of the window reduction */
#define MSM_GROUP 8           /* points per thread in the group sums */
#define MSM_HOST_SUMS 16      /* sums per window left to the host */
#define MSM_ONES_THREADS 1024 /* threads summing the points of scalars 1 */
#define MSM_CHUNK ((size_t)1 << 20) /* scalars per staging copy (32 MiB) */

struct kernels_msm_bases {
    enum kernels_curve curve;
    size_t n;
    struct kbuf buf;
};

/* ---- kernels ----------------------------------------------------------- */

static __global__ void msm_digits_kernel(const dev_fr_t *scalars, size_t i0, size_t i1,
                                  size_t n, const uint64_t *density,
                                  const uint32_t *prefix, uint32_t *keys,
                                  uint32_t *vals, int c, int nw)
{
    const uint32_t nb = (uint32_t)nw << (c - 1);
    const uint32_t key_one = nb, key_none = nb + 1;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = i0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < i1;
         i += stride) {
        uint32_t base = (uint32_t)i;
        bool has = true;
        if (density) {
            uint64_t word = density[i >> 6];
            unsigned bit = i & 63;
            has = (word >> bit) & 1;
            base = prefix[i >> 6] +
                   (uint32_t)__popcll(word & ((1ull << bit) - 1));
        }
        dev_fr_t s;
        if (has) {
            dev_fr_t one_plain = {};
            one_plain.l[0] = 1;
            field_mul(s, scalars[i], one_plain); /* out of Montgomery form */
        } else {
            field_zero(s);
        }
        bool is_one = s.l[0] == 1;
        for (int j = 1; j < 8; j++)
            is_one = is_one && s.l[j] == 0;
        if (field_is_zero(s) || is_one) {
            for (int w = 0; w < nw; w++) {
                keys[(size_t)w * n + i] = w == 0 && is_one ? key_one : key_none;
                vals[(size_t)w * n + i] = base;
            }
            continue;
        }
        uint32_t carry = 0;
        for (int w = 0; w < nw; w++) {
            bool neg;
            uint32_t mag = msm_signed_digit(s.l, w, c, &carry, &neg);
            size_t slot = (size_t)w * n + i;
            if (mag == 0) {
                keys[slot] = key_none;
                vals[slot] = base;
            } else {
                keys[slot] = ((uint32_t)w << (c - 1)) | (mag - 1);
                vals[slot] = base | ((uint32_t)neg << 31);
            }
        }
    }
}

/* start[k], end[k]: the range of key k <= nb (ONE included) in sorted keys;
 * start[nb + 1]: the number of pairs of real buckets (keys < nb), which
 * come first. start and end must be zeroed before. */
static __global__ void msm_bounds_kernel(const uint32_t *keys, size_t m,
                                  uint32_t *start, uint32_t *end, uint32_t nb)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
         i += stride) {
        uint32_t k = keys[i];
        if (k > nb)
            continue;
        if (i == 0 || keys[i - 1] != k)
            start[k] = (uint32_t)i;
        if (i == m - 1 || keys[i + 1] != k)
            end[k] = (uint32_t)(i + 1);
        /* the last pair of a real bucket: the count of such pairs */
        if (k < nb && (i == m - 1 || keys[i + 1] >= nb))
            start[nb + 1] = (uint32_t)(i + 1);
    }
}

template <class F>
__device__ __forceinline__ void msm_load(dev_affine_t<F> &p,
                                         const dev_affine_t<F> *bases,
                                         uint32_t v)
{
    p = bases[v & 0x7fffffffu];
    if (v >> 31)
        field_neg(p.y, p.y);
}

/* Chunk t of the count = start[nb + 1] pairs of real buckets: [lo, hi). */
__device__ __forceinline__ void msm_chunk(uint32_t t, uint32_t chunks, uint32_t count, uint32_t &lo, uint32_t &hi)
{
    uint32_t len = (count + chunks - 1) / chunks;
    lo = t * len < count ? t * len : count;
    hi = count - lo < len ? count : lo + len;
}

/* One thread per chunk of the sorted pairs: each run of one bucket is
 * summed; a run that is its whole bucket goes to buckets[k], else it is a
 * piece of a bucket crossing chunks: the chunk's first run goes to head[t],
 * its last to tail[t] (both when they are one run). Every thread makes the
 * same number of additions, one per pair, and a run's end is a short branch
 * inside that one loop: with a loop per run, a warp waited at each run's end
 * for its longest run (on the H200, 333 ms of buckets at 2^24 where one
 * thread per bucket took 210). Empty buckets must be zeroed (infinity)
 * before. */
template <class F>
__global__ void __launch_bounds__(128)
msm_accumulate_kernel(const dev_affine_t<F> *__restrict__ bases,
                      const uint32_t *__restrict__ keys,
                      const uint32_t *__restrict__ vals,
                      const uint32_t *__restrict__ start,
                      const uint32_t *__restrict__ end, uint32_t nb,
                      uint32_t chunks, dev_xyzz_t<F> *buckets,
                      dev_xyzz_t<F> *head, dev_xyzz_t<F> *tail)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, lo, hi;
    if (t >= chunks)
        return;
    msm_chunk(t, chunks, start[nb + 1], lo, hi);
    if (lo >= hi)
        return;
    uint32_t k = keys[lo], b0 = start[k], b1 = end[k];
    bool first = true;
    dev_xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (uint32_t j = lo;; j++) {
        if (j == b1 || j == hi) {
            /* the run of bucket k ends here */
            if (b0 >= lo && b1 <= hi)
                buckets[k] = acc;
            else {
                if (first)
                    head[t] = acc;
                if (b1 > hi)
                    tail[t] = acc;
            }
            if (j == hi)
                break;
            k = keys[j];
            b0 = start[k];
            b1 = end[k];
            first = false;
            xyzz_set_inf(acc);
        }
        dev_affine_t<F> p;
        msm_load(p, bases, vals[j]);
        xyzz_add_mixed(acc, acc, p);
    }
}

/* The buckets that cross chunks: the thread of the chunk a bucket starts in
 * adds its tail piece and the head pieces of the chunks after it up to the
 * bucket's end. */
template <class F>
__global__ void __launch_bounds__(128)
msm_combine_kernel(const uint32_t *__restrict__ keys,
                   const uint32_t *__restrict__ start,
                   const uint32_t *__restrict__ end, uint32_t nb,
                   uint32_t chunks, dev_xyzz_t<F> *buckets,
                   const dev_xyzz_t<F> *head, const dev_xyzz_t<F> *tail)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, lo, hi;
    if (t >= chunks)
        return;
    uint32_t count = start[nb + 1];
    msm_chunk(t, chunks, count, lo, hi);
    if (lo >= hi)
        return;
    uint32_t k = keys[hi - 1];
    if (end[k] <= hi || start[k] < lo)
        return; /* ends in this chunk, or started before it */
    dev_xyzz_t<F> acc = tail[t];
    for (uint32_t u = t + 1; u < chunks; u++) {
        uint32_t ulo, uhi;
        msm_chunk(u, chunks, count, ulo, uhi);
        xyzz_add(acc, acc, head[u]);
        if (end[k] <= uhi)
            break;
    }
    buckets[k] = acc;
}

/* Partial sums of the points of scalars 1 (key nb): thread t takes every
 * T-th of them. */
template <class F>
__global__ void __launch_bounds__(128)
msm_ones_kernel(const dev_affine_t<F> *__restrict__ bases,
                const uint32_t *__restrict__ vals, const uint32_t *start,
                const uint32_t *end, uint32_t nb, dev_xyzz_t<F> *out)
{
    uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t T = gridDim.x * blockDim.x;
    dev_xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (uint32_t j = start[nb] + t, e = end[nb]; j < e; j += T) {
        dev_affine_t<F> p;
        msm_load(p, bases, vals[j]);
        xyzz_add_mixed(acc, acc, p);
    }
    out[t] = acc;
}

/* [k]p for a small k (double and add). */
template <class F>
__device__ void xyzz_mul_small(dev_xyzz_t<F> &r, const dev_xyzz_t<F> &p,
                               uint32_t k)
{
    dev_xyzz_t<F> acc;
    xyzz_set_inf(acc);
    for (int bit = k ? 31 - __clz((int)k) : -1; bit >= 0; bit--) {
        xyzz_dbl(acc, acc);
        if ((k >> bit) & 1)
            xyzz_add(acc, acc, p);
    }
    r = acc;
}

/* Segment s of window w: sum_{j in [lo, lo+seg)} (j+1) B_j, by running sums
 * from the top: tot = sum (j-lo+1) B_j, acc = sum B_j, then tot + lo acc. */
template <class F>
__global__ void __launch_bounds__(128)
msm_segment_kernel(const dev_xyzz_t<F> *buckets, dev_xyzz_t<F> *out, int c,
                   int nw, int seg)
{
    uint32_t nseg = (1u << (c - 1)) / seg;
    uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= (uint32_t)nw * nseg)
        return;
    uint32_t w = id / nseg, s = id % nseg, lo = s * seg;
    const dev_xyzz_t<F> *b = buckets + ((size_t)w << (c - 1));
    dev_xyzz_t<F> acc, tot;
    xyzz_set_inf(acc);
    xyzz_set_inf(tot);
    for (int j = lo + seg - 1; j >= (int)lo; j--) {
        xyzz_add(acc, acc, b[j]);
        xyzz_add(tot, tot, acc);
    }
    if (lo) {
        xyzz_mul_small(acc, acc, lo);
        xyzz_add(tot, tot, acc);
    }
    out[id] = tot;
}

template <class F>
__global__ void __launch_bounds__(128)
msm_group_sum_kernel(const dev_xyzz_t<F> *in, dev_xyzz_t<F> *out,
                     uint32_t groups, int gs)
{
    uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= groups)
        return;
    dev_xyzz_t<F> acc = in[(size_t)g * gs];
    for (int j = 1; j < gs; j++)
        xyzz_add(acc, acc, in[(size_t)g * gs + j]);
    out[g] = acc;
}

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

/* Checks the density against n_bases and builds the per-word prefix counts
 * (malloc'ed into *prefix, words entries). */
static inline int msm_density_prefix(const uint64_t *density, size_t n, size_t n_bases,
                              uint32_t **prefix, size_t *words)
{
    size_t nw = (n + 63) / 64, count = 0;
    uint32_t *p = (uint32_t *)malloc(nw * sizeof *p);
    if (!p)
        return -ENOMEM;
    for (size_t i = 0; i < nw; i++) {
        uint64_t w = density[i];
        if (i == nw - 1 && (n & 63))
            w &= (1ull << (n & 63)) - 1;
        p[i] = (uint32_t)count;
        count += (size_t)__builtin_popcountll(w);
    }
    if (count != n_bases) {
        free(p);
        return -EINVAL;
    }
    *prefix = p;
    *words = nw;
    return 0;
}

/* ---- the workspace --------------------------------------------------- */

/* Everything one MSM call needs besides its inputs: device scratch, the
 * page-locked staging buffers, streams and events. Workspaces are kept in a
 * pool per process (msm.cu) and reused, so a prover's MSMs of the same sizes
 * allocate nothing after the first: cudaMalloc, cudaFree and cudaHostAlloc
 * synchronize or are slow, and a Groth16 proof makes five MSMs a partition.
 * Buffers grow to the largest call seen; kernels_msm_release frees them. */
enum msm_phase {
    MSM_T_START,   /* after the workspace is ready */
    MSM_T_DIGITS,  /* scalars copied in, digits written */
    MSM_T_SORT,    /* sorted, bucket bounds found */
    MSM_T_BUCKETS, /* bases in, buckets and ones summed */
    MSM_T_END,     /* windows reduced, their last sums copied out */
    MSM_T_SEGMENTS, /* within the reduction: segments summed */
    MSM_T_GROUPS,   /* within the reduction: windows and ones summed */
    MSM_T_COUNT
};

struct msm_ws {
    struct msm_ws *next; /* in the pool's idle list */
    int device;
    size_t point_bytes;  /* the curve it serves: affine point bytes (G1 or G2) */
    struct kbuf sc, keys[2], vals[2], start, end, buck, head, tail, seg[2], ones[2], fin,
        dens, pref, bases, tmp, stage[2];
    cudaStream_t s0, s1;
    cudaEvent_t ev_stage[2], ev_bases0, ev_bases1, ev_t[MSM_T_COUNT];
};

/* msm.cu: an idle workspace of the current device for points of
 * point_bytes (G1 or G2 affine), or a new one; 0 or -errno. */
int msm_ws_take(struct msm_ws **ret, size_t point_bytes);
/* Back to the pool; after a failed call (healthy false) it is destroyed. */
void msm_ws_give(struct msm_ws *ws, bool healthy);
/* b holds at least bytes (> 0) of role's memory: kept if large enough, else
 * reallocated (contents lost). 0 or -errno. */
int msm_ws_reserve(struct kbuf *b, int role, size_t bytes);
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

/* The shape of one MSM call: window, buckets, pairs, chunks, and its sort's
 * scratch (cub's query, which reads no device memory). */
struct msm_plan {
    int c, nw, end_bit;
    uint32_t nb, nseg, chunks;
    size_t n, items, used_bases, words, chunk, tmp_bytes;
    bool density, copy_bases;
    enum msm_src src;
};

template <class F>
static int msm_plan_make(struct msm_plan *pl, size_t n, size_t n_bases, bool density, bool copy_bases,
                         enum msm_src src, unsigned window)
{
    memset(pl, 0, sizeof *pl);
    pl->n = n;
    pl->c = window ? (int)window : (int)msm_window_for(n);
    pl->nw = (256 + pl->c - 1) / pl->c;
    pl->nb = (uint32_t)pl->nw << (pl->c - 1);
    pl->items = (size_t)pl->nw * n;
    if (n > 0x7fffffffu || pl->items > 0x7fffffffu)
        return -EOVERFLOW;
    pl->end_bit = 32 - __builtin_clz(pl->nb + 1);
    pl->nseg = (1u << (pl->c - 1)) / ((1u << (pl->c - 1)) < MSM_SEG ? (1u << (pl->c - 1)) : MSM_SEG);
    pl->density = density;
    pl->used_bases = density ? n_bases : n;
    pl->words = density ? (n + 63) / 64 : 0;
    pl->copy_bases = copy_bases && pl->used_bases;
    pl->src = src;
    /* chunks of 64 pairs and more, at most 2^18 (2^17 for G2): enough
     * threads to fill the GPU, pieces of 2 x 48 (96) MiB at most, and a
     * bucket of k points crosses at most k / 64 + 1 chunks, which its
     * combine adds one after the other (chunks of 16 made 250 repeated
     * values at 2^18 cost 1.95x random scalars on the H200) */
    pl->chunks = (uint32_t)(pl->items / 64 ? pl->items / 64 : 1);
    if (pl->chunks > (sizeof(F) > 48 ? (1u << 17) : (1u << 18)))
        pl->chunks = sizeof(F) > 48 ? (1u << 17) : (1u << 18);
    pl->chunk = n < MSM_CHUNK ? n : MSM_CHUNK;
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
        MSM_NEED(sc, KERNELS_MEM_MSM, pl->n * sizeof(dev_fr_t));
    for (int i = 0; i < 2; i++) {
        MSM_NEED(keys[i], KERNELS_MEM_MSM, pl->items * sizeof(uint32_t));
        MSM_NEED(vals[i], KERNELS_MEM_MSM, pl->items * sizeof(uint32_t));
        MSM_NEED(seg[i], KERNELS_MEM_MSM, (size_t)pl->nw * pl->nseg * sizeof(xyzz_t));
        MSM_NEED(ones[i], KERNELS_MEM_MSM, MSM_ONES_THREADS * sizeof(xyzz_t));
    }
    MSM_NEED(start, KERNELS_MEM_MSM, (pl->nb + 2) * sizeof(uint32_t));
    MSM_NEED(end, KERNELS_MEM_MSM, (pl->nb + 2) * sizeof(uint32_t));
    MSM_NEED(buck, KERNELS_MEM_MSM, (size_t)pl->nb * sizeof(xyzz_t));
    MSM_NEED(head, KERNELS_MEM_MSM, (size_t)pl->chunks * sizeof(xyzz_t));
    MSM_NEED(tail, KERNELS_MEM_MSM, (size_t)pl->chunks * sizeof(xyzz_t));
    /* what step 5 takes to the host: at most MSM_HOST_SUMS sums a window and
     * the ones' partial sums */
    MSM_NEED(fin, KERNELS_MEM_PINNED,
             ((size_t)pl->nw * MSM_HOST_SUMS + MSM_ONES_THREADS / MSM_GROUP) * sizeof(xyzz_t));
    if (pl->density) {
        MSM_NEED(dens, KERNELS_MEM_MSM, pl->words * sizeof(uint64_t));
        MSM_NEED(pref, KERNELS_MEM_MSM, pl->words * sizeof(uint32_t));
    }
    if (pl->copy_bases)
        MSM_NEED(bases, KERNELS_MEM_MSM, pl->used_bases * sizeof(dev_affine_t<F>));
    MSM_NEED(tmp, KERNELS_MEM_MSM, pl->tmp_bytes ? pl->tmp_bytes : 1);
    if (pl->src == MSM_SRC_PAGEABLE) {
        MSM_NEED(stage[0], KERNELS_MEM_PINNED, pl->chunk * sizeof(dev_fr_t));
        MSM_NEED(stage[1], KERNELS_MEM_PINNED, pl->chunk * sizeof(dev_fr_t));
    }
#undef MSM_NEED
    if (device_bytes)
        *device_bytes = dev;
    if (pinned_bytes)
        *pinned_bytes = pin;
    return rc;
}

/* The digits of scalars [off, off + len) of sc (device memory), on s0. */
static inline int msm_launch_digits(struct msm_ws *ws, const dev_fr_t *sc, size_t off, size_t len, size_t n,
                                    const uint64_t *density, int c, int nw)
{
    msm_digits_kernel<<<blocks_for(len, 256), 256, 0, ws->s0>>>(
        sc, off, off + len, n, density ? (const uint64_t *)ws->dens.p : NULL,
        density ? (const uint32_t *)ws->pref.p : NULL, (uint32_t *)ws->keys[0].p, (uint32_t *)ws->vals[0].p, c, nw);
    return CUDA_CHECK_LAUNCH("msm_digits_kernel");
}

template <class F>
static int msm_run(dev_jac_t<F> *ret, const dev_affine_t<F> *host_bases,
                   const dev_affine_t<F> *dev_bases, size_t n_bases,
                   const dev_fr_t *scalars, size_t n, const uint64_t *density,
                   unsigned window)
{
    typedef dev_affine_t<F> aff_t;
    typedef dev_xyzz_t<F> xyzz_t;
    struct msm_ws *ws = NULL;
    struct kernels_msm_profile prof = {};
    struct msm_plan pl;
    uint32_t *prefix = NULL;
    size_t words = 0, used_bases, items, tmp_bytes, chunk;
    int c, nw, rc = 0, end_bit;
    uint32_t nb, nseg, chunks;
    bool copy_bases;
    enum msm_src src;
    const dev_fr_t *sc;
    double t_call = msm_wall_ms(), host_final_ms = 0;

    if (!ret || (n && !scalars))
        return -EINVAL;
    if (window && (window < 2 || window > MSM_MAX_WINDOW))
        return -EINVAL;
    if (n == 0) {
        dev_jac_t<F> inf;
        field_set_one(inf.x);
        field_set_one(inf.y);
        field_set_zero(inf.z);
        *ret = inf;
        return 0;
    }
    if (n > 0x7fffffffu)
        return -EOVERFLOW;
    if (!density && n_bases < n)
        return -EINVAL;
    if ((density ? n_bases : n) && !host_bases && !dev_bases)
        return -EINVAL;
    if ((rc = msm_scalars_src(scalars, &src)) < 0)
        return rc;
    if ((rc = msm_plan_make<F>(&pl, n, n_bases, density != NULL, !dev_bases, src, window)) < 0)
        return rc;
    if (density && (rc = msm_density_prefix(density, n, n_bases, &prefix, &words)) < 0)
        return rc;
    c = pl.c;
    nw = pl.nw;
    nb = pl.nb;
    items = pl.items;
    end_bit = pl.end_bit;
    nseg = pl.nseg;
    chunks = pl.chunks;
    chunk = pl.chunk;
    tmp_bytes = pl.tmp_bytes;
    used_bases = pl.used_bases;
    copy_bases = pl.copy_bases;
    prof.n = n;
    prof.window = (unsigned)c;
    prof.windows = (unsigned)nw;

    if ((rc = msm_ws_take(&ws, sizeof(aff_t))) < 0) {
        free(prefix);
        return rc;
    }

    /* ---- scratch, grown to this call ---- */
    if ((rc = msm_scratch<F>(ws, &pl, NULL, NULL)) < 0)
        goto fail;
    if (copy_bases)
        dev_bases = (const aff_t *)ws->bases.p;
    sc = src == MSM_SRC_DEVICE ? scalars : (const dev_fr_t *)ws->sc.p;
    prof.setup_ms = msm_wall_ms() - t_call;

    CUDA_TRY(cudaEventRecord(ws->ev_t[MSM_T_START], ws->s0));
    if (density) {
        CUDA_TRY(cudaMemcpyAsync(ws->dens.p, density, words * sizeof(uint64_t),
                                 cudaMemcpyHostToDevice, ws->s0));
        CUDA_TRY(cudaMemcpyAsync(ws->pref.p, prefix, words * sizeof(uint32_t),
                                 cudaMemcpyHostToDevice, ws->s0));
        /* the prefix copy reads host memory: wait before freeing it */
        CUDA_TRY(cudaStreamSynchronize(ws->s0));
    }

    /* ---- 1. scalars in, digits out, chunk by chunk ---- */
    if (src == MSM_SRC_DEVICE) {
        /* already there (the caller's work that wrote them is complete) */
        if ((rc = msm_launch_digits(ws, sc, 0, n, n, density, c, nw)) < 0)
            goto fail;
    } else if (src == MSM_SRC_PINNED) {
        /* page-locked: the copy engine reads them directly on s1, chunk by
         * chunk, and s0 computes a chunk's digits once it is in */
        for (size_t off = 0; off < n; off += chunk) {
            size_t len = n - off < chunk ? n - off : chunk;
            CUDA_TRY(cudaMemcpyAsync((dev_fr_t *)ws->sc.p + off, scalars + off, len * sizeof(dev_fr_t),
                                     cudaMemcpyHostToDevice, ws->s1));
            CUDA_TRY(cudaEventRecord(ws->ev_stage[0], ws->s1));
            CUDA_TRY(cudaStreamWaitEvent(ws->s0, ws->ev_stage[0], 0));
            if ((rc = msm_launch_digits(ws, sc, off, len, n, density, c, nw)) < 0)
                goto fail;
        }
    } else {
        for (size_t off = 0, q = 0; off < n; off += chunk, q++) {
            size_t len = n - off < chunk ? n - off : chunk;
            int sb = (int)(q & 1);
            /* the staging buffer's previous copy (this call's or the last
             * call's) must be done before it is overwritten */
            CUDA_TRY(cudaEventSynchronize(ws->ev_stage[sb]));
            host_copy(ws->stage[sb].p, scalars + off, len * sizeof(dev_fr_t));
            CUDA_TRY(cudaMemcpyAsync((dev_fr_t *)ws->sc.p + off, ws->stage[sb].p, len * sizeof(dev_fr_t),
                                     cudaMemcpyHostToDevice, ws->s0));
            CUDA_TRY(cudaEventRecord(ws->ev_stage[sb], ws->s0));
            if ((rc = msm_launch_digits(ws, sc, off, len, n, density, c, nw)) < 0)
                goto fail;
        }
    }
    CUDA_TRY(cudaEventRecord(ws->ev_t[MSM_T_DIGITS], ws->s0));

    /* ---- 2. sort by bucket, find the buckets' ranges ---- */
    {
        cub::DoubleBuffer<uint32_t> dk((uint32_t *)ws->keys[0].p, (uint32_t *)ws->keys[1].p);
        cub::DoubleBuffer<uint32_t> dv((uint32_t *)ws->vals[0].p, (uint32_t *)ws->vals[1].p);
        CUDA_TRY(cub::DeviceRadixSort::SortPairs(ws->tmp.p, tmp_bytes, dk, dv,
                                                 (int)items, 0, end_bit, ws->s0));
        CUDA_TRY(cudaMemsetAsync(ws->start.p, 0, (nb + 2) * sizeof(uint32_t), ws->s0));
        CUDA_TRY(cudaMemsetAsync(ws->end.p, 0, (nb + 2) * sizeof(uint32_t), ws->s0));
        msm_bounds_kernel<<<blocks_for(items, 256) > 65536 ? 65536 : blocks_for(items, 256),
                            256, 0, ws->s0>>>(dk.Current(), items, (uint32_t *)ws->start.p,
                                              (uint32_t *)ws->end.p, nb);
        if ((rc = CUDA_CHECK_LAUNCH("msm_bounds_kernel")) < 0)
            goto fail;
        CUDA_TRY(cudaEventRecord(ws->ev_t[MSM_T_SORT], ws->s0));

        /* the bases travel while the GPU sorts: a copy from pageable memory
         * holds the host until it is done, so it is queued after the sort
         * (queued before it, on the H200, the sort phase took the copy's
         * 252 ms at 2^24 instead of 6 ms) */
        if (copy_bases) {
            CUDA_TRY(cudaEventRecord(ws->ev_bases0, ws->s1));
            CUDA_TRY(cudaMemcpyAsync(ws->bases.p, host_bases, used_bases * sizeof(aff_t),
                                     cudaMemcpyHostToDevice, ws->s1));
            CUDA_TRY(cudaEventRecord(ws->ev_bases1, ws->s1));
            CUDA_TRY(cudaStreamWaitEvent(ws->s0, ws->ev_bases1, 0));
        }

        /* ---- 3. buckets, and the points of scalars 1 ---- */
        const uint32_t *vals = dv.Current();
        CUDA_TRY(cudaMemsetAsync(ws->buck.p, 0, (size_t)nb * sizeof(xyzz_t), ws->s0)); /* infinity */
        msm_accumulate_kernel<F><<<blocks_for(chunks, 128), 128, 0, ws->s0>>>(
            dev_bases, dk.Current(), vals, (const uint32_t *)ws->start.p, (const uint32_t *)ws->end.p, nb,
            chunks, (xyzz_t *)ws->buck.p, (xyzz_t *)ws->head.p, (xyzz_t *)ws->tail.p);
        if ((rc = CUDA_CHECK_LAUNCH("msm_accumulate_kernel")) < 0)
            goto fail;
        msm_combine_kernel<F><<<blocks_for(chunks, 128), 128, 0, ws->s0>>>(
            dk.Current(), (const uint32_t *)ws->start.p, (const uint32_t *)ws->end.p, nb, chunks,
            (xyzz_t *)ws->buck.p, (const xyzz_t *)ws->head.p, (const xyzz_t *)ws->tail.p);
        if ((rc = CUDA_CHECK_LAUNCH("msm_combine_kernel")) < 0)
            goto fail;
        msm_ones_kernel<F><<<MSM_ONES_THREADS / 128, 128, 0, ws->s0>>>(
            dev_bases, vals, (const uint32_t *)ws->start.p, (const uint32_t *)ws->end.p,
            nb, (xyzz_t *)ws->ones[0].p);
        if ((rc = CUDA_CHECK_LAUNCH("msm_ones_kernel")) < 0)
            goto fail;
        CUDA_TRY(cudaEventRecord(ws->ev_t[MSM_T_BUCKETS], ws->s0));
    }
    {
        /* ones: 1024 partial sums -> 128, the rest on the host */
        const uint32_t ones_left = MSM_ONES_THREADS / MSM_GROUP;
        msm_group_sum_kernel<F><<<blocks_for(ones_left, 128), 128, 0, ws->s0>>>(
            (const xyzz_t *)ws->ones[0].p, (xyzz_t *)ws->ones[1].p, ones_left, MSM_GROUP);
        if ((rc = CUDA_CHECK_LAUNCH("msm_group_sum_kernel")) < 0)
            goto fail;

        /* ---- 4. windows ---- */
        int seg = (int)((1u << (c - 1)) / nseg);
        msm_segment_kernel<F><<<blocks_for((size_t)nw * nseg, 128), 128, 0, ws->s0>>>(
            (const xyzz_t *)ws->buck.p, (xyzz_t *)ws->seg[0].p, c, nw, seg);
        if ((rc = CUDA_CHECK_LAUNCH("msm_segment_kernel")) < 0)
            goto fail;
        CUDA_TRY(cudaEventRecord(ws->ev_t[MSM_T_SEGMENTS], ws->s0));
        int cur = 0;
        uint32_t m = nseg; /* sums per window, a power of 2 */
        while (m > MSM_HOST_SUMS) {
            uint32_t groups = (uint32_t)nw * (m / MSM_GROUP);
            msm_group_sum_kernel<F><<<blocks_for(groups, 128), 128, 0, ws->s0>>>(
                (const xyzz_t *)ws->seg[cur].p, (xyzz_t *)ws->seg[cur ^ 1].p, groups, MSM_GROUP);
            if ((rc = CUDA_CHECK_LAUNCH("msm_group_sum_kernel")) < 0)
                goto fail;
            cur ^= 1;
            m /= MSM_GROUP;
        }
        CUDA_TRY(cudaEventRecord(ws->ev_t[MSM_T_GROUPS], ws->s0));

        /* ---- 5. the last sums and Horner over the windows, on the host ---- */
        size_t left = (size_t)nw * m;
        CUDA_TRY(cudaMemcpyAsync(ws->fin.p, ws->seg[cur].p, left * sizeof(xyzz_t), cudaMemcpyDeviceToHost,
                                 ws->s0));
        CUDA_TRY(cudaMemcpyAsync((xyzz_t *)ws->fin.p + left, ws->ones[1].p, ones_left * sizeof(xyzz_t),
                                 cudaMemcpyDeviceToHost, ws->s0));
        CUDA_TRY(cudaEventRecord(ws->ev_t[MSM_T_END], ws->s0));
        CUDA_TRY(cudaStreamSynchronize(ws->s0));
        double t_host = msm_wall_ms();
        msm_host_final(ret, (const xyzz_t *)ws->fin.p, nw, m, (const xyzz_t *)ws->fin.p + left,
                          ones_left, c);
        host_final_ms = msm_wall_ms() - t_host;
    }

    /* ---- the profile ---- */
    {
        float ms[MSM_T_COUNT] = {}, seg_ms = 0, grp_ms = 0, fin_ms = 0;
        for (int i = 1; i <= MSM_T_END; i++)
            CUDA_TRY(cudaEventElapsedTime(&ms[i], ws->ev_t[i - 1], ws->ev_t[i]));
        CUDA_TRY(cudaEventElapsedTime(&seg_ms, ws->ev_t[MSM_T_BUCKETS], ws->ev_t[MSM_T_SEGMENTS]));
        CUDA_TRY(cudaEventElapsedTime(&grp_ms, ws->ev_t[MSM_T_SEGMENTS], ws->ev_t[MSM_T_GROUPS]));
        CUDA_TRY(cudaEventElapsedTime(&fin_ms, ws->ev_t[MSM_T_GROUPS], ws->ev_t[MSM_T_END]));
        prof.segments_ms = seg_ms;
        prof.groups_ms = grp_ms;
        prof.final_ms = fin_ms + host_final_ms;
        prof.digits_ms = ms[MSM_T_DIGITS];
        prof.sort_ms = ms[MSM_T_SORT];
        prof.buckets_ms = ms[MSM_T_BUCKETS];
        prof.reduce_ms = ms[MSM_T_END] + host_final_ms;
        if (copy_bases) {
            float b = 0;
            CUDA_TRY(cudaEventElapsedTime(&b, ws->ev_bases0, ws->ev_bases1));
            prof.bases_ms = b;
        }
        prof.total_ms = msm_wall_ms() - t_call;
        msm_note_profile(&prof);
    }

fail:
    msm_ws_give(ws, rc == 0);
    free(prefix);
    return rc;
}

/* The G1 and G2 instances, compiled in msm.cu and msm_g2.cu. */
int msm_run_g1(dev_jac_t<dev_fp_t> *ret, const dev_affine_t<dev_fp_t> *host_bases,
               const dev_affine_t<dev_fp_t> *dev_bases, size_t n_bases,
               const dev_fr_t *scalars, size_t n, const uint64_t *density,
               unsigned window);
int msm_run_g2(dev_jac_t<dev_fp2_t> *ret, const dev_affine_t<dev_fp2_t> *host_bases,
               const dev_affine_t<dev_fp2_t> *dev_bases, size_t n_bases,
               const dev_fr_t *scalars, size_t n, const uint64_t *density,
               unsigned window);

#endif
