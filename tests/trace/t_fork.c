/* A forked child that leaks: child_leak keeps 4 MiB three times and exits;
 * the parent allocates and frees 2 MiB and waits. Prints the child's pid. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_common.h"

void *volatile t_sink;

__attribute__((noinline)) static void child_leak(void)
{
    for (int i = 0; i < 3; i++) {
        char *p = malloc(4 * MIB);
        memset(p, 2, 4096);
        T_KEEP(p);
    }
}

__attribute__((noinline)) static void parent_work(void)
{
    char *p = malloc(2 * MIB);
    T_KEEP(p);
    free(p);
}

int main(void)
{
    parent_work();
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        child_leak();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    parent_work();
    printf("child %d\n", (int)pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
