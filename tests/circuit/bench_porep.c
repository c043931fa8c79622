/*
 * porep circuit sizes and costs per target: depth, challenges, inputs,
 * constraints, labels, non-zeros, circuit bytes, A/B aux density, build time
 * and witness time. A benchmark (prints a table), not a test.
 *   bench_porep [min_log [max_log [threads]]]   defaults 10 20 2
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prover/circuit/porep.h"
#include "prover/mem.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned lo = argc > 1 ? (unsigned)atoi(argv[1]) : 10;
    unsigned hi = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    unsigned threads = argc > 3 ? (unsigned)atoi(argv[3]) : 2;
    printf("%4s %5s %10s %7s %11s %9s %11s %11s %11s %11s %7s %7s %8s %9s %7s\n", "log", "depth",
           "challenges", "inputs", "constraints", "labels", "nnz_a", "nnz_b", "nnz_c", "circuit_B",
           "a_aux%", "b_aux%", "build_s", "witness_s", "eval_s");
    for (unsigned k = lo; k <= hi; k++) {
        porep_params_t p = {1ull << k, 10, 0, 0};
        porep_t *c;
        double t0 = now_s();
        if (porep_build(&c, &p) < 0) {
            fprintf(stderr, "bench_porep: build 2^%u failed\n", k);
            return 1;
        }
        double t1 = now_s();
        const r1cs_t *r = c->r1cs;
        uint64_t *bits = malloc(r1cs_density_words(r) * sizeof(uint64_t));
        uint64_t aa, ba;
        r1cs_density(bits, NULL, &aa, r, R1CS_A);
        r1cs_density(bits, NULL, &ba, r, R1CS_B);
        free(bits);
        fr_t *w;
        double t2 = now_s();
        if (porep_witness_alloc(&w, c, 42, 0, 3, threads) < 0)
            return 1;
        double t3 = now_s();
        uint64_t m = r->num_constraints;
        fr_t *abc = mem_alloc(MEM_KIND_ABC, 0, 3, 3 * m * sizeof(fr_t));
        if (!abc)
            return 1;
        r1cs_eval(abc, abc + m, abc + 2 * m, r, w, threads);
        double t4 = now_s();
        mem_free(abc);
        printf("%4u %5u %10u %7u %11llu %9llu %11llu %11llu %11llu %11llu %7.1f %7.1f %8.3f %9.3f %7.3f\n",
               k, c->params.depth, c->params.challenges, r->num_inputs,
               (unsigned long long)r->num_constraints, (unsigned long long)c->labels,
               (unsigned long long)r->m[0].nnz, (unsigned long long)r->m[1].nnz,
               (unsigned long long)r->m[2].nnz,
               (unsigned long long)mem_live_bytes(MEM_KIND_CIRCUIT), 100.0 * (double)aa / r->num_aux,
               100.0 * (double)ba / r->num_aux, t1 - t0, t3 - t2, t4 - t3);
        fflush(stdout);
        mem_free(w);
        porep_free(c);
    }
    return 0;
}
