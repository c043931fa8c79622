/* A malloc leak in a loop: leak_step keeps 2 MiB per iteration, work_step
 * allocates 3 MiB and frees it, small_step makes 100 small allocations of
 * 100 bytes and frees them. Prints its own totals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void *leak_step(void)
{
    char *p = malloc(2 * MIB);
    memset(p, 1, 4096);
    return T_KEEP(p);
}

__attribute__((noinline)) static void work_step(void)
{
    char *p = malloc(3 * MIB);
    T_KEEP(p);
    p[0] = 1;
    free(p);
}

__attribute__((noinline)) static void small_step(void)
{
    for (int i = 0; i < 100; i++) {
        void *p = malloc(100);
        T_KEEP(p);
        free(p);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    for (int i = 0; i < n; i++) {
        leak_step();
        work_step();
        small_step();
    }
    printf("leaked %zu bytes in %d allocations; small %d\n", (size_t)n * 2 * MIB, n, n * 100);
    return 0;
}
