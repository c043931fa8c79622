/* A shared helper's leak: make_buf allocates for both callers; tidy_caller
 * (called first) frees its buffers, leaky_caller keeps them. The leak is
 * leaky_caller's, through make_buf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static char *make_buf(size_t n)
{
    char *p = malloc(n);
    memset(p, 0, 4096);
    return T_KEEP(p);
}

__attribute__((noinline)) static void tidy_caller(void)
{
    free(make_buf(2 * MIB));
}

__attribute__((noinline)) static void leaky_caller(void)
{
    T_KEEP(make_buf(2 * MIB));
}

int main(void)
{
    for (int i = 0; i < 5; i++) {
        tidy_caller();
        leaky_caller();
    }
    printf("leaked %zu bytes\n", (size_t)5 * 2 * MIB);
    return 0;
}
