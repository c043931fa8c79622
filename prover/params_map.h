/*
 * The parameter layout cache: a proving key stored as the exact bytes of
 * its in-memory arrays (Montgomery-form g1_affine_t / g2_affine_t), so a
 * process maps it (PROT_READ, MAP_SHARED) instead of decoding a .params
 * file into the heap. Its pages are file-backed: they count as RssFile (or
 * RssShmem on tmpfs), are shared between processes mapping the same file,
 * and are clean, so the kernel may drop and re-read them, as it does a
 * production prover's mapped SRS. The format is in docs/params-cache.md.
 *
 * The cache is derived data. It is used only when its header (magic,
 * version, the layout of this build, offsets, header checksum), its size,
 * its payload checksum and the identity of the .params file it came from
 * all match; otherwise params_map_open rebuilds it from the .params file,
 * validated in full. The checksums (checksum.h) catch corruption, not
 * tampering: the cache folder must be as trusted as the parameter files.
 * Writers never modify a cache in place (temporary file + rename), so a
 * process that has one mapped keeps a consistent key.
 */
#ifndef ZKB_PARAMS_MAP_H
#define ZKB_PARAMS_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "prover/params.h"

#define PARAMS_MAP_VERSION 1

/* How a prover process holds its parameters (zkbench --params-load). */
enum params_load {
    PARAMS_LOAD_MMAP, /* map the layout cache (the default) */
    PARAMS_LOAD_HEAP, /* decode the .params file into tracked heap buffers */
};

/* "mmap" / "heap" to the mode: 0, or -EINVAL for anything else. */
int params_load_parse(enum params_load *ret, const char *s);
/* "mmap" / "heap"; NULL for an unknown value. */
const char *params_load_name(enum params_load load);

/* The identity of a .params file: its size and checksum_tree of its bytes. */
typedef struct {
    uint64_t bytes;
    uint64_t checksum;
} params_source_t;

/* Identity of the file at path (read in full, threads: 0 = all cores).
 * -errno with err set when it cannot be opened or mapped. */
int params_source_identify(params_source_t *ret, const char *path, unsigned threads,
                           params_error_t *err);

/*
 * Writes params (either form) as a layout cache at path, recording src as
 * the file it was derived from, atomically: a temporary file in the same
 * folder, fsync, rename over path, fsync of the folder. Nothing is left
 * behind on failure. -errno (e.g. -EACCES, -ENOSPC) with err set.
 */
int params_map_write(const char *path, const groth16_params_t *params, const params_source_t *src,
                     unsigned threads, params_error_t *err);

/*
 * Maps the layout cache at path. Checks the header and the file size, then
 * (when src is not NULL) that the cache was derived from src, then verifies
 * the payload checksum over every byte, which also faults every page in:
 * the key is resident from the start. *ret: the mapped form, free with
 * params_free (which unmaps). Errors, err set, *ret untouched:
 *   -ENOENT, -EACCES, ...   the file cannot be opened or mapped
 *   -EINVAL                 not a valid cache for this build: magic, version,
 *                           layout (struct sizes, limbs, byte order,
 *                           Montgomery R), header checksum, offsets, or a
 *                           size other than the header says (truncated or
 *                           extended)
 *   -ESTALE                 a valid cache of another source
 *   -EBADMSG                payload checksum mismatch (corrupted contents)
 *   -ENOMEM
 */
int params_map_read(groth16_params_t **ret, const char *path, const params_source_t *src,
                    unsigned threads, params_error_t *err);

/* What params_map_open did. */
typedef struct {
    bool rebuilt;          /* the cache was (re)written from the .params file */
    int reason;            /* why: params_map_read's error for the old cache, 0 if none */
    char why[256];         /* the same in words (params_map_read's message) */
    params_source_t source; /* identity of the .params file */
    uint64_t mapped_bytes; /* size of the mapping */
    double verify_s;       /* seconds spent mapping and verifying the cache */
} params_map_info_t;

/*
 * The mapped key of the .params file at params_path, through its layout
 * cache at map_path: identifies the .params file (params_source_identify),
 * maps the cache with params_map_read, and when that fails for any reason
 * but memory, reads params_path with params_read(flags: 0 for the full
 * check, PARAMS_NO_SUBGROUP_CHECK), writes the cache anew and maps it.
 * Returns 0 with *ret (free with params_free) and *info filled (info may be
 * NULL), or -errno with err set, *ret untouched and *info telling how far
 * it got: the .params file's errors (params_read), or the cache's when it
 * cannot be written (e.g. -EACCES, -EROFS, -ENOTDIR for an unwritable
 * folder: no fallback to the heap form, which would measure something
 * else).
 */
int params_map_open(groth16_params_t **ret, const char *map_path, const char *params_path,
                    unsigned flags, unsigned threads, params_map_info_t *info, params_error_t *err);

#endif
