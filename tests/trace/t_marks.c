/* zkbench_mark / zkbench_kind: three "proofs", each with a witness buffer
 * (kind "witness", kept) and a scratch buffer (no kind, freed). Runs the
 * same without the tracer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/trace/zkbench_trace.h"
#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void prove_one(void)
{
    zkbench_kind("witness");
    char *w = malloc(2 * MIB);
    memset(w, 1, 4096);
    T_KEEP(w);
    zkbench_kind(NULL);
    char *s = malloc(MIB + 4096);
    T_KEEP(s);
    free(s);
}

int main(void)
{
    for (int i = 0; i < 3; i++) {
        prove_one();
        zkbench_mark("proof done");
    }
    printf("3 proofs\n");
    return 0;
}
