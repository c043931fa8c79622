/* jemalloc as the program's shared allocator: leak_big keeps 2 MiB blocks,
 * churn allocates and frees 3 MiB ones. jemalloc maps its extents itself;
 * those mappings are its own, not more of leak_big's bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void leak_big(void)
{
    char *p = malloc(2 * MIB);
    memset(p, 1, 4096);
    T_KEEP(p);
}

__attribute__((noinline)) static void churn(void)
{
    char *p = malloc(3 * MIB);
    T_KEEP(p);
    p[0] = 1;
    free(p);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    for (int i = 0; i < n; i++) {
        leak_big();
        churn();
    }
    printf("leaked %zu bytes\n", (size_t)n * 2 * MIB);
    return 0;
}
