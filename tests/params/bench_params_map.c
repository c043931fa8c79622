/*
 * How fast parameters load in each mode, for a circuit's key:
 *   bench_params_map [SPEC [THREADS [--no-full-check]]]
 *   (default porep:constraints=2^16, all cores)
 * The key comes from the parameter cache (ZKBENCH_PARAMS_DIR), generated
 * there on first use. Rows: the tree checksum of resident memory (the hash
 * alone), identifying the .params file, mapping and verifying the layout
 * cache with its pages in the page cache (warm) and dropped from it (cold:
 * posix_fadvise DONTNEED, the file is read from disk), writing the cache,
 * and the heap decode with and without the subgroup check (the full check
 * on every thread only, once). Other rows are the best of three; MB/s are
 * 10^6 bytes per second.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/run/param_cache.h"
#include "prover/checksum.h"
#include "prover/circuit/circuit.h"
#include "prover/groth16.h"
#include "prover/parallel.h"
#include "prover/params_map.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        fdatasync(fd);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

static void row(const char *what, unsigned threads, uint64_t bytes, double s)
{
    printf("| %-44s | %7u | %9.1f | %8.3f | %9.0f |\n", what, threads, (double)bytes / 1e6, s,
           (double)bytes / 1e6 / s);
}

enum op { OP_HASH, OP_IDENTIFY, OP_MAP_WARM, OP_MAP_COLD, OP_WRITE, OP_HEAP_NOSUB, OP_HEAP_FULL };

/* What the rows work on: the key in the heap form (to write a cache from),
 * and the cache's bytes in anonymous memory (to hash without faults). The
 * mapped key itself is not held, so the cold rows can drop its pages. */
struct inputs {
    const struct param_cache_info *info;
    const groth16_params_t *heap;
    const params_source_t *src;
    const uint8_t *bytes;
    size_t n;
};

static int run(enum op op, unsigned threads, const struct inputs *in, double *best)
{
    params_error_t perr;
    *best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        groth16_params_t *p = NULL;
        params_source_t id;
        uint64_t sum;
        int rc = 0;
        if (op == OP_MAP_COLD)
            drop_cache(in->info->map_path);
        double t0 = now_s();
        switch (op) {
        case OP_HASH: rc = checksum_tree(&sum, in->bytes, in->n, threads); break;
        case OP_IDENTIFY: rc = params_source_identify(&id, in->info->params_path, threads, &perr); break;
        case OP_MAP_WARM:
        case OP_MAP_COLD: rc = params_map_read(&p, in->info->map_path, in->src, threads, &perr); break;
        case OP_WRITE: rc = params_map_write(in->info->map_path, in->heap, in->src, threads, &perr); break;
        case OP_HEAP_NOSUB:
            rc = params_read(&p, in->info->params_path, PARAMS_NO_SUBGROUP_CHECK, threads, &perr);
            break;
        case OP_HEAP_FULL: rc = params_read(&p, in->info->params_path, 0, threads, &perr); break;
        }
        double t = now_s() - t0;
        params_free(p);
        if (rc < 0) {
            fprintf(stderr, "bench_params_map: %s\n", perr.msg);
            return rc;
        }
        if (t < *best)
            *best = t;
        if (op == OP_HEAP_FULL)
            break; /* slow: once is enough */
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "porep:constraints=2^16";
    unsigned all = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : parallel_default_threads();
    char err[1024];
    circuit_t *circ;
    groth16_shape_t *shape;
    if (circuit_from_spec(&circ, spec, 1, err, sizeof err) < 0 || groth16_shape_new(&shape, circ->r1cs) < 0) {
        fprintf(stderr, "bench_params_map: %s\n", err);
        return 1;
    }
    struct param_cache_info *info = calloc(1, sizeof *info);
    groth16_params_t *pk = NULL;
    if (!info || param_cache_open(&pk, circ, shape, PARAMS_LOAD_MMAP, all, -1, info, err, sizeof err) < 0) {
        fprintf(stderr, "bench_params_map: %s\n", err);
        return 1;
    }
    params_source_t id;
    params_error_t perr;
    if (params_source_identify(&id, info->params_path, all, &perr) < 0) {
        fprintf(stderr, "bench_params_map: %s\n", perr.msg);
        return 1;
    }
    uint64_t src_bytes = id.bytes, map_bytes = pk->map_bytes;
    params_free(pk);
    pk = NULL;
    uint8_t *bytes = malloc(map_bytes ? map_bytes : 1);
    int fd = open(info->map_path, O_RDONLY);
    if (!bytes || fd < 0 || pread(fd, bytes, map_bytes, 0) != (ssize_t)map_bytes ||
        params_read(&pk, info->params_path, PARAMS_NO_SUBGROUP_CHECK, all, &perr) < 0) {
        fprintf(stderr, "bench_params_map: cannot read %s or %s\n", info->map_path, info->params_path);
        return 1;
    }
    close(fd);
    struct inputs in = {.info = info, .heap = pk, .src = &id, .bytes = bytes, .n = map_bytes};
    bool full = !(argc > 3 && strcmp(argv[3], "--no-full-check") == 0);
    printf("%s: .params %.1f MB, layout cache %.1f MB, %u threads available\n\n", circ->spec,
           (double)src_bytes / 1e6, (double)map_bytes / 1e6, parallel_default_threads());
    printf("| %-44s | %7s | %9s | %8s | %9s |\n", "operation", "threads", "MB", "s", "MB/s");
    printf("|%s|---------|-----------|----------|-----------|\n", "----------------------------------------------");
    static const struct {
        enum op op;
        const char *what;
        bool source; /* of the .params file, else of the cache */
    } ops[] = {
        {OP_HASH, "checksum_tree, resident pages", false},
        {OP_MAP_WARM, "params_map_read (map + verify), page cache", false},
        {OP_MAP_COLD, "params_map_read, cold (fadvise DONTNEED)", false},
        {OP_IDENTIFY, "params_source_identify (.params)", true},
        {OP_WRITE, "params_map_write", false},
        {OP_HEAP_NOSUB, "params_read heap, no subgroup check", true},
        {OP_HEAP_FULL, "params_read heap, full check", true},
    };
    int status = 0;
    for (size_t k = 0; k < sizeof ops / sizeof *ops && status == 0; k++) {
        unsigned tl[2] = {1, all};
        for (int j = 0; j < (all > 1 ? 2 : 1); j++) {
            double s;
            if (ops[k].op == OP_HEAP_FULL && ((tl[j] == 1 && all > 1) || !full))
                continue; /* slow: with every thread only */
            if (run(ops[k].op, tl[j], &in, &s) < 0) {
                status = 1;
                break;
            }
            row(ops[k].what, tl[j], ops[k].source ? src_bytes : map_bytes, s);
        }
    }
    params_free(pk);
    free(bytes);
    free(info);
    groth16_shape_free(shape);
    circuit_free(circ);
    return status;
}
