/*
 * Poseidon: parameter generation (Grain LFSR, Poseidon paper appendix F and
 * hadeshash generate_parameters_grain.sage), the permutation, hash2, and the
 * R1CS gadget. See poseidon.h.
 */
#include "prover/circuit/poseidon.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define FIELD_BITS 255

/* Grain LFSR in self-shrinking mode over an 80-bit state kept as a ring of
 * bits: bit i of the state is ring[(pos + i) % 80]. */
struct grain {
    uint8_t ring[80];
    unsigned pos;
};

static unsigned grain_step(struct grain *g)
{
    const uint8_t *s = g->ring;
    unsigned p = g->pos;
#define B(i) s[(p + (i)) % 80]
    unsigned nb = B(62) ^ B(51) ^ B(38) ^ B(23) ^ B(13) ^ B(0);
#undef B
    /* Dropping bit 0 and appending the new bit: the new bit takes the old
     * bit 0's slot, which becomes the state's last position. */
    g->ring[p] = (uint8_t)nb;
    g->pos = (p + 1) % 80;
    return nb;
}

static void grain_put(struct grain *g, unsigned *n, uint64_t v, unsigned bits)
{
    for (unsigned i = bits; i-- > 0;)
        g->ring[(*n)++] = (uint8_t)((v >> i) & 1);
}

/* Initial state: field (2 bits, 1 = GF(p)), S-box (4, 0 = x^alpha), n (12),
 * t (12), R_F (10), R_P (10), then 30 ones, most significant bit first;
 * 160 clocks are discarded. */
static void grain_init(struct grain *g, unsigned t, unsigned rf, unsigned rp)
{
    unsigned n = 0;
    g->pos = 0;
    grain_put(g, &n, 1, 2);
    grain_put(g, &n, 0, 4);
    grain_put(g, &n, FIELD_BITS, 12);
    grain_put(g, &n, t, 12);
    grain_put(g, &n, rf, 10);
    grain_put(g, &n, rp, 10);
    grain_put(g, &n, (1u << 30) - 1, 30);
    for (int i = 0; i < 160; i++)
        grain_step(g);
}

/* Self-shrinking: bits come in pairs; output the second when the first is 1. */
static unsigned grain_bit(struct grain *g)
{
    for (;;) {
        unsigned b1 = grain_step(g), b2 = grain_step(g);
        if (b1)
            return b2;
    }
}

/* FIELD_BITS bits, first bit most significant, as 4 limbs. */
static void grain_bits(uint64_t v[4], struct grain *g)
{
    memset(v, 0, 4 * sizeof(uint64_t));
    for (unsigned i = FIELD_BITS; i-- > 0;)
        v[i / 64] |= (uint64_t)grain_bit(g) << (i % 64);
}

/* Round constants: reject values >= r and draw again. */
static void grain_fr_rejecting(fr_t *ret, struct grain *g)
{
    uint64_t v[4];
    do
        grain_bits(v, g);
    while (fr_from_limbs(ret, v) < 0);
}

/* MDS x and y values: F(bits), i.e. reduced mod r (2^255 < 2r, so one
 * subtraction). */
static void grain_fr_reducing(fr_t *ret, struct grain *g)
{
    uint64_t v[4];
    grain_bits(v, g);
    if (fr_from_limbs(ret, v) < 0) {
        uint64_t borrow = 0;
        for (int i = 0; i < 4; i++) {
            uint64_t d = v[i] - FR_MODULUS[i] - borrow;
            borrow = v[i] < FR_MODULUS[i] || (v[i] == FR_MODULUS[i] && borrow);
            v[i] = d;
        }
        fr_from_limbs(ret, v);
    }
}

/*
 * The gadget's constraint shapes, the same for every instance: S-box k's
 * input u_k is a combination over the basis [ONE, in_0 .. in_{t-1},
 * x5_0 .. x5_{S-1}] (x5_m the m-th S-box output), stored sparse.
 */
struct poseidon_template {
    uint32_t *off;   /* S + 1 */
    uint32_t *basis; /* off[S] */
    fr_t *coeff;     /* off[S] */
};

static void template_free(poseidon_template_t *tp)
{
    if (!tp)
        return;
    free(tp->off);
    free(tp->basis);
    free(tp->coeff);
    free(tp);
}

/* Runs the permutation symbolically on dense basis vectors (width 1 + t + S)
 * and records each S-box input. */
static int template_build(poseidon_template_t **ret, const poseidon_params_t *p)
{
    unsigned t = p->t, S = poseidon_sboxes(p), width = 1 + t + S;
    int err = -ENOMEM;
    poseidon_template_t *tp = calloc(1, sizeof(*tp));
    fr_t *lanes = calloc((size_t)t * width, sizeof(fr_t));
    fr_t *next = calloc((size_t)t * width, sizeof(fr_t));
    if (!tp || !lanes || !next)
        goto fail;
    tp->off = calloc(S + 1, sizeof(uint32_t));
    /* An S-box input has at most width non-zeros. */
    tp->basis = malloc((size_t)S * width * sizeof(uint32_t));
    tp->coeff = malloc((size_t)S * width * sizeof(fr_t));
    if (!tp->off || !tp->basis || !tp->coeff)
        goto fail;
    for (unsigned i = 0; i < t; i++)
        lanes[i * width + 1 + i] = FR_ONE;
    unsigned k = 0, nnz = 0, rounds = p->rf + p->rp;
    for (unsigned r = 0; r < rounds; r++) {
        int full = r < p->rf / 2 || r >= p->rf / 2 + p->rp;
        for (unsigned i = 0; i < t; i++)
            fr_add(&lanes[i * width], &lanes[i * width], &p->rc[r * t + i]);
        for (unsigned i = 0; i < (full ? t : 1); i++) {
            fr_t *l = &lanes[i * width];
            for (unsigned j = 0; j < width; j++) {
                if (fr_is_zero(&l[j]))
                    continue;
                tp->basis[nnz] = j;
                tp->coeff[nnz++] = l[j];
            }
            tp->off[++k] = nnz;
            memset(l, 0, width * sizeof(fr_t));
            l[1 + t + (k - 1)] = FR_ONE;
        }
        for (unsigned i = 0; i < t; i++) {
            fr_t *o = &next[i * width];
            memset(o, 0, width * sizeof(fr_t));
            for (unsigned j = 0; j < t; j++) {
                const fr_t *m = &p->mds[i * t + j];
                const fr_t *l = &lanes[j * width];
                for (unsigned c = 0; c < width; c++) {
                    if (fr_is_zero(&l[c]))
                        continue;
                    fr_t x;
                    fr_mul(&x, m, &l[c]);
                    fr_add(&o[c], &o[c], &x);
                }
            }
        }
        memcpy(lanes, next, (size_t)t * width * sizeof(fr_t));
    }
    *ret = tp;
    tp = NULL;
    err = 0;
fail:
    template_free(tp);
    free(lanes);
    free(next);
    return err;
}

void poseidon_params_free(poseidon_params_t *p)
{
    if (!p)
        return;
    free(p->rc);
    free(p->mds);
    template_free(p->tmpl);
    free(p);
}

int poseidon_params_new(poseidon_params_t **ret, unsigned t, unsigned rf, unsigned rp)
{
    if (!ret || t < 2 || t > 16 || rf < 2 || rf % 2 || rf > 1023 || rp > 1023)
        return -EINVAL;
    poseidon_params_t *p = calloc(1, sizeof(*p));
    if (!p)
        return -ENOMEM;
    p->t = t;
    p->rf = rf;
    p->rp = rp;
    size_t nrc = (size_t)(rf + rp) * t;
    p->rc = malloc(nrc * sizeof(fr_t));
    p->mds = malloc((size_t)t * t * sizeof(fr_t));
    fr_t *xy = malloc(2 * (size_t)t * sizeof(fr_t));
    if (!p->rc || !p->mds || !xy)
        goto nomem;
    struct grain g;
    grain_init(&g, t, rf, rp);
    for (size_t i = 0; i < nrc; i++)
        grain_fr_rejecting(&p->rc[i], &g);
    /* create_mds_p: 2t elements, redrawn while any repeats or x_i + y_j = 0. */
    for (;;) {
        int ok = 1;
        for (;;) {
            for (unsigned i = 0; i < 2 * t; i++)
                grain_fr_reducing(&xy[i], &g);
            int dup = 0;
            for (unsigned i = 0; i < 2 * t && !dup; i++)
                for (unsigned j = i + 1; j < 2 * t && !dup; j++)
                    dup = fr_eq(&xy[i], &xy[j]);
            if (!dup)
                break;
        }
        for (unsigned i = 0; i < t && ok; i++) {
            for (unsigned j = 0; j < t; j++) {
                fr_t s;
                fr_add(&s, &xy[i], &xy[t + j]);
                if (fr_is_zero(&s)) {
                    ok = 0;
                    break;
                }
                p->mds[i * t + j] = s;
            }
        }
        if (ok)
            break;
    }
    free(xy);
    xy = NULL;
    fr_t *inv = malloc((size_t)t * t * sizeof(fr_t));
    if (!inv)
        goto nomem;
    fr_batch_inv(inv, p->mds, (size_t)t * t);
    memcpy(p->mds, inv, (size_t)t * t * sizeof(fr_t));
    free(inv);
    if (template_build(&p->tmpl, p) < 0)
        goto nomem;
    *ret = p;
    return 0;
nomem:
    free(xy);
    poseidon_params_free(p);
    return -ENOMEM;
}

static pthread_once_t t3_once = PTHREAD_ONCE_INIT;
static poseidon_params_t *t3_params;

static void t3_make(void)
{
    if (poseidon_params_new(&t3_params, POSEIDON_T3, POSEIDON_T3_RF, POSEIDON_T3_RP) < 0)
        t3_params = NULL;
}

int poseidon_params_t3(const poseidon_params_t **ret)
{
    if (!ret)
        return -EINVAL;
    pthread_once(&t3_once, t3_make);
    if (!t3_params)
        return -ENOMEM;
    *ret = t3_params;
    return 0;
}

static void sbox(fr_t *x2, fr_t *x4, fr_t *x5, const fr_t *u)
{
    fr_sqr(x2, u);
    fr_sqr(x4, x2);
    fr_mul(x5, x4, u);
}

/* The permutation (paper, section 2: ARK, S-box layer, MDS per round; the
 * first and last R_F/2 rounds full), recording S-box values when aux is not
 * NULL. t <= 16 keeps the state on the stack small. */
static void permute(fr_t *state, fr_t *aux, const poseidon_params_t *p)
{
    unsigned t = p->t, rounds = p->rf + p->rp;
    fr_t tmp[16];
    for (unsigned r = 0; r < rounds; r++) {
        int full = r < p->rf / 2 || r >= p->rf / 2 + p->rp;
        for (unsigned i = 0; i < t; i++)
            fr_add(&state[i], &state[i], &p->rc[r * t + i]);
        for (unsigned i = 0; i < (full ? t : 1); i++) {
            fr_t x2, x4;
            sbox(&x2, &x4, &state[i], &state[i]);
            if (aux) {
                aux[0] = x2;
                aux[1] = x4;
                aux[2] = state[i];
                aux += 3;
            }
        }
        for (unsigned i = 0; i < t; i++) {
            fr_t acc = FR_ZERO, x;
            for (unsigned j = 0; j < t; j++) {
                fr_mul(&x, &p->mds[i * t + j], &state[j]);
                fr_add(&acc, &acc, &x);
            }
            tmp[i] = acc;
        }
        memcpy(state, tmp, t * sizeof(fr_t));
    }
}

void poseidon_permute(fr_t *state, const poseidon_params_t *p)
{
    permute(state, NULL, p);
}

void poseidon_witness(fr_t *aux, fr_t *out, const poseidon_params_t *p, const fr_t *in)
{
    fr_t st[16];
    memcpy(st, in, p->t * sizeof(fr_t));
    permute(st, aux, p);
    if (out)
        memcpy(out, st, p->t * sizeof(fr_t));
}

int poseidon_hash2(fr_t *out, const fr_t *a, const fr_t *b)
{
    const poseidon_params_t *p;
    int err = poseidon_params_t3(&p);
    if (err < 0)
        return err;
    fr_t st[3];
    fr_from_u64(&st[0], POSEIDON_HASH2_TAG);
    st[1] = *a;
    st[2] = *b;
    permute(st, NULL, p);
    *out = st[1];
    return 0;
}

int poseidon_enforce(r1cs_term_t *out, r1cs_var_t *first_aux, r1cs_builder_t *b,
                     const poseidon_params_t *p, const r1cs_term_t *const *in, const size_t *in_n)
{
    if (!out || !first_aux || !b || !p || !in || !in_n)
        return -EINVAL;
    unsigned t = p->t, S = poseidon_sboxes(p);
    size_t max_terms = 1 + S;
    for (unsigned i = 0; i < t; i++) {
        if (in_n[i] && !in[i])
            return -EINVAL;
        max_terms += in_n[i];
    }
    r1cs_var_t x;
    int err = r1cs_alloc_aux_n(&x, b, 3 * S);
    if (err < 0)
        return err;
    r1cs_term_t *u = malloc(max_terms * sizeof(*u));
    if (!u)
        return -ENOMEM;
    const poseidon_template_t *tp = p->tmpl;
    for (unsigned k = 0; k < S && !err; k++) {
        size_t n = 0;
        for (uint32_t e = tp->off[k]; e < tp->off[k + 1]; e++) {
            uint32_t j = tp->basis[e];
            const fr_t *c = &tp->coeff[e];
            if (j == 0) {
                u[n++] = (r1cs_term_t){R1CS_ONE, *c};
            } else if (j <= t) {
                for (size_t q = 0; q < in_n[j - 1]; q++) {
                    u[n].var = in[j - 1][q].var;
                    fr_mul(&u[n++].coeff, c, &in[j - 1][q].coeff);
                }
            } else {
                u[n++] = (r1cs_term_t){x + 3 * (j - 1 - t) + 2, *c};
            }
        }
        r1cs_term_t x2 = {x + 3 * k, FR_ONE}, x4 = {x + 3 * k + 1, FR_ONE},
                    x5 = {x + 3 * k + 2, FR_ONE};
        err = r1cs_enforce(b, u, n, u, n, &x2, 1);
        if (!err)
            err = r1cs_enforce(b, &x2, 1, &x2, 1, &x4, 1);
        if (!err)
            err = r1cs_enforce(b, &x4, 1, u, n, &x5, 1);
    }
    free(u);
    if (err < 0)
        return err;
    /* The last round is full: its t S-box outputs are the last t. */
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++)
            out[i * t + j] = (r1cs_term_t){x + 3 * (S - t + j) + 2, p->mds[i * t + j]};
    *first_aux = x;
    return 0;
}
