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
    static const char *const keys[] = {"constraints", "partitions", "depth", "challenges"};
    unsigned seen = 0;
    int range_err = 0;
    while (*s) {
        const char *eq = strchr(s, '=');
        const char *comma = strchr(s, ',');
        const char *end = comma ? comma : s + strlen(s);
        if (!eq || eq > end)
            return -EINVAL;
        unsigned k;
        for (k = 0; k < 4; k++)
            if (strlen(keys[k]) == (size_t)(eq - s) && !strncmp(s, keys[k], (size_t)(eq - s)))
                break;
        if (k == 4 || (seen & (1u << k)))
            return -EINVAL;
        seen |= 1u << k;
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

int porep_build(porep_t **ret, const porep_params_t *params)
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
    if (!p.depth) {
        unsigned d = floor_log2(p.constraints) - 6;
        p.depth = d > 20 ? 20 : d;
    }
    uint64_t per = challenge_constraints(pos, p.depth);
    /* Each challenge also brings two inputs; the ONE is one more. */
    uint64_t fit = (p.constraints - 1) / (per + 2);
    if (!p.challenges) {
        if (fit < 1 || fit > UINT32_MAX / 2)
            return -ERANGE;
        p.challenges = (unsigned)fit;
    } else if (p.challenges > fit) {
        return -ERANGE;
    }
    porep_t *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->params = p;
    c->poseidon = pos;
    uint64_t num_inputs = 1 + 2 * (uint64_t)p.challenges;
    c->chain = p.constraints - num_inputs - per * p.challenges;
    c->aux_per_level = 3 + poseidon_aux_count(pos);
    c->aux_per_challenge = 1 + p.depth * c->aux_per_level;

    r1cs_builder_t *b = NULL;
    err = r1cs_builder_new(&b);
    for (unsigned i = 0; i < p.challenges && !err; i++) {
        err = enforce_challenge(b, c);
        if (err || i > 0)
            continue;
        /* Every challenge has the first one's shape and each chain link one
         * non-zero per matrix: reserve the exact totals. */
        uint64_t nnz[3];
        for (int k = 0; k < 3; k++)
            nnz[k] = r1cs_builder_nnz(b, (enum r1cs_matrix_id)k) * p.challenges + c->chain;
        err = r1cs_builder_reserve(b, p.constraints - num_inputs, nnz);
    }
    if (!err) {
        /* z_0 = the last root (input 2 + 2(C-1)); z_{k+1} = z_k^2. */
        r1cs_term_t z = {(r1cs_var_t)(2 * p.challenges), FR_ONE};
        for (uint64_t k = 0; k < c->chain && !err; k++) {
            r1cs_var_t next;
            err = r1cs_alloc_aux(&next, b);
            r1cs_term_t tn = {next, FR_ONE};
            if (!err)
                err = r1cs_enforce(b, &z, 1, &z, 1, &tn, 1);
            z = tn;
        }
    }
    if (!err)
        err = r1cs_builder_finish(&c->r1cs, b);
    r1cs_builder_free(b);
    if (err < 0) {
        porep_free(c);
        return err;
    }
    *ret = c;
    return 0;
}

/* ---- witness --------------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

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

static int witness_run(fr_t *w, fr_t *inputs, const porep_t *c, uint64_t seed,
                       unsigned partition, unsigned threads)
{
    if (!c || (!w && !inputs) || partition >= c->params.partitions)
        return -EINVAL;
    struct wit_ctx ctx = {c, w, w ? w : inputs, seed, partition};
    ctx.inputs[0] = FR_ONE;
    parallel_for(c->params.challenges, threads, challenge_witness, &ctx);
    if (w) {
        /* The squaring chain is sequential: one squaring per constraint. */
        fr_t z = w[2 * c->params.challenges];
        fr_t *aux = w + c->r1cs->num_inputs + (uint64_t)c->params.challenges * c->aux_per_challenge;
        for (uint64_t k = 0; k < c->chain; k++) {
            fr_sqr(&z, &z);
            aux[k] = z;
        }
    }
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
