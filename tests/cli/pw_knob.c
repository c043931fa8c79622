/*
 * A foreign prover with a pw knob, for zkbench sweep -- CMD and watch: a 30
 * MiB base held throughout, then two rounds of pw threads, each holding MB
 * MiB (one "partition") for 0.4 s; a thread takes its buffer from a queue
 * of pw slots, as a prover's semaphore hands out partitions. Prints "proof
 * done N" after each round.
 *   pw_knob PW MB [MARKS]
 * MARKS (under watch --trace) reports the partitions' states through
 * zkbench_mark, with the base held idle for 0.3 s before the first round
 * and between the rounds (the baseline a per-state fit needs):
 *   marks     "synth start" / "synth end" in each thread around its hold
 *   marks-id  "synth start R.I" in the thread, "synth end R.I" marked by the
 *             main thread once it has joined it (a hand-over between threads)
 *   bad-marks marks, after an "synth end" without a start, a "synth stop"
 *             and a "prove start 1 2" (neither start nor end: malformed)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/trace/zkbench_trace.h"

static size_t mb;
static int marks;  /* 0 none, 1 per thread, 2 by id with the end on main */
static int round_; /* for the ids */
static volatile char sink; /* the buffers are used: no allocation is elided */

static void *partition(void *arg)
{
    char id[32];
    snprintf(id, sizeof id, "synth start %d.%d", round_, (int)(intptr_t)arg);
    if (marks == 1)
        zkbench_mark("synth start");
    else if (marks == 2)
        zkbench_mark(id);
    char *p = malloc(mb << 20);
    if (!p)
        exit(3);
    memset(p, 1, mb << 20);
    sink = p[mb];
    usleep(400000);
    sink = p[7];
    free(p);
    if (marks == 1)
        zkbench_mark("synth end");
    return arg;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4)
        return fprintf(stderr, "usage: pw_knob PW MB [marks|marks-id|bad-marks]\n"), 2;
    int pw = atoi(argv[1]);
    mb = (size_t)atoi(argv[2]);
    if (pw < 1 || pw > 64 || mb < 1)
        return fprintf(stderr, "pw_knob: PW 1..64, MB >= 1\n"), 2;
    const char *mode = argc == 4 ? argv[3] : "";
    if (argc == 4 && strcmp(mode, "marks") != 0 && strcmp(mode, "marks-id") != 0 && strcmp(mode, "bad-marks") != 0)
        return fprintf(stderr, "pw_knob: MARKS is marks, marks-id or bad-marks\n"), 2;
    marks = argc != 4 ? 0 : strcmp(mode, "marks-id") == 0 ? 2 : 1;
    char *base = malloc(30 << 20);
    if (!base)
        return 3;
    memset(base, 2, 30 << 20);
    if (strcmp(mode, "bad-marks") == 0) {
        zkbench_mark("synth end");
        zkbench_mark("synth stop");
        zkbench_mark("prove start 1 2");
    }
    pthread_t t[64];
    for (int round = 0; round < 2; round++) {
        if (marks)
            usleep(300000);
        round_ = round;
        for (int i = 0; i < pw; i++)
            pthread_create(&t[i], NULL, partition, (void *)(intptr_t)i);
        for (int i = 0; i < pw; i++) {
            pthread_join(t[i], NULL);
            if (marks == 2) {
                char id[32];
                snprintf(id, sizeof id, "synth end %d.%d", round, i);
                zkbench_mark(id);
            }
        }
        printf("proof done %d\n", round + 1);
        fflush(stdout);
    }
    return base[5] == 2 ? 0 : 1;
}
