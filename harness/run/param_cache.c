/* The parameter cache; see param_cache.h. */
#include "harness/run/out_file.h"
#include "harness/run/param_cache.h"

#include "kernels/kernels.h"
#include "prover/cache_dir.h"
#include "prover/checksum.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int param_cache_dir(char *out, size_t cap, char *err, size_t err_cap)
{
    if (cache_dir_default(out, cap) < 0) {
        snprintf(err, err_cap, "parameter cache path too long");
        return -ENAMETOOLONG;
    }
    int rc = out_mkdir_p(out);
    if (rc < 0)
        snprintf(err, err_cap, "cannot create the parameter cache %s: %s (set ZKBENCH_PARAMS_DIR)", out,
                 strerror(-rc));
    return rc;
}

/* A file name from the circuit's canonical spec, without the partition
 * count (the keys do not depend on it). */
static void cache_name(char *out, size_t cap, const circuit_t *circ)
{
    size_t k = 0;
    for (const char *s = circ->spec; *s && k + 1 < cap; s++) {
        if (strncmp(s, "partitions=", 11) == 0) {
            while (*s && *s != ',')
                s++;
            if (!*s)
                break;
            continue;
        }
        char ch = *s;
        out[k++] = (ch == ':' || ch == ',' || ch == '=') ? '-' : ch;
    }
    while (k > 0 && out[k - 1] == '-')
        k--;
    out[k] = 0;
}

int param_cache_params_path(char *out, size_t cap, const circuit_t *circ, char *err, size_t err_cap)
{
    char dir[4096], name[512];
    int rc = param_cache_dir(dir, sizeof dir, err, err_cap);
    if (rc < 0)
        return rc;
    cache_name(name, sizeof name, circ);
    if ((size_t)snprintf(out, cap, "%s/%s.params", dir, name) >= cap) {
        snprintf(err, err_cap, "parameter cache path too long");
        return -ENAMETOOLONG;
    }
    return 0;
}

static int too_long(char *err, size_t err_cap)
{
    snprintf(err, err_cap, "parameter cache path too long");
    return -ENAMETOOLONG;
}

/* The advice that goes with a layout cache that cannot be written. */
static const char *write_hint(int rc)
{
    switch (rc) {
    case -EACCES:
    case -EPERM:
    case -EROFS:
    case -ENOTDIR:
    case -ENOSPC:
    case -EDQUOT:
        return " (set ZKBENCH_PARAMS_DIR to a writable folder, or use --params-load heap)";
    default:
        return "";
    }
}

/* mmap mode: maps map_path for params_path, rebuilding it as needed. */
static int open_mapped(groth16_params_t **ret, struct param_cache_info *info, unsigned flags,
                       unsigned threads, char *err, size_t err_cap)
{
    params_map_info_t mi;
    params_error_t perr;
    int rc = params_map_open(ret, info->map_path, info->params_path, flags, threads, &mi, &perr);
    if (rc < 0) {
        snprintf(err, err_cap, "%s%s", perr.msg, write_hint(rc));
        return rc;
    }
    if (mi.rebuilt) {
        info->rebuilt = true;
        snprintf(info->why, sizeof info->why, "%s", mi.why);
    }
    info->mapped_bytes = mi.mapped_bytes;
    info->verify_s = mi.verify_s;
    return 0;
}

static int check_shape(groth16_params_t **ret, const groth16_shape_t *shape, const char *path, char *err,
                       size_t err_cap)
{
    if (!shape)
        return 0;
    char msg[512];
    if (groth16_params_check(*ret, shape, msg, sizeof msg) < 0) {
        snprintf(err, err_cap, "%s: %s", path, msg);
        params_free(*ret);
        *ret = NULL;
        return -EINVAL;
    }
    return 0;
}

/*
 * The cache's record of a .params file it validated (PATH.sum: its size
 * and checksum_tree, written by zkbench after generating or fully checking
 * it). The heap mode skips the per-point subgroup check only for a file
 * that still matches it; any other file is checked in full. A checksum
 * catches corruption, not tampering (docs/params-cache.md).
 */
#define SUM_FORMAT "zkbench-params-sum-1 %llu %016llx\n"

static void sum_write(const char *params_path, unsigned threads)
{
    params_source_t src;
    params_error_t perr;
    char path[4200], tmp[4300], text[96];
    if (params_source_identify(&src, params_path, threads, &perr) < 0)
        return;
    snprintf(path, sizeof path, "%.4090s.sum", params_path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    int n = snprintf(text, sizeof text, SUM_FORMAT, (unsigned long long)src.bytes,
                     (unsigned long long)src.checksum);
    FILE *f = fopen(tmp, "wx");
    if (!f)
        return; /* no record: the next heap load checks in full again */
    bool ok = fwrite(text, 1, (size_t)n, f) == (size_t)n;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}

/* Whether params_path still is the file PATH.sum records. */
static bool sum_matches(const char *params_path, unsigned threads)
{
    char path[4200];
    snprintf(path, sizeof path, "%.4090s.sum", params_path);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    unsigned long long bytes = 0, sum = 0;
    int got = fscanf(f, "zkbench-params-sum-1 %llu %llx", &bytes, &sum);
    fclose(f);
    params_source_t src;
    params_error_t perr;
    return got == 2 && params_source_identify(&src, params_path, threads, &perr) == 0 && src.bytes == bytes &&
           src.checksum == sum;
}

/* Generates the circuit's keys into params_path (and PATH.vk); in mmap
 * mode also writes the layout cache from the key just made, so it is not
 * read back and re-validated. */
static int generate(struct param_cache_info *info, const circuit_t *circ, const groth16_shape_t *shape,
                    unsigned threads, int device, char *err, size_t err_cap)
{
    groth16_params_t *pk;
    double t0 = groth16_now_s();
    int rc = groth16_setup_on(&pk, shape, /* seed= */ 1, threads, device, NULL);
    if (rc < 0 && device >= 0) {
        /* the device could not (its memory taken, a driver error): the CPU makes the same keys
         * (device memory runs out as -ENOMEM too; a host that is out fails again below) */
        snprintf(info->setup_note, sizeof info->setup_note, "the setup on GPU %d failed: %s: %.300s", device,
                 strerror(-rc), kernels_last_error());
        device = -1;
        t0 = groth16_now_s();
        rc = groth16_setup_on(&pk, shape, /* seed= */ 1, threads, -1, NULL);
    }
    info->setup_device = device;
    info->setup_s = groth16_now_s() - t0;
    if (rc < 0) {
        snprintf(err, err_cap, "generating parameters for %s failed: %s", circ->spec, strerror(-rc));
        return rc;
    }
    params_error_t perr;
    char vk_path[4200];
    snprintf(vk_path, sizeof vk_path, "%.4090s.vk", info->params_path);
    rc = params_write(info->params_path, pk, &perr);
    if (rc == 0)
        rc = params_vk_write(vk_path, &pk->vk, &perr);
    if (rc == 0 && info->load == PARAMS_LOAD_MMAP) {
        params_source_t src;
        rc = params_source_identify(&src, info->params_path, threads, &perr);
        if (rc == 0)
            rc = params_map_write(info->map_path, pk, &src, threads, &perr);
        if (rc == 0) {
            info->rebuilt = true;
            snprintf(info->why, sizeof info->why, "generated with the parameters");
        }
    }
    params_free(pk);
    if (rc < 0) {
        snprintf(err, err_cap, "%s%s", perr.msg, write_hint(rc));
        return rc;
    }
    sum_write(info->params_path, threads);
    info->generated = true;
    return 0;
}

int param_cache_open(groth16_params_t **ret, const circuit_t *circ, const groth16_shape_t *shape,
                     enum params_load load, unsigned threads, int setup_device, struct param_cache_info *info,
                     char *err, size_t err_cap)
{
    struct param_cache_info local;
    struct param_cache_info *in = info ? info : &local;
    memset(in, 0, sizeof *in);
    in->setup_device = -1;
    in->load = load;
    char dir[4096], name[512];
    int rc = param_cache_dir(dir, sizeof dir, err, err_cap);
    if (rc < 0)
        return rc;
    cache_name(name, sizeof name, circ);
    if ((size_t)snprintf(in->params_path, sizeof in->params_path, "%s/%s.params", dir, name) >=
        sizeof in->params_path)
        return too_long(err, err_cap);
    if (load == PARAMS_LOAD_MMAP &&
        (size_t)snprintf(in->map_path, sizeof in->map_path, "%s.map", in->params_path) >= sizeof in->map_path)
        return too_long(err, err_cap);
    if (access(in->params_path, R_OK) != 0 && (rc = generate(in, circ, shape, threads, setup_device, err, err_cap)) < 0)
        return rc;

    groth16_params_t *pk = NULL;
    if (load == PARAMS_LOAD_MMAP) {
        /* a rebuild from the file validates every point in full */
        if ((rc = open_mapped(&pk, in, /* flags= */ 0, threads, err, err_cap)) < 0) {
            if (rc == -EINVAL) {
                size_t k = strlen(err);
                snprintf(err + k, err_cap - k, " (delete it to regenerate)");
            }
            return rc;
        }
    } else {
        /* the subgroup check is skipped only for the file zkbench wrote or
         * checked, unchanged since (its .sum) */
        params_error_t perr;
        bool known = sum_matches(in->params_path, threads);
        if ((rc = params_read(&pk, in->params_path, known ? PARAMS_NO_SUBGROUP_CHECK : 0, threads, &perr)) < 0) {
            snprintf(err, err_cap, "%s (delete it to regenerate)", perr.msg);
            return rc;
        }
        if (!known)
            sum_write(in->params_path, threads);
    }
    if ((rc = check_shape(&pk, shape, in->params_path, err, err_cap)) < 0)
        return rc;
    *ret = pk;
    return 0;
}

int param_cache_map_path(char *out, size_t cap, const char *path, char *err, size_t err_cap)
{
    char abs[PATH_MAX], dir[4096];
    if (!realpath(path, abs)) {
        int e = errno;
        snprintf(err, err_cap, "%s: %s", path, strerror(e));
        return -e;
    }
    int rc = param_cache_dir(dir, sizeof dir, err, err_cap);
    if (rc < 0)
        return rc;
    size_t k = strlen(dir);
    if (k + sizeof "/mapped" > sizeof dir)
        return too_long(err, err_cap);
    memcpy(dir + k, "/mapped", sizeof "/mapped");
    if ((rc = out_mkdir_p(dir)) < 0) {
        snprintf(err, err_cap, "cannot create %s: %s%s", dir, strerror(-rc), write_hint(rc));
        return rc;
    }
    const char *base = strrchr(abs, '/');
    base = base ? base + 1 : abs;
    unsigned long long h = (unsigned long long)checksum_xxh64(abs, strlen(abs), 0);
    if ((size_t)snprintf(out, cap, "%s/%.200s.%016llx.map", dir, base, h) >= cap)
        return too_long(err, err_cap);
    return 0;
}

int param_cache_open_file(groth16_params_t **ret, const char *path, const groth16_shape_t *shape,
                          enum params_load load, unsigned threads, struct param_cache_info *info,
                          char *err, size_t err_cap)
{
    struct param_cache_info local;
    struct param_cache_info *in = info ? info : &local;
    memset(in, 0, sizeof *in);
    in->setup_device = -1;
    in->load = load;
    if ((size_t)snprintf(in->params_path, sizeof in->params_path, "%s", path) >= sizeof in->params_path)
        return too_long(err, err_cap);
    groth16_params_t *pk = NULL;
    int rc;
    if (load == PARAMS_LOAD_MMAP) {
        if ((rc = param_cache_map_path(in->map_path, sizeof in->map_path, path, err, err_cap)) < 0)
            return rc;
        if ((rc = open_mapped(&pk, in, /* flags= */ 0, threads, err, err_cap)) < 0)
            return rc;
    } else {
        params_error_t perr;
        if ((rc = params_read(&pk, path, /* flags= */ 0, threads, &perr)) < 0) {
            snprintf(err, err_cap, "%s", perr.msg);
            return rc;
        }
    }
    if ((rc = check_shape(&pk, shape, path, err, err_cap)) < 0)
        return rc;
    *ret = pk;
    return 0;
}

void param_cache_describe(char *out, size_t cap, const struct param_cache_info *info)
{
    char gen[640] = "";
    if (info->generated && info->setup_device >= 0)
        snprintf(gen, sizeof gen, "keys made on GPU %d in %.1f s", info->setup_device, info->setup_s);
    else if (info->generated)
        snprintf(gen, sizeof gen, "keys made on the CPU in %.1f s%s%s", info->setup_s,
                 info->setup_note[0] ? ", as " : "", info->setup_note);
    const char *sep = gen[0] ? ", " : "";
    if (info->load != PARAMS_LOAD_MMAP) {
        snprintf(out, cap, "%s (heap%s%s)", info->params_path, sep, gen);
        return;
    }
    int n = snprintf(out, cap, "%s (%s%smapped %.1f MiB from %s, checksum verified in %.2f s", info->params_path, gen,
                     sep, (double)info->mapped_bytes / (1 << 20), info->map_path, info->verify_s);
    if (n < 0 || (size_t)n >= cap)
        return;
    if (info->rebuilt && !info->generated)
        snprintf(out + n, cap - (size_t)n, "; layout cache rebuilt: %s)", info->why);
    else
        snprintf(out + n, cap - (size_t)n, ")");
}

int param_cache_load(groth16_params_t **ret, const circuit_t *circ, const groth16_shape_t *shape,
                     unsigned threads, bool *generated, char *path_out, size_t path_cap, char *err,
                     size_t err_cap)
{
    struct param_cache_info *info = malloc(sizeof *info);
    if (!info) {
        snprintf(err, err_cap, "out of memory");
        return -ENOMEM;
    }
    int rc = param_cache_open(ret, circ, shape, PARAMS_LOAD_HEAP, threads, -1, info, err, err_cap);
    if (rc == 0) {
        *generated = info->generated;
        snprintf(path_out, path_cap, "%s", info->params_path);
    }
    free(info);
    return rc;
}
