/* The device memory plan of a GPU backend; see gpu_plan.h. */
#include "prover/gpu_plan.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define G1_POINT_BYTES 96
#define G2_POINT_BYTES 192

size_t gpu_plan_key_bytes(const size_t points[GPU_PLAN_QUERIES])
{
    size_t b = 0;
    for (int q = 0; q < GPU_PLAN_QUERIES; q++)
        b += points[q] * (q == GPU_PLAN_B_G2 ? G2_POINT_BYTES : G1_POINT_BYTES);
    return b;
}

static double gib(size_t b)
{
    return (double)b / (double)(1u << 30);
}

/* The MSMs of a partition: H and the witness on the device, the G1
 * queries over the witness selected by density, b_g2 over its selected
 * scalars in pageable host memory. */
static void plan_msms(struct gpu_plan_msm m[GPU_PLAN_QUERIES], const struct gpu_plan_in *in)
{
    const size_t *pts = in->points;
    m[GPU_PLAN_H] = (struct gpu_plan_msm){in->n - 1, pts[GPU_PLAN_H], false, true, 0};
    m[GPU_PLAN_L] = (struct gpu_plan_msm){pts[GPU_PLAN_L], pts[GPU_PLAN_L], false, true, 0};
    m[GPU_PLAN_A] = (struct gpu_plan_msm){in->nv, pts[GPU_PLAN_A], true, true, 0};
    m[GPU_PLAN_B_G1] = (struct gpu_plan_msm){in->nv, pts[GPU_PLAN_B_G1], true, true, 0};
    m[GPU_PLAN_B_G2] = (struct gpu_plan_msm){pts[GPU_PLAN_B_G2], pts[GPU_PLAN_B_G2], false, false, 0};
}

/* A lane's bytes with the key resident or not and passes of chunk: the H
 * workspace, the largest G1 MSM's scratch (one G1 workspace serves the
 * four) and b_g2's. */
static int lane_bytes(struct gpu_plan *p, const struct gpu_plan_in *in, bool resident, size_t chunk)
{
    size_t g1 = 0, g2 = 0, d, pin;
    int rc;
    plan_msms(p->msm, in);
    for (int q = 0; q < GPU_PLAN_QUERIES; q++) {
        struct gpu_plan_msm *m = &p->msm[q];
        m->passes = m->n_scalars ? (m->n_scalars + chunk - 1) / chunk : 0;
        if (!m->n_scalars)
            continue;
        if ((rc = in->scratch(in->ctx, q == GPU_PLAN_B_G2, m->n_scalars, m->n_bases, m->density,
                              m->scalars_on_device, !resident, chunk, &d, &pin)) < 0)
            return rc;
        if (q == GPU_PLAN_B_G2)
            g2 = d;
        else if (d > g1)
            g1 = d;
    }
    p->resident = resident;
    p->chunk = chunk;
    p->lane_h_bytes = in->lane_h_bytes;
    p->lane_g1_bytes = g1;
    p->lane_g2_bytes = g2;
    p->lane_bytes = in->lane_h_bytes + g1 + g2;
    p->device_bytes = (resident ? p->key_bytes : 0) + in->ntt_bytes + (size_t)in->workers * p->lane_bytes;
    return 0;
}

int gpu_plan_make(struct gpu_plan *ret, const struct gpu_plan_in *in, char *msg, size_t cap)
{
    if (!ret || !in || !in->scratch || in->workers == 0 || in->n < 2 || (in->n & (in->n - 1)))
        return -EINVAL;
    size_t most = in->max_chunk ? in->max_chunk : GPU_PLAN_MAX_CHUNK;
    /* no pass beyond the largest MSM, rounded up to a density word */
    size_t largest = 0;
    for (int q = 0; q < GPU_PLAN_QUERIES; q++)
        largest = in->points[q] > largest ? in->points[q] : largest;
    largest = in->nv > largest ? in->nv : largest;
    largest = in->n > largest ? in->n : largest;
    while (most > GPU_PLAN_MIN_CHUNK && most / 2 >= largest)
        most /= 2;
    most &= ~(size_t)63;
    if (most < 64)
        return -EINVAL;
    struct gpu_plan p;
    memset(&p, 0, sizeof p);
    p.key_bytes = gpu_plan_key_bytes(in->points);
    int rc;
    for (int resident = 1; resident >= 0; resident--)
        for (size_t chunk = most;; chunk /= 2) {
            if ((rc = lane_bytes(&p, in, resident, chunk)) < 0)
                return rc;
            if (p.device_bytes <= in->budget) {
                *ret = p;
                return 0;
            }
            if (chunk / 2 < GPU_PLAN_MIN_CHUNK || chunk / 2 < 64)
                break;
        }
    /* p: the smallest plan, streamed at the smallest pass */
    size_t fixed = in->ntt_bytes, fit = p.lane_bytes && in->budget > fixed ? (in->budget - fixed) / p.lane_bytes : 0;
    snprintf(msg, cap,
             "%u prover worker%s %.2f GiB of device memory at the least (the key streamed from the host, "
             "MSM passes of %zu scalars: %.2f GiB each, H %.2f, MSMs %.2f; twiddles %.2f), and %.2f GiB may be "
             "taken: %zu fit%s",
             in->workers, in->workers == 1 ? " needs" : "s need", gib(p.device_bytes), p.chunk, gib(p.lane_bytes),
             gib(p.lane_h_bytes), gib(p.lane_g1_bytes + p.lane_g2_bytes), gib(in->ntt_bytes), gib(in->budget), fit,
             fit ? " (--gpu-workers)" : "");
    return -ENOMEM;
}
