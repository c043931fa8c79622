/* The parameter cache; see param_cache.h. */
#define _GNU_SOURCE
#include "harness/run/out_file.h"
#include "harness/run/param_cache.h"

#include "kernels/kernels.h"
#include "prover/cache_dir.h"
#include "prover/checksum.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* A canonical spec without the partition count (the keys do not depend
 * on it): the key file's recorded origin. */
static void key_spec_of(char *out, size_t cap, const char *spec)
{
    size_t k = 0;
    for (const char *s = spec; *s && k + 1 < cap; s++) {
        if (strncmp(s, "partitions=", 11) == 0) {
            while (*s && *s != ',')
                s++;
            if (!*s)
                break;
            continue;
        }
        out[k++] = *s;
    }
    while (k > 0 && out[k - 1] == ',')
        k--;
    out[k] = 0;
}

static void key_spec(char *out, size_t cap, const circuit_t *circ)
{
    key_spec_of(out, cap, circ->spec);
}

/* A file name from it: separators become '-'. */
static void cache_name(char *out, size_t cap, const char *spec)
{
    key_spec_of(out, cap, spec);
    for (char *s = out; *s; s++)
        if (*s == ':' || *s == ',' || *s == '=')
            *s = '-';
}

static int too_long(char *err, size_t err_cap)
{
    snprintf(err, err_cap, "parameter cache path too long");
    return -ENAMETOOLONG;
}

/* CACHE/NAME.key of a canonical spec (the folder created unless
 * create is false). */
static int key_path_in(char *out, size_t cap, const char *spec, bool create, char *err, size_t err_cap)
{
    char dir[4096], name[512];
    int rc = create ? param_cache_dir(dir, sizeof dir, err, err_cap) : cache_dir_default(dir, sizeof dir);
    if (rc < 0) {
        if (!create)
            snprintf(err, err_cap, "parameter cache path too long");
        return rc;
    }
    cache_name(name, sizeof name, spec);
    if ((size_t)snprintf(out, cap, "%s/%s.key", dir, name) >= cap)
        return too_long(err, err_cap);
    return 0;
}

int param_cache_params_path(char *out, size_t cap, const circuit_t *circ, char *err, size_t err_cap)
{
    return key_path_in(out, cap, circ->spec, /* create= */ true, err, err_cap);
}

/* The advice that goes with a key file that cannot be written. */
static const char *write_hint(int rc)
{
    switch (rc) {
    case -EACCES:
    case -EPERM:
    case -EROFS:
    case -ENOTDIR:
    case -ENOSPC:
    case -EDQUOT:
        return " (set ZKBENCH_PARAMS_DIR to a writable folder with room for the key)";
    default:
        return "";
    }
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

/* The mode's form of a mapped key: itself, or a heap copy (the mapping
 * freed). */
static int to_mode(groth16_params_t **pk, enum params_load load, const char *path, char *err, size_t err_cap)
{
    if (load != PARAMS_LOAD_HEAP)
        return 0;
    groth16_params_t *heap;
    int rc = params_map_to_heap(&heap, *pk);
    params_free(*pk);
    *pk = NULL;
    if (rc < 0) {
        snprintf(err, err_cap, "%s: out of memory copying the key to the heap", path);
        return rc;
    }
    *pk = heap;
    return 0;
}

static void note_stats(struct param_cache_info *in, const params_map_stats_t *st, const groth16_params_t *pk)
{
    in->mapped_bytes = pk->map_bytes;
    in->blocks = st->blocks;
    in->blocks_checked = st->blocks_checked;
    in->verify_s = st->check_s + st->populate_s;
}

/* Generates the circuit's keys straight into a new key file at
 * info->params_path (and the verifying key beside it). */
static int generate(groth16_params_t **ret, struct param_cache_info *info, const circuit_t *circ,
                    const groth16_shape_t *shape, unsigned threads, int device, char *err, size_t err_cap)
{
    size_t counts[6];
    groth16_key_counts(counts, shape);
    groth16_params_t *pk;
    params_map_writer_t *w;
    params_error_t perr;
    int rc = params_map_create(&pk, &w, info->params_path, counts, &perr);
    if (rc < 0) {
        snprintf(err, err_cap, "%s%s", perr.msg, write_hint(rc));
        return rc;
    }
    double t0 = groth16_now_s();
    rc = groth16_setup_into(pk, shape, /* seed= */ 1, threads, device, NULL);
    if (rc < 0 && device >= 0) {
        /* the device could not (its memory taken, a driver error): the CPU makes the same keys
         * (device memory runs out as -ENOMEM too; a host that is out fails again below) */
        snprintf(info->setup_note, sizeof info->setup_note, "the setup on GPU %d failed: %s: %.300s", device,
                 strerror(-rc), kernels_last_error());
        device = -1;
        t0 = groth16_now_s();
        rc = groth16_setup_into(pk, shape, /* seed= */ 1, threads, -1, NULL);
    }
    info->setup_device = device;
    info->setup_s = groth16_now_s() - t0;
    if (rc < 0) {
        params_map_abort(w, pk);
        snprintf(err, err_cap, "generating parameters for %s failed: %s", circ->spec, strerror(-rc));
        return rc;
    }
    params_origin_t origin = {.kind = PARAMS_ORIGIN_SETUP, .seed = 1};
    key_spec(origin.spec, sizeof origin.spec, circ);
    t0 = groth16_now_s();
    if ((rc = params_map_commit(w, pk, &origin, threads, &perr)) < 0) {
        snprintf(err, err_cap, "%s%s", perr.msg, write_hint(rc));
        return rc;
    }
    info->write_s = groth16_now_s() - t0;
    char vk_path[4200];
    size_t k = strlen(info->params_path);
    snprintf(vk_path, sizeof vk_path, "%.*s.vk", (int)(k > 4 ? k - 4 : k), info->params_path);
    if ((rc = params_vk_write(vk_path, &pk->vk, &perr)) < 0) {
        params_free(pk);
        snprintf(err, err_cap, "%s%s", perr.msg, write_hint(rc));
        return rc;
    }
    info->generated = info->rebuilt = true;
    *ret = pk;
    return 0;
}

/* Whether a read's failure means "make the key" (missing, another
 * origin, damaged), rather than an error to report. */
static bool remake(int rc)
{
    return rc == -ENOENT || rc == -EINVAL || rc == -ESTALE || rc == -EBADMSG;
}

/* An exclusive lock on PATH.lock (created), or -errno. */
static int lock_take(const char *key_path, double *waited)
{
    char path[4200];
    snprintf(path, sizeof path, "%.4090s.lock", key_path);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    double t0 = groth16_now_s();
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int e = errno;
            close(fd);
            return -e;
        }
    }
    *waited = groth16_now_s() - t0;
    return fd;
}

static void lock_give(int fd)
{
    if (fd >= 0)
        close(fd); /* drops the flock */
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
    int rc = param_cache_params_path(in->params_path, sizeof in->params_path, circ, err, err_cap);
    if (rc < 0)
        return rc;
    snprintf(in->map_path, sizeof in->map_path, "%s", in->params_path);
    params_origin_t origin = {.kind = PARAMS_ORIGIN_SETUP, .seed = 1};
    key_spec(origin.spec, sizeof origin.spec, circ);
    groth16_params_t *pk = NULL;
    params_map_stats_t st;
    params_error_t perr;
    rc = params_map_read(&pk, in->params_path, &origin, PARAMS_MAP_SAMPLE, threads, &st, &perr);
    if (rc < 0 && remake(rc)) {
        /* one process makes it; another finds it made once the lock is its */
        int lock = lock_take(in->params_path, &in->lock_wait_s);
        if (lock < 0) {
            snprintf(err, err_cap, "%s: cannot take its lock to make the key: %s%s", in->params_path,
                     strerror(-lock), write_hint(lock));
            return lock;
        }
        rc = params_map_read(&pk, in->params_path, &origin, PARAMS_MAP_SAMPLE, threads, &st, &perr);
        if (rc < 0 && remake(rc)) {
            snprintf(in->why, sizeof in->why, "%s", rc == -ENOENT ? "none yet" : perr.msg);
            rc = generate(&pk, in, circ, shape, threads, setup_device, err, err_cap);
            lock_give(lock);
            if (rc < 0)
                return rc;
            memset(&st, 0, sizeof st);
            st.blocks = st.blocks_checked = 0;
        } else {
            lock_give(lock);
        }
    }
    if (rc < 0 && !pk) {
        snprintf(err, err_cap, "%s", perr.msg);
        return rc;
    }
    note_stats(in, &st, pk);
    if ((rc = to_mode(&pk, load, in->params_path, err, err_cap)) < 0 ||
        (rc = check_shape(&pk, shape, in->params_path, err, err_cap)) < 0)
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
    params_error_t perr;
    int rc;
    if (params_map_is_key_file(path)) {
        /* a key file: used as it is, never remade */
        params_map_stats_t st;
        snprintf(in->map_path, sizeof in->map_path, "%s", path);
        if ((rc = params_map_read(&pk, path, NULL, PARAMS_MAP_SAMPLE, threads, &st, &perr)) < 0) {
            snprintf(err, err_cap, "%s%s", perr.msg,
                     rc == -EBADMSG ? " (zkbench params verify checks every block; make the key again)" : "");
            return rc == -ENOMEM ? rc : -EINVAL;
        }
        note_stats(in, &st, pk);
        if ((rc = to_mode(&pk, load, path, err, err_cap)) < 0)
            return rc;
    } else if (load == PARAMS_LOAD_MMAP) {
        params_map_info_t mi;
        if ((rc = param_cache_map_path(in->map_path, sizeof in->map_path, path, err, err_cap)) < 0)
            return rc;
        if ((rc = params_map_open(&pk, in->map_path, path, /* flags= */ 0, threads, &mi, &perr)) < 0) {
            snprintf(err, err_cap, "%s%s", perr.msg, write_hint(rc));
            return rc;
        }
        in->rebuilt = mi.rebuilt;
        snprintf(in->why, sizeof in->why, "%s", mi.why);
        in->mapped_bytes = mi.mapped_bytes;
        in->verify_s = mi.verify_s;
    } else {
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

int param_cache_preflight(const char *spec, const char *explicit_path, char *err, size_t err_cap)
{
    if (explicit_path) {
        if (access(explicit_path, R_OK) != 0) {
            int e = errno;
            snprintf(err, err_cap, "--params %s: %s", explicit_path, strerror(e));
            return -e;
        }
        return 0;
    }
    char key[4096];
    int rc = key_path_in(key, sizeof key, spec, /* create= */ false, err, err_cap);
    if (rc < 0)
        return rc;
    if (access(key, R_OK) == 0)
        return 0;
    /* nothing is created here: the nearest folder that exists must let the
     * cache folder and the key be made */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", key);
    struct stat st;
    char *slash;
    while ((slash = strrchr(dir, '/')) && slash != dir) {
        *slash = 0;
        if (stat(dir, &st) == 0)
            break;
    }
    if (slash == dir)
        snprintf(dir, sizeof dir, "/");
    int e = 0;
    if (stat(dir, &st) != 0)
        e = errno;
    else if (!S_ISDIR(st.st_mode))
        e = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        e = errno;
    if (e) {
        snprintf(err, err_cap, "the parameter cache holds no key for %.200s (%s) and %s cannot be written to make one: %s "
                 "(set ZKBENCH_PARAMS_DIR to a writable folder)", spec, key, dir, strerror(e));
        return -e;
    }
    return 0;
}

void param_cache_describe(char *out, size_t cap, const struct param_cache_info *info)
{
    char gen[720] = "";
    if (info->generated && info->setup_device >= 0)
        snprintf(gen, sizeof gen, "keys made on GPU %d in %.1f s, written in %.1f s", info->setup_device,
                 info->setup_s, info->write_s);
    else if (info->generated)
        snprintf(gen, sizeof gen, "keys made on the CPU in %.1f s%s%s, written in %.1f s", info->setup_s,
                 info->setup_note[0] ? ", as " : "", info->setup_note, info->write_s);
    char wait[64] = "";
    if (info->lock_wait_s >= 0.5)
        snprintf(wait, sizeof wait, ", after waiting %.1f s for another process making it", info->lock_wait_s);
    const char *sep = gen[0] ? ", " : "";
    if (info->load != PARAMS_LOAD_MMAP && !info->map_path[0]) {
        snprintf(out, cap, "%s (heap, decoded and checked in full%s%s%s)", info->params_path, sep, gen, wait);
        return;
    }
    char checked[160];
    if (info->generated)
        snprintf(checked, sizeof checked, "every block checksummed as written");
    else if (info->blocks)
        snprintf(checked, sizeof checked, "header and %llu of %llu blocks checked, resident in %.2f s",
                 (unsigned long long)info->blocks_checked, (unsigned long long)info->blocks, info->verify_s);
    else
        snprintf(checked, sizeof checked, "checked in %.2f s", info->verify_s);
    int n = snprintf(out, cap, "%s (%s%s%s %.1f MiB, %s%s", info->params_path, gen, sep,
                     info->load == PARAMS_LOAD_HEAP ? "copied to the heap:" : "mapped",
                     (double)info->mapped_bytes / (1 << 20), checked, wait);
    if (n < 0 || (size_t)n >= cap)
        return;
    if (strcmp(info->map_path, info->params_path) != 0)
        n += snprintf(out + n, cap - (size_t)n, ", from %s", info->map_path);
    if (n < 0 || (size_t)n >= cap)
        return;
    if (info->rebuilt && !info->generated)
        snprintf(out + n, cap - (size_t)n, "; key file rebuilt: %s)", info->why);
    else if (info->generated && info->why[0] && strcmp(info->why, "none yet") != 0)
        snprintf(out + n, cap - (size_t)n, "; made anew: %s)", info->why);
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
