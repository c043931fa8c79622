/*
 * CSV reader for run files, as a stream: a chunk at a time, split into
 * lines and fields (RFC 4180 quotes for names that hold commas), checked
 * against the header, every row kept or, with max_rows, a bounded
 * selection of them (run_csv.h). The selection is made as the rows come:
 *
 *   head   the first rows, every one (the baseline before any work);
 *   tail   the last rows, every one, in a ring (the drain after the work);
 *   middle what leaves the ring goes into buckets of bucket_rows
 *          consecutive rows; a bucket keeps its rows at NSYS equal steps
 *          (a systematic sample) and, for each extreme column, the row of
 *          its lowest and of its highest value. When the buckets hold more
 *          rows than the budget, neighbours are merged two by two (the
 *          bucket doubles; each merged role keeps the better of its two
 *          rows), so the rows kept stay within the budget for any length.
 *
 * A row is in a slot of one pool; a slot is freed once no role holds it
 * (run_csv_keep.c keeps the rows; this file reads and checks them).
 */
#include "harness/run/run_csv.h"
#include "harness/run/run_csv_missing.h"
#include "harness/run/errmsg.h"
#include "harness/run/run_csv_keep.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds on a header: far above any run file (samples.csv has under a
 * hundred columns), low enough that a damaged file is refused at once. */
#define RUN_CSV_MAX_COLS 4096
#define RUN_CSV_MAX_HEADER (1u << 20) /* bytes */
/* A data line past this is damage (a sites.csv stack is far shorter). */
#define RUN_CSV_MAX_LINE (16u << 20)
#define READ_CHUNK (1u << 20)


static bool in_list(const char *const *list, const char *name)
{
    for (; list && *list; list++)
        if (strcmp(*list, name) == 0)
            return true;
    return false;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- lines ---------------------------------------------------------------- */

typedef struct {
    FILE *f;
    char *buf;
    size_t cap, start, end; /* unread bytes: buf[start..end) */
    bool eof;               /* nothing more to read (the end, or a zero byte) */
} reader_t;

/* The next line, NUL-terminated and without its newline, in *line (valid
 * until the next call); *nl: it ended with a newline (else it is the last,
 * cut off). 1, 0 at the end, -EIO, -E2BIG (longer than max). */
static int reader_line(reader_t *r, char **line, size_t *len, bool *nl, size_t max)
{
    for (;;) {
        char *p = r->start < r->end ? memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
        if (p) {
            if ((size_t)(p - (r->buf + r->start)) > max)
                return -E2BIG;
            *p = '\0';
            *line = r->buf + r->start;
            *len = (size_t)(p - *line);
            *nl = true;
            r->start = (size_t)(p - r->buf) + 1;
            return 1;
        }
        if (r->end - r->start > max)
            return -E2BIG;
        if (r->eof) {
            if (r->start == r->end)
                return 0;
            r->buf[r->end] = '\0';
            *line = r->buf + r->start;
            *len = r->end - r->start;
            *nl = false;
            r->start = r->end;
            return 1;
        }
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->cap - r->end < READ_CHUNK / 2) {
            size_t cap = r->cap * 2;
            char *b = realloc(r->buf, cap + 1);
            if (!b)
                return -ENOMEM;
            r->buf = b;
            r->cap = cap;
        }
        size_t got = fread(r->buf + r->end, 1, r->cap - r->end, r->f);
        if (got == 0) {
            if (ferror(r->f))
                return -EIO;
            r->eof = true;
            continue;
        }
        /* a file cut by a crash can end in zero bytes: they are its end */
        char *z = memchr(r->buf + r->end, '\0', got);
        if (z) {
            got = (size_t)(z - (r->buf + r->end));
            r->eof = true;
        }
        r->end += got;
    }
}

/* Splits line (NUL-terminated, modified in place) at commas; returns the
 * field count, at most max (counting further fields without storing). A
 * field that starts with a double quote runs to the closing quote ("" is a
 * quote inside), as RFC 4180 writes names that hold commas (C++ functions);
 * an unterminated quote gives SIZE_MAX. */
static size_t split(char *line, char **fields, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        char *comma;
        if (*q == '"') {
            char *r = q + 1, *w = q;
            for (;;) {
                if (*r == '\0')
                    return SIZE_MAX;
                if (*r == '"') {
                    if (r[1] != '"')
                        break;
                    r++;
                }
                *w++ = *r++;
            }
            r++; /* the closing quote */
            while (*r == ' ' || *r == '\t' || *r == '\r')
                r++;
            if (*r != ',' && *r != '\0')
                return SIZE_MAX;
            *w = '\0';
            comma = *r == ',' ? r : NULL;
            p = q;
        } else {
            comma = strchr(p, ',');
        }
        if (comma)
            *comma = '\0';
        if (n < max)
            fields[n] = p;
        n++;
        if (!comma)
            return n;
        p = comma + 1;
    }
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static void (*warn_sink)(const char *msg);

void run_csv_set_warn(void (*fn)(const char *msg))
{
    warn_sink = fn;
}

/* ---- reading ---------------------------------------------------------------- */

/* Parses one data row into slot s; returns 0, or -EINVAL with err set. An
 * empty field of a column not in empty_ok is an error unless defer_empty,
 * where it is counted (c->n_empty) for the all-or-none check at the end. */
static int parse_row(run_csv_t *c, csv_keep_t *K, uint32_t s, char *line, size_t lineno, const bool *empty_ok,
                     bool defer_empty, size_t *first_empty, char **fields, char *err, size_t errlen)
{
    size_t n = split(line, fields, c->ncols + 1);
    if (n == SIZE_MAX)
        return errmsg_fail(err, errlen, -EINVAL, "%s:%zu: a quoted field has no closing quote", c->path, lineno);
    if (n != c->ncols)
        return errmsg_fail(err, errlen, -EINVAL, "%s:%zu: %zu fields, the header has %zu", c->path, lineno, n,
                           c->ncols);
    double *row = &K->num[(size_t)s * c->ncols];
    for (size_t j = 0; j < c->ncols; j++) {
        char *f = trim(fields[j]);
        double *dst = &row[j];
        if (c->is_text[j]) {
            *dst = NAN;
            if (!(K->text[(size_t)s * c->ncols + j] = strdup(f)))
                return errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", c->path);
            continue;
        }
        if (*f == '\0') {
            if (!empty_ok[j]) {
                if (!defer_empty)
                    return errmsg_fail(err, errlen, -EINVAL, "%s:%zu: column %s is empty, expected a number", c->path,
                                       lineno, c->names[j]);
                if (c->n_empty[j]++ == 0)
                    first_empty[j] = lineno;
            }
            *dst = NAN;
            continue;
        }
        char *end;
        errno = 0;
        double v = strtod(f, &end);
        if (*end || errno == ERANGE || !isfinite(v))
            return errmsg_fail(err, errlen, -EINVAL, "%s:%zu: column %s is '%.40s', expected a number", c->path,
                               lineno, c->names[j], f);
        *dst = v;
        c->col_sum[j] += v;
        c->col_min[j] = isnan(c->col_min[j]) || v < c->col_min[j] ? v : c->col_min[j];
        c->col_max[j] = isnan(c->col_max[j]) || v > c->col_max[j] ? v : c->col_max[j];
    }
    return 0;
}

int run_csv_read(run_csv_t *ret, const char *path, const char *const *required, const char *const *text_cols,
                 const char *const *empty_ok, char *err, size_t errlen)
{
    run_csv_opts_t o = {.required = required, .text_cols = text_cols, .empty_ok = empty_ok};
    return run_csv_read_opts(ret, path, &o, err, errlen);
}

/* The header line into c (names, kinds, checks). */
static int read_header(run_csv_t *c, const run_csv_opts_t *o, char *line, char ***fields, size_t **first_empty,
                       char *err, size_t errlen)
{
    const char *path = c->path;
    size_t hn = 1;
    for (const char *q = line; *q; q++)
        hn += *q == ',';
    if (hn > RUN_CSV_MAX_COLS)
        return errmsg_fail(err, errlen, -EINVAL, "%s:1: header has %zu columns, at most %d expected", path, hn,
                           RUN_CSV_MAX_COLS);
    c->names = calloc(hn, sizeof *c->names);
    c->is_text = calloc(hn, sizeof *c->is_text);
    c->absent = calloc(hn, sizeof *c->absent);
    c->n_empty = calloc(hn, sizeof *c->n_empty);
    c->col_min = malloc(hn * sizeof *c->col_min);
    c->col_max = malloc(hn * sizeof *c->col_max);
    c->col_sum = calloc(hn, sizeof *c->col_sum);
    *first_empty = calloc(hn, sizeof **first_empty);
    *fields = calloc(hn + 1, sizeof **fields);
    if (!c->names || !c->is_text || !c->absent || !c->n_empty || !c->col_min || !c->col_max || !c->col_sum ||
        !*first_empty || !*fields)
        return errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
    for (size_t j = 0; j < hn; j++)
        c->col_min[j] = c->col_max[j] = NAN;
    hn = split(line, *fields, hn);
    if (hn == SIZE_MAX)
        return errmsg_fail(err, errlen, -EINVAL, "%s:1: a quoted header name has no closing quote", path);
    c->ncols = hn;
    for (size_t j = 0; j < hn; j++) {
        char *name = trim((*fields)[j]);
        if (*name == '\0')
            return errmsg_fail(err, errlen, -EINVAL, "%s:1: header column %zu is empty", path, j + 1);
        if (!(c->names[j] = strdup(name)))
            return errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
        c->is_text[j] = in_list(o->text_cols, name);
    }
    /* duplicates: sorted once, then neighbours compared (n log n) */
    memcpy(*fields, c->names, hn * sizeof **fields);
    qsort(*fields, hn, sizeof **fields, cmp_name);
    for (size_t j = 1; j < hn; j++)
        if (strcmp((*fields)[j - 1], (*fields)[j]) == 0)
            return errmsg_fail(err, errlen, -EINVAL, "%s:1: header names column '%s' twice", path, (*fields)[j]);
    for (const char *const *r = o->required; r && *r; r++)
        if (run_csv_col(c, *r) < 0)
            return errmsg_fail(err, errlen, -EINVAL, "%s:1: header lacks column '%s' (is this a zkbench run file?)",
                               path, *r);
    return 0;
}

/* The selection's shape for max_rows (see the top of the file). */
static int keep_init(csv_keep_t *K, const run_csv_t *c, const run_csv_opts_t *o)
{
    K->ncols = c->ncols;
    for (size_t j = 0; j < c->ncols; j++)
        K->has_text = K->has_text || c->is_text[j];
    if (o->max_rows == 0)
        return 0;
    K->reduce = true;
    size_t m = o->max_rows < 64 ? 64 : o->max_rows;
    K->head_max = K->tail_max = m / 8 < 4096 ? m / 8 : 4096;
    K->budget = m - K->head_max - K->tail_max;
    /* the middle passes its budget by at most one bucket's roles before
     * merging, and a row is read before the ring lets one go */
    K->cap_max = m + CSV_KEEP_NROLES + 2;
    K->k = 1;
    for (const char *const *e = o->extreme_cols; e && *e && K->n_ext < CSV_KEEP_MAX_EXT; e++) {
        int col = run_csv_col(c, *e);
        if (col >= 0 && !c->is_text[col])
            K->ext[K->n_ext++] = col;
    }
    K->head = malloc(K->head_max * sizeof *K->head);
    K->ring = malloc(K->tail_max * sizeof *K->ring);
    return K->head && K->ring ? 0 : -ENOMEM;
}

int run_csv_read_opts(run_csv_t *ret, const char *path, const run_csv_opts_t *o, char *err, size_t errlen)
{
    run_csv_t c = {0};
    csv_keep_t K = {0};
    reader_t rd = {0};
    char **fields = NULL;
    size_t *first_empty = NULL;
    uint32_t *order = NULL;
    bool *empty_ok = NULL; /* per column: o->empty_ok names it */
    int rc;
    if (!(c.path = strdup(path)))
        return errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
    if (!(rd.f = fopen(path, "rb"))) {
        rc = -errno;
        errmsg_fail(err, errlen, rc, "cannot read %s: %s", path, strerror(-rc));
        goto done;
    }
    rd.cap = READ_CHUNK;
    if (!(rd.buf = malloc(rd.cap + 1))) {
        rc = errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
        goto done;
    }
    /* Header. */
    char *line;
    size_t len;
    bool nl;
    rc = reader_line(&rd, &line, &len, &nl, RUN_CSV_MAX_HEADER);
    if (rc == -E2BIG) {
        rc = errmsg_fail(err, errlen, -EINVAL, "%s:1: header line is over %u bytes, at most that expected", path,
                         RUN_CSV_MAX_HEADER);
        goto done;
    }
    if (rc < 0) {
        errmsg_fail(err, errlen, rc, "cannot read %s: %s", path, strerror(-rc));
        goto done;
    }
    if (rc == 0 || !nl) {
        rc = errmsg_fail(err, errlen, -EINVAL, "%s: %s, expected a header line", path,
                         rc == 0 ? "empty file" : "no complete header line");
        goto done;
    }
    if ((rc = read_header(&c, o, line, &fields, &first_empty, err, errlen)) < 0 || (rc = keep_init(&K, &c, o)) < 0) {
        if (rc == -ENOMEM)
            errmsg_fail(err, errlen, rc, "%s: out of memory", path);
        goto done;
    }
    /* Rows, one at a time. */
    if (!(empty_ok = calloc(c.ncols + 1, sizeof *empty_ok))) {
        rc = errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t j = 0; j < c.ncols; j++)
        empty_ok[j] = in_list(o->empty_ok, c.names[j]);
    size_t lineno = 1;
    for (;;) {
        rc = reader_line(&rd, &line, &len, &nl, RUN_CSV_MAX_LINE);
        if (rc == 0)
            break;
        lineno++;
        if (rc == -E2BIG) {
            rc = errmsg_fail(err, errlen, -EINVAL, "%s:%zu: a line of over %u bytes, expected a row", path, lineno,
                             RUN_CSV_MAX_LINE);
            goto done;
        }
        if (rc < 0) {
            errmsg_fail(err, errlen, rc, "cannot read %s: %s", path, strerror(-rc));
            goto done;
        }
        if (!nl) {
            /* The last line did not end with a newline: a writer was cut
             * off inside it, so even a row that parses may be short of its
             * last digits. Dropped, and said. */
            if (*trim(line) != '\0') {
                c.dropped_tail = true;
                c.tail_line = lineno;
            }
            break;
        }
        if (*trim(line) == '\0')
            continue; /* blank line */
        if (c.rows_in_file == 0)
            c.first_line = lineno;
        uint32_t s;
        if ((rc = csv_keep_slot_new(&K, &s)) < 0) {
            errmsg_fail(err, errlen, rc, "%s: out of memory", path);
            goto done;
        }
        rc = parse_row(&c, &K, s, line, lineno, empty_ok, o->empty_cols_absent, first_empty, fields, err, errlen);
        if (rc == 0 && o->check_row)
            rc = o->check_row(o->check_ctx, &c, &K.num[(size_t)s * c.ncols], c.rows_in_file, lineno, err, errlen);
        if (rc < 0) {
            csv_keep_slot_free(&K, s);
            goto done;
        }
        if ((rc = csv_keep_row(&K, s, c.rows_in_file)) < 0) {
            errmsg_fail(err, errlen, rc, "%s: out of memory", path);
            goto done;
        }
        c.rows_in_file++;
    }
    /* A column a writer cannot fill is empty in every row: absent. Empty in
     * some rows only, it is damage. */
    for (size_t j = 0; o->empty_cols_absent && j < c.ncols; j++) {
        if (c.n_empty[j] == 0)
            continue;
        if (c.n_empty[j] < c.rows_in_file && o->sparse_ok) {
            /* a failed read: the rows go, or the column when most are gone */
            if (c.n_empty[j] * 2 > c.rows_in_file) {
                c.absent[j] = true;
                c.cols_missing++;
            }
            continue;
        }
        if (c.n_empty[j] < c.rows_in_file) {
            rc = errmsg_fail(err, errlen, -EINVAL,
                             "%s:%zu: column %s is empty, expected a number (other rows have one)", path,
                             first_empty[j], c.names[j]);
            goto done;
        }
        c.absent[j] = true;
    }
    for (const char *const *r = o->required; r && *r; r++) {
        int j;
        for (j = 0; j < (int)c.ncols && strcmp(c.names[j], *r) != 0; j++)
            ;
        if (j < (int)c.ncols && c.absent[j]) {
            rc = errmsg_fail(err, errlen, -EINVAL, "%s:%zu: column %s is empty, expected a number", path,
                             c.first_line, *r);
            goto done;
        }
    }
    /* The rows kept, in file order, into the arrays the readers see; every
     * row kept is in its own slot already, in order: the pool is handed on */
    size_t n;
    if (!K.reduce) {
        n = K.used;
        c.num = K.num ? K.num : malloc(sizeof *c.num);
        c.text = K.text;
        K.num = NULL;
        K.text = NULL;
        K.used = 0;
        if (!c.num) {
            rc = errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
            goto done;
        }
    } else {
        if ((rc = csv_keep_order(&K, &order, &n)) < 0) {
            rc = errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
            goto done;
        }
        csv_keep_permute(&K, order, n);
        c.num = realloc(K.num, (n + 1) * c.ncols * sizeof *c.num);
        if (!c.num)
            c.num = K.num;
        K.num = NULL;
        if (K.has_text) {
            /* the rows not kept hold no text any more (their slots were
             * freed); rows n.. are slots of rows not kept */
            for (size_t i = n * c.ncols; i < K.used * c.ncols; i++)
                free(K.text[i]);
            c.text = realloc(K.text, (n + 1) * c.ncols * sizeof *c.text);
            if (!c.text)
                c.text = K.text;
            K.text = NULL;
        }
        K.used = 0;
    }
    c.nrows = n;
    c.reduced = n < c.rows_in_file;
    c.bucket_rows = K.reduce ? K.k : 1;
    if (o->sparse_ok && o->empty_cols_absent)
        run_csv_drop_missing(&c);
    if (c.dropped_tail && warn_sink) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s:%zu: the last line has no newline (an interrupted write): dropped", path,
                 c.tail_line);
        warn_sink(msg);
    }
    rc = 0;
done:
    if (rd.f)
        fclose(rd.f);
    free(rd.buf);
    free(fields);
    free(first_empty);
    free(order);
    free(empty_ok);
    csv_keep_free(&K);
    if (rc < 0) {
        run_csv_free(&c);
        return rc;
    }
    *ret = c;
    return 0;
}

bool run_csv_absent(const run_csv_t *c, size_t col)
{
    return col >= c->ncols || (c->absent && c->absent[col]);
}

void run_csv_free(run_csv_t *c)
{
    if (!c)
        return;
    if (c->text) {
        for (size_t i = 0; i < c->nrows * c->ncols; i++)
            free(c->text[i]);
    }
    for (size_t j = 0; c->names && j < c->ncols; j++)
        free(c->names[j]);
    free(c->names);
    free(c->is_text);
    free(c->absent);
    free(c->n_empty);
    free(c->col_min);
    free(c->col_max);
    free(c->col_sum);
    free(c->num);
    free(c->text);
    free(c->path);
    memset(c, 0, sizeof *c);
}

int run_csv_col(const run_csv_t *c, const char *name)
{
    for (size_t j = 0; j < c->ncols; j++)
        if (c->names[j] && strcmp(c->names[j], name) == 0)
            return c->absent && c->absent[j] ? -1 : (int)j;
    return -1;
}

double run_csv_num(const run_csv_t *c, size_t row, int col)
{
    if (col < 0 || row >= c->nrows || (size_t)col >= c->ncols)
        return NAN;
    return c->num[row * c->ncols + (size_t)col];
}

const char *run_csv_text(const run_csv_t *c, size_t row, int col)
{
    if (col < 0 || row >= c->nrows || (size_t)col >= c->ncols || !c->text || !c->text[row * c->ncols + (size_t)col])
        return "";
    return c->text[row * c->ncols + (size_t)col];
}
