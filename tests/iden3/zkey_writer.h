/*
 * Writing .zkey files in snarkjs's layout for tests: a growing buffer,
 * little-endian integers, points as Montgomery limbs (snarkjs's layout and
 * ours on x86-64), and sections whose size is filled in when they end.
 */
#ifndef ZKB_TESTS_ZKEY_WRITER_H
#define ZKB_TESTS_ZKEY_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"

typedef struct {
    unsigned char *data;
    size_t len, cap;
    size_t sec_start; /* the open section's size field */
} zkey_writer_t;

/* Appends n bytes (aborts when out of memory: tests only). */
void zkey_writer_put(zkey_writer_t *w, const void *p, size_t n);
void zkey_writer_u32(zkey_writer_t *w, uint32_t v);
void zkey_writer_g1(zkey_writer_t *w, const g1_affine_t *p);
void zkey_writer_g2(zkey_writer_t *w, const g2_affine_t *p);
/* The magic, version 1 and 9 sections, section 1 (Groth16) and section 2
 * (the primes, the sizes and the vk points alpha_1, beta_1, beta_2,
 * gamma_2, delta_1, delta_2). */
void zkey_writer_header(zkey_writer_t *w, uint32_t n_vars, uint32_t n_public, uint32_t domain, const g1_affine_t *alpha1,
                        const g1_affine_t *beta1, const g2_affine_t *beta2, const g2_affine_t *gamma2,
                        const g1_affine_t *delta1, const g2_affine_t *delta2);
/* A section: its type, then its size once it ends. */
void zkey_writer_begin(zkey_writer_t *w, uint32_t type);
void zkey_writer_end(zkey_writer_t *w);
/* Writes the buffer to path: 0, or -1. */
int zkey_writer_save(const zkey_writer_t *w, const char *path);
void zkey_writer_free(zkey_writer_t *w);

#endif
