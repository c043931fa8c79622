/*
 * The proving key file: a key stored as the exact bytes of its in-memory
 * arrays (Montgomery-form g1_affine_t / g2_affine_t), so a process maps it
 * (PROT_READ, MAP_SHARED) instead of decoding a .params file into the heap.
 * Its pages are file-backed: they count as RssFile (or RssShmem on tmpfs),
 * are shared between processes mapping the same file, and are clean, so the
 * kernel may drop and re-read them, as it does a production prover's mapped
 * SRS. It is the one copy of a generated key on disk (the bellperson-layout
 * .params file is an export, zkbench setup --format bellperson); for a
 * .params file given to zkbench it is the derived layout the prover maps.
 * The format is in docs/params-cache.md.
 *
 * Every 1 MiB block of the payload has its XXH64 in a table after the
 * header, whose own hash is the payload's tree checksum (checksum.h). The
 * full check (every block) runs when the file is made and on demand
 * (params_map_verify, zkbench params verify); a start checks the header,
 * the size, the table and a sample of blocks (the first, the last and
 * PARAMS_MAP_SAMPLE others drawn afresh each time), so a 45 GiB key starts
 * in seconds. The checksums catch corruption, not tampering: the key folder
 * must be as trusted as the parameter files. Writers never modify a file in
 * place (temporary file, fsync, rename), so a process that has one mapped
 * keeps a consistent key.
 */
#ifndef ZKB_PARAMS_MAP_H
#define ZKB_PARAMS_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "prover/params.h"

#define PARAMS_MAP_VERSION 2
/* Blocks a start checks besides the first and the last. */
#define PARAMS_MAP_SAMPLE 64u
/* As params_map_read's sample: every block (the full check). */
#define PARAMS_MAP_SAMPLE_ALL 0xffffffffu

/* How a prover process holds its parameters (zkbench --params-load). */
enum params_load {
    PARAMS_LOAD_MMAP, /* map the key file (the default) */
    PARAMS_LOAD_HEAP, /* copy it into tracked heap buffers */
};

/* "mmap" / "heap" to the mode: 0, or -EINVAL for anything else. */
int params_load_parse(enum params_load *ret, const char *s);
/* "mmap" / "heap"; NULL for an unknown value. */
const char *params_load_name(enum params_load load);

/* The identity of a .params file, cheap to take: its size, modification
 * time (ns) and the XXH64 of 64 evenly spread 64 KiB samples. */
typedef struct {
    uint64_t bytes, mtime_ns, sample;
} params_source_t;

/* Where a key file came from; its header records it. */
enum params_origin_kind {
    PARAMS_ORIGIN_NONE,  /* unknown (params_map_write without an origin) */
    PARAMS_ORIGIN_SETUP, /* zkbench's seeded setup of the circuit spec */
    PARAMS_ORIGIN_FILE,  /* derived from the .params file source */
};
typedef struct {
    int kind;               /* enum params_origin_kind */
    char spec[256];         /* SETUP: the circuit's canonical spec */
    uint64_t seed;          /* SETUP: the toxic-waste seed */
    params_source_t source; /* FILE */
} params_origin_t;

/* The identity of the file at path. -errno with err set when it cannot be
 * opened or read. */
int params_source_identify(params_source_t *ret, const char *path, params_error_t *err);

/* Whether the file at path starts like a key file (its magic). */
bool params_map_is_key_file(const char *path);

/* What a read or a verification checked and how long it took. */
typedef struct {
    uint64_t blocks;         /* the payload's blocks */
    uint64_t blocks_checked; /* of them, hashed and compared */
    uint64_t payload_bytes;
    double check_s;          /* header, table and blocks */
    double populate_s;       /* the mapping's pages faulted in */
    params_origin_t origin;  /* as the header records it */
} params_map_stats_t;

/*
 * Maps the key file at path. Checks the header, the size, the block table
 * and `sample` blocks besides the first and last (PARAMS_MAP_SAMPLE_ALL:
 * every one), then (expect not NULL) that the file's origin is expect,
 * then faults the whole mapping in on `threads` threads (0: all cores), so
 * the key is resident from the start. *ret: the mapped form, free with
 * params_free (which unmaps); stats (may be NULL) filled. Errors, err set,
 * *ret untouched:
 *   -ENOENT, -EACCES, ...   the file cannot be opened or mapped
 *   -EINVAL                 not a valid key file for this build: magic,
 *                           version, layout (struct sizes, limbs, byte order,
 *                           Montgomery R), header checksum, offsets, or a
 *                           size other than the header says
 *   -ESTALE                 a valid key of another origin
 *   -EBADMSG                a block or the table does not match its checksum
 *   -ENOMEM
 */
int params_map_read(groth16_params_t **ret, const char *path, const params_origin_t *expect, unsigned sample,
                    unsigned threads, params_map_stats_t *stats, params_error_t *err);

/* The full check of the key file at path, without keeping it mapped: as
 * params_map_read with every block and no origin. 0, or its errors. */
int params_map_verify(const char *path, unsigned threads, params_map_stats_t *stats, params_error_t *err);

/*
 * A new key file at path, written in place of its arrays: *ret is a key
 * whose arrays (counts: ic, h, l, a, b_g1, b_g2) point into a writable
 * mapping of a temporary file in path's folder, its blocks reserved on the
 * disk up front (a full disk is -ENOSPC here, not a fault later); the
 * caller writes every point, then params_map_commit or params_map_abort.
 * -errno with err set.
 */
typedef struct params_map_writer params_map_writer_t;
int params_map_create(groth16_params_t **ret, params_map_writer_t **w, const char *path, const size_t counts[6],
                      params_error_t *err);
/* Checksums every block (threads), writes the header with origin, syncs
 * and renames the file over path, and its folder; p becomes read-only (the
 * mapped form, as params_map_read gives). w is freed whatever the result;
 * on failure the temporary file is removed and p freed. */
int params_map_commit(params_map_writer_t *w, groth16_params_t *p, const params_origin_t *origin, unsigned threads,
                      params_error_t *err);
/* Removes the temporary file and frees w and p. */
void params_map_abort(params_map_writer_t *w, groth16_params_t *p);

/* Writes params (either form) as a key file at path, with origin (NULL:
 * none), atomically as params_map_commit. -errno (e.g. -EACCES, -ENOSPC)
 * with err set; nothing is left behind on failure. */
int params_map_write(const char *path, const groth16_params_t *params, const params_origin_t *origin,
                     unsigned threads, params_error_t *err);

/* A key in the heap form (tracked MEM_KIND_PARAMS buffers) with the same
 * points as p (either form). -ENOMEM. */
int params_map_to_heap(groth16_params_t **ret, const groth16_params_t *p);

/* What params_map_open did. */
typedef struct {
    bool rebuilt;           /* the key file was (re)written from the .params file */
    int reason;             /* why: params_map_read's error for the old one, 0 if none */
    char why[256];          /* the same in words (params_map_read's message) */
    params_source_t source; /* identity of the .params file */
    uint64_t mapped_bytes;  /* size of the mapping */
    double verify_s;        /* seconds spent mapping and checking it */
} params_map_info_t;

/*
 * The mapped key of the .params file at params_path, through its derived
 * key file at map_path: identifies the .params file, maps map_path with
 * params_map_read (origin: that file), and when that fails for any reason
 * but memory, reads params_path with params_read (flags: 0 for the full
 * check, PARAMS_NO_SUBGROUP_CHECK), writes the key file anew and maps it.
 * Returns 0 with *ret (free with params_free) and *info filled (info may
 * be NULL), or -errno with err set, *ret untouched: the .params file's
 * errors (params_read), or the key file's when it cannot be written (e.g.
 * -EACCES, -EROFS, -ENOTDIR for an unwritable folder: no fallback to the
 * heap form, which would measure something else).
 */
int params_map_open(groth16_params_t **ret, const char *map_path, const char *params_path, unsigned flags,
                    unsigned threads, params_map_info_t *info, params_error_t *err);

#endif
