/* A bounded cache: cache_put keeps at most 8 entries of 1.5 MiB; inserting
 * beyond that evicts (frees) the oldest. 100 inserts; the last 8 entries
 * are still held at exit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_common.h"

#define SLOTS 8
#define ENTRY (3 * MIB / 2)

void *volatile t_sink;
static char *cache[SLOTS];

__attribute__((noinline)) static void cache_put(int key)
{
    int slot = key % SLOTS;
    free(cache[slot]); /* evict */
    cache[slot] = malloc(ENTRY);
    memset(cache[slot], key, 4096);
}

int main(void)
{
    for (int k = 0; k < 100; k++)
        cache_put(k);
    printf("cache bound %zu bytes\n", (size_t)SLOTS * ENTRY);
    return 0;
}
