/*
 * Number-theoretic transform over Fr, the BLS12-381 scalar field: the
 * polynomial evaluations and interpolations of the Groth16 quotient
 * (H) computation, on the CPU.
 *
 * A domain H of size n = 2^k (k <= NTT_MAX_LOG) with generator w, a
 * primitive n-th root of unity, and the coset g*H with g = 7
 * (BLS12_381_R_GENERATOR, a generator of Fr^*, so g*H and H are disjoint):
 *
 *   ntt_forward        a[i] <- sum_j a[j] w^(ij)            (evaluate on H)
 *   ntt_inverse        a[i] <- 1/n sum_j a[j] w^(-ij)       (interpolate)
 *   ntt_coset_forward  a[i] <- sum_j a[j] (g w^i)^j         (evaluate on gH)
 *   ntt_coset_inverse  the inverse of ntt_coset_forward
 *
 * All take and return elements in natural order (Montgomery fr_t), in
 * place. The Groth16 H computation runs: ntt_inverse on a, b, c;
 * ntt_coset_forward on each; pointwise (a*b - c) * d->z_coset_inv (the
 * vanishing polynomial Z(x) = x^n - 1 is the constant g^n - 1 on gH);
 * ntt_coset_inverse.
 *
 * Threads: 0 uses parallel_default_threads(). The result does not depend
 * on the thread count.
 */
#ifndef ZKB_NTT_H
#define ZKB_NTT_H

#include <stddef.h>

#include "arith/field/fr.h"

/* Largest supported log2 of the size: the Filecoin PoRep domain. */
#define NTT_MAX_LOG 27

/* ntt_domain_init flags. */
enum ntt_flags {
    /* Keep the n/2 twiddles (w^i, 16 n bytes) in the domain, so the
     * transforms need no memory of their own; without it every transform
     * computes them into a temporary buffer (same kind and tags). */
    NTT_DOMAIN_TWIDDLES = 1u << 0,
};

typedef struct {
    size_t n;            /* size, a power of two */
    unsigned log_n;      /* n = 2^log_n */
    fr_t root;           /* w: a primitive n-th root of unity */
    fr_t root_inv;       /* w^-1 */
    fr_t n_inv;          /* 1/n */
    fr_t gen;            /* g = 7: the coset generator */
    fr_t gen_inv;        /* g^-1 */
    fr_t z_coset_inv;    /* 1 / (g^n - 1): 1/Z(x) for every x in gH */
    /* Internal: twiddle tables (MEM_KIND_NTT), owned by the domain. */
    fr_t *twiddles;      /* w^i for i < n/2, or NULL */
    fr_t *local;         /* per-level twiddles of the in-cache stages */
    int proof, partition; /* tags of the domain's and transforms' buffers */
} ntt_domain_t;

/*
 * Fills *d for size n (a power of two, 1 <= n <= 2^NTT_MAX_LOG) with the
 * given flags; proof and partition tag the tracked buffers (-1: none).
 * Returns 0, -EINVAL for a bad size or flag (d untouched), -ENOMEM when the
 * tables could not be allocated (nothing is left allocated). The caller
 * releases the domain with ntt_domain_free.
 */
int ntt_domain_init(ntt_domain_t *d, size_t n, unsigned flags, int proof, int partition);
/* Frees the domain's tables; NULL and a zeroed domain are accepted. */
void ntt_domain_free(ntt_domain_t *d);

/*
 * The transforms of d->n elements at data, in place. Return 0, -EINVAL for
 * NULL arguments, -ENOMEM when a domain without NTT_DOMAIN_TWIDDLES could
 * not get its temporary table (data untouched then).
 */
int ntt_forward(const ntt_domain_t *d, fr_t *data, unsigned threads);
int ntt_inverse(const ntt_domain_t *d, fr_t *data, unsigned threads);
int ntt_coset_forward(const ntt_domain_t *d, fr_t *data, unsigned threads);
int ntt_coset_inverse(const ntt_domain_t *d, fr_t *data, unsigned threads);

/*
 * The pointwise step of the quotient, threaded: a[i] = (a[i] b[i] - c[i]) s
 * for i < n, where b NULL skips the product, c NULL the subtraction and
 * s NULL the scaling. The H computation can free b before transforming c:
 *   ntt_pointwise_mul_sub(a, b, NULL, NULL, n, t);           a = a b
 *   ntt_pointwise_mul_sub(a, NULL, c, &d->z_coset_inv, n, t); a = (a - c)/Z
 * Returns 0, or -EINVAL when a is NULL (n > 0). b and c may alias a.
 */
int ntt_pointwise_mul_sub(fr_t *a, const fr_t *b, const fr_t *c, const fr_t *s, size_t n,
                          unsigned threads);

#endif
