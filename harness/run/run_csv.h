/*
 * Reading the CSV files of a run (samples.csv, buffers.csv, stages.csv,
 * proofs.csv, marks.csv, sites.csv) robustly: columns found by header name,
 * numbers checked, the torn last row a killed run leaves behind dropped and
 * said, and (on request) columns that a writer could not fill, empty in
 * every row, taken as absent.
 *
 * The file is read as a stream, a chunk at a time, so memory does not grow
 * with it except by the rows kept. A reader that asks for it (max_rows)
 * keeps at most about that many rows of a file of any length: the first
 * and the last rows as they are, and between them, per bucket of
 * consecutive rows, a systematic sample (16 rows at equal steps) and the
 * rows where each extreme column takes its lowest and its highest value,
 * so every peak and valley of those columns is among the rows kept. Every
 * row is still parsed and checked (check_row sees each), and per column
 * the exact minimum, maximum and sum over all of them are kept.
 */
#ifndef ZKB_RUN_CSV_H
#define ZKB_RUN_CSV_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *path;
    size_t ncols;
    char **names;      /* header names, ncols */
    bool *is_text;     /* per column: read as text (see text_cols) */
    size_t nrows;      /* rows kept (all of them unless reduced) */
    double *num;       /* nrows x ncols, row-major; NAN for an empty field or a text column */
    char **text;       /* nrows x ncols, NULL when no column is text; non-NULL cells only for text columns */
    bool *absent;      /* per column: empty in every row (empty_cols_absent): run_csv_col gives -1 */
    size_t *n_empty;   /* per column: rows with an empty field */
    /* sparse_ok: rows left out for a missing cell, and columns taken as
     * absent because most of their cells are missing (run_csv_opts_t) */
    size_t rows_missing;
    size_t cols_missing;
    size_t first_line; /* line number of the first data row (0: none) */
    bool dropped_tail; /* the last line had no newline (a torn write) and was dropped */
    size_t tail_line;  /* its line number when dropped_tail */
    /* Over every data row of the file, kept or not: */
    size_t rows_in_file;
    bool reduced;      /* fewer rows kept than the file has (max_rows) */
    size_t bucket_rows; /* rows per bucket of the reduced middle (1: none reduced) */
    double *col_min, *col_max, *col_sum; /* per numeric column over its non-empty fields; NAN: none */
} run_csv_t;

typedef struct {
    const char *const *required;  /* NULL-terminated names that must be in the header */
    const char *const *text_cols; /* NULL-terminated names kept as text */
    const char *const *empty_ok;  /* NULL-terminated names that may be empty in any row (NAN) */
    /* A numeric column empty in every row (a watch cannot fill the heap
     * columns) is absent: run_csv_col gives -1 for it. One empty in some
     * rows only is an error, as is a required column empty in every row. */
    bool empty_cols_absent;
    /* With empty_cols_absent: a numeric column empty in some rows only (a
     * failed read: the writers leave a cell empty rather than write 0) is
     * no error. Empty in at most half of the rows, those rows are left out
     * of the rows kept (rows_missing counts them; col_min/col_max/col_sum
     * still cover every value read); in more, the column is taken as absent
     * (cols_missing). Either way n_empty says how many, and the reader says
     * so (run_csv_missing_text). */
    bool sparse_ok;
    /* Keep at most about max_rows rows (0: all): see above. */
    size_t max_rows;
    /* NULL-terminated names whose lowest and highest rows every bucket
     * keeps when the rows are reduced (names not in the header are
     * ignored). At most 8. */
    const char *const *extreme_cols;
    /* Called with every data row as parsed (csv: the file so far, its
     * header read; row: ncols values, NAN where empty or text; index: its
     * number among the data rows, from 0; lineno: its line), before it is
     * kept or not: a negative return (an errno, one line in err) stops the
     * read with that error. */
    int (*check_row)(void *ctx, const run_csv_t *csv, const double *row, size_t index, size_t lineno, char *err,
                     size_t errlen);
    void *check_ctx;
} run_csv_opts_t;

/*
 * Reads path into *ret. required: NULL-terminated names that must be in the
 * header; text_cols: NULL-terminated names kept as text (others must parse
 * as finite numbers); empty_ok: NULL-terminated names that may be empty (NAN).
 * Either list may be NULL. A last line without a newline is a killed
 * writer's torn row, even when it parses: it is dropped, recorded in
 * dropped_tail and passed to the warning sink (run_csv_set_warn). Any other
 * short, long or non-numeric row is an error. Fields may be double-quoted
 * (RFC 4180) to hold commas. Zero bytes (a file cut by a crash) end it.
 * Returns 0, or a negative errno with one line in err ("FILE:LINE: ...").
 * *ret is owned by the caller: run_csv_free.
 */
int run_csv_read(run_csv_t *ret, const char *path, const char *const *required, const char *const *text_cols,
                 const char *const *empty_ok, char *err, size_t errlen);
/* The same with options (run_csv_opts_t); run_csv_read is this with
 * empty_cols_absent off and every row kept. */
int run_csv_read_opts(run_csv_t *ret, const char *path, const run_csv_opts_t *opts, char *err, size_t errlen);
/* Where the one-line warnings of every later read go (a dropped torn row,
 * "FILE:LINE: ..."); NULL (the default): nowhere. The commands that read
 * run files set it to print on stderr. */
void run_csv_set_warn(void (*fn)(const char *msg));
/* True when column col is not there: beyond the header, or empty in every
 * row under empty_cols_absent. */
bool run_csv_absent(const run_csv_t *csv, size_t col);
/* One line saying which cells were missing under sparse_ok ("samples.csv:
 * 12 of 5000 rows have an empty cell (gpu0_used 12), left out: a failed
 * read"), into buf; 0 when none were, else the length. */
size_t run_csv_missing_text(const run_csv_t *csv, char *buf, size_t cap);
/* Frees what run_csv_read allocated; accepts NULL and a zeroed struct. */
void run_csv_free(run_csv_t *csv);
/* Column index of name, or -1. */
int run_csv_col(const run_csv_t *csv, const char *name);
/* Number at (row, col); NAN when col < 0 or the field is empty or text. */
double run_csv_num(const run_csv_t *csv, size_t row, int col);
/* Text at (row, col); "" when col < 0 or the column is numeric. */
const char *run_csv_text(const run_csv_t *csv, size_t row, int col);

#endif
