/*
 * R1CS in CSR form: the builder (growable arrays, duplicate terms merged,
 * coefficients interned into one table), the finished read-only system, its
 * evaluation <M_i,w> over row blocks, the satisfaction check and column
 * densities. See r1cs.h for the layout.
 */
#include "prover/r1cs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prover/mem.h"
#include "prover/parallel.h"

struct builder_matrix {
    uint64_t *row_ptr; /* num_constraints + 1 used */
    uint32_t *col;     /* handles until finish */
    uint32_t *coeff;
    size_t row_cap, col_cap, coeff_cap;
    uint64_t nnz;
};

struct r1cs_builder {
    uint32_t num_inputs, num_aux;
    uint64_t num_constraints;
    struct builder_matrix m[3];
    fr_t *coeffs;
    uint32_t num_coeffs;
    size_t coeffs_cap;
    /* Open addressing over coeffs: slot holds index + 1, 0 is empty. */
    uint32_t *hash;
    size_t hash_cap; /* power of two */
    r1cs_term_t *scratch;
    size_t scratch_cap;
};

/* Moves a tracked array to a new one of exactly n elements of `size`
 * bytes, keeping `used`. */
static int resize(void **p, size_t *cap, size_t n, size_t used, size_t size)
{
    if (n > SIZE_MAX / size)
        return -ENOMEM;
    void *q = mem_alloc(MEM_KIND_CIRCUIT, -1, -1, n * size);
    if (!q)
        return -ENOMEM;
    if (used)
        memcpy(q, *p, used * size);
    mem_free(*p);
    *p = q;
    *cap = n;
    return 0;
}

/* Grows a tracked array to hold at least `need` elements, doubling. */
static int grow(void **p, size_t *cap, size_t need, size_t used, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return -ENOMEM;
        n *= 2;
    }
    return resize(p, cap, n, used, size);
}

static uint64_t fr_hash(const fr_t *x)
{
    uint64_t h = x->l[0] ^ (x->l[1] * 0x9e3779b97f4a7c15ull) ^ (x->l[2] * 0xbf58476d1ce4e5b9ull) ^
                 (x->l[3] * 0x94d049bb133111ebull);
    h ^= h >> 29;
    h *= 0xd6e8feb86659fd93ull;
    return h ^ (h >> 32);
}

static void hash_insert(uint32_t *hash, size_t cap, const fr_t *x, uint32_t idx)
{
    size_t s = fr_hash(x) & (cap - 1);
    while (hash[s])
        s = (s + 1) & (cap - 1);
    hash[s] = idx + 1;
}

/* Capacity for `more` new coefficients: table and hash (load <= 1/2). */
static int coeffs_reserve(r1cs_builder_t *b, size_t more)
{
    size_t need = (size_t)b->num_coeffs + more;
    if (need > UINT32_MAX)
        return -ERANGE;
    int err = grow((void **)&b->coeffs, &b->coeffs_cap, need, b->num_coeffs, sizeof(fr_t));
    if (err)
        return err;
    if (2 * need <= b->hash_cap)
        return 0;
    size_t cap = b->hash_cap ? b->hash_cap : 256;
    while (cap < 2 * need)
        cap *= 2;
    uint32_t *h = mem_calloc(MEM_KIND_CIRCUIT, -1, -1, cap * sizeof(uint32_t));
    if (!h)
        return -ENOMEM;
    for (uint32_t i = 0; i < b->num_coeffs; i++)
        hash_insert(h, cap, &b->coeffs[i], i);
    mem_free(b->hash);
    b->hash = h;
    b->hash_cap = cap;
    return 0;
}

/* Index of x in the table, adding it; capacity reserved by the caller. */
static uint32_t coeff_intern(r1cs_builder_t *b, const fr_t *x)
{
    size_t s = fr_hash(x) & (b->hash_cap - 1);
    while (b->hash[s]) {
        uint32_t i = b->hash[s] - 1;
        if (fr_eq(&b->coeffs[i], x))
            return i;
        s = (s + 1) & (b->hash_cap - 1);
    }
    uint32_t i = b->num_coeffs++;
    b->coeffs[i] = *x;
    b->hash[s] = i + 1;
    return i;
}

static void builder_release(r1cs_builder_t *b)
{
    for (int k = 0; k < 3; k++) {
        mem_free(b->m[k].row_ptr);
        mem_free(b->m[k].col);
        mem_free(b->m[k].coeff);
    }
    mem_free(b->coeffs);
    mem_free(b->hash);
    free(b->scratch);
}

/* Empty state: only the ONE, no constraints, coefficient 1 at index 0. */
static int builder_reset(r1cs_builder_t *b)
{
    memset(b, 0, sizeof(*b));
    b->num_inputs = 1;
    for (int k = 0; k < 3; k++) {
        int err = grow((void **)&b->m[k].row_ptr, &b->m[k].row_cap, 1, 0, sizeof(uint64_t));
        if (err)
            return err;
        b->m[k].row_ptr[0] = 0;
    }
    int err = coeffs_reserve(b, 1);
    if (err)
        return err;
    coeff_intern(b, &FR_ONE);
    return 0;
}

int r1cs_builder_new(r1cs_builder_t **ret)
{
    if (!ret)
        return -EINVAL;
    r1cs_builder_t *b = malloc(sizeof(*b));
    if (!b)
        return -ENOMEM;
    int err = builder_reset(b);
    if (err) {
        builder_release(b);
        free(b);
        return err;
    }
    *ret = b;
    return 0;
}

void r1cs_builder_free(r1cs_builder_t *b)
{
    if (!b)
        return;
    builder_release(b);
    free(b);
}

int r1cs_alloc_input(r1cs_var_t *ret, r1cs_builder_t *b)
{
    if (!ret || !b)
        return -EINVAL;
    if (b->num_inputs >= R1CS_MAX_VARS || (uint64_t)b->num_inputs + b->num_aux >= UINT32_MAX)
        return -ERANGE;
    *ret = b->num_inputs++;
    return 0;
}

int r1cs_alloc_aux_n(r1cs_var_t *first, r1cs_builder_t *b, uint32_t n)
{
    if (!first || !b)
        return -EINVAL;
    if ((uint64_t)b->num_aux + n > R1CS_MAX_VARS ||
        (uint64_t)b->num_inputs + b->num_aux + n > UINT32_MAX)
        return -ERANGE;
    *first = R1CS_AUX_BIT | b->num_aux;
    b->num_aux += n;
    return 0;
}

int r1cs_alloc_aux(r1cs_var_t *ret, r1cs_builder_t *b)
{
    return r1cs_alloc_aux_n(ret, b, 1);
}

uint32_t r1cs_builder_num_inputs(const r1cs_builder_t *b)
{
    return b ? b->num_inputs : 0;
}

uint32_t r1cs_builder_num_aux(const r1cs_builder_t *b)
{
    return b ? b->num_aux : 0;
}

uint64_t r1cs_builder_num_constraints(const r1cs_builder_t *b)
{
    return b ? b->num_constraints : 0;
}

uint64_t r1cs_builder_nnz(const r1cs_builder_t *b, enum r1cs_matrix_id which)
{
    return b && (unsigned)which <= R1CS_C ? b->m[which].nnz : 0;
}

int r1cs_builder_reserve(r1cs_builder_t *b, uint64_t constraints, const uint64_t *nnz)
{
    if (!b || !nnz)
        return -EINVAL;
    if (constraints >= SIZE_MAX)
        return -ENOMEM;
    for (int k = 0; k < 3; k++) {
        struct builder_matrix *m = &b->m[k];
        if (nnz[k] >= SIZE_MAX)
            return -ENOMEM;
        int err = 0;
        if (constraints + 1 > m->row_cap)
            err = resize((void **)&m->row_ptr, &m->row_cap, constraints + 1,
                         b->num_constraints + 1, sizeof(uint64_t));
        if (!err && nnz[k] > m->col_cap)
            err = resize((void **)&m->col, &m->col_cap, nnz[k], m->nnz, sizeof(uint32_t));
        if (!err && nnz[k] > m->coeff_cap)
            err = resize((void **)&m->coeff, &m->coeff_cap, nnz[k], m->nnz, sizeof(uint32_t));
        if (err)
            return err;
    }
    return 0;
}

static int var_valid(const r1cs_builder_t *b, r1cs_var_t v)
{
    if (v & R1CS_AUX_BIT)
        return (v & ~R1CS_AUX_BIT) < b->num_aux;
    return v < b->num_inputs;
}

static int term_cmp(const void *x, const void *y)
{
    r1cs_var_t a = ((const r1cs_term_t *)x)->var, c = ((const r1cs_term_t *)y)->var;
    return (a > c) - (a < c);
}

/* Sorts t[0..n) by variable, adds up equal variables and drops zeros; returns
 * the new length. Handles sort in column order: inputs below aux. */
static size_t lc_normalize(r1cs_term_t *t, size_t n)
{
    int sorted = 1;
    for (size_t i = 1; i < n && sorted; i++)
        sorted = t[i - 1].var <= t[i].var;
    /* Gadgets emit combinations mostly in handle order already; glibc's
     * qsort copies 40-byte elements through memcpy, so avoid it then. */
    if (!sorted && n <= 32) {
        for (size_t i = 1; i < n; i++) {
            r1cs_term_t x = t[i];
            size_t j = i;
            for (; j > 0 && t[j - 1].var > x.var; j--)
                t[j] = t[j - 1];
            t[j] = x;
        }
    } else if (!sorted) {
        qsort(t, n, sizeof(*t), term_cmp);
    }
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        r1cs_term_t acc = t[i++];
        while (i < n && t[i].var == acc.var)
            fr_add(&acc.coeff, &acc.coeff, &t[i++].coeff);
        if (!fr_is_zero(&acc.coeff))
            t[out++] = acc;
    }
    return out;
}

int r1cs_enforce(r1cs_builder_t *b, const r1cs_term_t *a, size_t na,
                 const r1cs_term_t *bt, size_t nb, const r1cs_term_t *c, size_t nc)
{
    if (!b || (na && !a) || (nb && !bt) || (nc && !c))
        return -EINVAL;
    const r1cs_term_t *in[3] = {a, bt, c};
    size_t n[3] = {na, nb, nc};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < n[k]; i++)
            if (!var_valid(b, in[k][i].var))
                return -EINVAL;
    size_t limit = SIZE_MAX / 3 / sizeof(r1cs_term_t);
    if (na > limit || nb > limit || nc > limit)
        return -ENOMEM;
    size_t total = na + nb + nc;
    /* Scratch for one constraint's terms (kept between calls; small next
     * to the matrices, so untracked). */
    if (total > b->scratch_cap) {
        size_t cap = b->scratch_cap ? b->scratch_cap : 64;
        while (cap < total)
            cap = cap > limit ? total : 2 * cap;
        r1cs_term_t *s = malloc(cap * sizeof(*s));
        if (!s)
            return -ENOMEM;
        free(b->scratch);
        b->scratch = s;
        b->scratch_cap = cap;
    }
    r1cs_term_t *lc[3];
    size_t len[3], off = 0;
    for (int k = 0; k < 3; k++) {
        lc[k] = b->scratch + off;
        if (n[k])
            memcpy(lc[k], in[k], n[k] * sizeof(r1cs_term_t));
        len[k] = lc_normalize(lc[k], n[k]);
        off += n[k];
    }
    /* Reserve everything first so that a failure leaves the system as it
     * was (an unused coefficient slot is invisible). */
    for (int k = 0; k < 3; k++) {
        struct builder_matrix *m = &b->m[k];
        int err = grow((void **)&m->row_ptr, &m->row_cap, b->num_constraints + 2,
                       b->num_constraints + 1, sizeof(uint64_t));
        if (!err)
            err = grow((void **)&m->col, &m->col_cap, m->nnz + len[k], m->nnz, sizeof(uint32_t));
        if (!err)
            err = grow((void **)&m->coeff, &m->coeff_cap, m->nnz + len[k], m->nnz, sizeof(uint32_t));
        if (err)
            return err;
    }
    int err = coeffs_reserve(b, len[0] + len[1] + len[2]);
    if (err)
        return err;
    for (int k = 0; k < 3; k++) {
        struct builder_matrix *m = &b->m[k];
        for (size_t i = 0; i < len[k]; i++) {
            m->col[m->nnz + i] = lc[k][i].var;
            m->coeff[m->nnz + i] = coeff_intern(b, &lc[k][i].coeff);
        }
        m->nnz += len[k];
        m->row_ptr[b->num_constraints + 1] = m->nnz;
    }
    b->num_constraints++;
    return 0;
}

/* A tracked copy of n elements of `size` bytes (n may be 0). */
static void *dup_exact(const void *p, size_t n, size_t size)
{
    void *q = mem_alloc(MEM_KIND_CIRCUIT, -1, -1, n * size);
    if (q && n)
        memcpy(q, p, n * size);
    return q;
}

void r1cs_free(r1cs_t *r)
{
    if (!r)
        return;
    for (int k = 0; k < 3; k++) {
        mem_free(r->m[k].row_ptr);
        mem_free(r->m[k].col);
        mem_free(r->m[k].coeff);
    }
    mem_free(r->coeffs);
    free(r);
}

int r1cs_builder_finish(r1cs_t **ret, r1cs_builder_t *b)
{
    if (!ret || !b)
        return -EINVAL;
    /* The builder's next, empty state is made first so that every failure
     * leaves the builder as it was. */
    r1cs_builder_t fresh;
    if (builder_reset(&fresh) < 0) {
        builder_release(&fresh);
        return -ENOMEM;
    }
    r1cs_t *r = calloc(1, sizeof(*r));
    if (!r) {
        builder_release(&fresh);
        return -ENOMEM;
    }
    r->num_inputs = b->num_inputs;
    r->num_aux = b->num_aux;
    r->num_constraints = b->num_constraints;
    r->num_coeffs = b->num_coeffs;
    /* An array whose capacity is its size (r1cs_builder_reserve) is handed
     * over; others are copied to their exact size, so the builder's doubling
     * slack does not stay resident in the shared circuit. Allocations
     * first, then the moves that cannot fail. */
    size_t rows = b->num_constraints + 1;
    int fail = 0;
    for (int k = 0; k < 3 && !fail; k++) {
        const struct builder_matrix *m = &b->m[k];
        r1cs_matrix_t *o = &r->m[k];
        o->nnz = m->nnz;
        if (m->row_cap != rows)
            fail |= !(o->row_ptr = mem_alloc(MEM_KIND_CIRCUIT, -1, -1, rows * sizeof(uint64_t)));
        if (m->col_cap != m->nnz)
            fail |= !(o->col = mem_alloc(MEM_KIND_CIRCUIT, -1, -1, m->nnz * sizeof(uint32_t)));
        if (m->coeff_cap != m->nnz)
            fail |= !(o->coeff = mem_alloc(MEM_KIND_CIRCUIT, -1, -1, m->nnz * sizeof(uint32_t)));
    }
    if (!fail)
        fail = !(r->coeffs = dup_exact(b->coeffs, b->num_coeffs, sizeof(fr_t)));
    if (fail) {
        r1cs_free(r);
        builder_release(&fresh);
        return -ENOMEM;
    }
    for (int k = 0; k < 3; k++) {
        struct builder_matrix *m = &b->m[k];
        r1cs_matrix_t *o = &r->m[k];
        if (!o->row_ptr) {
            o->row_ptr = m->row_ptr;
            m->row_ptr = NULL;
        } else {
            memcpy(o->row_ptr, m->row_ptr, rows * sizeof(uint64_t));
        }
        if (!o->col) {
            o->col = m->col;
            m->col = NULL;
        }
        for (uint64_t i = 0; i < m->nnz; i++)
            o->col[i] = r1cs_var_index(m->col ? m->col[i] : o->col[i], b->num_inputs);
        if (!o->coeff) {
            o->coeff = m->coeff;
            m->coeff = NULL;
        } else if (m->nnz) {
            memcpy(o->coeff, m->coeff, m->nnz * sizeof(uint32_t));
        }
    }
    builder_release(b);
    *b = fresh;
    *ret = r;
    return 0;
}

/* Rows per parallel task: large enough to amortise the dispatch. */
#define EVAL_BLOCK 4096

struct eval_ctx {
    const r1cs_t *r;
    const fr_t *w;
    fr_t *out[3];
};

static void row_eval(fr_t *ret, const r1cs_t *r, const r1cs_matrix_t *m, const fr_t *w, uint64_t i)
{
    fr_t acc = FR_ZERO, t;
    for (uint64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++) {
        uint32_t ci = m->coeff[k];
        if (ci == 0) {
            fr_add(&acc, &acc, &w[m->col[k]]);
        } else {
            fr_mul(&t, &r->coeffs[ci], &w[m->col[k]]);
            fr_add(&acc, &acc, &t);
        }
    }
    *ret = acc;
}

static void eval_block(void *p, size_t blk)
{
    const struct eval_ctx *ctx = p;
    uint64_t lo = (uint64_t)blk * EVAL_BLOCK, hi = lo + EVAL_BLOCK;
    if (hi > ctx->r->num_constraints)
        hi = ctx->r->num_constraints;
    for (int k = 0; k < 3; k++) {
        if (!ctx->out[k])
            continue;
        for (uint64_t i = lo; i < hi; i++)
            row_eval(&ctx->out[k][i], ctx->r, &ctx->r->m[k], ctx->w, i);
    }
}

void r1cs_row_eval(fr_t *ret, const r1cs_t *r, enum r1cs_matrix_id which, const fr_t *w, uint64_t i)
{
    row_eval(ret, r, &r->m[which], w, i);
}

/* A tracked array of n elements of `size` bytes holding the first `used`
 * of *p, which it replaces (freed); NULL on failure, *p untouched. */
static void *move_exact(void *p, size_t used, size_t n, size_t size)
{
    if (n > SIZE_MAX / size)
        return NULL;
    void *q = mem_alloc(MEM_KIND_CIRCUIT, -1, -1, n ? n * size : 1);
    if (q && used)
        memcpy(q, p, used * size);
    return q;
}

int r1cs_grow(r1cs_t *r, uint64_t rows, uint32_t aux, const uint64_t nnz[3], const fr_t *coeffs,
              uint32_t n_coeffs, uint32_t *coeff_base)
{
    if (!r || !nnz || !coeff_base || (n_coeffs && !coeffs))
        return -EINVAL;
    if ((uint64_t)r->num_aux + aux > R1CS_MAX_VARS || (uint64_t)r->num_coeffs + n_coeffs > UINT32_MAX ||
        r->num_constraints + rows < r->num_constraints)
        return -ERANGE;
    uint64_t old_rows = r->num_constraints + 1, new_rows = old_rows + rows;
    void *fresh[3][3] = {{NULL}};
    void *cf = NULL;
    int fail = 0;
    /* allocations first, so that a failure leaves r as it was */
    for (int k = 0; k < 3 && !fail; k++) {
        const r1cs_matrix_t *m = &r->m[k];
        uint64_t total = m->nnz + nnz[k];
        fail |= !(fresh[k][0] = move_exact(m->row_ptr, old_rows, new_rows, sizeof(uint64_t)));
        fail |= !fail && !(fresh[k][1] = move_exact(m->col, m->nnz, total, sizeof(uint32_t)));
        fail |= !fail && !(fresh[k][2] = move_exact(m->coeff, m->nnz, total, sizeof(uint32_t)));
    }
    fail |= !fail && !(cf = move_exact(r->coeffs, r->num_coeffs, (size_t)r->num_coeffs + n_coeffs, sizeof(fr_t)));
    if (fail) {
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++)
                mem_free(fresh[k][j]);
        mem_free(cf);
        return -ENOMEM;
    }
    for (int k = 0; k < 3; k++) {
        r1cs_matrix_t *m = &r->m[k];
        mem_free(m->row_ptr);
        mem_free(m->col);
        mem_free(m->coeff);
        m->row_ptr = fresh[k][0];
        m->col = fresh[k][1];
        m->coeff = fresh[k][2];
        m->nnz += nnz[k];
    }
    if (n_coeffs)
        memcpy((fr_t *)cf + r->num_coeffs, coeffs, (size_t)n_coeffs * sizeof(fr_t));
    mem_free(r->coeffs);
    r->coeffs = cf;
    *coeff_base = r->num_coeffs;
    r->num_coeffs += n_coeffs;
    r->num_constraints += rows;
    r->num_aux += aux;
    return 0;
}

int r1cs_eval(fr_t *a, fr_t *b, fr_t *c, const r1cs_t *r, const fr_t *w, unsigned threads)
{
    if (!r || !w)
        return -EINVAL;
    struct eval_ctx ctx = {r, w, {a, b, c}};
    size_t blocks = (size_t)((r->num_constraints + EVAL_BLOCK - 1) / EVAL_BLOCK);
    parallel_for(blocks, threads, eval_block, &ctx);
    return 0;
}

int r1cs_is_satisfied(uint64_t *first_bad, const r1cs_t *r, const fr_t *w)
{
    if (!r || !w)
        return -EINVAL;
    for (uint64_t i = 0; i < r->num_constraints; i++) {
        fr_t a, b, c;
        row_eval(&a, r, &r->m[R1CS_A], w, i);
        row_eval(&b, r, &r->m[R1CS_B], w, i);
        row_eval(&c, r, &r->m[R1CS_C], w, i);
        fr_mul(&a, &a, &b);
        if (!fr_eq(&a, &c)) {
            if (first_bad)
                *first_bad = i;
            return 0;
        }
    }
    return 1;
}

int r1cs_density(uint64_t *bitmap, uint64_t *num_inputs_set, uint64_t *num_aux_set,
                 const r1cs_t *r, enum r1cs_matrix_id which)
{
    if (!bitmap || !r || (unsigned)which > R1CS_C)
        return -EINVAL;
    const r1cs_matrix_t *m = &r->m[which];
    size_t words = r1cs_density_words(r);
    memset(bitmap, 0, words * sizeof(uint64_t));
    for (uint64_t k = 0; k < m->nnz; k++)
        bitmap[m->col[k] / 64] |= 1ull << (m->col[k] % 64);
    uint64_t ni = 0, na = 0;
    for (size_t wi = 0; wi < words; wi++) {
        uint64_t x = bitmap[wi];
        if (!x)
            continue;
        uint64_t base = (uint64_t)wi * 64;
        /* Split the word at the input/aux boundary. */
        if (base + 64 <= r->num_inputs) {
            ni += (uint64_t)__builtin_popcountll(x);
        } else if (base >= r->num_inputs) {
            na += (uint64_t)__builtin_popcountll(x);
        } else {
            uint64_t lo_mask = (1ull << (r->num_inputs - base)) - 1;
            ni += (uint64_t)__builtin_popcountll(x & lo_mask);
            na += (uint64_t)__builtin_popcountll(x & ~lo_mask);
        }
    }
    if (num_inputs_set)
        *num_inputs_set = ni;
    if (num_aux_set)
        *num_aux_set = na;
    return 0;
}
