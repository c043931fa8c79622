/*
 * The device memory plan of --gpu-mem (prover/gpu_plan.h) and the MSM's
 * passes (kernels/msm_passes.h), on any machine: no GPU is needed.
 *
 * The scratch of an MSM pass comes from a model of the kernels' buffer list
 * (kernels/msm_impl.cuh, msm_scratch): per pass two key and two value
 * arrays of windows x chunk u32, the scalars' copy when they are on the
 * host, the buckets, and with streamed bases two device buffers of the
 * pass's bases. Checked: a 2^27 partition keeps the key resident on the
 * H200's 139 GiB with a lane within 20 GiB, streams it under 24 GiB with
 * passes that fit, and is refused with the numbers below what the smallest
 * plan needs; the pass ranges cover every scalar and base once, at 2^27
 * with a 25 % density, at odd sizes and at one scalar.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/msm_passes.h"
#include "prover/gpu_plan.h"
#include "tests/common.h"

#define GIB ((size_t)1 << 30)

/* windows of 16 bits: 16 windows, 2^15 buckets each */
static int model_scratch(void *ctx, bool g2, size_t n_scalars, size_t n_bases, bool density, bool on_device,
                         bool host_bases, size_t chunk, size_t *dev, size_t *pin)
{
    size_t *calls = ctx;
    (*calls)++;
    size_t pb = g2 ? 192 : 96, xyzz = g2 ? 384 : 192, k = chunk < n_scalars ? chunk : n_scalars;
    size_t d = 4 * 16 * k * 4 + (size_t)16 * 32768 * xyzz;
    if (!on_device)
        d += k * 32;
    if (density)
        d += (n_scalars + 63) / 64 * 12;
    if (host_bases)
        d += 2 * (k < n_bases ? k : n_bases) * pb;
    *dev = d;
    *pin = (size_t)64 << 20;
    return 0;
}

static struct gpu_plan_in porep_2_27(size_t budget, unsigned workers, size_t *calls)
{
    size_t n = (size_t)1 << 27, aux = n - 327, b = aux / 4;
    struct gpu_plan_in in = {
        .budget = budget, .workers = workers, .n = n, .nv = n,
        .points = {n - 1, aux, aux, b, b}, .ntt_bytes = n * 32,
        .lane_h_bytes = 3 * n * 32 + ((size_t)128 << 20), .scratch = model_scratch, .ctx = calls,
    };
    return in;
}

static void test_plan(void)
{
    size_t calls = 0;
    char msg[512] = "";
    struct gpu_plan p;
    /* the H200: the key resident, a lane of the H workspace and MSMs within 20 GiB */
    struct gpu_plan_in in = porep_2_27((size_t)139 * GIB, 1, &calls);
    CHECK(gpu_plan_make(&p, &in, msg, sizeof msg) == 0);
    CHECK(p.resident && p.chunk == GPU_PLAN_MAX_CHUNK);
    CHECK(p.key_bytes == gpu_plan_key_bytes(in.points));
    CHECK(p.key_bytes > 44 * GIB && p.key_bytes < 46 * GIB);
    CHECK(p.lane_bytes <= 20 * GIB);
    CHECK(p.lane_bytes == p.lane_h_bytes + p.lane_g1_bytes + p.lane_g2_bytes);
    CHECK(p.device_bytes == p.key_bytes + in.ntt_bytes + p.lane_bytes);
    CHECK(p.device_bytes <= in.budget);
    /* sixteen passes of 2^23 over 2^27 scalars; b_g2 four over its quarter */
    CHECK(p.msm[GPU_PLAN_H].passes == 16 && p.msm[GPU_PLAN_A].passes == 16);
    CHECK(p.msm[GPU_PLAN_B_G2].passes == 4);
    CHECK(p.msm[GPU_PLAN_H].scalars_on_device && !p.msm[GPU_PLAN_B_G2].scalars_on_device);
    CHECK(p.msm[GPU_PLAN_A].density && !p.msm[GPU_PLAN_L].density);

    /* three workers still fit beside the key; five do not with it resident */
    in = porep_2_27((size_t)139 * GIB, 3, &calls);
    CHECK(gpu_plan_make(&p, &in, msg, sizeof msg) == 0 && p.resident);
    in = porep_2_27((size_t)139 * GIB, 6, &calls);
    CHECK(gpu_plan_make(&p, &in, msg, sizeof msg) == 0);
    CHECK(!p.resident || p.chunk < GPU_PLAN_MAX_CHUNK);
    CHECK(p.device_bytes <= in.budget);

    /* a consumer card: 24 GiB, the key streamed, passes that fit */
    in = porep_2_27((size_t)24 * GIB, 1, &calls);
    CHECK(gpu_plan_make(&p, &in, msg, sizeof msg) == 0);
    CHECK(!p.resident && p.device_bytes <= in.budget && p.chunk >= GPU_PLAN_MIN_CHUNK);
    CHECK(p.device_bytes == in.ntt_bytes + p.lane_bytes);
    /* the largest pass that fits: the next larger one does not */
    struct gpu_plan q;
    in.max_chunk = p.chunk * 2;
    in.budget = (size_t)24 * GIB;
    if (p.chunk < GPU_PLAN_MAX_CHUNK) {
        CHECK(gpu_plan_make(&q, &in, msg, sizeof msg) == 0 && q.chunk == p.chunk);
    }

    /* too small: refused, with the numbers and how many workers fit */
    in = porep_2_27((size_t)16 * GIB, 1, &calls);
    memset(&q, 0x5a, sizeof q);
    struct gpu_plan keep = q;
    CHECK(gpu_plan_make(&q, &in, msg, sizeof msg) == -ENOMEM);
    CHECK(memcmp(&q, &keep, sizeof q) == 0);
    CHECK(strstr(msg, "1 prover worker needs") && strstr(msg, "16.00 GiB may be taken") && strstr(msg, "0 fit"));
    /* a small circuit on a tiny budget: one pass of the whole size */
    size_t n = 1024;
    struct gpu_plan_in small = {.budget = 64 * GIB, .workers = 2, .n = n, .nv = n - 3,
                                .points = {n - 1, n - 10, n - 10, 200, 200}, .ntt_bytes = n * 32,
                                .lane_h_bytes = 3 * n * 32, .scratch = model_scratch, .ctx = &calls};
    CHECK(gpu_plan_make(&p, &small, msg, sizeof msg) == 0);
    CHECK(p.resident && p.chunk == GPU_PLAN_MIN_CHUNK);
    for (int k = 0; k < GPU_PLAN_QUERIES; k++)
        CHECK(p.msm[k].passes == 1);
    small.budget = 1;
    CHECK(gpu_plan_make(&p, &small, msg, sizeof msg) == -ENOMEM && strstr(msg, "2 prover workers need"));
    /* bad input */
    small.budget = 64 * GIB;
    small.n = 1000;
    CHECK(gpu_plan_make(&p, &small, msg, sizeof msg) == -EINVAL);
    small.n = n;
    small.workers = 0;
    CHECK(gpu_plan_make(&p, &small, msg, sizeof msg) == -EINVAL);
    small.workers = 1;
    small.scratch = NULL;
    CHECK(gpu_plan_make(&p, &small, msg, sizeof msg) == -EINVAL);
    CHECK(gpu_plan_make(NULL, &in, msg, sizeof msg) == -EINVAL && gpu_plan_make(&p, NULL, msg, sizeof msg) == -EINVAL);
    CHECK(calls > 0);
}

/* Every scalar in exactly one pass, every base of a pass selected by its
 * scalars and no other, the last pass ending at n and n_bases. */
static void check_passes(const uint64_t *density, size_t n, size_t chunk)
{
    size_t n_bases = n;
    uint32_t *prefix = NULL;
    size_t words = 0;
    if (density) {
        n_bases = 0;
        for (size_t i = 0; i < n; i++)
            n_bases += (density[i / 64] >> (i % 64)) & 1;
        CHECK(msm_density_prefix(density, n, n_bases, &prefix, &words) == 0);
        CHECK(words == (n + 63) / 64);
        if (n_bases)
            CHECK(msm_density_prefix(density, n, n_bases - 1, &prefix, &words) == -EINVAL);
    }
    size_t passes = msm_passes_count(n, chunk), next_i = 0, next_b = 0, most = 0;
    CHECK(passes == (n + chunk - 1) / chunk);
    for (size_t p = 0; p < passes; p++) {
        size_t i0, len, b0, b1;
        msm_pass_scalars(p, n, chunk, &i0, &len);
        CHECK(i0 == next_i && len >= 1 && len <= chunk);
        msm_pass_bases_range(prefix, n, n_bases, i0, len, &b0, &b1);
        CHECK(b0 == next_b && b1 >= b0);
        if (density) {
            /* the bases are the set bits among the pass's scalars */
            size_t set = 0;
            for (size_t i = i0; i < i0 + len; i += 64) {
                uint64_t w = density[i / 64];
                if (i + 64 > i0 + len)
                    w &= (1ull << ((i0 + len) - i)) - 1;
                set += (size_t)__builtin_popcountll(w);
            }
            CHECK(b1 - b0 == set);
        } else {
            CHECK(b1 - b0 == len);
        }
        most = b1 - b0 > most ? b1 - b0 : most;
        next_i = i0 + len;
        next_b = b1;
    }
    CHECK(next_i == n && next_b == n_bases);
    CHECK(msm_pass_bases_max(prefix, n, n_bases, chunk) == most);
    free(prefix);
}

static void test_passes(void)
{
    /* 2^27 variables, a quarter set at random, passes of 2^25 and 2^20 */
    size_t n = (size_t)1 << 27, words = n / 64;
    uint64_t *d = malloc(words * sizeof *d);
    for (size_t i = 0; i < words; i++)
        d[i] = test_rand_u64() & test_rand_u64();
    check_passes(d, n, (size_t)1 << 25);
    check_passes(d, n, (size_t)1 << 20);
    check_passes(NULL, n, (size_t)1 << 26);
    /* odd sizes: the last pass short, a last word partly used */
    size_t odd = 1000003;
    for (size_t i = 0; i < (odd + 63) / 64; i++)
        d[i] = test_rand_u64();
    check_passes(d, odd, 65536);
    check_passes(d, odd, 64);
    check_passes(NULL, odd, 4096);
    check_passes(NULL, 1, 64);
    d[0] = 0;
    check_passes(d, 10, 64);
    free(d);
}

int main(void)
{
    test_init("gpu-plan");
    test_plan();
    test_passes();
    return test_finish();
}
