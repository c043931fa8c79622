/*
 * Reader of circom's .r1cs files (see r1cs_file.h), onto prover/r1cs.h.
 */
#include "prover/iden3/r1cs_file.h"

#include <errno.h>
#include <stdlib.h>

#include "prover/iden3/csr.h"

static const char *const matrix_name[3] = {"A", "B", "C"};

int iden3_r1cs_read(iden3_r1cs_t **ret, const char *path, iden3_error_t *err)
{
    iden3_binfile_t f;
    iden3_csr_t *csr = NULL;
    iden3_r1cs_t *r = NULL;
    int rc = iden3_binfile_open(&f, path, "r1cs", 1, err);
    if (rc < 0)
        return rc;
    const uint8_t *h, *c;
    uint64_t hs, cs;
    if ((rc = iden3_binfile_section(&h, &hs, &f, 1, "header", err)) < 0 ||
        (rc = iden3_binfile_section(&c, &cs, &f, 2, "constraints", err)) < 0)
        goto done;
    rc = -EINVAL;
    if (hs < 4) {
        iden3_error(err, rc, path, "section 1 (header) holds %llu bytes, too short", (unsigned long long)hs);
        goto done;
    }
    uint32_t n8 = iden3_u32(h);
    if (n8 == 0 || n8 > 64 || hs != 4 + (uint64_t)n8 + 28) {
        iden3_error(err, rc, path, "section 1 (header) holds %llu bytes, expected %llu for %u-byte field elements",
                    (unsigned long long)hs, 4 + (unsigned long long)n8 + 28, n8);
        goto done;
    }
    enum iden3_prime p = iden3_prime_identify(h + 4, n8);
    if (p != IDEN3_PRIME_BLS12_381_R) {
        iden3_error(err, rc, path, "the circuit's prime is %s; zkbench proves over bls12381 only "
                    "(compile with circom --prime bls12381)", iden3_prime_name(p));
        goto done;
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        rc = -ENOMEM;
        goto done;
    }
    const uint8_t *q = h + 4 + n8;
    r->n_wires = iden3_u32(q);
    r->n_pub_out = iden3_u32(q + 4);
    r->n_pub_in = iden3_u32(q + 8);
    r->n_prv_in = iden3_u32(q + 12);
    r->n_labels = iden3_u64(q + 16);
    r->n_constraints = iden3_u32(q + 24);
    uint64_t n_pub = 1 + (uint64_t)r->n_pub_out + r->n_pub_in;
    if (r->n_wires == 0 || n_pub + r->n_prv_in > r->n_wires) {
        iden3_error(err, rc, path, "header: %u wires cannot hold the ONE, %u outputs, %u public and %u private inputs",
                    r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in);
        goto done;
    }
    if ((rc = iden3_csr_new(&csr, r->n_constraints, (uint32_t)n_pub, (uint32_t)(r->n_wires - n_pub))) < 0)
        goto done;
    rc = -EINVAL;
    uint64_t off = 0;
    const uint64_t term = 4 + (uint64_t)n8;
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            if (cs - off < 4) {
                iden3_error(err, rc, path, "section 2 (constraints) ends inside constraint %u (%s) after %llu bytes", i,
                            matrix_name[m], (unsigned long long)cs);
                goto done;
            }
            uint32_t nt = iden3_u32(c + off);
            off += 4;
            if ((cs - off) / term < nt) {
                iden3_error(err, rc, path,
                            "section 2 (constraints) ends inside constraint %u (%s: %u terms) after %llu bytes", i,
                            matrix_name[m], nt, (unsigned long long)cs);
                goto done;
            }
            for (uint32_t t = 0; t < nt; t++, off += term) {
                uint32_t wire = iden3_u32(c + off);
                if (wire >= r->n_wires) {
                    iden3_error(err, rc, path, "constraint %u (%s) names wire %u, but there are %u wires", i,
                                matrix_name[m], wire, r->n_wires);
                    goto done;
                }
                uint64_t limbs[4];
                for (int k = 0; k < 4; k++)
                    limbs[k] = iden3_u64(c + off + 4 + 8 * k);
                fr_t v;
                if (fr_from_limbs(&v, limbs) < 0) {
                    iden3_error(err, rc, path, "constraint %u (%s): a coefficient of wire %u is not below the prime",
                                i, matrix_name[m], wire);
                    goto done;
                }
                if ((rc = iden3_csr_add(csr, (enum r1cs_matrix_id)m, i, wire, &v)) < 0) {
                    iden3_error(err, rc, path, "out of memory reading constraint %u", i);
                    goto done;
                }
                rc = -EINVAL;
            }
        }
    }
    if (off != cs) {
        iden3_error(err, rc, path, "section 2 (constraints) holds %llu bytes, but %u constraints use %llu",
                    (unsigned long long)cs, r->n_constraints, (unsigned long long)off);
        goto done;
    }
    if ((rc = iden3_csr_finish(&r->cs, csr)) < 0) {
        iden3_error(err, rc, path, "out of memory building the constraint matrices");
        goto done;
    }
    *ret = r;
    r = NULL;
    rc = 0;
done:
    iden3_csr_free(csr);
    iden3_r1cs_free(r);
    iden3_binfile_close(&f);
    return rc;
}

void iden3_r1cs_free(iden3_r1cs_t *r)
{
    if (!r)
        return;
    r1cs_free(r->cs);
    free(r);
}
