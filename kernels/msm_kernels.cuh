/*
 * The device kernels of the GPU MSM (the algorithm: msm_impl.cuh): digits,
 * bucket bounds, bucket sums over one pass, the ones, and the window
 * reduction. Private to kernels/.
 */
#ifndef ZKB_KERNELS_MSM_KERNELS_CUH
#define ZKB_KERNELS_MSM_KERNELS_CUH

#include <stdint.h>

#include "kernels/curve.cuh"
#include "kernels/fp2_pair.cuh"
#include "kernels/msm_digits.cuh"

/* The G2 instance (coordinates in Fp2, 96 bytes) rather than G1's (Fp). */
template <class F>
constexpr bool msm_is_g2()
{
    return sizeof(F) > sizeof(dev_fp_t);
}

/* ---- kernels ----------------------------------------------------------- */

/* The digits of scalars i0 + k, k in [k0, k1), of a pass starting at
 * scalar i0 with len scalars (sc[k] is scalar i0 + k). Base indices are
 * relative to the pass's first base, base_off. */
static __global__ void msm_digits_kernel(const dev_fr_t *sc, size_t i0, size_t k0, size_t k1,
                                         size_t len, const uint64_t *density, const uint32_t *prefix,
                                         uint32_t base_off, uint32_t *keys, uint32_t *vals, int c, int nw)
{
    const uint32_t nb = (uint32_t)nw << (c - 1);
    const uint32_t key_one = nb, key_none = nb + 1;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = k0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < k1; k += stride) {
        size_t i = i0 + k;
        uint32_t base = (uint32_t)i;
        bool has = true;
        if (density) {
            uint64_t word = density[i >> 6];
            unsigned bit = i & 63;
            has = (word >> bit) & 1;
            base = prefix[i >> 6] + (uint32_t)__popcll(word & ((1ull << bit) - 1));
        }
        base -= base_off;
        dev_fr_t s;
        if (has) {
            dev_fr_t one_plain = {};
            one_plain.l[0] = 1;
            field_mul(s, sc[k], one_plain); /* out of Montgomery form */
        } else {
            field_zero(s);
        }
        bool is_one = s.l[0] == 1;
        for (int j = 1; j < 8; j++)
            is_one = is_one && s.l[j] == 0;
        if (field_is_zero(s) || is_one) {
            for (int w = 0; w < nw; w++) {
                keys[(size_t)w * len + k] = w == 0 && is_one ? key_one : key_none;
                vals[(size_t)w * len + k] = base;
            }
            continue;
        }
        uint32_t carry = 0;
        for (int w = 0; w < nw; w++) {
            bool neg;
            uint32_t mag = msm_signed_digit(s.l, w, c, &carry, &neg);
            size_t slot = (size_t)w * len + k;
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

/* ---- the accumulation's arithmetic: a thread or a pair of lanes -------- */

/* The field a bucket sum is computed in for points over F: F itself on one
 * thread (G1), Fp2 on a pair of lanes for G2 (fp2_pair.cuh says why). */
template <class F>
struct msm_acc_field {
    typedef F type;
};
template <>
struct msm_acc_field<dev_fp2_t> {
    typedef dev_fp2_pair_t type;
};

/* Threads that hold one accumulator of A. */
template <class A>
struct msm_acc_lanes {
    static constexpr unsigned n = 1;
};
template <>
struct msm_acc_lanes<dev_fp2_pair_t> {
    static constexpr unsigned n = 2;
};

/* This lane's part of base v (signed, as msm_load). */
__device__ __forceinline__ void msm_load(dev_affine_t<dev_fp2_pair_t> &p, const dev_affine_t<dev_fp2_t> *bases,
                                         uint32_t v)
{
    fp2_pair_load(p, bases[v & 0x7fffffffu]);
    if (v >> 31)
        field_neg(p.y, p.y);
}

/* A bucket sum into memory: the whole point, or this lane's part of it. */
template <class F>
__device__ __forceinline__ void msm_store(dev_xyzz_t<F> &r, const dev_xyzz_t<F> &a)
{
    r = a;
}
__device__ __forceinline__ void msm_store(dev_xyzz_t<dev_fp2_t> &r, const dev_xyzz_t<dev_fp2_pair_t> &a)
{
    fp2_pair_store(r, a);
}

/* The inverse of msm_store: a bucket sum from memory into A. */
template <class F>
__device__ __forceinline__ void msm_fetch(dev_xyzz_t<F> &r, const dev_xyzz_t<F> &a)
{
    r = a;
}
__device__ __forceinline__ void msm_fetch(dev_xyzz_t<dev_fp2_pair_t> &r, const dev_xyzz_t<dev_fp2_t> &a)
{
    fp2_pair_fetch(r, a);
}

/* Chunk t of the count = start[nb + 1] pairs of real buckets: [lo, hi). */
__device__ __forceinline__ void msm_chunk(uint32_t t, uint32_t chunks, uint32_t count, uint32_t &lo, uint32_t &hi)
{
    uint32_t len = (count + chunks - 1) / chunks;
    lo = t * len < count ? t * len : count;
    hi = count - lo < len ? count : lo + len;
}

/* Blocks of 128 that the accumulation must fit on one SM, which caps its
 * registers (65536 / (128 MINB)). Left free, ptxas gave the G1 instance
 * 242 registers, 8 warps an SM; held to 128 it spills nothing, and on the
 * H200 (one call, 2026-12-03) G1 with resident bases took 226.9 ms at 2^24
 * where 242 registers took 351.1 (2^22: 61.9 / 93.0, 2^20: 21.3 / 28.5).
 * G2 on one thread needed its 255 registers (held to 168 or 128 it spilled
 * 1.4-3 KiB a thread and took 1595 and 1281 ms at 2^24 against 993); on a
 * pair of lanes (fp2_pair.cuh) it spills nothing at 168 registers, and one
 * H200 call (2026-12-03, results/h200/msm-g2-lanes.md) gave at 2^24 with
 * resident bases 992.1 ms on one thread, 771.7 on a pair held to 168
 * registers (3 blocks), 888.4 held to 128 (4). */
template <class A>
constexpr int msm_accumulate_min_blocks()
{
    return msm_is_g2<A>() ? 1 : msm_acc_lanes<A>::n == 2 ? 3 : 4;
}

/* One thread per chunk of the sorted pairs (for G2 a pair of lanes: the
 * sums are computed in A, msm_acc_field): each run of one bucket is
 * summed; a run that is its whole bucket is added to buckets[k], else it is
 * a piece of a bucket crossing chunks: the chunk's first run goes to
 * head[t], its last to tail[t] (both when they are one run). Every thread
 * makes the same number of additions, one per pair, and a run's end is a
 * short branch inside that one loop: with a loop per run, a warp waited at
 * each run's end for its longest run (on the H200, 333 ms of buckets at
 * 2^24 where one thread per bucket took 210). The pass's buckets are
 * stored, not added to the passes before (msm_merge_kernel does that): a
 * call of the full addition here put the accumulator in local memory, and
 * passes ran 2-3x slower on the H200. Empty buckets must be zeroed
 * (infinity) before. */
template <class F, class A, int MINB>
__global__ void __launch_bounds__(128, MINB)
msm_accumulate_kernel(const dev_affine_t<F> *__restrict__ bases,
                      const uint32_t *__restrict__ keys,
                      const uint32_t *__restrict__ vals,
                      const uint32_t *__restrict__ start,
                      const uint32_t *__restrict__ end, uint32_t nb,
                      uint32_t chunks, dev_xyzz_t<F> *buckets,
                      dev_xyzz_t<F> *head, dev_xyzz_t<F> *tail)
{
    uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / msm_acc_lanes<A>::n, lo, hi;
    if (t >= chunks)
        return;
    msm_chunk(t, chunks, start[nb + 1], lo, hi);
    if (lo >= hi)
        return;
    uint32_t k = keys[lo], b0 = start[k], b1 = end[k];
    bool first = true;
    dev_xyzz_t<A> acc;
    xyzz_set_inf(acc);
    for (uint32_t j = lo;; j++) {
        if (j == b1 || j == hi) {
            /* the run of bucket k ends here */
            if (b0 >= lo && b1 <= hi) {
                msm_store(buckets[k], acc);
            } else {
                if (first)
                    msm_store(head[t], acc);
                if (b1 > hi)
                    msm_store(tail[t], acc);
            }
            if (j == hi)
                break;
            k = keys[j];
            b0 = start[k];
            b1 = end[k];
            first = false;
            xyzz_set_inf(acc);
        }
        dev_affine_t<A> p;
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

/* The call's buckets gather a later pass's: total[k] += pass[k]. */
template <class F>
__global__ void __launch_bounds__(128)
msm_merge_kernel(dev_xyzz_t<F> *total, const dev_xyzz_t<F> *pass, uint32_t nb)
{
    uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nb || xyzz_is_inf(pass[k]))
        return;
    dev_xyzz_t<F> sum = total[k];
    xyzz_add(sum, sum, pass[k]);
    total[k] = sum;
}

/* Partial sums of the points of scalars 1 (key nb), added to out: sum t
 * (a thread, or a pair of lanes in A as in the accumulation) takes every
 * T-th of them. */
template <class F, class A>
__global__ void __launch_bounds__(128)
msm_ones_kernel(const dev_affine_t<F> *__restrict__ bases,
                const uint32_t *__restrict__ vals, const uint32_t *start,
                const uint32_t *end, uint32_t nb, dev_xyzz_t<F> *out)
{
    uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / msm_acc_lanes<A>::n;
    uint32_t T = gridDim.x * blockDim.x / msm_acc_lanes<A>::n;
    dev_xyzz_t<A> acc;
    msm_fetch(acc, out[t]);
    for (uint32_t j = start[nb] + t, e = end[nb]; j < e; j += T) {
        dev_affine_t<A> p;
        msm_load(p, bases, vals[j]);
        xyzz_add_mixed(acc, acc, p);
    }
    msm_store(out[t], acc);
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

#endif
