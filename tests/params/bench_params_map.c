/*
 * How fast a proving key file loads, for a circuit's key:
 *   bench_params_map [SPEC [THREADS [--start-only]]]
 *   (default porep:constraints=2^16, all cores)
 * The key comes from the parameter cache (ZKBENCH_PARAMS_DIR), generated
 * there on first use. Rows: the tree checksum of resident memory (the hash
 * alone); a start (params_map_read: header, table, a sample of blocks, the
 * mapping faulted in) with the file in the page cache (warm) and dropped
 * from it (cold: posix_fadvise DONTNEED, read from disk); the full check of
 * every block (params_map_verify); and, unless --start-only (which writes
 * nothing, for a key as large as the disk allows), writing a key file and
 * the bellperson export with its heap decode with and without the subgroup
 * check (the full check on every thread only, once). Rows are the best of
 * three; MB/s are 10^6 bytes per second.
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

enum op { OP_HASH, OP_START_WARM, OP_START_COLD, OP_VERIFY, OP_WRITE, OP_EXPORT, OP_HEAP_NOSUB, OP_HEAP_FULL };

/* What the rows work on: the key in the heap form (to write from), the
 * key file's bytes in anonymous memory (to hash without faults), and where
 * the exported .params file goes. The mapped key itself is not held, so
 * the cold rows can drop its pages. */
struct inputs {
    const struct param_cache_info *info;
    const groth16_params_t *heap;
    const uint8_t *bytes;
    size_t n;
    char copy[4200], export[4200];
};

static int run(enum op op, unsigned threads, const struct inputs *in, double *best)
{
    params_error_t perr;
    *best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        groth16_params_t *p = NULL;
        uint64_t sum;
        int rc = 0;
        if (op == OP_START_COLD)
            drop_cache(in->info->params_path);
        double t0 = now_s();
        switch (op) {
        case OP_HASH: rc = checksum_tree(&sum, in->bytes, in->n, threads); break;
        case OP_START_WARM:
        case OP_START_COLD:
            rc = params_map_read(&p, in->info->params_path, NULL, PARAMS_MAP_SAMPLE, threads, NULL, &perr);
            break;
        case OP_VERIFY: rc = params_map_verify(in->info->params_path, threads, NULL, &perr); break;
        case OP_WRITE: rc = params_map_write(in->copy, in->heap, NULL, threads, &perr); break;
        case OP_EXPORT: rc = params_write(in->export, in->heap, &perr); break;
        case OP_HEAP_NOSUB: rc = params_read(&p, in->export, PARAMS_NO_SUBGROUP_CHECK, threads, &perr); break;
        case OP_HEAP_FULL: rc = params_read(&p, in->export, 0, threads, &perr); break;
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
    uint64_t map_bytes = pk->map_bytes;
    bool start_only = argc > 3 && strcmp(argv[3], "--start-only") == 0;
    groth16_params_t *heap = NULL;
    uint8_t *bytes = NULL;
    if (!start_only) {
        bytes = malloc(map_bytes ? map_bytes : 1);
        int fd = open(info->params_path, O_RDONLY);
        if (!bytes || fd < 0 || pread(fd, bytes, map_bytes, 0) != (ssize_t)map_bytes ||
            params_map_to_heap(&heap, pk) < 0) {
            fprintf(stderr, "bench_params_map: cannot read %s\n", info->params_path);
            return 1;
        }
        close(fd);
    }
    params_free(pk);
    pk = NULL;
    struct inputs in = {.info = info, .heap = heap, .bytes = bytes, .n = map_bytes};
    snprintf(in.copy, sizeof in.copy, "%.4090s.copy", info->params_path);
    snprintf(in.export, sizeof in.export, "%.4090s.params", info->params_path);
    printf("%s: key file %.1f MB, %u threads available\n\n", circ->spec, (double)map_bytes / 1e6,
           parallel_default_threads());
    printf("| %-44s | %7s | %9s | %8s | %9s |\n", "operation", "threads", "MB", "s", "MB/s");
    printf("|%s|---------|-----------|----------|-----------|\n", "----------------------------------------------");
    static const struct {
        enum op op;
        const char *what;
        bool writes; /* needs the heap key and disk room */
    } ops[] = {
        {OP_HASH, "checksum_tree, resident pages", true},
        {OP_START_WARM, "start: params_map_read, page cache", false},
        {OP_START_COLD, "start, cold (fadvise DONTNEED)", false},
        {OP_VERIFY, "params_map_verify (every block), page cache", false},
        {OP_WRITE, "params_map_write", true},
        {OP_EXPORT, "params_write (bellperson export)", true},
        {OP_HEAP_NOSUB, "params_read of the export, no subgroup check", true},
        {OP_HEAP_FULL, "params_read of the export, full check", true},
    };
    int status = 0;
    for (size_t k = 0; k < sizeof ops / sizeof *ops && status == 0; k++) {
        unsigned tl[2] = {1, all};
        if (start_only && ops[k].writes)
            continue;
        for (int j = 0; j < (all > 1 ? 2 : 1); j++) {
            double s;
            if (ops[k].op == OP_HEAP_FULL && tl[j] == 1 && all > 1)
                continue; /* slow: with every thread only */
            if (run(ops[k].op, tl[j], &in, &s) < 0) {
                status = 1;
                break;
            }
            row(ops[k].what, tl[j], map_bytes, s);
        }
    }
    unlink(in.copy);
    unlink(in.export);
    params_free(heap);
    free(bytes);
    free(info);
    groth16_shape_free(shape);
    circuit_free(circ);
    return status;
}
