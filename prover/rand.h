/*
 * Randomness from the kernel (getrandom) for the proof's blinding and the
 * batch verifier's coefficients. A failure is an error, never a loop: an
 * interrupted call (EINTR) or a short read is retried, any other error is
 * returned as -errno. rand_set_source replaces getrandom (tests make it
 * fail).
 */
#ifndef ZKB_RAND_H
#define ZKB_RAND_H

#include <stddef.h>
#include <sys/types.h>

#include "arith/field/fr.h"

typedef ssize_t (*rand_source_fn)(void *buf, size_t len, unsigned flags);
/* NULL: getrandom again. Not thread-safe: set it before work starts. */
void rand_set_source(rand_source_fn fn);

/* n random bytes into buf. 0, or -errno. */
int rand_bytes(void *buf, size_t n);
/* A uniform element of Fr (rejection sampling of 255-bit values). 0, or
 * -errno; *ret untouched on failure. */
int rand_fr(fr_t *ret);
/* A uniform value below 2^128 as an element of Fr. 0, or -errno. */
int rand_fr128(fr_t *ret);

#endif
