/*
 * The porep circuit: spec parsing (accepted and rejected texts), sizes
 * against the target, the shared system satisfied by every partition's
 * witness, reproducibility and distinctness of witnesses, tampering
 * detected, and each Merkle root recomputed outside the circuit by folding
 * poseidon_hash2 over the witness's leaf and siblings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prover/circuit/porep.h"
#include "prover/mem.h"
#include "tests/common.h"

static void test_spec(void)
{
    porep_params_t p;
    CHECK(porep_parse_spec(&p, "porep") == 0);
    CHECK(p.constraints == 1u << 16 && p.partitions == 10 && p.depth == 0 && p.challenges == 0);
    CHECK(porep_parse_spec(&p, "porep:") == 0 && p.constraints == 1u << 16);
    CHECK(porep_parse_spec(&p, "porep:constraints=2^16") == 0);
    CHECK(p.constraints == 65536 && p.partitions == 10);
    CHECK(porep_parse_spec(&p, "porep:constraints=2^10") == 0 && p.constraints == 1024);
    CHECK(porep_parse_spec(&p, "porep:constraints=2^27") == 0 && p.constraints == 1u << 27);
    CHECK(porep_parse_spec(&p, "porep:constraints=134217728") == 0 && p.constraints == 1u << 27);
    CHECK(porep_parse_spec(&p, "porep:constraints=5000,partitions=3") == 0);
    CHECK(p.constraints == 5000 && p.partitions == 3);
    CHECK(porep_parse_spec(&p, "porep:partitions=1,depth=2,challenges=1,constraints=1024") == 0);
    CHECK(p.constraints == 1024 && p.partitions == 1 && p.depth == 2 && p.challenges == 1);
    CHECK(porep_parse_spec(&p, "porep:partitions=1024") == 0 && p.partitions == 1024);
    CHECK(porep_parse_spec(&p, "porep:depth=32") == 0 && p.depth == 32);
    CHECK(porep_parse_spec(&p, "porep:preset=32g") == 0);
    CHECK(p.constraints == POREP_PRESET_32G_TARGET && p.partitions == 10 && p.depth == 0 && p.challenges == 0);
    CHECK(porep_parse_spec(&p, "porep:partitions=1,preset=32g") == 0);
    CHECK(p.constraints == POREP_PRESET_32G_TARGET && p.partitions == 1);

    static const char *const malformed[] = {
        "", "pore", "porepx", "Porep", "porep;constraints=2^16", "porep:constraints",
        "porep:constraints=", "porep:constraints=2^", "porep:constraints=abc",
        "porep:constraints=12a", "porep:constraints=-5", "porep:constraints=+5",
        "porep:constraints=2^ 16", "porep:constraints= 2^16", "porep:constraints=2^2^3",
        "porep:constraints=0x400", "porep:foo=1", "porep:Constraints=1024",
        "porep:constraints=2^16,constraints=2^16", "porep:constraints=2^16,", "porep:,",
        "porep:=5", "porep:constraints=2^16,,partitions=2", "porep:constraints=2^16=5",
        "porep:partitions", "porep:constraints=2^99,foo=1", "porep:preset=", "porep:preset=64g",
        "porep:preset=32G", "porep:preset=32gg", "porep:preset=32g,constraints=2^20",
        "porep:constraints=2^20,preset=32g", "porep:preset=32g,preset=32g", "porep:preset=32g,",
    };
    porep_params_t keep;
    memset(&keep, 0, sizeof(keep)); /* padding too: compared with memcmp */
    keep.constraints = 1;
    keep.partitions = 2;
    keep.depth = 3;
    keep.challenges = 4;
    for (size_t i = 0; i < sizeof(malformed) / sizeof(*malformed); i++) {
        porep_params_t q;
        memcpy(&q, &keep, sizeof(q));
        int err = porep_parse_spec(&q, malformed[i]);
        if (!CHECK(err == -EINVAL))
            fprintf(stderr, "  spec \"%s\" gave %d\n", malformed[i], err);
        CHECK(memcmp(&q, &keep, sizeof(q)) == 0);
    }
    static const char *const range[] = {
        "porep:constraints=2^9", "porep:constraints=2^28", "porep:constraints=1023",
        "porep:constraints=134217729", "porep:constraints=0", "porep:constraints=2^64",
        "porep:constraints=2^18446744073709551616", "porep:constraints=99999999999999999999999",
        "porep:partitions=0", "porep:partitions=1025", "porep:depth=0", "porep:depth=33",
        "porep:challenges=0", "porep:challenges=4294967296",
    };
    for (size_t i = 0; i < sizeof(range) / sizeof(*range); i++) {
        porep_params_t q;
        memcpy(&q, &keep, sizeof(q));
        int err = porep_parse_spec(&q, range[i]);
        if (!CHECK(err == -ERANGE))
            fprintf(stderr, "  spec \"%s\" gave %d\n", range[i], err);
        CHECK(memcmp(&q, &keep, sizeof(q)) == 0);
    }
    CHECK(porep_parse_spec(NULL, "porep") == -EINVAL);
    CHECK(porep_parse_spec(&p, NULL) == -EINVAL);
}

/* Folds poseidon_hash2 from challenge c's leaf with the witness's siblings
 * and the bits of the public index; returns 1 when it gives the public
 * root. */
static int root_matches(const porep_t *c, const fr_t *w, unsigned ch)
{
    const fr_t *aux = w + c->r1cs->num_inputs + (uint64_t)ch * c->aux_per_challenge;
    uint64_t idx[4];
    fr_to_limbs(idx, &w[1 + 2 * ch]);
    fr_t cur = aux[0];
    for (unsigned l = 0; l < c->params.depth; l++) {
        const fr_t *sib = &aux[1 + (uint64_t)l * c->aux_per_level + 1];
        int right = (int)((idx[0] >> l) & 1);
        if (poseidon_hash2(&cur, right ? sib : &cur, right ? &cur : sib) < 0)
            return 0;
    }
    return fr_eq(&cur, &w[2 + 2 * ch]);
}

/* The system's CSR invariants: row pointers from 0 to nnz, columns
 * strictly increasing within a row and below the variable count,
 * coefficient indices in the table. */
static int csr_valid(const r1cs_t *r)
{
    uint64_t nv = r1cs_num_vars(r);
    for (int k = 0; k < 3; k++) {
        const r1cs_matrix_t *m = &r->m[k];
        if (m->row_ptr[0] != 0 || m->row_ptr[r->num_constraints] != m->nnz)
            return 0;
        for (uint64_t i = 0; i < r->num_constraints; i++) {
            if (m->row_ptr[i + 1] < m->row_ptr[i])
                return 0;
            for (uint64_t j = m->row_ptr[i]; j < m->row_ptr[i + 1]; j++)
                if (m->col[j] >= nv || m->coeff[j] >= r->num_coeffs ||
                    (j > m->row_ptr[i] && m->col[j] <= m->col[j - 1]))
                    return 0;
        }
    }
    return 1;
}

/* Share of the aux variables with a non-zero in matrix k. */
static double aux_density(const r1cs_t *r, enum r1cs_matrix_id k)
{
    uint64_t *bits = malloc(r1cs_density_words(r) * sizeof(uint64_t)), aux = 0;
    CHECK(bits && r1cs_density(bits, NULL, &aux, r, k) == 0);
    free(bits);
    return (double)aux / (double)r->num_aux;
}

static void test_circuit(unsigned log_target)
{
    porep_params_t prm = {1ull << log_target, 4, 0, 0};
    porep_t *c;
    CHECK(porep_build(&c, &prm) == 0);
    const r1cs_t *r = c->r1cs;
    uint64_t target = 1ull << log_target;
    unsigned d = c->params.depth, ch = c->params.challenges;
    /* The variables fill the target exactly; constraints and inputs fall
     * short by the paths' extra aux (D - 1 each). */
    CHECK(porep_num_vars(c) == target);
    CHECK(r->num_constraints + r->num_inputs == target - (uint64_t)ch * (d - 1));
    /* Depth: log2 - 6, at most 20, a path within a quarter of the target. */
    unsigned want_d = log_target - 6 > 20 ? 20 : log_target - 6;
    while (want_d > 1 && (uint64_t)want_d * 245 + 2 > target / 4)
        want_d--;
    CHECK(d == want_d);
    uint64_t per = (uint64_t)d * 245 + 2, room = (uint64_t)d * 246 + 1 + 2;
    /* Challenges: production's 163, within an eighth of the target. */
    uint64_t want_ch = target / 8 / room < POREP_DEFAULT_CHALLENGES ? target / 8 / room : POREP_DEFAULT_CHALLENGES;
    CHECK(ch == (want_ch ? want_ch : 1));
    CHECK(r->num_inputs == 1 + 2 * ch);
    CHECK(r->num_constraints == per * ch + c->labels);
    CHECK(r->num_aux == (uint64_t)ch * c->aux_per_challenge + c->labels);
    CHECK(c->label_row0 == per * ch && c->label_aux0 == (uint64_t)ch * c->aux_per_challenge);
    CHECK(csr_valid(r));
    /* Production's densities: A over >= 99 % of the aux, B 25.4 % +- 2. */
    double da = aux_density(r, R1CS_A), db = aux_density(r, R1CS_B);
    if (!CHECK(da >= 0.99 && db >= 0.234 && db <= 0.274))
        fprintf(stderr, "  2^%u: A %.4f B %.4f of the aux\n", log_target, da, db);
    /* A label row: at most 14 parents in A, one key in B, itself in C. */
    for (uint64_t i = c->label_row0 + 1; i < r->num_constraints; i++) {
        uint64_t na = r->m[R1CS_A].row_ptr[i + 1] - r->m[R1CS_A].row_ptr[i];
        uint64_t nb = r->m[R1CS_B].row_ptr[i + 1] - r->m[R1CS_B].row_ptr[i];
        uint64_t nc = r->m[R1CS_C].row_ptr[i + 1] - r->m[R1CS_C].row_ptr[i];
        if (na < 1 || na > POREP_PARENTS || nb < 1 || nb > 2 || nc != 1) {
            CHECK(0);
            fprintf(stderr, "  2^%u: label row %llu has %llu/%llu/%llu terms\n", log_target,
                    (unsigned long long)i, (unsigned long long)na, (unsigned long long)nb,
                    (unsigned long long)nc);
            break;
        }
    }

    uint64_t nv = porep_num_vars(c);
    fr_t *w[3];
    uint64_t seed = test_rand_u64();
    unsigned parts[3] = {0, 1 + (unsigned)test_rand_below(3), 0};
    for (int i = 0; i < 3; i++) {
        w[i] = malloc(nv * sizeof(fr_t));
        /* w[2]: same partition as w[0], other seed. */
        uint64_t s = i == 2 ? seed + 1 : seed;
        CHECK(porep_witness(w[i], c, s, parts[i], 1 + (unsigned)test_rand_below(3)) == 0);
        uint64_t bad = 0;
        int sat = r1cs_is_satisfied(&bad, r, w[i]);
        if (!CHECK(sat == 1))
            fprintf(stderr, "  2^%u: witness %d fails row %llu\n", log_target, i,
                    (unsigned long long)bad);
        unsigned roots_ok = 0;
        for (unsigned k = 0; k < c->params.challenges; k++)
            roots_ok += (unsigned)root_matches(c, w[i], k);
        CHECK(roots_ok == c->params.challenges);
    }
    /* Different partitions / seeds: different inputs and witnesses. */
    CHECK(memcmp(w[0] + 1, w[1] + 1, (r->num_inputs - 1) * sizeof(fr_t)) != 0);
    CHECK(memcmp(w[0] + 1, w[2] + 1, (r->num_inputs - 1) * sizeof(fr_t)) != 0);
    CHECK(memcmp(w[0] + r->num_inputs, w[1] + r->num_inputs, r->num_aux * sizeof(fr_t)) != 0);
    /* Reproducible, whatever the thread count; public inputs agree. */
    fr_t *again = malloc(nv * sizeof(fr_t));
    CHECK(porep_witness(again, c, seed, parts[1], 4) == 0);
    CHECK(memcmp(again, w[1], nv * sizeof(fr_t)) == 0);
    fr_t *inputs = malloc(r->num_inputs * sizeof(fr_t));
    CHECK(porep_public_inputs(inputs, c, seed, parts[1], 2) == 0);
    CHECK(memcmp(inputs, w[1], r->num_inputs * sizeof(fr_t)) == 0);
    /* Challenge indices fit the tree. */
    uint64_t limbs[4];
    fr_to_limbs(limbs, &inputs[1]);
    CHECK(limbs[1] == 0 && limbs[0] < (1ull << c->params.depth));

    /* Tampering: a random aux value, a challenge index, a root. */
    uint64_t bad;
    for (int n = 0; n < 4; n++) {
        memcpy(again, w[1], nv * sizeof(fr_t));
        uint64_t k = r->num_inputs + test_rand_below(r->num_aux);
        if (n == 1)
            k = r->num_inputs + test_rand_below(c->aux_per_challenge); /* first path */
        if (n == 2)
            k = 1 + 2 * test_rand_below(c->params.challenges); /* an index */
        if (n == 3)
            k = 2 + 2 * test_rand_below(c->params.challenges); /* a root */
        fr_add(&again[k], &again[k], &FR_ONE);
        CHECK(r1cs_is_satisfied(&bad, r, again) == 0);
    }
    /* A label: its own row is the first to fail (rows come in the order
     * labels are solved); the last label is the last row. */
    if (c->labels) {
        memcpy(again, w[1], nv * sizeof(fr_t));
        fr_add(&again[nv - 1], &again[nv - 1], &FR_ONE);
        CHECK(r1cs_is_satisfied(&bad, r, again) == 0 && bad == r->num_constraints - 1);
        memcpy(again, w[1], nv * sizeof(fr_t));
        uint64_t t = test_rand_below(c->labels);
        fr_add(&again[r->num_inputs + c->label_aux0 + t], &again[r->num_inputs + c->label_aux0 + t], &FR_ONE);
        CHECK(r1cs_is_satisfied(&bad, r, again) == 0 && bad == c->label_row0 + t);
    }
    /* Labels are not degenerate: none is 0, and different partitions'
     * last labels differ. */
    unsigned zeros = 0;
    for (uint64_t t = 0; t < c->labels; t++)
        zeros += fr_is_zero(&w[1][r->num_inputs + c->label_aux0 + t]);
    CHECK(zeros == 0);

    /* Tracked witness buffer. */
    fr_t *wa = NULL;
    uint64_t before = mem_live_bytes(MEM_KIND_AUX);
    CHECK(porep_witness_alloc(&wa, c, seed, 7, parts[1], 2) == 0);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == before + nv * sizeof(fr_t));
    CHECK(wa && memcmp(wa, w[1], nv * sizeof(fr_t)) == 0);
    mem_free(wa);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == before);

    /* Bad partition and arguments. */
    CHECK(porep_witness(again, c, seed, 4, 1) == -EINVAL);
    CHECK(porep_witness(NULL, c, seed, 0, 1) == -EINVAL);
    CHECK(porep_witness(again, NULL, seed, 0, 1) == -EINVAL);
    CHECK(porep_public_inputs(NULL, c, seed, 0, 1) == -EINVAL);
    CHECK(porep_public_inputs(inputs, c, seed, 4, 1) == -EINVAL);
    CHECK(porep_witness_alloc(&wa, c, seed, 0, 4, 1) == -EINVAL);
    CHECK(porep_witness_alloc(NULL, c, seed, 0, 0, 1) == -EINVAL);

    for (int i = 0; i < 3; i++)
        free(w[i]);
    free(again);
    free(inputs);
    porep_free(c);
}

/* Explicit depth and challenges; a non-power-of-two target. */
static void test_explicit(void)
{
    porep_params_t prm = {5000, 2, 3, 2};
    porep_t *c;
    CHECK(porep_build(&c, &prm) == 0);
    CHECK(c->params.depth == 3 && c->params.challenges == 2);
    CHECK(porep_num_vars(c) == 5000);
    fr_t *w = malloc(porep_num_vars(c) * sizeof(fr_t));
    CHECK(porep_witness(w, c, test_rand_u64(), 1, 2) == 0);
    CHECK(r1cs_is_satisfied(NULL, c->r1cs, w) == 1);
    CHECK(root_matches(c, w, 0) && root_matches(c, w, 1));
    free(w);
    porep_free(c);

    /* Depth 1 (one hash per path). */
    porep_params_t one = {1024, 1, 1, 1};
    CHECK(porep_build(&c, &one) == 0);
    w = malloc(porep_num_vars(c) * sizeof(fr_t));
    CHECK(porep_witness(w, c, 1, 0, 1) == 0);
    CHECK(r1cs_is_satisfied(NULL, c->r1cs, w) == 1 && root_matches(c, w, 0));
    free(w);
    porep_free(c);

    porep_t *keep = (porep_t *)&keep;
    c = keep;
    porep_params_t bad[] = {
        {1023, 1, 0, 0}, {(1ull << 27) + 1, 1, 0, 0}, {1024, 0, 0, 0}, {1024, 1025, 0, 0},
        {1024, 1, 33, 0},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
        CHECK(porep_build(&c, &bad[i]) == -EINVAL);
    /* Does not fit: depth 5 needs 1227 > 1024; 5 challenges of depth 4. */
    porep_params_t nofit[] = {{1024, 1, 5, 0}, {1024, 1, 4, 2}, {1 << 12, 1, 0, 5}};
    for (size_t i = 0; i < sizeof(nofit) / sizeof(*nofit); i++)
        CHECK(porep_build(&c, &nofit[i]) == -ERANGE);
    CHECK(porep_build(NULL, &prm) == -EINVAL);
    CHECK(porep_build(&c, NULL) == -EINVAL);
    CHECK(c == keep);
    porep_free(NULL);
}

/* The production preset, resolved without building it (18 GiB of CSR). */
static void test_preset(void)
{
    porep_params_t p, q;
    CHECK(porep_parse_spec(&p, "porep:preset=32g") == 0);
    CHECK(porep_resolve(&q, &p) == 0);
    CHECK(q.constraints == POREP_PRESET_32G_TARGET && q.partitions == 10);
    CHECK(q.depth == 20 && q.challenges == POREP_DEFAULT_CHALLENGES);
    /* 1 + 2 x 163 = 327 inputs, about production's 328 */
    CHECK(1 + 2 * q.challenges == 327);
    porep_params_t bad = {1ull << 20, 1, 20, 1000};
    CHECK(porep_resolve(&q, &bad) == -ERANGE);
    CHECK(porep_resolve(NULL, &p) == -EINVAL && porep_resolve(&q, NULL) == -EINVAL);
}

int main(void)
{
    test_init("porep");
    test_spec();
    test_circuit(10);
    test_circuit(12);
    test_circuit(14);
    test_explicit();
    test_preset();
    test_circuit(16);
    CHECK(mem_live_bytes(MEM_KIND_CIRCUIT) == 0);
    CHECK(mem_live_bytes(MEM_KIND_AUX) == 0);
    CHECK(mem_bad_frees() == 0);
    return test_finish();
}
