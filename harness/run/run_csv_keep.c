/* The rows a run_csv read keeps; see run_csv_keep.h and the top of run_csv.c. */
#include "harness/run/run_csv_keep.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NSYS CSV_KEEP_NSYS
#define MAX_EXT CSV_KEEP_MAX_EXT
#define NROLES CSV_KEEP_NROLES
#define NONE CSV_KEEP_NONE

static void slot_clear(csv_keep_t *K, uint32_t s)
{
    if (K->has_text)
        for (size_t j = 0; j < K->ncols; j++) {
            free(K->text[(size_t)s * K->ncols + j]);
            K->text[(size_t)s * K->ncols + j] = NULL;
        }
}

int csv_keep_slot_new(csv_keep_t *K, uint32_t *ret)
{
    if (K->n_free) {
        *ret = K->free_list[--K->n_free];
        return 0;
    }
    if (K->used == K->cap) {
        size_t cap = K->cap ? K->cap * 2 : 1024;
        if (K->reduce && cap > K->cap_max)
            cap = K->cap_max > K->cap ? K->cap_max : K->cap + 1; /* never more slots than the selection holds */
        if (cap > NONE - 1)
            return -ENOMEM;
        double *num = realloc(K->num, cap * K->ncols * sizeof *num);
        if (num)
            K->num = num;
        size_t *index = num ? realloc(K->index, cap * sizeof *index) : NULL;
        if (index)
            K->index = index;
        uint32_t *refs = index ? realloc(K->refs, cap * sizeof *refs) : NULL;
        if (refs)
            K->refs = refs;
        uint32_t *fl = refs ? realloc(K->free_list, cap * sizeof *fl) : NULL;
        if (fl)
            K->free_list = fl;
        char **text = fl && K->has_text ? realloc(K->text, cap * K->ncols * sizeof *text) : NULL;
        if (text) {
            memset(text + K->cap * K->ncols, 0, (cap - K->cap) * K->ncols * sizeof *text);
            K->text = text;
        }
        if (!fl || (K->has_text && !text))
            return -ENOMEM;
        K->cap = cap;
    }
    *ret = (uint32_t)K->used++;
    K->refs[*ret] = 0;
    return 0;
}

void csv_keep_slot_free(csv_keep_t *K, uint32_t s)
{
    slot_clear(K, s);
    K->free_list[K->n_free++] = s;
}

/* A role of the middle takes slot s / lets go of it. */
static void role_take(csv_keep_t *K, uint32_t s)
{
    if (K->refs[s]++ == 0)
        K->mid_slots++;
}

static void role_drop(csv_keep_t *K, uint32_t s)
{
    if (s != NONE && --K->refs[s] == 0) {
        K->mid_slots--;
        csv_keep_slot_free(K, s);
    }
}

static double slot_val(const csv_keep_t *K, uint32_t s, int col)
{
    return K->num[(size_t)s * K->ncols + (size_t)col];
}

/* Of two rows for an extreme role, the lower (want_max: higher) value; the
 * earlier one on a tie. */
static uint32_t better(const csv_keep_t *K, uint32_t a, uint32_t b, int col, bool want_max)
{
    if (a == NONE)
        return b;
    if (b == NONE)
        return a;
    double va = slot_val(K, a, col), vb = slot_val(K, b, col);
    return (want_max ? vb > va : vb < va) ? b : a;
}

/* Merges the buckets two by two; the rows per bucket double. */
static void buckets_merge(csv_keep_t *K)
{
    size_t nb = (K->n_buckets + 1) / 2;
    for (size_t p = 0; p < nb; p++) {
        csv_keep_bucket_t *A = &K->buckets[2 * p], *B = 2 * p + 1 < K->n_buckets ? &K->buckets[2 * p + 1] : NULL;
        csv_keep_bucket_t M;
        /* the systematic rows at the merged bucket's steps: every other one
         * of each half */
        for (int j = 0; j < NSYS; j++) {
            const csv_keep_bucket_t *from = j < NSYS / 2 ? A : B;
            int jj = 2 * (j % (NSYS / 2));
            M.role[j] = from ? from->role[jj] : NONE;
            if (from)
                ((csv_keep_bucket_t *)from)->role[jj] = NONE; /* moved */
        }
        for (size_t e = 0; e < K->n_ext; e++)
            for (int w = 0; w < 2; w++) {
                int r = NSYS + 2 * (int)e + w;
                uint32_t a = A->role[r], b = B ? B->role[r] : NONE, keep = better(K, a, b, K->ext[e], w == 1);
                M.role[r] = keep;
                A->role[r] = B ? (B->role[r] = NONE, NONE) : NONE;
                if (a != keep)
                    role_drop(K, a);
                if (b != keep)
                    role_drop(K, b);
            }
        /* what was not moved is let go */
        for (int j = 0; j < NSYS; j++) {
            role_drop(K, A->role[j]);
            if (B)
                role_drop(K, B->role[j]);
        }
        for (size_t r = NSYS + 2 * K->n_ext; r < NROLES; r++)
            M.role[r] = NONE;
        K->buckets[p] = M;
    }
    K->n_buckets = nb;
    K->k *= 2;
}

/* Row slot s (row number idx of the file) into the middle. */
static int middle_add(csv_keep_t *K, uint32_t s, size_t idx)
{
    size_t o = idx - K->head_max, b = o / K->k, off = o % K->k;
    if (b >= K->n_buckets) {
        if (K->n_buckets == K->cap_buckets) {
            size_t cap = K->cap_buckets ? K->cap_buckets * 2 : 1024;
            csv_keep_bucket_t *nb = realloc(K->buckets, cap * sizeof *nb);
            if (!nb)
                return -ENOMEM;
            K->buckets = nb;
            K->cap_buckets = cap;
        }
        csv_keep_bucket_t *B = &K->buckets[K->n_buckets++];
        for (int r = 0; r < NROLES; r++)
            B->role[r] = NONE;
    }
    csv_keep_bucket_t *B = &K->buckets[K->n_buckets - 1];
    uint32_t held = K->refs[s];
    if ((off * NSYS) % K->k == 0) {
        B->role[off * NSYS / K->k] = s;
        role_take(K, s);
    }
    for (size_t e = 0; e < K->n_ext; e++) {
        double v = slot_val(K, s, K->ext[e]);
        if (!isfinite(v))
            continue;
        for (int w = 0; w < 2; w++) {
            uint32_t *r = &B->role[NSYS + 2 * e + (size_t)w];
            if (better(K, *r, s, K->ext[e], w == 1) == s && *r != s) {
                uint32_t old = *r;
                *r = s;
                role_take(K, s);
                role_drop(K, old);
            }
        }
    }
    if (K->refs[s] == held && held == 0)
        csv_keep_slot_free(K, s);
    while (K->mid_slots > K->budget && K->n_buckets > 1)
        buckets_merge(K);
    return 0;
}

/* Keeps the row in slot s, row number idx of the file. */
int csv_keep_row(csv_keep_t *K, uint32_t s, size_t idx)
{
    K->index[s] = idx;
    if (!K->reduce)
        return 0; /* slot s is row idx: nothing is ever freed */
    if (K->n_head < K->head_max) {
        K->head[K->n_head++] = s;
        return 0;
    }
    if (K->n_ring == K->tail_max) {
        uint32_t old = K->ring[K->ring_start];
        K->ring[K->ring_start] = s;
        K->ring_start = (K->ring_start + 1) % K->tail_max;
        return middle_add(K, old, K->index[old]);
    }
    K->ring[(K->ring_start + K->n_ring++) % K->tail_max] = s;
    return 0;
}

static int cmp_slot_index_ctx_less(const csv_keep_t *K, uint32_t a, uint32_t b)
{
    return K->index[a] < K->index[b];
}

/* The slots kept, in file order, into *order (allocated); their count. */
int csv_keep_order(csv_keep_t *K, uint32_t **order, size_t *n)
{
    size_t cap = K->n_head + K->n_ring + K->mid_slots + 1, m = 0;
    uint32_t *o = malloc(cap * sizeof *o);
    if (!o)
        return -ENOMEM;
    for (size_t i = 0; i < K->n_head; i++)
        o[m++] = K->head[i];
    for (size_t b = 0; b < K->n_buckets; b++) {
        /* a bucket's distinct slots, sorted by row (at most NROLES: insertion) */
        size_t first = m;
        for (int r = 0; r < NROLES; r++) {
            uint32_t s = K->buckets[b].role[r];
            if (s == NONE)
                continue;
            bool dup = false;
            for (size_t q = first; q < m && !dup; q++)
                dup = o[q] == s;
            if (dup)
                continue;
            size_t q = m++;
            while (q > first && cmp_slot_index_ctx_less(K, s, o[q - 1])) {
                o[q] = o[q - 1];
                q--;
            }
            o[q] = s;
        }
    }
    for (size_t i = 0; i < K->n_ring; i++)
        o[m++] = K->ring[(K->ring_start + i) % K->tail_max];
    *order = o;
    *n = m;
    return 0;
}

/* Moves the rows of slots order[0..n) to slots 0..n in place (following
 * the permutation's cycles with one spare row), so the pool itself becomes
 * the readers' array: no second copy of the rows kept. */
void csv_keep_permute(csv_keep_t *K, const uint32_t *order, size_t n)
{
    size_t nc = K->ncols;
    /* where[slot] = the row it goes to, or SIZE_MAX (not kept) */
    size_t *where = malloc((K->used + 1) * sizeof *where);
    double *spare = malloc((nc + 1) * sizeof *spare);
    char **spare_t = K->has_text ? malloc((nc + 1) * sizeof *spare_t) : NULL;
    if (!where || !spare || (K->has_text && !spare_t)) {
        /* no room for the bookkeeping: rows copied one by one through the
         * slots past n would be wrong, so keep the order by a copy instead */
        free(where);
        free(spare);
        free(spare_t);
        double *num = malloc((n + 1) * nc * sizeof *num);
        char **text = K->has_text ? calloc((n + 1) * nc, sizeof *text) : NULL;
        if (!num || (K->has_text && !text)) {
            free(num);
            free(text);
            return; /* left as is: run_csv_read_opts reports nothing better */
        }
        for (size_t i = 0; i < n; i++) {
            memcpy(&num[i * nc], &K->num[(size_t)order[i] * nc], nc * sizeof *num);
            if (text) {
                memcpy(&text[i * nc], &K->text[(size_t)order[i] * nc], nc * sizeof *text);
                memset(&K->text[(size_t)order[i] * nc], 0, nc * sizeof *text);
            }
        }
        free(K->num);
        K->num = num;
        if (text) {
            for (size_t i = 0; i < K->used * nc; i++)
                free(K->text[i]);
            free(K->text);
            K->text = text;
            K->used = n;
        }
        return;
    }
    for (size_t s = 0; s < K->used; s++)
        where[s] = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        where[order[i]] = i;
    /* a slot not kept holds nothing: a row moved there is simply written */
    for (size_t s = 0; s < K->used; s++) {
        if (where[s] == SIZE_MAX || where[s] == s)
            continue;
        /* follow the cycle through s: the row at s goes to where[s], whose
         * row goes on in turn, until a slot not kept or s again */
        memcpy(spare, &K->num[s * nc], nc * sizeof *spare);
        if (spare_t) {
            memcpy(spare_t, &K->text[s * nc], nc * sizeof *spare_t);
            memset(&K->text[s * nc], 0, nc * sizeof *spare_t); /* moved: a free slot holds no text */
        }
        size_t to = where[s];
        where[s] = SIZE_MAX; /* s is free now */
        for (;;) {
            size_t next = where[to];
            if (next == SIZE_MAX) { /* a free slot (its text cells are NULL) */
                memcpy(&K->num[to * nc], spare, nc * sizeof *spare);
                if (spare_t)
                    memcpy(&K->text[to * nc], spare_t, nc * sizeof *spare_t);
                where[to] = to;
                break;
            }
            /* swap the spare row with the row at `to`, which goes to next */
            for (size_t j = 0; j < nc; j++) {
                double v = K->num[to * nc + j];
                K->num[to * nc + j] = spare[j];
                spare[j] = v;
                if (spare_t) {
                    char *t = K->text[to * nc + j];
                    K->text[to * nc + j] = spare_t[j];
                    spare_t[j] = t;
                }
            }
            where[to] = to;
            to = next;
        }
    }
    free(where);
    free(spare);
    free(spare_t);
}

void csv_keep_free(csv_keep_t *K)
{
    if (K->has_text && K->text)
        for (size_t i = 0; i < K->used * K->ncols; i++)
            free(K->text[i]);
    free(K->num);
    free(K->text);
    free(K->index);
    free(K->refs);
    free(K->free_list);
    free(K->head);
    free(K->ring);
    free(K->buckets);
    memset(K, 0, sizeof *K);
}
