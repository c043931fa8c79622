/* Randomness from the kernel; see rand.h. */
#define _GNU_SOURCE
#include "prover/rand.h"

#include <errno.h>
#include <stdint.h>
#include <sys/random.h>

static rand_source_fn source = getrandom;

void rand_set_source(rand_source_fn fn)
{
    source = fn ? fn : getrandom;
}

int rand_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n) {
        ssize_t got = source(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno ? -errno : -EIO;
        }
        if (got == 0)
            return -EIO; /* no progress: never spin on it */
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

int rand_fr(fr_t *ret)
{
    /* a draw is below r with probability r / 2^255 > 0.45, so 200 draws
     * all failing means the source is broken, not unlucky */
    for (int tries = 0; tries < 200; tries++) {
        uint64_t v[4];
        int rc = rand_bytes(v, sizeof v);
        if (rc < 0)
            return rc;
        v[3] &= 0x7fffffffffffffffull;
        fr_t x;
        if (fr_from_limbs(&x, v) == 0) {
            *ret = x;
            return 0;
        }
    }
    return -EIO;
}

int rand_fr128(fr_t *ret)
{
    uint64_t v[4] = {0};
    int rc = rand_bytes(v, 16);
    if (rc < 0)
        return rc;
    return fr_from_limbs(ret, v) == 0 ? 0 : -EIO; /* < 2^128 < r */
}
