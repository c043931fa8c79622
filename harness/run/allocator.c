/* jemalloc settings a batch makes; see allocator.h. */
#include "harness/run/allocator.h"

#include <errno.h>
#include <jansson.h>
#include <jemalloc/jemalloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

/* Sets the mallctl NAME (of the type of *v) and reads it back: 0 when it
 * holds *v, else -errno with err naming it. */
static int allocator_set(const char *name, const void *v, size_t len, char *err, size_t errlen)
{
    unsigned char got[sizeof(ssize_t)] = {0};
    size_t sz = len;
    int rc = len <= sizeof got ? mallctl(name, NULL, NULL, (void *)v, len) : EINVAL;
    if (rc == 0)
        rc = mallctl(name, got, &sz, NULL, 0);
    if (rc == 0 && (sz != len || memcmp(got, v, len) != 0))
        rc = EIO; /* accepted, but does not hold */
    if (rc != 0)
        snprintf(err, errlen, "mallctl %s: %s", name, strerror(rc));
    return -rc;
}

/*
 * --inject no-purge: from now on, pages freed to jemalloc stay with it
 * (je_dirty), so RSS stays above je_allocated after the pipeline drains — the
 * allocator retention `zkbench analyze` must name. With jemalloc 5.3 that
 * takes three settings; without any one of them a path remains that returns
 * the pages (found on porep 2^14 with strace and jemalloc's stats; numbers in
 * docs/diagnosis.md, "retention"):
 *
 * - decay off (-1) in every arena that exists already: `arenas.*_decay_ms`
 *   is only the default for arenas created later, and arena 0 (the main
 *   thread's) and the arenas of threads started earlier keep the 10 s decay;
 * - the defaults off too, before the first allocation of opt.oversize_threshold
 *   (8 MiB) or more creates the huge arena: jemalloc forces that arena's decay
 *   to 0 (purge on free) when the default is above 0, and purges freed extents
 *   of that size eagerly in any arena whose decay is not -1;
 * - background threads on. The prover starts short-lived threads (parallel
 *   loops, the b_g2 MSM, async frees); when the last thread bound to an arena
 *   exits, jemalloc purges that arena completely, whatever its decay — unless
 *   background threads are enabled, which then do the decaying, and with decay
 *   -1 they never purge. Without this the freed pages end in je_retained
 *   (returned to the OS) and the run looks healthy.
 *
 * Returns 0, or -errno with err naming the mallctl that failed.
 */
int allocator_keep_freed(char *err, size_t errlen)
{
    static const char *const kinds[] = {"dirty", "muzzy"};
    const ssize_t never = -1;
    const bool on = true;
    char name[64];
    int rc;
    for (size_t k = 0; k < 2; k++) {
        snprintf(name, sizeof name, "arenas.%s_decay_ms", kinds[k]);
        if ((rc = allocator_set(name, &never, sizeof never, err, errlen)) < 0)
            return rc;
    }
    unsigned narenas = 0;
    size_t sz = sizeof narenas;
    if ((rc = mallctl("arenas.narenas", &narenas, &sz, NULL, 0)) != 0)
        return snprintf(err, errlen, "mallctl arenas.narenas: %s", strerror(rc)), -rc;
    for (unsigned i = 0; i < narenas; i++) {
        bool init = false;
        sz = sizeof init;
        snprintf(name, sizeof name, "arena.%u.initialized", i);
        if (mallctl(name, &init, &sz, NULL, 0) != 0 || !init)
            continue; /* created later, with the defaults above */
        for (size_t k = 0; k < 2; k++) {
            snprintf(name, sizeof name, "arena.%u.%s_decay_ms", i, kinds[k]);
            if ((rc = allocator_set(name, &never, sizeof never, err, errlen)) < 0)
                return rc;
        }
    }
    return allocator_set("background_thread", &on, sizeof on, err, errlen);
}

/* The setting NAME, an unsigned (opt.narenas) or a ssize_t (the decay
 * times), as JSON; null when jemalloc does not answer. */
static json_t *allocator_setting(const char *name, bool is_unsigned)
{
    unsigned u = 0;
    ssize_t v = 0;
    size_t sz = is_unsigned ? sizeof u : sizeof v;
    if (mallctl(name, is_unsigned ? (void *)&u : (void *)&v, &sz, NULL, 0) != 0)
        return json_null();
    return json_integer(is_unsigned ? (json_int_t)u : (json_int_t)v);
}

json_t *allocator_json(void)
{
    return json_pack("{s:o, s:o, s:o}", "narenas", allocator_setting("opt.narenas", /* is_unsigned= */ true),
                     "dirty_decay_ms", allocator_setting("arenas.dirty_decay_ms", false), "muzzy_decay_ms",
                     allocator_setting("arenas.muzzy_decay_ms", false));
}
