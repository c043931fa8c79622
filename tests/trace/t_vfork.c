/* A vfork child that _exits shares its parent's memory and trace file; the
 * parent then leaks 2 MiB and is killed. Its record must say killed, not
 * exited (the child's _exit is not the parent's). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void parent_leak(void)
{
    char *p = malloc(2 * MIB);
    memset(p, 1, 4096);
    T_KEEP(p);
}

int main(void)
{
    parent_leak(); /* the file is open before the vfork */
    pid_t c = vfork();
    if (c == 0)
        _exit(3);
    int st;
    waitpid(c, &st, 0);
    parent_leak();
    raise(SIGKILL);
    return 0;
}
