/*
 * The export's own cost, alone: metrics_on_sample (what the sampler's tick
 * adds, every tick) and metrics_render of the OpenMetrics exposition (what a
 * scrape costs, on the server's thread), in ns per call; and what they take
 * of one core at a 10 ms tick with one scrape a second.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "harness/metrics/metrics.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(void)
{
    struct metrics_config cfg = {.version = "0.1.0", .commit = "0123456789ab", .circuit = "porep:constraints=2^14",
                                 .pw = 2, .proofs_requested = 100, .heap = true, .gpu = true, .mem_limit = 1ull << 36};
    metrics_t *m = NULL;
    if (metrics_new(&m, &cfg) < 0)
        return 1;
    sample_t x = {0};
    const int n_samples = 2000000, n_renders = 20000;
    double t0 = now_ns();
    for (int i = 0; i < n_samples; i++) {
        x.rss = 1000000000ull + (uint64_t)(i % 977) * 4096;
        x.je_allocated = x.rss / 2;
        x.occ[SAMPLER_PROOFS_DONE] = (uint64_t)i / 1000; /* a completion every 1000 ticks: the fit runs too */
        metrics_on_sample(m, &x);
        if (i % 1000 == 0)
            metrics_observe_proof(m, 0.5 + i % 7);
    }
    double per_sample = (now_ns() - t0) / n_samples;
    size_t bytes = 0;
    t0 = now_ns();
    for (int i = 0; i < n_renders; i++) {
        char *t;
        size_t len;
        if (metrics_render(m, METRICS_OPENMETRICS, &t, &len, NULL) < 0)
            return 1;
        bytes = len;
        free(t);
    }
    double per_render = (now_ns() - t0) / n_renders;
    printf("metrics_on_sample  %8.0f ns per tick\n", per_sample);
    printf("metrics_render     %8.0f ns per scrape (%zu bytes of OpenMetrics)\n", per_render, bytes);
    printf("at a 10 ms tick and one scrape a second: %.4f %% of one core\n",
           100 * (100 * per_sample + per_render) / 1e9);
    metrics_free(m);
    return 0;
}
