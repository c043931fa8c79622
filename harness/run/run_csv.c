/*
 * CSV reader for run files: the whole file is read at once, split into
 * lines and fields (no quoting: run files hold numbers and plain words), and
 * checked against the header. See run_csv.h.
 */
#include "harness/run/run_csv.h"
#include "harness/run/errmsg.h"

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

static int read_all(char **ret, size_t *len, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return -ENOMEM;
    }
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        char *nb = realloc(buf, 2 * cap + 1);
        if (!nb) {
            free(buf);
            fclose(f);
            return -ENOMEM;
        }
        buf = nb;
        cap *= 2;
    }
    int rc = ferror(f) ? -EIO : 0;
    fclose(f);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *ret = buf;
    *len = n;
    return 0;
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

/* Parses one data row into row r; returns 0, or -EINVAL with err set. An
 * empty field of a column not in empty_ok is an error unless defer_empty,
 * where it is counted (c->n_empty) for the all-or-none check at the end. */
static int parse_row(run_csv_t *c, size_t r, char *line, size_t lineno, const char *const *empty_ok, bool defer_empty,
                     size_t *first_empty, char **fields, char *err, size_t errlen)
{
    size_t n = split(line, fields, c->ncols + 1);
    if (n == SIZE_MAX)
        return errmsg_fail(err, errlen, -EINVAL, "%s:%zu: a quoted field has no closing quote", c->path, lineno);
    if (n != c->ncols)
        return errmsg_fail(err, errlen, -EINVAL, "%s:%zu: %zu fields, the header has %zu", c->path, lineno, n, c->ncols);
    for (size_t j = 0; j < c->ncols; j++) {
        char *f = trim(fields[j]);
        double *dst = &c->num[r * c->ncols + j];
        if (c->is_text[j]) {
            *dst = NAN;
            if (!(c->text[r * c->ncols + j] = strdup(f)))
                return errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", c->path);
            continue;
        }
        if (*f == '\0') {
            if (!in_list(empty_ok, c->names[j])) {
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
            return errmsg_fail(err, errlen, -EINVAL, "%s:%zu: column %s is '%.40s', expected a number", c->path, lineno,
                        c->names[j], f);
        *dst = v;
    }
    return 0;
}

int run_csv_read(run_csv_t *ret, const char *path, const char *const *required, const char *const *text_cols,
                 const char *const *empty_ok, char *err, size_t errlen)
{
    run_csv_opts_t o = {.required = required, .text_cols = text_cols, .empty_ok = empty_ok};
    return run_csv_read_opts(ret, path, &o, err, errlen);
}

int run_csv_read_opts(run_csv_t *ret, const char *path, const run_csv_opts_t *o, char *err, size_t errlen)
{
    run_csv_t c = {0};
    char *buf = NULL, **fields = NULL;
    size_t *first_empty = NULL;
    size_t len = 0;
    int rc = read_all(&buf, &len, path);
    if (rc < 0)
        return errmsg_fail(err, errlen, rc, "cannot read %s: %s", path, strerror(-rc));
    if (!(c.path = strdup(path))) {
        rc = -ENOMEM;
        goto oom;
    }
    if (memchr(buf, '\0', len)) {
        /* A file cut by a crash can end in zero bytes: treat them as the end. */
        len = strlen(buf);
    }
    /* Header. */
    char *p = buf, *nl = strchr(p, '\n');
    if (len == 0 || !nl) {
        rc = errmsg_fail(err, errlen, -EINVAL, "%s: %s, expected a header line", path, len == 0 ? "empty file" : "no complete header line");
        goto done;
    }
    if ((size_t)(nl - p) > RUN_CSV_MAX_HEADER) {
        rc = errmsg_fail(err, errlen, -EINVAL, "%s:1: header line is %zu bytes, at most %u expected", path, (size_t)(nl - p),
                  RUN_CSV_MAX_HEADER);
        goto done;
    }
    *nl = '\0';
    size_t hn = 1;
    for (const char *q = p; *q; q++)
        hn += *q == ',';
    if (hn > RUN_CSV_MAX_COLS) {
        rc = errmsg_fail(err, errlen, -EINVAL, "%s:1: header has %zu columns, at most %d expected", path, hn,
                  RUN_CSV_MAX_COLS);
        goto done;
    }
    c.names = calloc(hn, sizeof *c.names);
    c.is_text = calloc(hn, sizeof *c.is_text);
    c.absent = calloc(hn, sizeof *c.absent);
    c.n_empty = calloc(hn, sizeof *c.n_empty);
    first_empty = calloc(hn, sizeof *first_empty);
    fields = calloc(hn + 1, sizeof *fields);
    if (!c.names || !c.is_text || !c.absent || !c.n_empty || !first_empty || !fields)
        goto oom;
    hn = split(p, fields, hn);
    if (hn == SIZE_MAX) {
        rc = errmsg_fail(err, errlen, -EINVAL, "%s:1: a quoted header name has no closing quote", path);
        goto done;
    }
    c.ncols = hn;
    for (size_t j = 0; j < hn; j++) {
        char *name = trim(fields[j]);
        if (*name == '\0') {
            rc = errmsg_fail(err, errlen, -EINVAL, "%s:1: header column %zu is empty", path, j + 1);
            goto done;
        }
        if (!(c.names[j] = strdup(name)))
            goto oom;
        c.is_text[j] = in_list(o->text_cols, name);
    }
    /* duplicates: sorted once, then neighbours compared (n log n) */
    memcpy(fields, c.names, hn * sizeof *fields);
    qsort(fields, hn, sizeof *fields, cmp_name);
    for (size_t j = 1; j < hn; j++)
        if (strcmp(fields[j - 1], fields[j]) == 0) {
            rc = errmsg_fail(err, errlen, -EINVAL, "%s:1: header names column '%s' twice", path, fields[j]);
            goto done;
        }
    for (const char *const *r = o->required; r && *r; r++)
        if (run_csv_col(&c, *r) < 0) {
            rc = errmsg_fail(err, errlen, -EINVAL, "%s:1: header lacks column '%s' (is this a zkbench run file?)", path, *r);
            goto done;
        }
    /* Rows: count lines first. */
    p = nl + 1;
    size_t lines = 0;
    for (char *q = p; *q; q++)
        if (*q == '\n')
            lines++;
    lines++; /* a last line without newline */
    c.num = malloc(lines * hn * sizeof *c.num);
    c.text = calloc(lines * hn, sizeof *c.text);
    if (!c.num || !c.text)
        goto oom;
    size_t lineno = 1;
    while (*p) {
        lineno++;
        nl = strchr(p, '\n');
        if (!nl) {
            /* The last line did not end with a newline: a writer was cut
             * off inside it, so even a row that parses may be short of its
             * last digits. Dropped, and said. */
            if (*trim(p) != '\0') {
                c.dropped_tail = true;
                c.tail_line = lineno;
            }
            break;
        }
        *nl = '\0';
        char *line = p;
        p = nl + 1;
        if (*trim(line) == '\0')
            continue; /* blank line */
        if (c.nrows == 0)
            c.first_line = lineno;
        char tmp_err[256];
        rc = parse_row(&c, c.nrows, line, lineno, o->empty_ok, o->empty_cols_absent, first_empty, fields, tmp_err,
                       sizeof tmp_err);
        if (rc < 0) {
            /* counted, so that run_csv_free frees the text fields the row
             * had before its error (the rows' text slots start NULL) */
            c.nrows++;
            snprintf(err, errlen, "%s", tmp_err);
            goto done;
        }
        c.nrows++;
    }
    /* A column a writer cannot fill is empty in every row: absent. Empty in
     * some rows only, it is damage. */
    for (size_t j = 0; o->empty_cols_absent && j < hn; j++) {
        if (c.n_empty[j] == 0)
            continue;
        if (c.n_empty[j] < c.nrows) {
            rc = errmsg_fail(err, errlen, -EINVAL, "%s:%zu: column %s is empty, expected a number (other rows have one)",
                      path, first_empty[j], c.names[j]);
            goto done;
        }
        c.absent[j] = true;
    }
    for (const char *const *r = o->required; r && *r; r++) {
        int j;
        for (j = 0; j < (int)hn && strcmp(c.names[j], *r) != 0; j++)
            ;
        if (j < (int)hn && c.absent[j]) {
            rc = errmsg_fail(err, errlen, -EINVAL, "%s:%zu: column %s is empty, expected a number", path, c.first_line,
                      *r);
            goto done;
        }
    }
    if (c.dropped_tail && warn_sink) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s:%zu: the last line has no newline (an interrupted write): dropped", path,
                 c.tail_line);
        warn_sink(msg);
    }
    rc = 0;
    *ret = c;
    free(buf);
    free(fields);
    free(first_empty);
    return 0;
oom:
    rc = errmsg_fail(err, errlen, -ENOMEM, "%s: out of memory", path);
done:
    free(buf);
    free(fields);
    free(first_empty);
    run_csv_free(&c);
    return rc;
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
    if (col < 0 || row >= c->nrows)
        return NAN;
    return c->num[row * c->ncols + (size_t)col];
}

const char *run_csv_text(const run_csv_t *c, size_t row, int col)
{
    if (col < 0 || row >= c->nrows || !c->text[row * c->ncols + (size_t)col])
        return "";
    return c->text[row * c->ncols + (size_t)col];
}
