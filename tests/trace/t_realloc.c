/* A realloc chain: grow_buffer doubles a buffer from 1 KiB to 64 MiB with
 * realloc, then frees it: nothing is left. */
#include <stdio.h>
#include <stdlib.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void grow_buffer(void)
{
    char *p = NULL;
    for (size_t n = 1024; n <= 64 * MIB; n *= 2) {
        char *q = realloc(p, n);
        if (!q)
            exit(1);
        p = q;
        p[n - 1] = 1;
        T_KEEP(p);
    }
    free(p);
}

int main(void)
{
    for (int i = 0; i < 3; i++)
        grow_buffer();
    printf("chain done\n");
    return 0;
}
