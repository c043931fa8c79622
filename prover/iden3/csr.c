/*
 * CSR construction for the iden3 readers (see csr.h): entries are kept as
 * (row, col, coefficient index) per matrix, then counting-sorted by row;
 * each row is sorted by column and merged.
 */
#include "prover/iden3/csr.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prover/mem.h"

typedef struct {
    uint32_t row, col, coeff;
} entry_t;

struct iden3_csr {
    uint64_t rows;
    uint32_t num_inputs, num_aux;
    entry_t *e[3];
    uint64_t n[3], cap[3];
    fr_t *coeffs; /* distinct values; [0] = 1 */
    uint32_t num_coeffs, cap_coeffs;
    uint32_t *hash; /* open addressing: coefficient index + 1, 0 empty */
    uint32_t hash_cap;
};

static void *grow(void *p, uint64_t *cap, uint64_t need, size_t size, enum mem_kind kind)
{
    uint64_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = mem_alloc(kind, -1, -1, c * size);
    if (!q)
        return NULL;
    if (p) {
        memcpy(q, p, *cap * size);
        mem_free(p);
    }
    *cap = c;
    return q;
}

static uint32_t hash_fr(const fr_t *v)
{
    uint64_t h = v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ull) ^ (v->l[2] >> 7) ^ (v->l[3] * 31);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(h ^ (h >> 32));
}

/* Index of v in the table, adding it when new. */
static int coeff_index(uint32_t *ret, iden3_csr_t *b, const fr_t *v)
{
    if ((uint64_t)b->num_coeffs * 2 >= b->hash_cap) {
        uint32_t nc = b->hash_cap ? b->hash_cap * 2 : 1024;
        if (nc < b->hash_cap)
            return -ERANGE;
        uint32_t *h = mem_calloc(MEM_KIND_OTHER, -1, -1, (size_t)nc * sizeof *h);
        if (!h)
            return -ENOMEM;
        for (uint32_t i = 0; i < b->num_coeffs; i++) {
            uint32_t k = hash_fr(&b->coeffs[i]) & (nc - 1);
            while (h[k])
                k = (k + 1) & (nc - 1);
            h[k] = i + 1;
        }
        mem_free(b->hash);
        b->hash = h;
        b->hash_cap = nc;
    }
    uint32_t k = hash_fr(v) & (b->hash_cap - 1);
    while (b->hash[k]) {
        if (fr_eq(&b->coeffs[b->hash[k] - 1], v)) {
            *ret = b->hash[k] - 1;
            return 0;
        }
        k = (k + 1) & (b->hash_cap - 1);
    }
    if (b->num_coeffs == UINT32_MAX - 1)
        return -ERANGE;
    if (b->num_coeffs == b->cap_coeffs) {
        uint64_t cap = b->cap_coeffs;
        fr_t *c = grow(b->coeffs, &cap, (uint64_t)b->num_coeffs + 1, sizeof(fr_t), MEM_KIND_CIRCUIT);
        if (!c)
            return -ENOMEM;
        b->coeffs = c;
        b->cap_coeffs = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    }
    b->coeffs[b->num_coeffs] = *v;
    b->hash[k] = ++b->num_coeffs;
    *ret = b->num_coeffs - 1;
    return 0;
}

int iden3_csr_new(iden3_csr_t **ret, uint64_t rows, uint32_t num_inputs, uint32_t num_aux)
{
    if (!ret || num_inputs == 0 || rows >= UINT32_MAX)
        return -EINVAL;
    iden3_csr_t *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->rows = rows;
    b->num_inputs = num_inputs;
    b->num_aux = num_aux;
    uint32_t one;
    int rc = coeff_index(&one, b, &FR_ONE);
    if (rc < 0) {
        iden3_csr_free(b);
        return rc;
    }
    *ret = b;
    return 0;
}

void iden3_csr_free(iden3_csr_t *b)
{
    if (!b)
        return;
    for (int k = 0; k < 3; k++)
        mem_free(b->e[k]);
    mem_free(b->coeffs);
    mem_free(b->hash);
    free(b);
}

int iden3_csr_add(iden3_csr_t *b, enum r1cs_matrix_id m, uint32_t row, uint32_t col, const fr_t *v)
{
    if ((unsigned)m > 2)
        return -EINVAL;
    if (fr_is_zero(v))
        return 0;
    uint32_t ci;
    int rc = coeff_index(&ci, b, v);
    if (rc < 0)
        return rc;
    if (b->n[m] == b->cap[m]) {
        entry_t *e = grow(b->e[m], &b->cap[m], b->n[m] + 1, sizeof(entry_t), MEM_KIND_OTHER);
        if (!e)
            return -ENOMEM;
        b->e[m] = e;
    }
    b->e[m][b->n[m]++] = (entry_t){row, col, ci};
    return 0;
}

static int cmp_col(const void *x, const void *y)
{
    const entry_t *a = x, *c = y;
    return (a->col > c->col) - (a->col < c->col);
}

static void *alloc_circuit(size_t n, size_t size)
{
    return mem_alloc(MEM_KIND_CIRCUIT, -1, -1, n ? n * size : 1);
}

int iden3_csr_finish(r1cs_t **ret, iden3_csr_t *b)
{
    r1cs_t *r = calloc(1, sizeof *r);
    entry_t *sorted = NULL;
    int rc = -ENOMEM;
    if (!r)
        return -ENOMEM;
    for (int k = 0; k < 3; k++) {
        uint64_t n = b->n[k];
        r1cs_matrix_t *mat = &r->m[k];
        mat->row_ptr = alloc_circuit(b->rows + 1, sizeof(uint64_t));
        sorted = mem_alloc(MEM_KIND_OTHER, -1, -1, (n ? n : 1) * sizeof(entry_t));
        if (!mat->row_ptr || !sorted)
            goto fail;
        /* Counting sort by row. */
        memset(mat->row_ptr, 0, (b->rows + 1) * sizeof(uint64_t));
        for (uint64_t i = 0; i < n; i++)
            mat->row_ptr[b->e[k][i].row + 1]++;
        for (uint64_t i = 0; i < b->rows; i++)
            mat->row_ptr[i + 1] += mat->row_ptr[i];
        for (uint64_t i = 0; i < n; i++) {
            const entry_t *e = &b->e[k][i];
            sorted[mat->row_ptr[e->row]++] = *e;
        }
        for (uint64_t i = b->rows; i > 0; i--)
            mat->row_ptr[i] = mat->row_ptr[i - 1];
        mat->row_ptr[0] = 0;
        /* Sort each row by column and merge equal columns, compacting. */
        uint64_t out = 0;
        for (uint64_t i = 0; i < b->rows; i++) {
            uint64_t s = mat->row_ptr[i], t = mat->row_ptr[i + 1];
            if (t - s > 1)
                qsort(sorted + s, t - s, sizeof(entry_t), cmp_col);
            mat->row_ptr[i] = out;
            for (uint64_t j = s; j < t;) {
                fr_t v = b->coeffs[sorted[j].coeff];
                uint32_t col = sorted[j].col, ci = sorted[j].coeff;
                bool merged = false;
                for (j++; j < t && sorted[j].col == col; j++) {
                    fr_add(&v, &v, &b->coeffs[sorted[j].coeff]);
                    merged = true;
                }
                if (fr_is_zero(&v))
                    continue;
                if (merged && (rc = coeff_index(&ci, b, &v)) < 0)
                    goto fail;
                sorted[out++] = (entry_t){0, col, ci};
            }
        }
        mat->row_ptr[b->rows] = out;
        mat->nnz = out;
        mat->col = alloc_circuit(out, sizeof(uint32_t));
        mat->coeff = alloc_circuit(out, sizeof(uint32_t));
        if (!mat->col || !mat->coeff)
            goto fail;
        for (uint64_t i = 0; i < out; i++) {
            mat->col[i] = sorted[i].col;
            mat->coeff[i] = sorted[i].coeff;
        }
        mem_free(sorted);
        sorted = NULL;
    }
    r->coeffs = alloc_circuit(b->num_coeffs, sizeof(fr_t));
    if (!r->coeffs)
        goto fail;
    memcpy(r->coeffs, b->coeffs, (size_t)b->num_coeffs * sizeof(fr_t));
    r->num_coeffs = b->num_coeffs;
    r->num_inputs = b->num_inputs;
    r->num_aux = b->num_aux;
    r->num_constraints = b->rows;
    *ret = r;
    return 0;
fail:
    mem_free(sorted);
    r1cs_free(r);
    return rc;
}
