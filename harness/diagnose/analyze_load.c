/*
 * A run's files: reading RUN_DIR's samples, buffers, stages and proofs CSVs
 * and run.json into an analyze_run_t, checked (batch runs strictly, watch
 * runs with what a watch can write), and writing the verdict back into
 * run.json. Sizes given as text ("755GiB") are parsed here too.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/diagnose/analyze.h"
#include "harness/diagnose/analyze_impl.h"
#include "harness/run/errmsg.h"
#include "harness/run/run_csv.h"

bool analyze_parse_size(uint64_t *ret, const char *text)
{
    char *end;
    errno = 0;
    if (!text || !((*text >= '0' && *text <= '9') || *text == '.'))
        return false;
    double v = strtod(text, &end);
    if (errno || !isfinite(v) || v < 0)
        return false;
    double mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1024.0; break;
        case 'm': case 'M': mul = MIB; break;
        case 'g': case 'G': mul = GIB; break;
        case 't': case 'T': mul = GIB * 1024.0; break;
        case 'b': case 'B': mul = 1; break;
        default: return false;
        }
        end++;
        if (mul > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "ib") == 0 || strcmp(end, "B") == 0 ||
                        strcmp(end, "b") == 0))
            end += strlen(end);
        if (*end)
            return false;
    } else if (v != floor(v)) {
        return false; /* fractional bytes */
    }
    v *= mul;
    if (v >= 18446744073709551615.0 || v < 1)
        return false;
    *ret = (uint64_t)llround(v);
    return true;
}

/* ---- loading ---- */

static int note(analyze_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int note(analyze_run_t *r, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return json_array_append_new(r->notes, json_string(buf));
}

void analyze_run_free(analyze_run_t *r)
{
    if (!r)
        return;
    run_csv_free(&r->samples);
    run_csv_free(&r->buffers);
    run_csv_free(&r->stages);
    run_csv_free(&r->proofs);
    run_csv_free(&r->marks);
    run_csv_free(&r->sites);
    json_decref(r->run_json);
    json_decref(r->notes);
    free(r->dir);
    free(r);
}

const json_t *analyze_run_json(const analyze_run_t *run)
{
    return run->run_json;
}

const run_csv_t *analyze_run_csv(const analyze_run_t *run, const char *name)
{
    if (strcmp(name, "samples.csv") == 0)
        return &run->samples;
    if (strcmp(name, "buffers.csv") == 0)
        return &run->buffers;
    if (strcmp(name, "stages.csv") == 0)
        return &run->stages;
    if (strcmp(name, "proofs.csv") == 0)
        return &run->proofs;
    if (strcmp(name, "marks.csv") == 0)
        return &run->marks;
    if (strcmp(name, "sites.csv") == 0)
        return &run->sites;
    return NULL;
}

bool analyze_run_is_watch(const analyze_run_t *run)
{
    return run->watch;
}

const char *analyze_run_dir(const analyze_run_t *run)
{
    return run->dir;
}

const json_t *analyze_run_notes(const analyze_run_t *run)
{
    return run->notes;
}

/* Reads RUN_DIR/name; optional: a missing file leaves csv empty (no
 * columns, no rows) with a note. */
static int load_csv(analyze_run_t *r, run_csv_t *csv, const char *name, const run_csv_opts_t *o, bool optional,
                    char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    if (optional && access(path, F_OK) < 0 && errno == ENOENT)
        return 0;
    int rc = run_csv_read_opts(csv, path, o, err, errlen);
    if (rc < 0)
        return rc;
    if (csv->dropped_tail)
        note(r, "%s: dropped the partial last row (line %zu, no newline at the end) of an interrupted write", name,
             csv->tail_line);
    char miss[1024];
    if (run_csv_missing_text(csv, miss, sizeof miss))
        note(r, "%s", miss);
    return 0;
}

/* Whether run.json and samples.csv describe a watch run: config.mode pid or
 * command, or (no batch config) no heap counters at all. */
static bool run_is_watch(const json_t *rj, const run_csv_t *s)
{
    const json_t *cfg = json_object_get(rj, "config");
    const char *mode = json_string_value(json_object_get(cfg, "mode"));
    if (mode && (strcmp(mode, "pid") == 0 || strcmp(mode, "command") == 0))
        return true;
    if (json_object_get(cfg, "pw"))
        return false;
    return run_csv_col(s, "je_allocated") < 0 && run_csv_col(s, "je_resident") < 0;
}

/* The largest plausible count (processes, proofs, partitions in a stage)
 * and value (bytes, milliseconds) in samples.csv; past them a file is
 * damaged. */
#define SAMPLE_COUNT_MAX ((double)(1 << 20))
/* samples.csv rows kept for the analysis: every row of a run of up to 22
 * minutes at batch's 10 ms ticks (3.6 hours at watch's 100 ms), a bounded
 * selection of a longer one (run_csv.h); about 64 MiB of rows at most */
#define ANALYZE_SAMPLES_MAX ((size_t)1 << 17)
#define SAMPLE_VALUE_MAX 1152921504606846976.0 /* 2^60 */

static bool sample_is_count(const char *name)
{
    size_t len = strlen(name);
    return strncmp(name, "n_", 2) == 0 || strncmp(name, "q_", 2) == 0 ||
           (len > 5 && strcmp(name + len - 5, "_done") == 0);
}

/* samples.csv's rows are checked as they are read (every row, also those
 * a long file does not keep): time must not go backwards and bytes must
 * not be negative or past the bounds above. */
struct sample_check {
    const char *dir;
    int tcol;
    double prev_t;
    bool *is_count; /* per column */
};

static int sample_check_row(void *ctx, const run_csv_t *s, const double *row, size_t index, size_t lineno,
                            char *err, size_t errlen)
{
    (void)lineno;
    struct sample_check *k = ctx;
    if (!k->is_count) { /* the header is known at the first row */
        if (!(k->is_count = calloc(s->ncols + 1, sizeof *k->is_count)))
            return errmsg_fail(err, errlen, -ENOMEM, "out of memory");
        for (size_t j = 0; j < s->ncols; j++)
            k->is_count[j] = sample_is_count(s->names[j]);
        k->tcol = run_csv_col(s, "t_ms");
    }
    double t = k->tcol >= 0 ? row[k->tcol] : NAN;
    if (index > 0 && t < k->prev_t)
        return errmsg_fail(err, errlen, -EINVAL,
                           "%s/samples.csv: row %zu: t_ms %.3f is before the previous row's %.3f, expected "
                           "increasing times", k->dir, index + 1, t, k->prev_t);
    k->prev_t = t;
    for (size_t j = 0; j < s->ncols; j++) {
        double v = row[j];
        if (v < 0)
            return errmsg_fail(err, errlen, -EINVAL, "%s/samples.csv: row %zu: %s is %.0f, expected a non-negative "
                               "value", k->dir, index + 1, s->names[j], v);
        /* bounds that keep every later conversion to an integer defined:
         * a count (n_*, q_*, *_done) past 2^20 or any value past 2^60
         * (bytes, ms) is damage, not a measurement */
        double lim = k->is_count[j] ? SAMPLE_COUNT_MAX : SAMPLE_VALUE_MAX;
        if (v > lim) /* NaN passes: an empty field */
            return errmsg_fail(err, errlen, -EINVAL, "%s/samples.csv: row %zu: %s is %g, expected at most %.0f",
                               k->dir, index + 1, s->names[j], v, lim);
    }
    return 0;
}

int analyze_run_load(analyze_run_t **ret, const char *dir, char *err, size_t errlen)
{
    struct stat st;
    if (stat(dir, &st) < 0) {
        snprintf(err, errlen, "%s: %s, expected a run directory (zkbench batch --out)", dir, strerror(errno));
        return -ENOENT;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is not a directory, expected a run directory (zkbench batch --out)", dir);
        return -ENOTDIR;
    }
    analyze_run_t *r = calloc(1, sizeof *r);
    if (!r || !(r->dir = strdup(dir)) || !(r->notes = json_array())) {
        analyze_run_free(r);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    static const char *const s_req[] = {"t_ms", "rss", "je_allocated", "je_resident", "gpu_used", "n_synth",
                                        "q_gpu", "n_gpu", "n_finish", "proofs_done", NULL};
    static const char *const s_req_watch[] = {"t_ms", "rss", NULL};
    static const char *const b_req[] = {"id", "kind", "device", "proof", "partition", "bytes",
                                        "t_alloc_ms", "t_free_ms", NULL};
    static const char *const b_text[] = {"kind", "device", "site", NULL};
    static const char *const b_empty[] = {"t_free_ms", "t_last_use_ms", NULL};
    static const char *const bw_req[] = {"id", "kind", "bytes", "t_alloc_ms", "t_free_ms", NULL};
    static const char *const bw_empty[] = {"t_free_ms", "t_last_use_ms", "proof", "partition", NULL};
    static const char *const st_req[] = {"proof", "partition", "stage", "worker", "t_start_ms", "t_end_ms", NULL};
    static const char *const st_text[] = {"stage", "worker", NULL};
    static const char *const st_empty[] = {"t_end_ms", NULL};
    static const char *const p_req[] = {"proof", "t_submit_ms", "t_start_ms", "t_done_ms", "wall_ms", "verified",
                                        NULL};
    static const char *const p_empty[] = {"t_start_ms", "t_done_ms", "wall_ms", "verified", NULL};
    static const char *const m_req[] = {"t_ms", NULL};
    static const char *const m_text[] = {"source", "name", NULL};
    static const char *const m_empty[] = {"pid", NULL};
    static const char *const si_req[] = {"site", NULL};
    static const char *const si_text[] = {"site", "function", "file", "module", "frames", NULL};
    static const char *const si_empty[] = {"line", "n_allocs", "bytes_total", "n_small", "bytes_small",
                                           "never_freed_bytes", NULL};
    int rc;
    /* samples.csv first, leniently: whether heap columns are filled decides
     * (with run.json) how the rest is read */
    /* in bounded memory: a run of weeks keeps ANALYZE_SAMPLES_MAX rows, its
     * peaks and valleys among them (run_csv.h) */
    static const char *const s_extremes[] = {"rss", "hwm", "je_allocated", "je_resident", "gpu_used",
                                             "cg_current", NULL};
    struct sample_check sck = {.dir = dir, .tcol = -1};
    const run_csv_opts_t so = {.required = s_req_watch, .empty_cols_absent = true, .sparse_ok = true,
                               .max_rows = ANALYZE_SAMPLES_MAX, .extreme_cols = s_extremes,
                               .check_row = sample_check_row, .check_ctx = &sck};
    rc = load_csv(r, &r->samples, "samples.csv", &so, false, err, errlen);
    free(sck.is_count);
    if (rc < 0)
        goto fail;
    if (r->samples.reduced)
        note(r, "samples.csv: %zu rows, %zu kept for the analysis: every row of the first and last %s, and per %zu "
                "rows 16 at equal steps with the lowest and highest of rss, hwm, je_allocated, je_resident, gpu_used "
                "and cg_current", r->samples.rows_in_file, r->samples.nrows, "4096", r->samples.bucket_rows);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/run.json", dir);
    json_error_t je;
    r->run_json = json_load_file(path, 0, &je);
    if (!r->run_json) {
        if (access(path, F_OK) < 0)
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        else
            snprintf(err, errlen, "%s:%d: %s, expected a JSON object", path, je.line, je.text);
        rc = -EINVAL;
        goto fail;
    }
    if (!json_is_object(r->run_json)) {
        snprintf(err, errlen, "%s: expected a JSON object at the top", path);
        rc = -EINVAL;
        goto fail;
    }
    const run_csv_t *s = &r->samples;
    r->watch = run_is_watch(r->run_json, s);
    if (!r->watch) {
        /* a batch fills every column: the strict rules of a batch run */
        for (const char *const *q = s_req; *q; q++) {
            bool in_header = false;
            for (size_t j = 0; j < s->ncols && !in_header; j++)
                in_header = strcmp(s->names[j], *q) == 0;
            if (!in_header) {
                snprintf(err, errlen, "%s/samples.csv:1: header lacks column '%s' (is this a zkbench run file?)",
                         dir, *q);
                rc = -EINVAL;
                goto fail;
            }
        }
        for (size_t j = 0; j < s->ncols; j++)
            if (run_csv_absent(s, j) && s->n_empty[j] >= s->rows_in_file) {
                /* empty throughout (mostly empty: failed reads, noted) */
                snprintf(err, errlen, "%s/samples.csv:%zu: column %s is empty, expected a number", dir,
                         s->first_line, s->names[j]);
                rc = -EINVAL;
                goto fail;
            }
        const run_csv_opts_t bo = {.required = b_req, .text_cols = b_text, .empty_ok = b_empty},
                             sto = {.required = st_req, .text_cols = st_text, .empty_ok = st_empty},
                             po = {.required = p_req, .empty_ok = p_empty};
        if ((rc = load_csv(r, &r->buffers, "buffers.csv", &bo, false, err, errlen)) < 0 ||
            (rc = load_csv(r, &r->stages, "stages.csv", &sto, false, err, errlen)) < 0 ||
            (rc = load_csv(r, &r->proofs, "proofs.csv", &po, false, err, errlen)) < 0)
            goto fail;
    } else {
        /* a watch writes what it can: buffers and sites with --trace, marks
         * with --mark or the API; kinds are site labels or user tags */
        const run_csv_opts_t bo = {.required = bw_req, .text_cols = b_text, .empty_ok = bw_empty},
                             mo = {.required = m_req, .text_cols = m_text, .empty_ok = m_empty},
                             sio = {.required = si_req, .text_cols = si_text, .empty_ok = si_empty};
        if ((rc = load_csv(r, &r->buffers, "buffers.csv", &bo, true, err, errlen)) < 0 ||
            (rc = load_csv(r, &r->marks, "marks.csv", &mo, true, err, errlen)) < 0 ||
            (rc = load_csv(r, &r->sites, "sites.csv", &sio, true, err, errlen)) < 0)
            goto fail;
        const run_csv_t *m = &r->marks;
        int mt = run_csv_col(m, "t_ms");
        for (size_t i = 0; i < m->nrows; i++)
            if (run_csv_num(m, i, mt) < 0) {
                snprintf(err, errlen, "%s/marks.csv: row %zu: t_ms is %.3f, expected a time since the run's start",
                         dir, i + 1, run_csv_num(m, i, mt));
                rc = -EINVAL;
                goto fail;
            }
    }
    const run_csv_t *b = &r->buffers;
    int bc = run_csv_col(b, "bytes");
    for (size_t i = 0; i < b->nrows; i++)
        if (!(run_csv_num(b, i, bc) >= 0 && run_csv_num(b, i, bc) <= SAMPLE_VALUE_MAX)) {
            snprintf(err, errlen, "%s/buffers.csv: row %zu: bytes is %g, expected an integer in 0..2^60", dir,
                     i + 1, run_csv_num(b, i, bc));
            rc = -EINVAL;
            goto fail;
        }
    /* proof and partition numbers (negative: untagged) are combined into
     * one index by the capacity model: past 2^31 and 2^20 a file is damaged */
    const run_csv_t *tagged[] = {&r->buffers, &r->stages};
    const char *tagged_name[] = {"buffers.csv", "stages.csv"};
    for (int f = 0; f < 2; f++)
        for (int which = 0; which < 2; which++) {
            const char *col = which ? "partition" : "proof";
            double lim = which ? SAMPLE_COUNT_MAX : 2147483648.0;
            int cc = run_csv_col(tagged[f], col);
            for (size_t i = 0; cc >= 0 && i < tagged[f]->nrows; i++)
                if (run_csv_num(tagged[f], i, cc) > lim) {
                    snprintf(err, errlen, "%s/%s: row %zu: %s is %g, expected at most %.0f", dir, tagged_name[f],
                             i + 1, col, run_csv_num(tagged[f], i, cc), lim);
                    rc = -EINVAL;
                    goto fail;
                }
        }
    *ret = r;
    return 0;
fail:
    analyze_run_free(r);
    return rc;
}

int analyze_write_verdict(const char *dir, const analyze_result_t *r, char *err, size_t errlen)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    snprintf(path, sizeof path, "%s/run.json", dir);
    snprintf(tmp, sizeof tmp, "%s/.run.json.XXXXXX", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je); /* fresh: the batch may have updated it */
    if (!json_is_object(root)) {
        json_decref(root);
        snprintf(err, errlen, "%s: cannot re-read it to add the verdict: %s", path, je.text);
        return -EINVAL;
    }
    static const char *const keys[] = {"verdict", "reason", "evidence", "checks", "peak_rss", "baseline_rss",
                                       "footprint_per_partition", "leak_bytes_per_proof", "leak_ci95",
                                       "s_per_proof", "pw", "largest_pw", "proofs_done", "drained",
                                       "headline", "growth", "never_freed_bytes", "run_kind"};
    json_t *v = json_object();
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        json_t *x = json_object_get(r->json, keys[k]);
        if (x)
            json_object_set(v, keys[k], x);
    }
    time_t now = time(NULL);
    struct tm tm;
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    json_object_set_new(v, "analyzed_at", json_string(when));
    json_object_set_new(v, "ram_bytes", jbytes(r->ram_bytes));
    json_object_set_new(v, "margin", jnum(r->margin));
    json_object_set_new(root, "verdict", v);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        json_decref(root);
        snprintf(err, errlen, "cannot write into %s: %s", dir, strerror(e));
        return -e;
    }
    int rc = json_dumpfd(root, fd, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (rc == 0 && write(fd, "\n", 1) != 1)
        rc = -1;
    if (rc == 0 && fsync(fd) < 0)
        rc = -1;
    int e = errno;
    fchmod(fd, 0644);
    close(fd);
    json_decref(root);
    if (rc < 0 || rename(tmp, path) < 0) {
        e = errno ? errno : EIO;
        unlink(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -e;
    }
    return 0;
}
