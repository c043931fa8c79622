/* A leak made of small nodes: leak_nodes keeps N MiB of 4 KiB nodes in a
 * list, churn_nodes allocates and frees as many. No allocation reaches the
 * tracer's minimum: only the sampler can name leak_nodes. */
#include <stdio.h>
#include <stdlib.h>

#include "t_common.h"

void *volatile t_sink;

struct node {
    struct node *next;
    char pad[4096 - sizeof(struct node *)];
};

static struct node *head;

__attribute__((noinline)) static void leak_nodes(size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct node *x = malloc(sizeof *x);
        x->next = head;
        head = x;
    }
}

__attribute__((noinline)) static void churn_nodes(size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(T_KEEP(malloc(4096)));
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 200;
    leak_nodes(mib * 256);
    churn_nodes(mib * 256);
    printf("leaked %zu bytes\n", mib * 256 * sizeof(struct node));
    return 0;
}
