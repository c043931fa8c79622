/*
 * The `porep` circuit family: spec parsing, the shared constraint system
 * and per-partition witnesses. See porep.h for the circuit's shape.
 */
#include "prover/circuit/porep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prover/mem.h"
#include "prover/parallel.h"

/* ---- spec ---------------------------------------------------------------- */

/* Decimal digits only in [s, end): -EINVAL malformed, -ERANGE overflow. */
static int parse_decimal(uint64_t *ret, const char *s, const char *end)
{
    if (s == end)
        return -EINVAL;
    uint64_t v = 0;
    for (const char *p = s; p < end; p++) {
        if (*p < '0' || *p > '9')
            return -EINVAL;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
    }
    *ret = v;
    return 0;
}

/* A decimal integer or 2^N (N decimal) in [s, end). */
static int parse_number(uint64_t *ret, const char *s, const char *end)
{
    if (end - s >= 2 && s[0] == '2' && s[1] == '^') {
        uint64_t n;
        int err = parse_decimal(&n, s + 2, end);
        if (err < 0)
            return err;
        if (n > 63)
            return -ERANGE;
        *ret = 1ull << n;
        return 0;
    }
    return parse_decimal(ret, s, end);
}

int porep_parse_spec(porep_params_t *ret, const char *spec)
{
    if (!ret || !spec)
        return -EINVAL;
    static const char prefix[] = "porep";
    if (strncmp(spec, prefix, sizeof(prefix) - 1) != 0)
        return -EINVAL;
    const char *s = spec + sizeof(prefix) - 1;
    porep_params_t p = {POREP_DEFAULT_CONSTRAINTS, POREP_DEFAULT_PARTITIONS, 0, 0};
    if (*s == '\0') {
        *ret = p;
        return 0;
    }
    if (*s++ != ':')
        return -EINVAL;
    static const char *const keys[] = {"constraints", "partitions", "depth", "challenges", "preset"};
    unsigned seen = 0;
    int range_err = 0;
    while (*s) {
        const char *eq = strchr(s, '=');
        const char *comma = strchr(s, ',');
        const char *end = comma ? comma : s + strlen(s);
        if (!eq || eq > end)
            return -EINVAL;
        unsigned k;
        for (k = 0; k < 5; k++)
            if (strlen(keys[k]) == (size_t)(eq - s) && !strncmp(s, keys[k], (size_t)(eq - s)))
                break;
        if (k == 5 || (seen & (1u << k)))
            return -EINVAL;
        seen |= 1u << k;
        if (k == 4) {
            /* a named production shape; "constraints" may not also be given */
            if ((size_t)(end - eq - 1) != 3 || strncmp(eq + 1, "32g", 3) != 0 || (seen & 1u))
                return -EINVAL;
            p.constraints = POREP_PRESET_32G_TARGET;
            if (!comma)
                break;
            s = comma + 1;
            if (!*s)
                return -EINVAL; /* trailing comma */
            continue;
        }
        if (k == 0 && (seen & (1u << 4)))
            return -EINVAL;
        uint64_t v;
        int err = parse_number(&v, eq + 1, end);
        if (err == -EINVAL)
            return err;
        /* Range errors are reported after the whole text parsed, so that a
         * malformed spec is always -EINVAL. */
        if (err < 0) {
            range_err = err;
            v = 0;
        }
        switch (k) {
        case 0:
            if (v < POREP_MIN_CONSTRAINTS || v > POREP_MAX_CONSTRAINTS)
                range_err = -ERANGE;
            p.constraints = v;
            break;
        case 1:
            if (v < 1 || v > POREP_MAX_PARTITIONS)
                range_err = -ERANGE;
            p.partitions = (unsigned)v;
            break;
        case 2:
            if (v < 1 || v > POREP_MAX_DEPTH)
                range_err = -ERANGE;
            p.depth = (unsigned)v;
            break;
        default:
            if (v < 1 || v > UINT32_MAX)
                range_err = -ERANGE;
            p.challenges = (unsigned)v;
            break;
        }
        if (!comma)
            break;
        s = comma + 1;
        if (!*s)
            return -EINVAL; /* trailing comma */
    }
    if (range_err)
        return range_err;
    *ret = p;
    return 0;
}

/* ---- circuit --------------------------------------------------------------- */

static unsigned floor_log2(uint64_t x)
{
    return 63u - (unsigned)__builtin_clzll(x);
}

/* Constraints of one challenge of depth d. */
static uint64_t challenge_constraints(const poseidon_params_t *pos, unsigned d)
{
    return (uint64_t)d * (2 + poseidon_aux_count(pos)) + 2;
}

void porep_free(porep_t *c)
{
    if (!c)
        return;
    r1cs_free(c->r1cs);
    free(c);
}

/* One Merkle path: leaf to root_c, the index packed from the bits. */
static int enforce_challenge(r1cs_builder_t *b, const porep_t *c)
{
    const poseidon_params_t *pos = c->poseidon;
    unsigned depth = c->params.depth;
    r1cs_var_t idx, root, leaf;
    int err = r1cs_alloc_input(&idx, b);
    if (!err)
        err = r1cs_alloc_aux(&leaf, b);
    if (err < 0)
        return err;
    fr_t one = FR_ONE, neg_one, tag;
    fr_neg(&neg_one, &one);
    fr_from_u64(&tag, POSEIDON_HASH2_TAG);
    /* cur: the running node as a combination (the leaf, then a hash lane). */
    r1cs_term_t cur[3] = {{leaf, FR_ONE}};
    size_t ncur = 1;
    r1cs_term_t out[9];
    /* Packing: sum 2^l b_l - idx; one extra slot for idx. */
    r1cs_term_t *pack = malloc((depth + 1) * sizeof(*pack));
    if (!pack)
        return -ENOMEM;
    fr_t pow2 = FR_ONE;
    for (unsigned l = 0; l < depth && !err; l++) {
        r1cs_var_t bit, sib, d, first;
        err = r1cs_alloc_aux(&bit, b);
        if (!err)
            err = r1cs_alloc_aux(&sib, b);
        if (!err)
            err = r1cs_alloc_aux(&d, b);
        if (err < 0)
            break;
        r1cs_term_t tb = {bit, FR_ONE}, td = {d, FR_ONE};
        err = r1cs_enforce(b, &tb, 1, &tb, 1, &tb, 1);
        /* s - cur; left = cur + d; right = s - d. */
        r1cs_term_t diff[4] = {{sib, FR_ONE}};
        r1cs_term_t left[4], right[2] = {{sib, FR_ONE}, {d, neg_one}};
        for (size_t i = 0; i < ncur; i++) {
            diff[1 + i].var = cur[i].var;
            fr_neg(&diff[1 + i].coeff, &cur[i].coeff);
            left[i] = cur[i];
        }
        left[ncur] = td;
        if (!err)
            err = r1cs_enforce(b, &tb, 1, diff, 1 + ncur, &td, 1);
        r1cs_term_t cap = {R1CS_ONE, tag};
        const r1cs_term_t *in[3] = {&cap, left, right};
        size_t in_n[3] = {1, ncur + 1, 2};
        if (!err)
            err = poseidon_enforce(out, &first, b, pos, in, in_n);
        /* The hash output is lane 1. */
        memcpy(cur, &out[3], 3 * sizeof(r1cs_term_t));
        ncur = 3;
        pack[l] = (r1cs_term_t){bit, pow2};
        fr_dbl(&pow2, &pow2);
    }
    if (!err) {
        pack[depth] = (r1cs_term_t){idx, neg_one};
        r1cs_term_t t1 = {R1CS_ONE, FR_ONE};
        err = r1cs_enforce(b, pack, depth + 1, &t1, 1, NULL, 0);
        if (!err)
            err = r1cs_alloc_input(&root, b);
        r1cs_term_t diff[4];
        for (size_t i = 0; i < ncur; i++)
            diff[i] = cur[i];
        diff[ncur] = (r1cs_term_t){root, neg_one};
        if (!err)
            err = r1cs_enforce(b, diff, ncur + 1, &t1, 1, NULL, 0);
    }
    free(pack);
    return err;
}

/* ---- labels ------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Index j's share of `total` split over `parts` (the first total % parts
 * get one more), and where it starts. */
static uint64_t share_len(uint64_t total, uint64_t parts, uint64_t j)
{
    return total / parts + (j < total % parts);
}

static uint64_t share_off(uint64_t total, uint64_t parts, uint64_t j)
{
    return j * (total / parts) + (j < total % parts ? j : total % parts);
}

/* A chain's place: its labels [aux0, aux0 + len) of the labels, its rows
 * the same offsets from label_row0, and its blocks. */
struct chain {
    uint64_t aux0, len, blocks;
};

static struct chain chain_get(const porep_t *c, unsigned j)
{
    struct chain ch;
    ch.aux0 = share_off(c->labels, c->chains, j);
    ch.len = share_len(c->labels, c->chains, j);
    uint64_t nb = share_len(c->blocks_asked, c->chains, j);
    if (nb > ch.len / 2)
        nb = ch.len / 2;
    ch.blocks = nb ? nb : 1;
    return ch;
}

/* The first label of the block holding label t (see porep.h): block q
 * starts at floor(q len / blocks). */
static uint64_t block_of(const struct chain *ch, uint64_t t)
{
    return ((t + 1) * ch->blocks - 1) / ch->len;
}

static uint64_t block_start(const struct chain *ch, uint64_t q)
{
    return q * ch->len / ch->blocks;
}

/* Distances d_1..d_13 of label t's parents beyond u_{t-1}: d_i in
 * [2^i, 2^(i+1)), 0 where the parent would precede the chain. Returns how
 * many exist. */
static unsigned label_parents(uint64_t d[POREP_PARENTS], unsigned chain, uint64_t t)
{
    uint64_t s = ((uint64_t)chain << 40) ^ t;
    uint64_t bits = splitmix64(&s), more = splitmix64(&s);
    unsigned used = 0, n = 0;
    for (unsigned i = 1; i < POREP_PARENTS; i++) {
        if (used + i > 64) {
            bits = more;
            used = 0;
        }
        uint64_t off = (bits >> used) & ((1ull << i) - 1);
        used += i;
        d[i] = (1ull << i) + off;
        if (d[i] <= t)
            n++;
        else
            d[i] = 0;
    }
    return n;
}

/* Non-zeros of chain j's rows in A, B and C. */
static void chain_nnz(const porep_t *c, unsigned j, uint64_t nnz[3])
{
    struct chain ch = chain_get(c, j);
    uint64_t d[POREP_PARENTS], a = 2;
    /* beyond the largest distance every parent exists */
    uint64_t full = 1ull << POREP_PARENTS;
    for (uint64_t t = 1; t < ch.len; t++)
        a += 1 + (t < full ? label_parents(d, j, t) : POREP_PARENTS - 1);
    nnz[0] = a;
    nnz[1] = 2 + (ch.len - 1);
    nnz[2] = ch.len;
}

struct label_fill {
    porep_t *c;
    uint64_t (*nnz0)[3]; /* per chain: where its non-zeros start in each matrix */
    uint32_t coeff_base; /* chain j's seed coefficient j + 2 is coeff_base + j */
};

/* Writes chain j's rows. */
static void label_fill_chain(void *p, size_t j)
{
    const struct label_fill *f = p;
    porep_t *c = f->c;
    r1cs_t *r = c->r1cs;
    struct chain ch = chain_get(c, (unsigned)j);
    uint32_t col0 = (uint32_t)(r->num_inputs + c->label_aux0 + ch.aux0);
    uint32_t seed_in = 1 + (uint32_t)(j % (r->num_inputs - 1)), seed_coeff = f->coeff_base + (uint32_t)j;
    uint64_t row0 = c->label_row0 + ch.aux0;
    uint64_t k[3] = {f->nnz0[j][0], f->nnz0[j][1], f->nnz0[j][2]};
    r1cs_matrix_t *A = &r->m[R1CS_A], *B = &r->m[R1CS_B], *C = &r->m[R1CS_C];
    for (uint64_t t = 0; t < ch.len; t++) {
        uint64_t row = row0 + t;
        if (t == 0) {
            /* (s)(s) = u_0, s = (j + 2) ONE + input */
            A->col[k[0]] = B->col[k[1]] = 0;
            A->coeff[k[0]++] = B->coeff[k[1]++] = seed_coeff;
            A->col[k[0]] = B->col[k[1]] = seed_in;
            A->coeff[k[0]++] = B->coeff[k[1]++] = 0;
        } else {
            uint64_t d[POREP_PARENTS];
            label_parents(d, (unsigned)j, t);
            for (unsigned i = POREP_PARENTS - 1; i >= 1; i--)
                if (d[i]) {
                    A->col[k[0]] = col0 + (uint32_t)(t - d[i]);
                    A->coeff[k[0]++] = 0;
                }
            A->col[k[0]] = col0 + (uint32_t)(t - 1);
            A->coeff[k[0]++] = 0;
            uint64_t q = block_of(&ch, t), start = block_start(&ch, q);
            uint64_t key = start == t ? block_start(&ch, q - 1) : start;
            B->col[k[1]] = col0 + (uint32_t)key;
            B->coeff[k[1]++] = 0;
        }
        C->col[k[2]] = col0 + (uint32_t)t;
        C->coeff[k[2]++] = 0;
        A->row_ptr[row + 1] = k[0];
        B->row_ptr[row + 1] = k[1];
        C->row_ptr[row + 1] = k[2];
    }
}

struct label_count {
    const porep_t *c;
    uint64_t (*nnz)[3];
};

static void label_count_chain(void *p, size_t j)
{
    const struct label_count *lc = p;
    chain_nnz(lc->c, (unsigned)j, lc->nnz[j]);
}

/* Appends the labels to the Merkle part's system (see porep.h). */
static int build_labels(porep_t *c)
{
    r1cs_t *r = c->r1cs;
    if (!c->labels)
        return 0;
    uint64_t (*nnz)[3] = calloc(c->chains, sizeof *nnz);
    fr_t *coeffs = malloc(c->chains * sizeof(fr_t));
    if (!nnz || !coeffs) {
        free(nnz);
        free(coeffs);
        return -ENOMEM;
    }
    struct label_count lc = {c, nnz};
    parallel_for(c->chains, 0, label_count_chain, &lc);
    uint64_t total[3] = {0, 0, 0};
    for (unsigned j = 0; j < c->chains; j++)
        for (int k = 0; k < 3; k++) {
            uint64_t n = nnz[j][k];
            nnz[j][k] = r->m[k].nnz + total[k]; /* now: where chain j starts */
            total[k] += n;
        }
    for (unsigned j = 0; j < c->chains; j++)
        fr_from_u64(&coeffs[j], (uint64_t)j + 2);
    struct label_fill f = {c, nnz, 0};
    int err = r1cs_grow(r, c->labels, (uint32_t)c->labels, total, coeffs, c->chains, &f.coeff_base);
    if (!err) {
        c->label_row0 = r->num_constraints - c->labels;
        parallel_for(c->chains, 0, label_fill_chain, &f);
    }
    free(nnz);
    free(coeffs);
    return err;
}

/* Aux variables of the Merkle part in B. */
static int merkle_b_aux(uint64_t *ret, const r1cs_t *r)
{
    uint64_t *bits = malloc(r1cs_density_words(r) * sizeof(uint64_t));
    if (!bits)
        return -ENOMEM;
    int err = r1cs_density(bits, NULL, ret, r, R1CS_B);
    free(bits);
    return err;
}

int porep_resolve(porep_params_t *ret, const porep_params_t *params)
{
    if (!ret || !params)
        return -EINVAL;
    porep_params_t p = *params;
    if (p.constraints < POREP_MIN_CONSTRAINTS || p.constraints > POREP_MAX_CONSTRAINTS ||
        p.partitions < 1 || p.partitions > POREP_MAX_PARTITIONS || p.depth > POREP_MAX_DEPTH)
        return -EINVAL;
    const poseidon_params_t *pos;
    int err = poseidon_params_t3(&pos);
    if (err < 0)
        return err;
    uint64_t per_level = 2 + poseidon_aux_count(pos);
    if (!p.depth) {
        /* a path within a quarter of the target, so labels can bring B's
         * density down to production's */
        uint64_t d = floor_log2(p.constraints) - 6, quarter = (p.constraints / 4 - 2) / per_level;
        d = d > 20 ? 20 : d;
        d = d > quarter ? quarter : d;
        p.depth = d ? (unsigned)d : 1;
    }
    /* a path's constraints, or its aux where those are more, and its two
     * inputs; the ONE is one more */
    uint64_t per = challenge_constraints(pos, p.depth), aux = 1 + p.depth * (3 + poseidon_aux_count(pos));
    uint64_t room = (aux > per ? aux : per) + 2;
    uint64_t fit = (p.constraints - 1) / room;
    if (!p.challenges) {
        uint64_t eighth = p.constraints / 8 / room;
        uint64_t n = eighth < POREP_DEFAULT_CHALLENGES ? eighth : POREP_DEFAULT_CHALLENGES;
        if (fit < 1)
            return -ERANGE;
        p.challenges = n ? (unsigned)n : 1;
    } else if (p.challenges > fit) {
        return -ERANGE;
    }
    *ret = p;
    return 0;
}

int porep_build(porep_t **ret, const porep_params_t *params)
{
    if (!ret || !params)
        return -EINVAL;
    porep_params_t p;
    int err = porep_resolve(&p, params);
    if (err < 0)
        return err;
    const poseidon_params_t *pos;
    if ((err = poseidon_params_t3(&pos)) < 0)
        return err;
    uint64_t per = challenge_constraints(pos, p.depth);
    porep_t *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->params = p;
    c->poseidon = pos;
    uint64_t num_inputs = 1 + 2 * (uint64_t)p.challenges;
    c->aux_per_level = 3 + poseidon_aux_count(pos);
    c->aux_per_challenge = 1 + p.depth * c->aux_per_level;
    /* the variables fill the target exactly, so the witness fits the
     * domain as a, b and c do (a path has D - 1 more aux than constraints) */
    uint64_t merkle = (uint64_t)p.challenges * (c->aux_per_challenge > per ? c->aux_per_challenge : per);
    c->labels = p.constraints - num_inputs - merkle;

    r1cs_builder_t *b = NULL;
    err = r1cs_builder_new(&b);
    for (unsigned i = 0; i < p.challenges && !err; i++) {
        err = enforce_challenge(b, c);
        if (err || i > 0)
            continue;
        /* Every challenge has the first one's shape: reserve the exact
         * totals, so finishing hands the arrays over. */
        uint64_t nnz[3];
        for (int k = 0; k < 3; k++)
            nnz[k] = r1cs_builder_nnz(b, (enum r1cs_matrix_id)k) * p.challenges;
        err = r1cs_builder_reserve(b, per * p.challenges, nnz);
    }
    if (!err)
        err = r1cs_builder_finish(&c->r1cs, b);
    r1cs_builder_free(b);

    /* Labels: chains of at least two, and as many blocks as bring B to
     * POREP_B_DENSITY_PPM of the aux with the Merkle part's counted. */
    uint64_t b_merkle = 0;
    if (!err)
        err = merkle_b_aux(&b_merkle, c->r1cs);
    if (!err) {
        c->label_aux0 = c->r1cs->num_aux;
        /* a chain's last label is in no A: chains of 1024 at least keep
         * A's density above 99.9 % */
        uint64_t chains = c->labels / 1024 < POREP_CHAINS ? c->labels / 1024 : POREP_CHAINS;
        c->chains = (unsigned)(chains ? chains : (c->labels ? 1 : 0));
        uint64_t aux = c->label_aux0 + c->labels;
        uint64_t target_b = (aux * POREP_B_DENSITY_PPM + 500000) / 1000000;
        uint64_t blocks = target_b > b_merkle ? target_b - b_merkle : 0;
        if (blocks < c->chains)
            blocks = c->chains;
        if (blocks > c->labels / 2)
            blocks = c->labels / 2;
        c->blocks_asked = blocks;
        c->blocks = 0;
        for (unsigned j = 0; j < c->chains; j++)
            c->blocks += chain_get(c, j).blocks;
        err = build_labels(c);
    }
    if (err < 0) {
        porep_free(c);
        return err;
    }
    *ret = c;
    return 0;
}

/* ---- witness --------------------------------------------------------------- */

/* The stream of challenge `ch` of `partition` under `seed`: each
 * coordinate passes through the mixer so nearby values give unrelated
 * streams. */
static uint64_t stream_seed(uint64_t seed, unsigned partition, unsigned ch)
{
    uint64_t s = seed;
    s = splitmix64(&s) ^ partition;
    s = splitmix64(&s) ^ ch;
    return splitmix64(&s);
}

/* Uniform in Fr: 255-bit draws below r (rejection). */
static void rand_fr(fr_t *ret, uint64_t *s)
{
    uint64_t v[4];
    do {
        for (int i = 0; i < 4; i++)
            v[i] = splitmix64(s);
        v[3] &= 0x7fffffffffffffffull;
    } while (fr_from_limbs(ret, v) < 0);
}

struct wit_ctx {
    const porep_t *c;
    fr_t *w;      /* full assignment, or NULL */
    fr_t *inputs; /* inputs (ONE first) */
    uint64_t seed;
    unsigned partition;
};

/* Challenge ch: draws index, leaf and siblings, hashes up to the root;
 * writes idx/root into inputs and, when w is set, the aux values. */
static void challenge_witness(void *p, size_t ch)
{
    const struct wit_ctx *ctx = p;
    const porep_t *c = ctx->c;
    const poseidon_params_t *pos = c->poseidon;
    unsigned depth = c->params.depth;
    uint64_t s = stream_seed(ctx->seed, ctx->partition, (unsigned)ch);
    uint64_t idx = splitmix64(&s);
    if (depth < 64)
        idx &= (1ull << depth) - 1;
    fr_t cur, in[3], out[3];
    rand_fr(&cur, &s);
    fr_t *aux = ctx->w ? ctx->w + c->r1cs->num_inputs + (uint64_t)ch * c->aux_per_challenge : NULL;
    if (aux)
        *aux++ = cur;
    fr_from_u64(&in[0], POSEIDON_HASH2_TAG);
    for (unsigned l = 0; l < depth; l++) {
        fr_t sib, d, bit = (idx >> l) & 1 ? FR_ONE : FR_ZERO;
        rand_fr(&sib, &s);
        fr_sub(&d, &sib, &cur);
        fr_mul(&d, &d, &bit);
        fr_add(&in[1], &cur, &d);
        fr_sub(&in[2], &sib, &d);
        if (aux) {
            aux[0] = bit;
            aux[1] = sib;
            aux[2] = d;
            poseidon_witness(aux + 3, out, pos, in);
            aux += c->aux_per_level;
        } else {
            memcpy(out, in, sizeof(in));
            poseidon_permute(out, pos);
        }
        cur = out[1];
    }
    fr_from_u64(&ctx->inputs[1 + 2 * ch], idx);
    ctx->inputs[2 + 2 * ch] = cur;
}

/* Chain j's labels, in order: each row's A and B from the labels before. */
static void label_witness(void *p, size_t j)
{
    const struct wit_ctx *ctx = p;
    const porep_t *c = ctx->c;
    const r1cs_t *r = c->r1cs;
    struct chain ch = chain_get(c, (unsigned)j);
    fr_t *u = ctx->w + r->num_inputs + c->label_aux0 + ch.aux0;
    uint64_t row = c->label_row0 + ch.aux0;
    for (uint64_t t = 0; t < ch.len; t++, row++) {
        fr_t a, b;
        r1cs_row_eval(&a, r, R1CS_A, ctx->w, row);
        r1cs_row_eval(&b, r, R1CS_B, ctx->w, row);
        fr_mul(&u[t], &a, &b);
    }
}

static int witness_run(fr_t *w, fr_t *inputs, const porep_t *c, uint64_t seed,
                       unsigned partition, unsigned threads)
{
    if (!c || (!w && !inputs) || partition >= c->params.partitions)
        return -EINVAL;
    struct wit_ctx ctx = {c, w, w ? w : inputs, seed, partition};
    ctx.inputs[0] = FR_ONE;
    parallel_for(c->params.challenges, threads, challenge_witness, &ctx);
    if (w)
        parallel_for(c->chains, threads, label_witness, &ctx);
    return 0;
}

int porep_witness(fr_t *w, const porep_t *c, uint64_t seed, unsigned partition, unsigned threads)
{
    if (!w)
        return -EINVAL;
    return witness_run(w, NULL, c, seed, partition, threads);
}

int porep_public_inputs(fr_t *inputs, const porep_t *c, uint64_t seed, unsigned partition,
                        unsigned threads)
{
    if (!inputs)
        return -EINVAL;
    return witness_run(NULL, inputs, c, seed, partition, threads);
}

int porep_witness_alloc(fr_t **ret, const porep_t *c, uint64_t seed, int proof,
                        unsigned partition, unsigned threads)
{
    if (!ret || !c || partition >= c->params.partitions)
        return -EINVAL;
    fr_t *w = mem_alloc(MEM_KIND_AUX, proof, (int)partition, porep_num_vars(c) * sizeof(fr_t));
    if (!w)
        return -ENOMEM;
    int err = porep_witness(w, c, seed, partition, threads);
    if (err < 0) {
        mem_free(w);
        return err;
    }
    *ret = w;
    return 0;
}
