/*
 * Number-theoretic transforms over Fr on the GPU, with the semantics of
 * prover/ntt.h (natural order in and out; coset generator g = 7).
 *
 * Forward: decimation in frequency (Gentleman-Sande), natural order in and
 * bit-reversed out, then an in-place bit-reversal permutation. Stages run
 * in passes of up to 10: a thread block loads a tile of 2^k rows (the k
 * index bits of the pass's stages) by C consecutive columns (the lowest
 * index bits, so that global loads and stores are coalesced), runs the k
 * stages in shared memory and writes the tile back.
 *
 * Twiddles: one table per device, W[2^(j-1) + i] = w_(2^j)^i for i < 2^(j-1)
 * and j <= the largest log size asked for (2^L entries in all), which serves
 * every size <= 2^L: a stage with butterfly distance h reads W[h + i], and
 * consecutive columns read consecutive entries.
 *
 * Inverse: sum_j a[j] w^(-ij) = the forward transform of a with its indices
 * negated mod n (a[j] <-> a[n-j]), then scaled by 1/n. Cosets scale by g^i
 * before the forward transform and by g^(-i)/n after the inverse one.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <mutex>

#include "kernels/alloc.cuh"
#include "kernels/cuda_check.cuh"
#include "kernels/kernels.h"
#include "kernels/ntt.cuh"

#define NTT_TILE_LOG 10 /* elements of a tile: 2^10 (32 KiB of shared memory) */
#define NTT_MAX_DEVICES 64

/* ---- host arithmetic for the constants --------------------------------- */

static dev_fr_t fr_const(const uint32_t *v)
{
    dev_fr_t r;
    for (int i = 0; i < 8; i++)
        r.l[i] = v[i];
    return r;
}

/* Montgomery form of the small integer x. */
static dev_fr_t fr_from_u32(uint32_t x)
{
    static const uint32_t r2[8] = {BLS12_381_R_R2(BLS12_381_U32)};
    dev_fr_t a = {}, ret;
    a.l[0] = x;
    field_mul(ret, a, fr_const(r2));
    return ret;
}

/* base^e, e given as 8 little-endian 32-bit limbs. */
static dev_fr_t fr_pow(const dev_fr_t &base, const uint32_t *e)
{
    dev_fr_t acc;
    field_one(acc);
    for (int bit = 255; bit >= 0; bit--) {
        field_sqr(acc, acc);
        if ((e[bit / 32] >> (bit % 32)) & 1)
            field_mul(acc, acc, base);
    }
    return acc;
}

/* 1/a = a^(r-2) (Fermat); 1/0 gives 0. */
static dev_fr_t fr_inv(const dev_fr_t &a)
{
    static const uint32_t r[8] = {BLS12_381_R(BLS12_381_U32)};
    uint32_t e[8];
    uint64_t borrow = 2;
    for (int i = 0; i < 8; i++) {
        uint64_t d = (uint64_t)r[i] - borrow;
        e[i] = (uint32_t)d;
        borrow = (d >> 63) & 1;
    }
    return fr_pow(a, e);
}

static void ntt_consts_compute(struct ntt_consts *k, unsigned log_n)
{
    field_one(k->one);
    k->gen = fr_from_u32(BLS12_381_R_GENERATOR);
    k->gen_inv = fr_inv(k->gen);
    dev_fr_t two = fr_from_u32(2), n = k->one, gn = k->gen, t;
    for (unsigned i = 0; i < log_n; i++) {
        field_mul(n, n, two);
        field_sqr(gn, gn);
    }
    k->n_inv = fr_inv(n);
    field_sub(t, gn, k->one);
    k->z_coset_inv = fr_inv(t);
}

/* Cached per size: the inversions take milliseconds on the host. */
static std::mutex consts_lock;
static struct ntt_consts consts_cache[KERNELS_NTT_MAX_LOG + 1];
static bool consts_have[KERNELS_NTT_MAX_LOG + 1];

void ntt_consts_get(struct ntt_consts *k, unsigned log_n)
{
    std::lock_guard<std::mutex> g(consts_lock);
    if (!consts_have[log_n]) {
        ntt_consts_compute(&consts_cache[log_n], log_n);
        consts_have[log_n] = true;
    }
    *k = consts_cache[log_n];
}

/* roots[j]: a primitive 2^j-th root of unity, j <= 32. */
struct ntt_roots {
    dev_fr_t r[33];
};

static void ntt_roots_get(struct ntt_roots *k)
{
    static const uint32_t root[8] = {BLS12_381_R_ROOT_OF_UNITY(BLS12_381_U32)};
    k->r[32] = fr_const(root);
    for (int j = 32; j > 0; j--)
        field_sqr(k->r[j - 1], k->r[j]);
}

/* ---- kernels ----------------------------------------------------------- */

__device__ __forceinline__ dev_fr_t fr_pow_u64(const dev_fr_t &b, uint64_t e)
{
    dev_fr_t acc, x = b;
    field_one(acc);
    while (e) {
        if (e & 1)
            field_mul(acc, acc, x);
        e >>= 1;
        if (e)
            field_sqr(x, x);
    }
    return acc;
}

#define TW_CHUNK 16

/* W[e] for e in [1, 2^L): e = 2^(j-1) + i gives roots[j]^i. */
__global__ void ntt_twiddles_kernel(dev_fr_t *w, size_t total, ntt_roots roots)
{
    size_t e0 = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * TW_CHUNK;
    dev_fr_t cur, step;
    for (size_t e = e0; e < e0 + TW_CHUNK && e < total; e++) {
        if (e == 0) {
            field_one(w[0]);
            continue;
        }
        int j = 64 - __clzll((unsigned long long)e);
        size_t half = (size_t)1 << (j - 1);
        if (e == e0 || e == half) {
            step = roots.r[j];
            cur = fr_pow_u64(step, e - half);
        } else {
            field_mul(cur, cur, step);
        }
        w[e] = cur;
    }
}

/*
 * One pass: stages t0 .. t0+k-1 of a size-2^L DIF. R = L - t0; the pass's
 * row bits are index bits [R-k, R); S = 2^(R-k) is the row stride and the
 * tile's C = 2^logc columns are consecutive indices below S.
 */
__global__ void __launch_bounds__(512)
ntt_dif_pass(dev_fr_t *x, const dev_fr_t *__restrict__ tw, int R, int k,
             int logc)
{
    __shared__ dev_fr_t sh[1 << NTT_TILE_LOG];
    const size_t S = (size_t)1 << (R - k);
    const unsigned C = 1u << logc;
    const size_t nlow = S >> logc;
    const size_t blk = blockIdx.x;
    const size_t lowblk = blk % nlow, hi = blk / nlow;
    const size_t base = (hi << R) + lowblk * C;
    const unsigned E = 1u << (k + logc), tid = threadIdx.x;

    for (unsigned e = tid; e < E; e += blockDim.x)
        sh[e] = x[base + (size_t)(e >> logc) * S + (e & (C - 1))];
    __syncthreads();
    /* blockDim.x = E/2: one butterfly per thread and stage. The next
     * stage's twiddle is loaded before this stage's arithmetic, so its
     * latency hides behind the multiplication. */
    const unsigned c = tid & (C - 1), rb = tid >> logc;
    const size_t colbase = lowblk * C + c;
    unsigned hr = 1u << (k - 1);
    dev_fr_t w = tw[(size_t)hr * S + (size_t)(rb % hr) * S + colbase];
    for (int s = 0; s < k; s++) {
        unsigned lo = (rb / hr) * 2 * hr + rb % hr, up = lo + hr;
        dev_fr_t wn = w;
        if (s + 1 < k) {
            unsigned hn = hr >> 1;
            wn = tw[(size_t)hn * S + (size_t)(rb % hn) * S + colbase];
        }
        dev_fr_t u = sh[lo * C + c], v = sh[up * C + c], a, b;
        field_add(a, u, v);
        field_sub(b, u, v);
        field_mul(b, b, w);
        sh[lo * C + c] = a;
        sh[up * C + c] = b;
        __syncthreads();
        w = wn;
        hr >>= 1;
    }
    for (unsigned e = tid; e < E; e += blockDim.x)
        x[base + (size_t)(e >> logc) * S + (e & (C - 1))] = sh[e];
}

__global__ void ntt_bitrev_kernel(dev_fr_t *x, size_t n, int L)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += stride) {
        size_t j = (size_t)(__brevll((unsigned long long)i) >> (64 - L));
        if (i < j) {
            dev_fr_t a = x[i], b = x[j];
            x[i] = b;
            x[j] = a;
        }
    }
}

/* a[j] <-> a[n-j] for 0 < j < n/2. */
__global__ void ntt_negate_index_kernel(dev_fr_t *x, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x + 1;
         j < n / 2; j += stride) {
        dev_fr_t a = x[j], b = x[n - j];
        x[j] = b;
        x[n - j] = a;
    }
}

/* x[i] *= c g^i; thread t handles i = t, t + T, ... (T threads) with
 * gT = g^T. */
__global__ void ntt_scale_kernel(dev_fr_t *x, size_t n, dev_fr_t c,
                                 dev_fr_t g, dev_fr_t gT)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t T = (size_t)gridDim.x * blockDim.x;
    if (t >= n)
        return;
    dev_fr_t cur = fr_pow_u64(g, t);
    field_mul(cur, cur, c);
    for (size_t i = t; i < n; i += T) {
        dev_fr_t v = x[i];
        field_mul(v, v, cur);
        x[i] = v;
        field_mul(cur, cur, gT);
    }
}

/* ---- host side --------------------------------------------------------- */

static std::mutex tw_lock;
static struct {
    struct kbuf buf;
    unsigned log_max;
} tw_cache[NTT_MAX_DEVICES];

static unsigned grid_for(size_t n, unsigned threads, unsigned max_blocks)
{
    size_t b = (n + threads - 1) / threads;
    if (b > max_blocks)
        b = max_blocks;
    return b ? (unsigned)b : 1;
}

/* The device's twiddle table for sizes up to 2^log_n: builds or grows it. */
static int tw_get(unsigned log_n, const dev_fr_t **ret)
{
    int dev, rc;
    if ((rc = CUDA_CHECK(cudaGetDevice(&dev))) < 0)
        return rc;
    if (dev < 0 || dev >= NTT_MAX_DEVICES)
        return -ENODEV;
    std::lock_guard<std::mutex> g(tw_lock);
    if (!tw_cache[dev].buf.p || tw_cache[dev].log_max < log_n) {
        unsigned L = log_n < 1 ? 1 : log_n;
        size_t total = (size_t)1 << L;
        struct kbuf nb;
        /* Work queued on other streams may still read the old table. */
        if ((rc = CUDA_CHECK(cudaDeviceSynchronize())) < 0)
            return rc;
        if ((rc = kbuf_free(&tw_cache[dev].buf)) < 0)
            return rc;
        if ((rc = kbuf_alloc(&nb, KERNELS_MEM_NTT, total * sizeof(dev_fr_t))) < 0)
            return rc;
        ntt_roots roots;
        ntt_roots_get(&roots);
        size_t threads = (total + TW_CHUNK - 1) / TW_CHUNK;
        ntt_twiddles_kernel<<<(unsigned)((threads + 255) / 256), 256>>>(
            (dev_fr_t *)nb.p, total, roots);
        if ((rc = CUDA_CHECK_LAUNCH("ntt_twiddles_kernel")) < 0 ||
            (rc = CUDA_CHECK(cudaDeviceSynchronize())) < 0) {
            kbuf_free(&nb);
            return rc;
        }
        tw_cache[dev].buf = nb;
        tw_cache[dev].log_max = L;
    }
    *ret = (const dev_fr_t *)tw_cache[dev].buf.p;
    return 0;
}

int ntt_scale_powers(dev_fr_t *x, size_t n, const dev_fr_t &c,
                     const dev_fr_t &g, cudaStream_t s)
{
    unsigned threads = 256, blocks = grid_for(n, threads, 1024);
    size_t T = (size_t)blocks * threads;
    /* g^T on the host (T < 2^32). */
    dev_fr_t gT, x2 = g;
    field_one(gT);
    for (size_t e = T; e; e >>= 1) {
        if (e & 1)
            field_mul(gT, gT, x2);
        field_sqr(x2, x2);
    }
    ntt_scale_kernel<<<blocks, threads, 0, s>>>(x, n, c, g, gT);
    return CUDA_CHECK_LAUNCH("ntt_scale_kernel");
}

static int ntt_dif(dev_fr_t *x, unsigned L, const dev_fr_t *tw, cudaStream_t s)
{
    int t0 = 0, rc;
    size_t n = (size_t)1 << L;
    while (t0 < (int)L) {
        int R = (int)L - t0, k, logc;
        if (R <= NTT_TILE_LOG) {
            k = R;
            logc = 0;
        } else {
            k = R <= NTT_TILE_LOG + 8 ? R - NTT_TILE_LOG : 8;
            if (k < 4)
                k = 4;
            logc = NTT_TILE_LOG - k;
            if (logc > R - k)
                logc = R - k;
        }
        size_t E = (size_t)1 << (k + logc);
        unsigned threads = (unsigned)(E / 2 < 512 ? E / 2 : 512);
        size_t blocks = n / E;
        ntt_dif_pass<<<(unsigned)blocks, threads, 0, s>>>(x, tw, R, k, logc);
        if ((rc = CUDA_CHECK_LAUNCH("ntt_dif_pass")) < 0)
            return rc;
        t0 += k;
    }
    ntt_bitrev_kernel<<<grid_for(n, 256, 65536), 256, 0, s>>>(x, n, (int)L);
    return CUDA_CHECK_LAUNCH("ntt_bitrev_kernel");
}

int ntt_run(dev_fr_t *x, unsigned L, int dir, cudaStream_t s)
{
    const dev_fr_t *tw;
    struct ntt_consts k;
    size_t n = (size_t)1 << L;
    int rc;
    if (L > KERNELS_NTT_MAX_LOG || !x)
        return -EINVAL;
    if (dir < KERNELS_NTT_FORWARD || dir > KERNELS_NTT_COSET_INVERSE)
        return -EINVAL;
    if ((rc = tw_get(L, &tw)) < 0)
        return rc;
    ntt_consts_get(&k, L);
    if (L == 0)
        return 0; /* n = 1: every transform is the identity */
    bool inv = dir == KERNELS_NTT_INVERSE || dir == KERNELS_NTT_COSET_INVERSE;
    if (dir == KERNELS_NTT_COSET_FORWARD &&
        (rc = ntt_scale_powers(x, n, k.one, k.gen, s)) < 0)
        return rc;
    if (inv) {
        ntt_negate_index_kernel<<<grid_for(n / 2, 256, 65536), 256, 0, s>>>(x, n);
        if ((rc = CUDA_CHECK_LAUNCH("ntt_negate_index_kernel")) < 0)
            return rc;
    }
    if ((rc = ntt_dif(x, L, tw, s)) < 0)
        return rc;
    if (inv)
        rc = ntt_scale_powers(x, n, k.n_inv,
                              dir == KERNELS_NTT_COSET_INVERSE ? k.gen_inv : k.one, s);
    return rc;
}

/* ---- API --------------------------------------------------------------- */

int kernels_ntt_prepare(unsigned log_n)
{
    const dev_fr_t *tw;
    if (log_n > KERNELS_NTT_MAX_LOG)
        return -EINVAL;
    return tw_get(log_n, &tw);
}

int kernels_ntt_release(void)
{
    int dev, rc;
    if ((rc = CUDA_CHECK(cudaGetDevice(&dev))) < 0)
        return rc;
    if (dev < 0 || dev >= NTT_MAX_DEVICES)
        return -ENODEV;
    std::lock_guard<std::mutex> g(tw_lock);
    if (!tw_cache[dev].buf.p)
        return 0;
    if ((rc = CUDA_CHECK(cudaDeviceSynchronize())) < 0)
        return rc;
    tw_cache[dev].log_max = 0;
    return kbuf_free(&tw_cache[dev].buf);
}

int kernels_ntt_device(void *d_data, unsigned log_n, enum kernels_ntt_dir dir,
                       void *stream)
{
    return ntt_run((dev_fr_t *)d_data, log_n, (int)dir, (cudaStream_t)stream);
}

int kernels_ntt(void *data, unsigned log_n, enum kernels_ntt_dir dir)
{
    struct kbuf d = {};
    size_t bytes;
    int rc;
    if (!data || log_n > KERNELS_NTT_MAX_LOG)
        return -EINVAL;
    if (dir < KERNELS_NTT_FORWARD || dir > KERNELS_NTT_COSET_INVERSE)
        return -EINVAL;
    bytes = ((size_t)1 << log_n) * sizeof(dev_fr_t);
    if ((rc = kbuf_alloc(&d, KERNELS_MEM_NTT, bytes)) < 0)
        return rc;
    CUDA_TRY(cudaMemcpy(d.p, data, bytes, cudaMemcpyHostToDevice));
    if ((rc = ntt_run((dev_fr_t *)d.p, log_n, (int)dir, 0)) < 0)
        goto fail;
    CUDA_TRY(cudaMemcpy(data, d.p, bytes, cudaMemcpyDeviceToHost));
fail:
    kbuf_free(&d);
    return rc;
}

int kernels_ntt_bench(unsigned log_n, enum kernels_ntt_dir dir, int reps,
                      double *ms_median)
{
    struct kbuf d = {};
    cudaEvent_t e0 = NULL, e1 = NULL;
    size_t n = (size_t)1 << log_n;
    float ms[64];
    int rc;
    if (log_n > KERNELS_NTT_MAX_LOG || !ms_median)
        return -EINVAL;
    if (reps <= 0)
        reps = 7;
    if (reps > 64)
        reps = 64;
    if ((rc = kernels_ntt_prepare(log_n)) < 0)
        return rc;
    if ((rc = kbuf_alloc(&d, KERNELS_MEM_NTT, n * sizeof(dev_fr_t))) < 0)
        return rc;
    CUDA_TRY(cudaEventCreate(&e0));
    CUDA_TRY(cudaEventCreate(&e1));
    /* Any field elements will do: fill with ones (R mod r) via a scaling of
     * zeros is not enough, so copy a pattern: memset gives small reduced
     * values (0x01010101... < r). */
    CUDA_TRY(cudaMemset(d.p, 1, n * sizeof(dev_fr_t)));
    if ((rc = ntt_run((dev_fr_t *)d.p, log_n, dir, 0)) < 0) /* warm-up */
        goto fail;
    for (int i = 0; i < reps; i++) {
        CUDA_TRY(cudaEventRecord(e0, 0));
        if ((rc = ntt_run((dev_fr_t *)d.p, log_n, dir, 0)) < 0)
            goto fail;
        CUDA_TRY(cudaEventRecord(e1, 0));
        CUDA_TRY(cudaEventSynchronize(e1));
        CUDA_TRY(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    for (int i = 1; i < reps; i++)
        for (int j = i; j > 0 && ms[j] < ms[j - 1]; j--) {
            float t = ms[j];
            ms[j] = ms[j - 1];
            ms[j - 1] = t;
        }
    *ms_median = ms[reps / 2];
fail:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    kbuf_free(&d);
    return rc;
}
