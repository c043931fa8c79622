/* Missing cells of a run's CSV; see run_csv_missing.h and run_csv.h. */
#include "harness/run/run_csv_missing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether column j's empty cells are missing values (not absent, not text,
 * not a column that may be empty). */
static bool sparse_col(const run_csv_t *c, size_t j)
{
    return !c->is_text[j] && !c->absent[j] && c->n_empty[j] > 0;
}

void run_csv_drop_missing(run_csv_t *c)
{
    bool any = false;
    for (size_t j = 0; j < c->ncols && !any; j++)
        any = sparse_col(c, j);
    if (!any)
        return;
    size_t out = 0;
    for (size_t i = 0; i < c->nrows; i++) {
        const double *row = &c->num[i * c->ncols];
        bool missing = false;
        for (size_t j = 0; j < c->ncols && !missing; j++)
            missing = sparse_col(c, j) && isnan(row[j]);
        if (missing) {
            c->rows_missing++;
            for (size_t j = 0; c->text && j < c->ncols; j++)
                free(c->text[i * c->ncols + j]);
            continue;
        }
        if (out != i) {
            memmove(&c->num[out * c->ncols], row, c->ncols * sizeof *c->num);
            if (c->text)
                memmove(&c->text[out * c->ncols], &c->text[i * c->ncols], c->ncols * sizeof *c->text);
        }
        out++;
    }
    c->nrows = out;
}

size_t run_csv_missing_text(const run_csv_t *c, char *buf, size_t cap)
{
    if (cap == 0)
        return 0;
    buf[0] = '\0';
    if (c->rows_missing == 0 && c->cols_missing == 0)
        return 0;
    const char *name = strrchr(c->path, '/');
    name = name ? name + 1 : c->path;
    size_t n = 0;
#define PUT(...)                                                                                                       \
    do {                                                                                                               \
        int k_ = snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__);                                               \
        if (k_ > 0)                                                                                                    \
            n += (size_t)k_;                                                                                           \
    } while (0)
    PUT("%s: empty cells (failed reads, not zeros):", name);
    int listed = 0;
    for (size_t j = 0; j < c->ncols; j++) {
        if (c->is_text[j] || c->n_empty[j] == 0 || c->n_empty[j] >= c->rows_in_file)
            continue;
        PUT("%s %s %zu of %zu rows%s", listed++ ? "," : "", c->names[j], c->n_empty[j], c->rows_in_file,
            c->absent[j] ? " (most: the column is left out)" : "");
    }
    if (c->rows_missing)
        PUT("; %zu row%s left out of the analysis", c->rows_missing, c->rows_missing == 1 ? "" : "s");
#undef PUT
    return n < cap ? n : cap - 1;
}
