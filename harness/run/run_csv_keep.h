/*
 * The rows a run_csv read keeps (run_csv.c): a pool of slots and, with
 * max_rows, the bounded selection made as the rows come (head, tail ring,
 * middle buckets; the top of run_csv.c says how). Private to run_csv.c.
 */
#ifndef ZKB_RUN_CSV_KEEP_H
#define ZKB_RUN_CSV_KEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CSV_KEEP_NSYS 16    /* systematic rows per bucket */
#define CSV_KEEP_MAX_EXT 8  /* extreme columns */
#define CSV_KEEP_NROLES (CSV_KEEP_NSYS + 2 * CSV_KEEP_MAX_EXT)
#define CSV_KEEP_NONE UINT32_MAX

typedef struct {
    uint32_t role[CSV_KEEP_NROLES]; /* slots: NSYS systematic, then min/max per extreme column */
} csv_keep_bucket_t;

typedef struct {
    size_t ncols;
    bool has_text;
    /* the pool */
    double *num;    /* cap x ncols */
    char **text;    /* cap x ncols, when has_text */
    size_t *index;  /* the slot's row number in the file */
    uint32_t *refs; /* roles holding the slot */
    uint32_t *free_list;
    size_t cap, n_free, used;
    /* the selection (max_rows > 0) */
    bool reduce;
    size_t head_max, tail_max, budget;
    size_t cap_max; /* slots the selection can hold at once */
    uint32_t *head, *ring;
    size_t n_head, ring_start, n_ring;
    csv_keep_bucket_t *buckets;
    size_t n_buckets, cap_buckets, k; /* k: rows per bucket */
    size_t mid_slots;                 /* slots held by the buckets */
    int ext[CSV_KEEP_MAX_EXT];
    size_t n_ext;
} csv_keep_t;

/* A free slot of the pool into *ret (the pool grows as needed): 0 or -ENOMEM. */
int csv_keep_slot_new(csv_keep_t *K, uint32_t *ret);
/* Gives slot s back (its text freed). */
void csv_keep_slot_free(csv_keep_t *K, uint32_t s);

/* Keeps the row in slot s, row number idx of the file. */
int csv_keep_row(csv_keep_t *K, uint32_t s, size_t idx);

/* The slots kept, in file order, into *order (allocated); their count. */
int csv_keep_order(csv_keep_t *K, uint32_t **order, size_t *n);

/* Moves the rows of slots order[0..n) to slots 0..n in place (following
 * the permutation's cycles with one spare row), so the pool itself becomes
 * the readers' array: no second copy of the rows kept. */
void csv_keep_permute(csv_keep_t *K, const uint32_t *order, size_t n);

/* Frees the pool and the selection; K is zeroed. */
void csv_keep_free(csv_keep_t *K);

#endif
