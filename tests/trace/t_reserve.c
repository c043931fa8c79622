/* Reserve, then commit (as WebAssembly, the JVM and Go do): 256 MiB
 * PROT_NONE, then commit_leak makes 8 MiB of it read-write four times and
 * keeps it; commit_tidy commits 8 MiB and decommits it (PROT_NONE again). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "t_common.h"

void *volatile t_sink;
static char *arena;
static size_t used;

__attribute__((noinline)) static void commit_leak(void)
{
    if (mprotect(arena + used, 8 * MIB, PROT_READ | PROT_WRITE) != 0)
        exit(1);
    memset(arena + used, 1, 8 * MIB);
    used += 8 * MIB;
}

__attribute__((noinline)) static void commit_tidy(void)
{
    if (mprotect(arena + used, 8 * MIB, PROT_READ | PROT_WRITE) != 0)
        exit(1);
    arena[used] = 1;
    mprotect(arena + used, 8 * MIB, PROT_NONE);
    used += 8 * MIB;
}

int main(void)
{
    arena = mmap(NULL, 256 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (arena == MAP_FAILED)
        return 1;
    T_KEEP(arena);
    for (int i = 0; i < 4; i++) {
        commit_leak();
        commit_tidy();
    }
    printf("committed %zu bytes\n", (size_t)4 * 8 * MIB);
    return 0;
}
