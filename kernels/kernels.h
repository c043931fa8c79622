/*
 * The CUDA kernels' C API. Every function returns >= 0 on success or a
 * negative errno (-ENOMEM: device memory exhausted; -ENODEV: no usable
 * device or driver; -EINVAL: bad arguments; -EIO: any other CUDA failure),
 * leaving its output arguments untouched on failure; kernels_last_error()
 * then names the failing CUDA call. In a build without CUDA every entry
 * point reports -ENODEV, except kernels_device_count, which reports 0
 * devices.
 *
 * Work runs on the calling thread's current CUDA device (device 0 unless the
 * thread selected another one).
 */
#ifndef ZKB_KERNELS_H
#define ZKB_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- devices and errors (device.cu) ---- */

/* Number of usable CUDA devices: 0, and success, without a GPU or driver. */
int kernels_device_count(int *count);

struct kernels_device_props {
    char name[256];
    size_t total_mem;       /* bytes of device memory */
    size_t l2_bytes;
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    int pci_domain, pci_bus, pci_device;
};

/* Properties of device dev (0 .. count-1); -ENODEV for a bad index. */
int kernels_device_props(int dev, struct kernels_device_props *props);

/* Free and total device memory of dev as the driver reports them
 * (cudaMemGetInfo): used = total - free counts every process and the
 * runtime's own reservations. Creates the CUDA context on dev if this
 * process has none there yet (a few hundred MiB of device memory). */
int kernels_device_mem(int dev, size_t *free_bytes, size_t *total_bytes);

/* Makes dev the calling thread's current device: the kernels' work and
 * memory of this thread go there from now on. -ENODEV for a bad index. */
int kernels_set_device(int dev);

/* CUDA runtime and driver versions as 1000 * major + 10 * minor
 * (13000 = 13.0); driver is 0 when no driver is installed. */
int kernels_cuda_version(int *runtime, int *driver);

/* The last failed CUDA call of the calling thread, e.g. "cudaMalloc failed
 * at kernels/field_ops.cu:120: out of memory". A static string (per thread),
 * valid until the thread's next failing call; never NULL. */
const char *kernels_last_error(void);

/* ---- field arithmetic (field_ops.cu) ---- */

/* Element layouts are the host's: fr_t (32 bytes), fp_t (48), fp2_t (96),
 * Montgomery form, fully reduced. */
enum kernels_field {
    KERNELS_FIELD_FR,
    KERNELS_FIELD_FP,
    KERNELS_FIELD_FP2,
};

enum kernels_op {
    KERNELS_OP_ADD, /* out = a + b */
    KERNELS_OP_SUB, /* out = a - b */
    KERNELS_OP_MUL, /* out = a * b */
    KERNELS_OP_NEG, /* out = -a      (b unused, may be NULL) */
    KERNELS_OP_DBL, /* out = 2a      (b unused, may be NULL) */
    KERNELS_OP_SQR, /* out = a^2     (b unused, may be NULL) */
};

/* Bytes of one element of field f, 0 for an unknown field. */
size_t kernels_field_bytes(enum kernels_field f);

/*
 * out[i] = op(a[i], b[i]) for i < n, element-wise on the GPU. out, a and b
 * are host arrays of n elements of field f (out may alias a or b); the
 * function allocates device memory, copies in, computes, copies back and
 * frees it, synchronously. n = 0 does nothing and succeeds (the pointers may
 * then be NULL). Errors: -EINVAL for an unknown field or op or a NULL array
 * with n > 0; -EOVERFLOW when n elements don't fit in size_t bytes; -ENOMEM
 * when device memory runs out (out is then untouched).
 */
int kernels_field_op(enum kernels_field f, enum kernels_op op, void *out,
                     const void *a, const void *b, size_t n);

/*
 * Multiplication throughput of field f: n threads (0: 4 Mi) each run a chain
 * of reps (0: 256) dependent multiplications; after a warm-up, the median of
 * 5 timed launches (CUDA events) gives *ns_per_mul = time / (n * reps), the
 * device-wide cost of one multiplication. A benchmark, not a test.
 */
int kernels_field_mul_throughput(enum kernels_field f, size_t n, int reps,
                                 double *ns_per_mul);

/* ---- device memory accounting (alloc.cu) ---- */

/* What a buffer of the kernels holds; the prover maps these to its tracked
 * buffer kinds (gpu_params, gpu_abc, ...). */
enum kernels_mem_role {
    KERNELS_MEM_PARAMS, /* resident MSM bases (kernels_msm_bases_upload) */
    KERNELS_MEM_ABC,    /* b, c evaluations of kernels_prove_ws */
    KERNELS_MEM_NTT,    /* twiddle tables, NTT data of kernels_ntt */
    KERNELS_MEM_H,      /* a, then h in its place, kept for the H MSM (kernels_prove_ws) */
    KERNELS_MEM_MSM,    /* MSM scratch: scalars, digits, buckets, host bases */
    KERNELS_MEM_PINNED, /* page-locked host staging (device = -1) */
    KERNELS_MEM_OTHER,
};

/*
 * The hook sees every cudaMalloc/cudaFree and cudaHostAlloc/cudaFreeHost of
 * the kernels: after each successful allocation with is_free = 0, and before
 * the matching free with is_free = 1 and the same role, device (the CUDA
 * device, -1 for page-locked host memory), bytes and *id. On allocation *id
 * is 0 and the hook may store its own id there (e.g. a tracked-buffer id);
 * the kernels keep it and hand it back at the free. The hook runs on the
 * thread that allocates, possibly several at once, and must not call the
 * kernels. NULL (the default) removes the hook; set it before any work, not
 * while other threads run kernels.
 */
typedef void (*kernels_alloc_hook_fn)(void *ctx, int role, int device,
                                      size_t bytes, int is_free, uint64_t *id);
void kernels_set_alloc_hook(kernels_alloc_hook_fn fn, void *ctx);

/* ---- NTT over Fr (ntt.cu) ---- */

/* Sizes 2^0 .. 2^KERNELS_NTT_MAX_LOG. */
#define KERNELS_NTT_MAX_LOG 27

/* The transforms of prover/ntt.h, natural order in and out, coset
 * generator g = 7 (BLS12_381_R_GENERATOR). */
enum kernels_ntt_dir {
    KERNELS_NTT_FORWARD,        /* a[i] <- sum_j a[j] w^(ij) */
    KERNELS_NTT_INVERSE,        /* a[i] <- 1/n sum_j a[j] w^(-ij) */
    KERNELS_NTT_COSET_FORWARD,  /* a[i] <- sum_j a[j] (g w^i)^j */
    KERNELS_NTT_COSET_INVERSE,  /* the inverse of the coset forward */
};

/*
 * In place on 2^log_n Montgomery fr_t at d_data (device memory), queued on
 * stream (a cudaStream_t; NULL: the legacy default stream). The device's
 * twiddle table (2^L fr_t for the largest log size L asked for so far,
 * KERNELS_MEM_NTT) is built on first use and kept: building or growing it
 * synchronizes the device, so call kernels_ntt_prepare(largest) first when
 * streams are in flight. -EINVAL for a bad size, direction or NULL.
 */
int kernels_ntt_device(void *d_data, unsigned log_n, enum kernels_ntt_dir dir,
                       void *stream);
/* The same on host memory (copied in and out; synchronous). */
int kernels_ntt(void *data, unsigned log_n, enum kernels_ntt_dir dir);
/* Builds the current device's twiddle table for sizes up to 2^log_n. */
int kernels_ntt_prepare(unsigned log_n);
/* Frees the current device's twiddle table (after synchronizing it). */
int kernels_ntt_release(void);
/* Benchmark: median of reps (0: 7) timed transforms (CUDA events) of
 * device-resident data of size 2^log_n, after a warm-up. */
int kernels_ntt_bench(unsigned log_n, enum kernels_ntt_dir dir, int reps,
                      double *ms_median);

/* ---- the Groth16 quotient (h.cu) ---- */

/*
 * h = the n coefficients of (A B - C) / Z as prover/groth16.c's compute_h
 * computes them from the evaluations a, b, c (n Montgomery fr_t each, n a
 * power of two <= 2^KERNELS_NTT_MAX_LOG): iNTT, coset NTT of each; (a b - c)
 * / (g^n - 1); coset iNTT. Host arrays (h may alias a); the three device
 * buffers (KERNELS_MEM_ABC) are freed before returning. Copies of b and c
 * overlap the transforms of a and b.
 */
int kernels_compute_h(void *h, const void *a, const void *b, const void *c,
                      size_t n);

/*
 * A prover worker's workspace on the current device: a, b and c of a
 * size-n domain on the device (a, which becomes h, as KERNELS_MEM_H; b and
 * c as KERNELS_MEM_ABC), room for a witness of n_witness values (b's place
 * once H is done with it when n_witness <= n, else a buffer of its own,
 * KERNELS_MEM_MSM), two page-locked staging buffers the host arrays travel
 * through (KERNELS_MEM_PINNED), two streams. Made once and reused by every
 * proof of that shape: a proof then allocates, frees and synchronizes
 * nothing device-wide, so workers on one device overlap.
 * kernels_prove_ws_bytes: what one takes, to budget device memory before
 * making it. Calls on one workspace must not overlap.
 */
typedef struct kernels_prove_ws kernels_prove_ws_t;
int kernels_prove_ws_new(kernels_prove_ws_t **ret, size_t n, size_t n_witness);
void kernels_prove_ws_free(kernels_prove_ws_t *ws); /* NULL is accepted */
void kernels_prove_ws_bytes(size_t n, size_t n_witness, size_t *device_bytes,
                            size_t *pinned_bytes);
/*
 * h from the host evaluations a, b, c (n each) on the workspace's device
 * (the current device); returns once h is complete there, with *d_h its n
 * coefficients in device memory, valid until the workspace's next call or
 * free: pass it as kernels_msm_resident's scalars. a, b and c have been
 * read by then and may be freed.
 */
int kernels_prove_ws_h(kernels_prove_ws_t *ws, const void *a, const void *b,
                       const void *c, const void **d_h);
/* Where the workspace's last kernels_prove_ws_h went (ms): the device's
 * span from the first upload to h (CUDA events), of it until c was on the
 * device and after, and the host's time filling the staging buffers. */
struct kernels_h_profile {
    double total_ms, upload_ms, after_upload_ms, host_ms;
};
int kernels_prove_ws_last_profile(const kernels_prove_ws_t *ws, struct kernels_h_profile *p);
/*
 * The witness w (n <= n_witness Montgomery fr_t, host memory) copied to the
 * workspace's device once, so that the MSMs over it (L, A, B_g1) read it
 * in place instead of each copying it again: *d_w is valid until the next
 * upload, kernels_prove_ws_h (which may reuse its place) or free. Returns
 * once the copy is complete.
 */
int kernels_prove_ws_witness(kernels_prove_ws_t *ws, const void *w, size_t n,
                             const void **d_w);

/* ---- multi-scalar multiplication (msm.cu) ---- */

enum kernels_curve {
    KERNELS_CURVE_G1, /* bases g1_affine_t (96 B), result g1_jac_t */
    KERNELS_CURVE_G2, /* bases g2_affine_t (192 B), result g2_jac_t */
};

/* Options of one MSM call. */
struct kernels_msm_opts {
    unsigned window; /* bits per window: 0 = chosen from the size, else 2 .. 20 */
    /* scalars per pass: 0 = as many as one pass can sort (windows x chunk
     * below 2^31: every size up to 2^26 in one pass, 2^27 in two); else a
     * multiple of 64 (-EINVAL otherwise), which sizes the call's scratch
     * (kernels_msm_scratch_bytes): a device budget sets it */
    size_t chunk;
};

/*
 * ret (a g1_jac_t or g2_jac_t, host memory) = sum_i scalars[i] base(i), with
 * msm_g1's semantics (prover/msm.h): scalars are n_scalars Montgomery fr_t
 * in host memory (pageable or page-locked) or in the current device's
 * memory (read in place, e.g. kernels_prove_ws_h's h); density NULL: variable i uses bases[i] (n_bases >=
 * n_scalars); otherwise bit i of density says whether variable i has a base
 * and bases holds those in order (n_bases = their count, else -EINVAL).
 * Bases are affine, infinity (0, 0), in host memory (copied pass by pass).
 * window: bits per window, 0 = chosen from the size, else 2 .. 20.
 * n_scalars = 0 gives infinity. Synchronous. -EOVERFLOW above 2^31 - 1
 * scalars.
 */
int kernels_msm(void *ret, enum kernels_curve curve, const void *bases,
                size_t n_bases, const void *scalars, size_t n_scalars,
                const uint64_t *density, unsigned window);

/*
 * Page-locked host memory for vectors the GPU reads, such as MSM scalars:
 * the MSM copies from it directly, with no staging copy on the host.
 * Reported to the hook as KERNELS_MEM_PINNED (device -1). *ret is aligned
 * to 64 bytes; 0 or -errno. kernels_host_free accepts NULL.
 */
int kernels_host_alloc(void **ret, size_t bytes);
void kernels_host_free(void *p);
/* Page-locks bytes of existing host memory at p (cudaHostRegister), so the
 * GPU copies from it directly: a prover's a, b, c evaluations, pinned while
 * they are computed. Nothing is allocated (the hook sees nothing). 0 or
 * -errno; kernels_host_unregister undoes it before the memory is freed. */
int kernels_host_register(void *p, size_t bytes);
int kernels_host_unregister(void *p);

/*
 * The scratch one MSM call of this shape takes, as it would reserve it
 * (device memory, page-locked staging) in its workspace: to budget device
 * memory for concurrent callers. host_bases: bases read from host memory
 * pass by pass (kernels_msm, kernels_msm_bases_host) rather than resident;
 * chunk as kernels_msm_opts. 0 or -errno (-EOVERFLOW: too large, -EINVAL:
 * a chunk that is not a multiple of 64).
 */
int kernels_msm_scratch_bytes(enum kernels_curve curve, size_t n_scalars,
                              size_t n_bases, int has_density,
                              int scalars_on_device, int host_bases,
                              size_t chunk, size_t *device_bytes,
                              size_t *pinned_bytes);

/* The most scalars one pass of either curve's MSM of this size can take
 * (the chunk that needs no second pass below it), for budgets. */
size_t kernels_msm_max_chunk(size_t n_scalars);

/* Bases for kernels_msm_run: uploaded once and kept on the current device
 * (kernels_msm_bases_upload, KERNELS_MEM_PARAMS), or left in host memory and
 * streamed to the device pass by pass at every call, overlapped with the
 * work on the pass before (kernels_msm_bases_host: for a key that does not
 * fit the device; the handle borrows bases, which must outlive it). */
typedef struct kernels_msm_bases kernels_msm_bases_t;
int kernels_msm_bases_upload(kernels_msm_bases_t **ret, enum kernels_curve curve,
                             const void *bases, size_t n_bases);
int kernels_msm_bases_host(kernels_msm_bases_t **ret, enum kernels_curve curve,
                           const void *bases, size_t n_bases);
/* Frees the handle and its device memory; NULL is accepted. */
void kernels_msm_bases_free(kernels_msm_bases_t *bases);
/* kernels_msm with the handle's bases (n_bases = the handle's count) and
 * opts (NULL: the defaults). */
int kernels_msm_run(void *ret, const kernels_msm_bases_t *bases,
                    const void *scalars, size_t n_scalars,
                    const uint64_t *density, const struct kernels_msm_opts *opts);
/* kernels_msm_run with only a window. */
int kernels_msm_resident(void *ret, const kernels_msm_bases_t *bases,
                         const void *scalars, size_t n_scalars,
                         const uint64_t *density, unsigned window);

/*
 * MSM scratch (device buffers, page-locked staging, streams) is kept between
 * calls in a pool of workspaces, one per concurrent caller and device, grown
 * to the largest call seen (KERNELS_MEM_MSM and KERNELS_MEM_PINNED buffers
 * that outlive the call). kernels_msm_release frees the idle workspaces of
 * every device; call it when no MSM is running (e.g. at the end of a run).
 */
int kernels_msm_release(void);

/* One MSM call a workspace is grown for (kernels_msm_prepare). */
struct kernels_msm_shape {
    size_t n_scalars, n_bases;
    int has_density;       /* scalars selected by a density bitmap */
    int scalars_on_device; /* read in place; otherwise pageable host memory */
    int host_bases;        /* bases streamed from host memory */
    size_t chunk;          /* as kernels_msm_opts */
};
/*
 * Puts count workspaces of curve on the current device into the pool (new
 * ones where it holds fewer), each grown to every call in shapes: count
 * callers then find them ready. A workspace grown in a caller's first call
 * frees and allocates while other callers run (a free synchronizes the
 * device, page-locking stalls other threads' CUDA calls). 0 or -errno.
 */
int kernels_msm_prepare(enum kernels_curve curve, const struct kernels_msm_shape *shapes, size_t n_shapes,
                        unsigned count);

/* Where the time of one MSM call went: device phases from CUDA events on
 * the call's streams, summed over its passes, the rest from the host clock
 * (ms). */
struct kernels_msm_profile {
    size_t n;          /* scalars */
    unsigned window;   /* bits per window */
    unsigned windows;  /* number of windows */
    unsigned passes;   /* passes over the scalars */
    size_t chunk;      /* scalars per pass */
    double setup_ms;   /* host: workspace (de)allocations, density prefix */
    double digits_ms;  /* scalars through the staging buffers, signed digits */
    double sort_ms;    /* radix sort by bucket, bucket bounds */
    double bases_ms;   /* host bases copied in (second stream, overlapping
                          the passes before; 0 for resident bases) */
    double buckets_ms; /* waiting for the bases, bucket sums, the ones */
    double reduce_ms;  /* window reductions, Horner, result copied out */
    double segments_ms; /* of reduce_ms: the ones' sums, running sums of segments */
    double groups_ms;   /* of reduce_ms: segment sums added into window sums */
    double final_ms;    /* of reduce_ms: the windows' last sums copied out, their
                           sums and Horner over the windows on the host */
    double device_ms;  /* the device's span from the first pass to the result
                          copied out (CUDA events) */
    double total_ms;   /* host: the whole call */
};
/* The calling thread's last successful MSM; -ENOENT before the first. */
int kernels_msm_last_profile(struct kernels_msm_profile *p);

/* ---- fixed-base multiplication for the setup (fixed_base.cu) ---- */

/*
 * ret_affine[i] (n affine points, g1_affine_t or g2_affine_t, host memory)
 * = scalars[i] G, with prover/setup.c's window table of G: `windows` rows
 * of 2^c - 1 affine points, row w holding d 2^(w c) G for d = 1 .. 2^c - 1
 * (windows * c >= 255; c 1 .. 16). Scalars: n Montgomery fr_t in host
 * memory. The points are byte for byte the host's batch_to_affine of its
 * own multiples. On the current device, synchronous; the memory it takes
 * (the table, two chunks of scalars and points on the device and their
 * page-locked staging) is freed before it returns.
 */
int kernels_fixed_base(void *ret_affine, enum kernels_curve curve,
                       const void *table, unsigned windows, unsigned c,
                       const void *scalars, size_t n);

#ifdef __cplusplus
}
#endif

#endif
