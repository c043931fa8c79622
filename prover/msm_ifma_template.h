/*
 * The 8-lane batch-affine flush written once for G1 and G2 (private to
 * msm_ifma.c, which includes it once per group). The includer defines
 * (and the end of this file undefines)
 *   CURVE          the group prefix (g1, g2)
 *   FE_T, V_T      the coordinate field's element, scalar and 8-lane
 *   FE_BATCH_INV   the scalar batch inversion (fp_batch_inv, ...)
 *   V_MUL(r, a, b), V_SQR(r, a), V_CANON(r, a), V_GATHER(r, base, idx),
 *   V_SCATTER(base, idx, mask, a)
 *   V_SUB_P(r, a, b) a - b + p for b below p, not reduced
 *   V_CANON4(r, a)   the canonical value of a below 4p
 *                  the 8-lane operations, which may use the constants p1
 *                  and p2 (fpx8_kp(1), fpx8_kp(2)) of the calling function.
 *
 * Lane k takes entries k, k + 8, k + 16, ...: eight prefix-product chains
 * (Montgomery's trick per lane), whose eight totals share one scalar batch
 * inversion, then the additions of msm_template.h's flush, group by group
 * from the last. A short last group repeats its last entry in the spare
 * lanes, which compute but never store.
 */
#define MI_CAT_(a, b) a##_##b
#define MI_CAT(a, b) MI_CAT_(a, b)
#define MI_FN(name) MI_CAT(MI_CAT(msm_ifma, name), CURVE)
#define MI_AFFINE_T MI_CAT(CURVE, affine_t)

size_t MI_FN(scratch)(size_t batch)
{
    /* den and the prefix products, one vector per group of 8 entries */
    return 2 * ((batch + 7) / 8) * sizeof(V_T);
}

FPX8_TARGET void MI_FN(flush)(MI_AFFINE_T *aff, const MI_AFFINE_T *pt, const uint32_t *bucket,
                  const FE_T *den, size_t m, void *scratch)
{
    if (m == 0)
        return;
    size_t groups = (m + 7) / 8;
    V_T *d = scratch, *pref = d + groups;
    fpx8_t p1, p2;
    fpx8_kp(&p1, 1);
    fpx8_kp(&p2, 2);

    for (size_t g = 0; g < groups; g++) {
        V_GATHER(&d[g], den + 8 * g, msm_ifma_offsets(m - 8 * g, sizeof(FE_T)));
        if (g == 0)
            pref[0] = d[0];
        else
            V_MUL(&pref[g], &pref[g - 1], &d[g]);
    }
    FE_T total[8], total_inv[8];
    V_T inv;
    V_CANON(&inv, &pref[groups - 1]);
    V_SCATTER(total, fpx8_stride(sizeof(FE_T)), 0xff, &inv);
    FE_BATCH_INV(total_inv, total, 8);
    V_GATHER(&inv, total_inv, fpx8_stride(sizeof(FE_T)));

    for (size_t g = groups; g-- > 0;) {
        V_T di, t, lambda, x3, ax, ay, px, py;
        if (g > 0) {
            V_MUL(&di, &inv, &pref[g - 1]); /* 1 / den */
            V_MUL(&inv, &inv, &d[g]);       /* 1 / pref[g - 1] */
        } else {
            di = inv;
        }
        size_t left = m - 8 * g, valid = left < 8 ? left : 8;
        uint64_t off[8];
        for (size_t k = 0; k < 8; k++)
            off[k] = (uint64_t)bucket[8 * g + (k < valid ? k : valid - 1)] * sizeof(MI_AFFINE_T);
        __m512i ib = _mm512_loadu_si512((const void *)off);
        __m512i ip = msm_ifma_offsets(left, sizeof(MI_AFFINE_T));
        __mmask8 mask = (__mmask8)((1u << valid) - 1);
        V_GATHER(&ax, &aff->x, ib);
        V_GATHER(&ay, &aff->y, ib);
        V_GATHER(&px, &pt[8 * g].x, ip);
        V_GATHER(&py, &pt[8 * g].y, ip);
        /* lambda = (y2 - y1) / (x2 - x1); x3 = lambda^2 - x1 - x2;
         * y3 = lambda (x1 - x3) - y1. Bounds in units of p: the points'
         * coordinates and x3 are canonical, products below 2 */
        V_SUB_P(&t, &py, &ay);   /* < 2 */
        V_MUL(&lambda, &t, &di);
        V_SQR(&x3, &lambda);
        V_SUB_P(&x3, &x3, &ax);  /* < 3 */
        V_SUB_P(&x3, &x3, &px);  /* < 4 */
        V_CANON4(&x3, &x3);
        V_SUB_P(&t, &ax, &x3);   /* < 2 */
        V_MUL(&t, &t, &lambda);
        V_SUB_P(&t, &t, &ay);    /* < 3 */
        V_CANON4(&t, &t);
        V_SCATTER(&aff->x, ib, mask, &x3);
        V_SCATTER(&aff->y, ib, mask, &t);
    }
}

#undef MI_CAT_
#undef MI_CAT
#undef MI_FN
#undef MI_AFFINE_T
#undef CURVE
#undef FE_T
#undef V_T
#undef FE_BATCH_INV
#undef V_MUL
#undef V_SQR
#undef V_SUB_P
#undef V_CANON
#undef V_CANON4
#undef V_GATHER
#undef V_SCATTER
