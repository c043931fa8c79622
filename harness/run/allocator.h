/*
 * jemalloc settings a batch makes (mallctl): --inject no-purge's "keep
 * every freed page", the allocator retention `zkbench analyze` must name.
 */
#ifndef ZKB_ALLOCATOR_H
#define ZKB_ALLOCATOR_H

#include <jansson.h>
#include <stddef.h>

/* From now on, pages freed to jemalloc stay with it (je_dirty): decay off
 * in every arena and by default, background threads on (allocator.c says
 * why all three). Call before the first allocation of 8 MiB or more.
 * Returns 0, or -errno with err naming the mallctl that failed. */
int allocator_keep_freed(char *err, size_t errlen);

/* run.json's "allocator": the automatic arenas (opt.narenas) and the decay
 * times arenas get ({dirty,muzzy}_decay_ms: 0 returns freed pages at once,
 * -1 never), what the capacity model's retention bounds need; null where
 * jemalloc does not answer. New reference. */
json_t *allocator_json(void);

#endif
