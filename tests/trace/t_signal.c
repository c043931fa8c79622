/* Killed mid-run: doomed_leak keeps 2 MiB four times, then the program
 * raises the signal named by argv[1] (KILL or SEGV). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void doomed_leak(void)
{
    char *p = malloc(2 * MIB);
    memset(p, 3, 4096);
    T_KEEP(p);
}

int main(int argc, char **argv)
{
    for (int i = 0; i < 4; i++)
        doomed_leak();
    printf("about to die\n");
    fflush(stdout);
    if (argc > 1 && strcmp(argv[1], "SEGV") == 0) {
        signal(SIGSEGV, SIG_DFL);
        raise(SIGSEGV);
    }
    raise(SIGKILL);
    return 0;
}
