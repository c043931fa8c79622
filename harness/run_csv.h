/*
 * Reading the CSV files of a run (samples.csv, buffers.csv, stages.csv,
 * proofs.csv) robustly: columns found by header name, numbers checked, and
 * the trailing partial row a killed run leaves behind tolerated.
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
    size_t nrows;
    double *num;       /* nrows x ncols, row-major; NAN for an empty field or a text column */
    char **text;       /* nrows x ncols; non-NULL only for text columns */
    bool dropped_tail; /* a trailing partial row (no newline, malformed) was ignored */
    size_t tail_line;  /* its line number when dropped_tail */
} run_csv_t;

/*
 * Reads path into *ret. required: NULL-terminated names that must be in the
 * header; text_cols: NULL-terminated names kept as text (others must parse
 * as finite numbers); empty_ok: NULL-terminated names that may be empty (NAN).
 * Either list may be NULL. A last line without a newline that is short or
 * malformed is a killed writer's partial row: it is ignored and recorded in
 * dropped_tail. Any other short, long or non-numeric row is an error.
 * Returns 0, or a negative errno with one line in err ("FILE:LINE: ...").
 * *ret is owned by the caller: run_csv_free.
 */
int run_csv_read(run_csv_t *ret, const char *path, const char *const *required, const char *const *text_cols,
                 const char *const *empty_ok, char *err, size_t errlen);
/* Frees what run_csv_read allocated; accepts NULL and a zeroed struct. */
void run_csv_free(run_csv_t *csv);
/* Column index of name, or -1. */
int run_csv_col(const run_csv_t *csv, const char *name);
/* Number at (row, col); NAN when col < 0 or the field is empty or text. */
double run_csv_num(const run_csv_t *csv, size_t row, int col);
/* Text at (row, col); "" when col < 0 or the column is numeric. */
const char *run_csv_text(const run_csv_t *csv, size_t row, int col);

#endif
