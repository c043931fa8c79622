/*
 * Reader of .wtns files (see wtns_file.h).
 */
#include "prover/iden3/wtns_file.h"

#include <errno.h>

#include "prover/mem.h"

int iden3_wtns_read(fr_t **w, size_t *n, const char *path, int proof, iden3_error_t *err)
{
    iden3_binfile_t f;
    int rc = iden3_binfile_open(&f, path, "wtns", 2, err);
    if (rc < 0)
        return rc;
    const uint8_t *h, *v;
    uint64_t hs, vs;
    fr_t *out = NULL;
    if ((rc = iden3_binfile_section(&h, &hs, &f, 1, "header", err)) < 0 ||
        (rc = iden3_binfile_section(&v, &vs, &f, 2, "witness values", err)) < 0)
        goto done;
    rc = -EINVAL;
    uint32_t n8 = hs >= 4 ? iden3_u32(h) : 0;
    if (hs < 4 || n8 == 0 || n8 > 64 || hs != 8 + (uint64_t)n8) {
        iden3_error(err, rc, path, "section 1 (header) holds %llu bytes, expected 8 + the field element size",
                    (unsigned long long)hs);
        goto done;
    }
    enum iden3_prime p = iden3_prime_identify(h + 4, n8);
    if (p != IDEN3_PRIME_BLS12_381_R) {
        iden3_error(err, rc, path, "the witness's prime is %s; zkbench proves over bls12381 only "
                    "(compile the circuit with circom --prime bls12381)", iden3_prime_name(p));
        goto done;
    }
    uint32_t count = iden3_u32(h + 4 + n8);
    if (count == 0 || vs != (uint64_t)count * n8) {
        iden3_error(err, rc, path, "section 2 (witness values) holds %llu bytes, expected %llu for %u values",
                    (unsigned long long)vs, (unsigned long long)count * n8, count);
        goto done;
    }
    out = mem_alloc(MEM_KIND_AUX, proof, -1, (size_t)count * sizeof(fr_t));
    if (!out) {
        rc = iden3_error(err, -ENOMEM, path, "out of memory for %u witness values", count);
        goto done;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint64_t limbs[4];
        for (int k = 0; k < 4; k++)
            limbs[k] = iden3_u64(v + (size_t)i * 32 + 8 * k);
        if (fr_from_limbs(&out[i], limbs) < 0) {
            iden3_error(err, rc, path, "witness value %u is not below the prime", i);
            goto done;
        }
    }
    if (!fr_is_one(&out[0])) {
        iden3_error(err, rc, path, "witness value 0 (the constant ONE) is not 1");
        goto done;
    }
    *w = out;
    *n = count;
    out = NULL;
    rc = 0;
done:
    mem_free(out);
    iden3_binfile_close(&f);
    return rc;
}
