/* Two sites whose names share their first 30 characters (as V8's
 * node::NodeArrayBufferAllocator::... do): each keeps 2 MiB blocks for a
 * while, so `zkbench analyze` lists both; their names must not be cut to
 * the same text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void node_NodeArrayBufferAllocator_AllocateUninitialized(void)
{
    char *p = malloc(2 * MIB);
    memset(p, 1, 4096);
    T_KEEP(p);
}

__attribute__((noinline)) static void node_NodeArrayBufferAllocator_Reallocate(void)
{
    char *p = malloc(3 * MIB);
    memset(p, 1, 4096);
    T_KEEP(p);
}

int main(void)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    for (int i = 0; i < 40; i++) {
        node_NodeArrayBufferAllocator_AllocateUninitialized();
        node_NodeArrayBufferAllocator_Reallocate();
        nanosleep(&ts, NULL);
    }
    printf("leaked %zu bytes\n", (size_t)40 * 5 * MIB);
    return 0;
}
