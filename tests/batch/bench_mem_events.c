/*
 * Cost of a tracked-buffer event (DESIGN: <= 100 ns, switchable off): alloc
 * and free notes with no sink, with events switched off, with an empty sink,
 * and with the batch driver's sink (run_files: a queue on the allocating
 * thread, drained into buffers.csv rows by the sampler thread, here every
 * 4096 buffers as a 10 ms tick would). Prints ns per event.
 */
#include <stdio.h>
#include <time.h>

#include "harness/run/run_files.h"
#include "prover/mem.h"

#define N 1000000

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void empty_sink(void *ctx, const struct mem_event *ev)
{
    (void)ctx;
    (void)ev;
}

static double churn(run_files_t *rf, double *drain_s)
{
    double t = now(), d = 0;
    for (int i = 0; i < N; i++) {
        uint64_t id = mem_note_alloc(MEM_KIND_AUX, MEM_HOST, 1, 2, 4096);
        mem_note_free(id, MEM_KIND_AUX, MEM_HOST, 1, 2, 4096);
        if (rf && (i & 4095) == 4095) {
            double t0 = now();
            run_files_drain(rf);
            d += now() - t0;
        }
    }
    t = now() - t - d;
    if (drain_s)
        *drain_s = d;
    return t / N / 2 * 1e9;
}

int main(void)
{
    printf("| sink | ns per event (allocating thread) |\n|---|---:|\n");
    mem_set_sink(NULL, NULL);
    printf("| none | %.1f |\n", churn(NULL, NULL));
    mem_set_sink(empty_sink, NULL);
    mem_set_events(false);
    printf("| empty, events switched off | %.1f |\n", churn(NULL, NULL));
    mem_set_events(true);
    printf("| empty | %.1f |\n", churn(NULL, NULL));
    char err[256], dir[] = "/tmp/zkb-bench-mem-XXXXXX";
    run_files_t *rf;
    if (!mkdtemp(dir) || run_files_open(&rf, dir, now(), err, sizeof err) < 0) {
        fprintf(stderr, "bench_mem_events: %s\n", err);
        return 1;
    }
    mem_set_sink(run_files_mem_sink, rf);
    double drain = 0, ns = churn(rf, &drain);
    printf("| zkbench batch's (queue; rows written by the sampler thread) | %.1f |\n", ns);
    printf("\nwriting the buffers.csv rows on the sampler thread: %.1f ns per event\n", drain / N / 2 * 1e9);
    mem_set_sink(NULL, NULL);
    run_files_close(rf);
    return 0;
}
