/* .zkey files for tests; see zkey_writer.h. */
#include "tests/iden3/zkey_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/field/fp.h"
#include "arith/field/fr.h"

void zkey_writer_put(zkey_writer_t *w, const void *p, size_t n)
{
    if (w->len + n > w->cap) {
        w->cap = 2 * (w->len + n);
        w->data = realloc(w->data, w->cap);
        if (!w->data)
            abort();
    }
    memcpy(w->data + w->len, p, n);
    w->len += n;
}

void zkey_writer_u32(zkey_writer_t *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    zkey_writer_put(w, b, 4);
}

void zkey_writer_g1(zkey_writer_t *w, const g1_affine_t *p)
{
    zkey_writer_put(w, &p->x, 48);
    zkey_writer_put(w, &p->y, 48);
}

void zkey_writer_g2(zkey_writer_t *w, const g2_affine_t *p)
{
    zkey_writer_put(w, &p->x.c0, 48);
    zkey_writer_put(w, &p->x.c1, 48);
    zkey_writer_put(w, &p->y.c0, 48);
    zkey_writer_put(w, &p->y.c1, 48);
}

void zkey_writer_begin(zkey_writer_t *w, uint32_t type)
{
    zkey_writer_u32(w, type);
    w->sec_start = w->len;
    zkey_writer_put(w, (const unsigned char[8]){0}, 8);
}

void zkey_writer_end(zkey_writer_t *w)
{
    uint64_t n = w->len - w->sec_start - 8;
    for (int i = 0; i < 8; i++)
        w->data[w->sec_start + (size_t)i] = (unsigned char)(n >> (8 * i));
}

void zkey_writer_header(zkey_writer_t *w, uint32_t n_vars, uint32_t n_public, uint32_t domain, const g1_affine_t *alpha1,
                        const g1_affine_t *beta1, const g2_affine_t *beta2, const g2_affine_t *gamma2,
                        const g1_affine_t *delta1, const g2_affine_t *delta2)
{
    zkey_writer_put(w, "zkey", 4);
    zkey_writer_u32(w, 1);
    zkey_writer_u32(w, 9);
    zkey_writer_begin(w, 1);
    zkey_writer_u32(w, 1); /* Groth16 */
    zkey_writer_end(w);
    zkey_writer_begin(w, 2);
    zkey_writer_u32(w, 48);
    zkey_writer_put(w, FP_MODULUS, 48);
    zkey_writer_u32(w, 32);
    zkey_writer_put(w, FR_MODULUS, 32);
    zkey_writer_u32(w, n_vars);
    zkey_writer_u32(w, n_public);
    zkey_writer_u32(w, domain);
    zkey_writer_g1(w, alpha1);
    zkey_writer_g1(w, beta1);
    zkey_writer_g2(w, beta2);
    zkey_writer_g2(w, gamma2);
    zkey_writer_g1(w, delta1);
    zkey_writer_g2(w, delta2);
    zkey_writer_end(w);
}

int zkey_writer_save(const zkey_writer_t *w, const char *path)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(w->data, 1, w->len, f) == w->len;
    ok = fclose(f) == 0 && ok;
    return ok ? 0 : -1;
}

void zkey_writer_free(zkey_writer_t *w)
{
    free(w->data);
    w->data = NULL;
    w->len = w->cap = 0;
}
