/*
 * A foreign prover with a pw knob, for zkbench sweep -- CMD: a 30 MiB base
 * held throughout, then two rounds of pw threads, each holding MB MiB (one
 * "partition") for 0.4 s; a thread takes its buffer from a queue of pw
 * slots, as a prover's semaphore hands out partitions. Prints "proof done
 * N" after each round.
 *   pw_knob PW MB
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t mb;
static volatile char sink; /* the buffers are used: no allocation is elided */

static void *partition(void *arg)
{
    char *p = malloc(mb << 20);
    if (!p)
        exit(3);
    memset(p, 1, mb << 20);
    sink = p[mb];
    usleep(400000);
    sink = p[7];
    free(p);
    return arg;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fprintf(stderr, "usage: pw_knob PW MB\n"), 2;
    int pw = atoi(argv[1]);
    mb = (size_t)atoi(argv[2]);
    if (pw < 1 || pw > 64 || mb < 1)
        return fprintf(stderr, "pw_knob: PW 1..64, MB >= 1\n"), 2;
    char *base = malloc(30 << 20);
    if (!base)
        return 3;
    memset(base, 2, 30 << 20);
    pthread_t t[64];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < pw; i++)
            pthread_create(&t[i], NULL, partition, NULL);
        for (int i = 0; i < pw; i++)
            pthread_join(t[i], NULL);
        printf("proof done %d\n", round + 1);
        fflush(stdout);
    }
    return base[5] == 2 ? 0 : 1;
}
