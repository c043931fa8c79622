/* Partition states from zkbench_mark's marks into a watch run's occupancy
 * columns (mark_states.h; the rule: docs/watch.md, "Partition states from
 * marks"). */
#define _GNU_SOURCE
#include "harness/run/mark_states.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/out_file.h"
#include "harness/run/run_csv.h"

static const char *const state_col[MARK_STATE_COUNT] = {"n_synth", "n_blocked", "q_gpu", "n_gpu", "n_finish"};
static const char *const state_word[MARK_STATE_COUNT] = {"synth", "wait", "queue", "prove", "finish"};

/* ---- the replay ---- */

struct mark {
    double t;
    size_t order; /* file order: equal times keep it */
    long pid;
    mark_state_mark_t m;
};

/* the counts after one mark */
struct snap {
    double t;
    long n[MARK_STATE_COUNT];
    long admitted, done;
};

struct id_slot {
    char *id; /* NULL: empty */
    int state; /* -1: in none */
};

struct pid_count {
    long pid;
    long n[MARK_STATE_COUNT];
};

struct replay {
    struct id_slot *ids;
    size_t cap_ids, n_ids;
    struct pid_count *pids;
    size_t n_pids;
    long n[MARK_STATE_COUNT], admitted, done;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The slot of id (added in state -1 when new); NULL when out of memory. */
static struct id_slot *id_find(struct replay *r, const char *id)
{
    if (2 * (r->n_ids + 1) > r->cap_ids) {
        size_t cap = r->cap_ids ? 2 * r->cap_ids : 64;
        struct id_slot *t = calloc(cap, sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < r->cap_ids; i++)
            if (r->ids[i].id) {
                size_t j = hash_str(r->ids[i].id) & (cap - 1);
                while (t[j].id)
                    j = (j + 1) & (cap - 1);
                t[j] = r->ids[i];
            }
        free(r->ids);
        r->ids = t;
        r->cap_ids = cap;
    }
    size_t j = hash_str(id) & (r->cap_ids - 1);
    while (r->ids[j].id && strcmp(r->ids[j].id, id) != 0)
        j = (j + 1) & (r->cap_ids - 1);
    if (!r->ids[j].id) {
        if (!(r->ids[j].id = strdup(id)))
            return NULL;
        r->ids[j].state = -1;
        r->n_ids++;
    }
    return &r->ids[j];
}

static struct pid_count *pid_find(struct replay *r, long pid)
{
    for (size_t i = 0; i < r->n_pids; i++)
        if (r->pids[i].pid == pid)
            return &r->pids[i];
    struct pid_count *p = realloc(r->pids, (r->n_pids + 1) * sizeof *p);
    if (!p)
        return NULL;
    r->pids = p;
    memset(&p[r->n_pids], 0, sizeof p[r->n_pids]);
    p[r->n_pids].pid = pid;
    return &p[r->n_pids++];
}

static void say_first(char *out, size_t cap, size_t count, const struct mark *k)
{
    if (count == 1)
        snprintf(out, cap, "%s %s%s%s at %.3f s (pid %ld)", state_word[k->m.state], k->m.start ? "start" : "end",
                 k->m.id[0] ? " " : "", k->m.id, k->t / 1e3, k->pid);
}

/* One mark: an ID moves its partition between states (a start of another
 * state ends the one it is in, so a hand-over between threads needs no
 * end); without an ID the process's count of that state goes up or down,
 * whichever thread marks it. An end never takes a count below zero. */
static int replay_one(struct replay *r, mark_states_t *sum, const struct mark *k)
{
    int s = (int)k->m.state;
    sum->marks++;
    if (k->m.id[0]) {
        sum->with_id++;
        struct id_slot *x = id_find(r, k->m.id);
        if (!x)
            return -ENOMEM;
        if (k->m.start) {
            if (x->state == s) {
                say_first(sum->repeated_first, sizeof sum->repeated_first, ++sum->repeated_starts, k);
                return 0;
            }
            if (x->state >= 0)
                r->n[x->state]--;
            else
                r->admitted++;
            x->state = s;
            r->n[s]++;
        } else if (x->state == s) {
            x->state = -1;
            r->n[s]--;
            r->done++;
        } else {
            say_first(sum->unmatched_first, sizeof sum->unmatched_first, ++sum->unmatched_ends, k);
        }
        return 0;
    }
    sum->without_id++;
    struct pid_count *p = pid_find(r, k->pid);
    if (!p)
        return -ENOMEM;
    if (k->m.start) {
        p->n[s]++;
        r->n[s]++;
        r->admitted++;
    } else if (p->n[s] > 0) {
        p->n[s]--;
        r->n[s]--;
        r->done++;
    } else {
        say_first(sum->unmatched_first, sizeof sum->unmatched_first, ++sum->unmatched_ends, k);
    }
    return 0;
}

static int cmp_mark(const void *a, const void *b)
{
    const struct mark *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* The state marks of marks.csv in time order, the malformed ones counted. */
static int read_marks(struct mark **ret, size_t *nret, const char *dir, mark_states_t *sum, char *err, size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/marks.csv", dir);
    FILE *probe = fopen(path, "r");
    if (!probe) {
        *ret = NULL;
        *nret = 0;
        return errno == ENOENT ? 0 : (snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno)), -errno);
    }
    fclose(probe);
    static const char *const req[] = {"t_ms", "source", "name", NULL}, *const text[] = {"source", "name", NULL},
                             *const empty[] = {"pid", "name", NULL};
    run_csv_t m = {0};
    int rc = run_csv_read(&m, path, req, text, empty, err, errlen);
    if (rc < 0)
        return rc;
    int ct = run_csv_col(&m, "t_ms"), cs = run_csv_col(&m, "source"), cn = run_csv_col(&m, "name"),
        cp = run_csv_col(&m, "pid");
    struct mark *v = malloc((m.nrows + 1) * sizeof *v);
    if (!v) {
        run_csv_free(&m);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < m.nrows; i++) {
        if (strcmp(run_csv_text(&m, i, cs), "api") != 0)
            continue;
        double t = run_csv_num(&m, i, ct), pid = run_csv_num(&m, i, cp);
        struct mark x = {.t = t, .order = i, .pid = isfinite(pid) ? (long)pid : 0};
        int p = mark_state_parse(&x.m, run_csv_text(&m, i, cn));
        if (p < 0 && ++sum->malformed == 1)
            snprintf(sum->malformed_first, sizeof sum->malformed_first, "'%.100s' at %.3f s",
                     run_csv_text(&m, i, cn), t / 1e3);
        if (p == 1 && isfinite(t))
            v[k++] = x;
    }
    run_csv_free(&m);
    qsort(v, k, sizeof *v, cmp_mark);
    *ret = v;
    *nret = k;
    return 0;
}

/* ---- samples.csv, rewritten ---- */

enum { FILL_Q_SYNTH = MARK_STATE_COUNT, FILL_ADMITTED, FILL_DONE, FILL_COUNT };

/* Splits line (no newline) at commas into f (at most cap); the count. */
static size_t split(char *line, char **f, size_t cap)
{
    size_t n = 0;
    for (char *p = line;; p++) {
        if (n < cap)
            f[n] = p;
        n++;
        p = strchr(p, ',');
        if (!p)
            break;
        *p = '\0';
    }
    return n;
}

static int rewrite_samples(const char *dir, const struct snap *sn, size_t ns, mark_states_t *sum, char *err,
                           size_t errlen)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *in = fopen(path, "r");
    if (!in) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -errno;
    }
    struct out_file of;
    int rc = out_file_begin(&of, path, err, errlen);
    if (rc < 0) {
        fclose(in);
        return rc;
    }
    FILE *out = fopen(of.tmp, "w");
    char *line = NULL, *copy = NULL, **f = NULL;
    size_t lcap = 0, ncols = 0, fcap = 0;
    int col[FILL_COUNT], ct = -1;
    if (!out) {
        rc = -errno;
        snprintf(err, errlen, "cannot write %s: %s", of.tmp, strerror(errno));
        goto fail;
    }
    ssize_t len = getline(&line, &lcap, in);
    if (len <= 0) {
        rc = -EINVAL;
        snprintf(err, errlen, "%s: no header", path);
        goto fail;
    }
    fputs(line, out);
    line[strcspn(line, "\r\n")] = '\0';
    {
        fcap = 1;
        for (const char *p = line; *p; p++)
            fcap += *p == ',';
        if (!(f = malloc(fcap * sizeof *f)) || !(copy = strdup(line))) {
            rc = -ENOMEM;
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        ncols = split(copy, f, fcap);
        static const char *const extra[] = {"q_synth", "partitions_admitted", "partitions_done"};
        for (int c = 0; c < FILL_COUNT; c++) {
            const char *want = c < MARK_STATE_COUNT ? state_col[c] : extra[c - MARK_STATE_COUNT];
            col[c] = -1;
            for (size_t j = 0; j < ncols; j++)
                if (strcmp(f[j], want) == 0)
                    col[c] = (int)j;
            if (col[c] < 0) {
                rc = -EINVAL;
                snprintf(err, errlen, "%s: no %s column (not a samples.csv of this zkbench)", path, want);
                goto fail;
            }
        }
        for (size_t j = 0; j < ncols; j++)
            if (strcmp(f[j], "t_ms") == 0)
                ct = (int)j;
        if (ct < 0) {
            rc = -EINVAL;
            snprintf(err, errlen, "%s: no t_ms column", path);
            goto fail;
        }
    }
    size_t e = 0; /* snapshots at or before the row */
    while ((len = getline(&line, &lcap, in)) > 0) {
        bool nl = line[len - 1] == '\n';
        if (!nl) { /* a torn last row stays as it is: analyze drops it */
            fputs(line, out);
            break;
        }
        line[len - 1] = '\0';
        free(copy);
        if (!(copy = strdup(line))) {
            rc = -ENOMEM;
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        size_t n = split(copy, f, fcap);
        char *end = NULL;
        double t = n == ncols ? strtod(f[ct], &end) : NAN;
        if (n != ncols || !end || end == f[ct] || *end || !isfinite(t)) {
            fprintf(out, "%s\n", line); /* not a row to fill: as it was */
            continue;
        }
        while (e < ns && sn[e].t <= t)
            e++;
        long v[FILL_COUNT] = {0};
        if (e > 0) {
            for (int s = 0; s < MARK_STATE_COUNT; s++)
                v[s] = sn[e - 1].n[s];
            v[FILL_ADMITTED] = sn[e - 1].admitted;
            v[FILL_DONE] = sn[e - 1].done;
        }
        for (size_t j = 0; j < ncols; j++) {
            int c = -1;
            for (int k = 0; k < FILL_COUNT && c < 0; k++)
                if (col[k] == (int)j)
                    c = k;
            if (j)
                fputc(',', out);
            if (c >= 0)
                fprintf(out, "%ld", v[c]);
            else
                fputs(f[j], out);
        }
        fputc('\n', out);
        sum->rows++;
    }
    if (ferror(in)) {
        rc = -EIO;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(EIO));
        goto fail;
    }
    fclose(in);
    in = NULL;
    if (fclose(out) != 0) {
        out = NULL;
        rc = -errno;
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        goto fail;
    }
    out = NULL;
    free(line);
    free(copy);
    free(f);
    return out_file_commit(&of, err, errlen);
fail:
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    out_file_abort(&of);
    free(line);
    free(copy);
    free(f);
    return rc;
}

int mark_states_fill(const char *dir, mark_states_t *sum, char *err, size_t errlen)
{
    memset(sum, 0, sizeof *sum);
    struct mark *k = NULL;
    size_t nk = 0;
    int rc = read_marks(&k, &nk, dir, sum, err, errlen);
    if (rc < 0 || nk == 0) {
        free(k);
        return rc;
    }
    struct snap *sn = malloc(nk * sizeof *sn);
    struct replay r = {0};
    rc = sn ? 0 : -ENOMEM;
    for (size_t i = 0; i < nk && rc == 0; i++) {
        rc = replay_one(&r, sum, &k[i]);
        sn[i].t = k[i].t;
        memcpy(sn[i].n, r.n, sizeof r.n);
        sn[i].admitted = r.admitted;
        sn[i].done = r.done;
        for (int s = 0; s < MARK_STATE_COUNT; s++)
            sum->most[s] = r.n[s] > sum->most[s] ? (int)r.n[s] : sum->most[s];
    }
    if (rc == 0) {
        sum->partitions = (size_t)r.admitted;
        sum->open_at_end = (size_t)(r.admitted - r.done);
        rc = rewrite_samples(dir, sn, nk, sum, err, errlen);
    } else {
        snprintf(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < r.cap_ids; i++)
        free(r.ids[i].id);
    free(r.ids);
    free(r.pids);
    free(sn);
    free(k);
    return rc;
}

json_t *mark_states_json(const mark_states_t *s)
{
    json_t *most = json_object();
    for (int i = 0; i < MARK_STATE_COUNT; i++)
        json_object_set_new(most, state_col[i], json_integer(s->most[i]));
    json_t *j = json_pack("{s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I}", "marks", (json_int_t)s->marks,
                          "with_id", (json_int_t)s->with_id, "without_id", (json_int_t)s->without_id, "partitions",
                          (json_int_t)s->partitions, "most", most, "unmatched_ends", (json_int_t)s->unmatched_ends,
                          "repeated_starts", (json_int_t)s->repeated_starts, "malformed", (json_int_t)s->malformed,
                          "open_at_end", (json_int_t)s->open_at_end, "rows", (json_int_t)s->rows);
    char p[640];
    mark_states_problems(p, sizeof p, s);
    if (j)
        json_object_set_new(j, "problems", p[0] ? json_string(p) : json_null());
    return j;
}

void mark_states_problems(char *out, size_t cap, const mark_states_t *s)
{
    size_t n = 0;
    out[0] = '\0';
#define SAY(...) (n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, __VA_ARGS__), n = n < cap ? n : cap - 1)
    if (s->unmatched_ends)
        SAY("%zu end(s) without a start%s%s%s, not counted", s->unmatched_ends, s->unmatched_first[0] ? " (the first: " : "",
            s->unmatched_first, s->unmatched_first[0] ? ")" : "");
    if (s->repeated_starts)
        SAY("%s%zu start(s) of the state the partition was in%s%s%s, not counted", n ? "; " : "", s->repeated_starts,
            s->repeated_first[0] ? " (the first: " : "", s->repeated_first, s->repeated_first[0] ? ")" : "");
    if (s->malformed)
        SAY("%s%zu mark(s) name a state without 'start' or 'end' (or with more than an id after it; the first: "
            "%s), not counted", n ? "; " : "", s->malformed, s->malformed_first);
    if (s->open_at_end && s->marks)
        SAY("%s%zu partition(s) still in a state after the last mark (no end)", n ? "; " : "", s->open_at_end);
#undef SAY
}
