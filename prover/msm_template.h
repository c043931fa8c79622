/*
 * The Pippenger MSM written once for G1 and G2 (private to msm.c, which
 * includes it once per group). The includer defines
 *   CURVE      the group prefix (g1, g2)
 *   FE_T       the coordinate field's element type (fp_t, fp2_t)
 *   FE(op)     the field's function for op (fp_mul, fp2_mul, ...)
 *   MSM_FE_NORM  optional, for Fp2: the batch's inversions run on the
 *              norms in Fp (batch_inv_start)
 *   MSM_MAX_SPLIT  the most parts of a scalar on the scalar path (msm.c:
 *              the scalar split), with msm_<CURVE>_images making the
 *              bases' endomorphism images
 * and provides, before the first inclusion, the group-independent helpers
 * of msm.c (struct msm_plan, msm_digit, msm_prepare_chunk, ...).
 *
 * Algorithm (Pippenger 1976, in the bucket form of Bernstein, Doumen,
 * Lange, Oosterwijk, "Faster batch forgery identification", 2012, section
 * 4): scalars are cut into windows of c bits, recoded to signed digits in
 * [-2^(c-1), 2^(c-1)] (Booth-style: digit_w = v_w + b_(cw-1) - 2^c b_(cw+c-1),
 * computed per window without a digit table), so a window needs only
 * 2^(c-1) buckets and a negative digit adds -P. For each window, points go
 * to bucket |d| - 1; sum_b (b+1) B_b comes from running sums (two
 * additions per bucket), and windows are combined with c doublings each.
 *
 * Bucket accumulation, the bulk of the work, uses affine buckets and
 * batches of independent affine additions that share one field inversion
 * (Montgomery's trick, "Speeding the Pollard and elliptic curve methods of
 * factorization", 1987; for MSM buckets as in Aranha, Housni, Guillevic,
 * "A survey of elliptic curves for proof systems", 2022, and the ZPrize
 * 2022 CPU submissions): an affine addition with a shared inversion costs
 * about 6 multiplications against 10 for an XYZZ mixed addition. A point
 * whose bucket already waits in the current batch is deferred to the next
 * batch; one that meets a pending bucket again (a hot bucket: skewed
 * scalars), or whose x equals the bucket's (doubling or cancellation),
 * is added to a second, XYZZ bucket instead (xyzz_add_mixed is complete),
 * so the batch never stalls. Small tasks, where the inversion would not
 * pay for itself, use the XYZZ buckets alone.
 *
 * Where the CPU has AVX-512 IFMA the flush runs in 8 lanes (msm_ifma.c,
 * the same batch and results), and, its additions being cheaper, so does
 * the bucket reduction (reduce_batched); results/msm-ifma.md has the
 * measurements.
 */
#define MSM_CAT_(a, b) a##_##b
#define MSM_CAT(a, b) MSM_CAT_(a, b)
#define MSM_FN(name) MSM_CAT(MSM_CAT(msm, CURVE), name)
#define MC_FN(name) MSM_CAT(CURVE, name)
#define MC_AFFINE_T MSM_CAT(CURVE, affine_t)
#define MC_XYZZ_T MSM_CAT(CURVE, xyzz_t)
#define MC_JAC_T MSM_CAT(CURVE, jac_t)

/* What one call shares between its threads. */
struct MSM_FN(ctx) {
    const struct msm_plan *plan;
    const MC_AFFINE_T *bases;
    MC_AFFINE_T *images;     /* virtual points n_points .. n_virtual - 1 */
    MC_XYZZ_T *chunk_ones;   /* prepare: sum of bases with scalar 1, per chunk */
    MC_XYZZ_T *window_sums;  /* sum_b (b+1) B_b per task (window, part) */
    unsigned char *slots;    /* per worker: buckets and batch arrays */
    size_t slot_bytes;
    atomic_size_t next_task;
};

/* Worker scratch layout inside its slot. */
struct MSM_FN(slot) {
    MC_AFFINE_T *aff;        /* affine buckets */
    MC_XYZZ_T *xyzz;         /* XYZZ buckets (conflicts, small tasks) */
    unsigned char *state;    /* per bucket: MSM_B_VALID, MSM_B_PENDING */
    MC_AFFINE_T *pt;         /* batch: the (signed) point to add */
    uint32_t *bucket;        /* batch: its bucket */
    FE_T *den, *pref;        /* batch: x2 - x1 and prefix products */
    MC_AFFINE_T *dpt;        /* deferred: points whose bucket was pending */
    uint32_t *dbucket;       /* deferred: their buckets */
    void *vec;               /* the IFMA flush's scratch; NULL: scalar flush */
    /* IFMA only: the segments' running sums and weighted sums (reduce_batched),
     * 2 x batch accumulators with their XYZZ parts and states */
    MC_AFFINE_T *seg_aff;
    MC_XYZZ_T *seg_xyzz;
    unsigned char *seg_state;
};

static size_t MSM_FN(slot_size)(size_t nb, size_t batch, bool ifma)
{
    size_t s = nb * (sizeof(MC_AFFINE_T) + sizeof(MC_XYZZ_T) + 1);
    s = (s + 63) & ~(size_t)63;
    s += batch * (2 * sizeof(MC_AFFINE_T) + 2 * sizeof(FE_T) + 2 * sizeof(uint32_t));
    s = (s + 63) & ~(size_t)63;
    if (ifma) {
        s += 2 * batch * (sizeof(MC_XYZZ_T) + sizeof(MC_AFFINE_T) + 1);
        s = (s + 63) & ~(size_t)63;
        s += MSM_CAT(msm_ifma_scratch, CURVE)(batch);
    }
    return (s + 63) & ~(size_t)63;
}

/* p: 64-byte aligned, slot_size bytes. */
static void MSM_FN(slot_map)(struct MSM_FN(slot) *s, unsigned char *p, size_t nb, size_t batch,
                             bool ifma)
{
    unsigned char *start = p;
    /* largest alignment first: every piece stays 8-byte aligned */
    s->xyzz = (MC_XYZZ_T *)p;
    p += nb * sizeof(MC_XYZZ_T);
    s->aff = (MC_AFFINE_T *)p;
    p += nb * sizeof(MC_AFFINE_T);
    s->pt = (MC_AFFINE_T *)p;
    p += batch * sizeof(MC_AFFINE_T);
    s->den = (FE_T *)p;
    p += batch * sizeof(FE_T);
    s->pref = (FE_T *)p;
    p += batch * sizeof(FE_T);
    s->dpt = (MC_AFFINE_T *)p;
    p += batch * sizeof(MC_AFFINE_T);
    s->bucket = (uint32_t *)p;
    p += batch * sizeof(uint32_t);
    s->dbucket = (uint32_t *)p;
    p += batch * sizeof(uint32_t);
    s->state = p;
    p += nb;
    s->vec = NULL;
    s->seg_aff = NULL;
    s->seg_xyzz = NULL;
    s->seg_state = NULL;
    if (!ifma)
        return;
    p = start + (((size_t)(p - start) + 63) & ~(size_t)63);
    s->seg_xyzz = (MC_XYZZ_T *)p;
    p += 2 * batch * sizeof(MC_XYZZ_T);
    s->seg_aff = (MC_AFFINE_T *)p;
    p += 2 * batch * sizeof(MC_AFFINE_T);
    s->seg_state = p;
    p += 2 * batch;
    s->vec = start + (((size_t)(p - start) + 63) & ~(size_t)63);
}

/* ---- preparation: canonical scalars, their parts, images ------------- */

static void MSM_FN(prepare_chunk)(void *arg, size_t t)
{
    struct MSM_FN(ctx) *ctx = arg;
    const struct msm_plan *pl = ctx->plan;
    MC_XYZZ_T acc;
    static const MC_XYZZ_T zero_xyzz; /* ZZ = 0: infinity */
    acc = zero_xyzz;
    size_t k = pl->chunk_base[t];
    size_t lo = t * MSM_PREP_CHUNK, hi = lo + MSM_PREP_CHUNK;
    if (hi > pl->n_scalars)
        hi = pl->n_scalars;
    unsigned words = pl->words;
    for (size_t i = lo; i < hi; i++) {
        if (pl->density && !((pl->density[i / 64] >> (i % 64)) & 1))
            continue;
        uint64_t s[4], parts[4];
        fr_to_limbs(s, &pl->scalars[i]);
        if (MC_FN(affine_is_infinity)(&ctx->bases[k])) {
            /* contributes nothing: skipped here once, not in every window */
            s[0] = s[1] = s[2] = s[3] = 0;
        } else if (s[0] == 1 && !(s[1] | s[2] | s[3])) {
            /* scalar 1: the base goes straight into the sum */
            MC_FN(xyzz_add_mixed)(&acc, &acc, &ctx->bases[k]);
            s[0] = 0;
        }
        msm_split(parts, s, pl->split);
        for (unsigned j = 0; j < pl->split; j++)
            memcpy(pl->limbs + (j * pl->n_points + k) * words, parts + j * words,
                   words * sizeof(uint64_t));
        /* images only where a part past the first is not 0 (skewed
         * witnesses: small scalars have none) */
        bool upper = false;
        for (unsigned l = words; l < 4; l++)
            upper |= parts[l] != 0;
        if (upper)
            MSM_FN(images)(&ctx->images[k], pl->n_points, &ctx->bases[k], pl->split);
        k++;
    }
    ctx->chunk_ones[t] = acc;
}

/* ---- bucket accumulation ---------------------------------------------- */

/* The batch's inversions, Montgomery's trick: batch_inv_start makes the
 * prefix products of the m denominators and inverts their total into
 * *inv; batch_inv_next, from i = m - 1 down to 0, gives 1 / den[i] and
 * moves *inv on. Over Fp2 (MSM_FE_NORM) the trick runs on the norms in Fp,
 * 1 / d = conj(d) / N(d) with N(d) = d0^2 + d1^2 (never 0 for d != 0: -1
 * is no square mod p): 7 Fp multiplications an entry against 3 Fp2
 * multiplications (9 Fp products, 6 reductions). pref[i] holds N(den[i])
 * in c0 and the prefix product in c1. */
#ifdef MSM_FE_NORM
typedef fp_t MSM_FN(inv_t);

static void MSM_FN(batch_inv_start)(struct MSM_FN(slot) *s, size_t m, fp_t *inv)
{
    for (size_t i = 0; i < m; i++) {
        fp_t t;
        fp_sqr(&s->pref[i].c0, &s->den[i].c0);
        fp_sqr(&t, &s->den[i].c1);
        fp_add(&s->pref[i].c0, &s->pref[i].c0, &t);
    }
    s->pref[0].c1 = s->pref[0].c0;
    for (size_t i = 1; i < m; i++)
        fp_mul(&s->pref[i].c1, &s->pref[i - 1].c1, &s->pref[i].c0);
    fp_inv(inv, &s->pref[m - 1].c1);
}

static void MSM_FN(batch_inv_next)(struct MSM_FN(slot) *s, size_t i, fp_t *inv, FE_T *di)
{
    fp_t ni;
    if (i > 0) {
        fp_mul(&ni, inv, &s->pref[i - 1].c1); /* 1 / N(den[i]) */
        fp_mul(inv, inv, &s->pref[i].c0);     /* 1 / pref[i-1] */
    } else {
        ni = *inv;
    }
    fp_mul(&di->c0, &s->den[i].c0, &ni);
    fp_neg(&ni, &ni);
    fp_mul(&di->c1, &s->den[i].c1, &ni);
}
#else
typedef FE_T MSM_FN(inv_t);

static void MSM_FN(batch_inv_start)(struct MSM_FN(slot) *s, size_t m, FE_T *inv)
{
    s->pref[0] = s->den[0];
    for (size_t i = 1; i < m; i++)
        FE(mul)(&s->pref[i], &s->pref[i - 1], &s->den[i]);
    FE(inv)(inv, &s->pref[m - 1]);
}

static void MSM_FN(batch_inv_next)(struct MSM_FN(slot) *s, size_t i, FE_T *inv, FE_T *di)
{
    if (i > 0) {
        FE(mul)(di, inv, &s->pref[i - 1]); /* 1 / den[i] */
        FE(mul)(inv, inv, &s->den[i]);     /* 1 / pref[i-1] */
    } else {
        *di = *inv;
    }
}
#endif

/* The batch: bucket[i] += pt[i] for every entry, one inversion for all.
 * den[i] = x2 - x1 != 0 was set when the entry was queued. */
static void MSM_FN(flush)(struct MSM_FN(slot) *s, size_t m)
{
    if (m == 0)
        return;
    if (s->vec) {
        MSM_CAT(msm_ifma_flush, CURVE)(s->aff, s->pt, s->bucket, s->den, m, s->vec);
        for (size_t i = 0; i < m; i++)
            s->state[s->bucket[i]] &= (unsigned char)~MSM_B_PENDING;
        return;
    }
    MSM_FN(inv_t) inv;
    MSM_FN(batch_inv_start)(s, m, &inv);
    FE_T t, lambda, x3;
    for (size_t i = m; i-- > 0;) {
        FE_T di;
        MSM_FN(batch_inv_next)(s, i, &inv, &di);
        uint32_t b = s->bucket[i];
        MC_AFFINE_T *a = &s->aff[b];
        const MC_AFFINE_T *p = &s->pt[i];
        /* lambda = (y2 - y1) / (x2 - x1); x3 = lambda^2 - x1 - x2;
         * y3 = lambda (x1 - x3) - y1 */
        FE(sub)(&t, &p->y, &a->y);
        FE(mul)(&lambda, &t, &di);
        FE(sqr)(&x3, &lambda);
        FE(sub)(&x3, &x3, &a->x);
        FE(sub)(&x3, &x3, &p->x);
        FE(sub)(&t, &a->x, &x3);
        FE(mul)(&t, &t, &lambda);
        FE(sub)(&a->y, &t, &a->y);
        a->x = x3;
        s->state[b] &= (unsigned char)~MSM_B_PENDING;
    }
}

/* The batch being filled, and the points deferred to the next one. */
struct MSM_FN(batch) {
    struct MSM_FN(slot) *s;
    size_t cap, m, nd;
};

static void MSM_FN(batch_add)(struct MSM_FN(batch) *bt, const MC_AFFINE_T *p, uint32_t b,
                              bool may_defer);

/* Runs the batch, then queues the deferred points into the next one: their
 * buckets are free again. A deferred point meeting a pending bucket a
 * second time (several points for one hot bucket) goes to the XYZZ bucket. */
static void MSM_FN(batch_flush)(struct MSM_FN(batch) *bt)
{
    struct MSM_FN(slot) *s = bt->s;
    MSM_FN(flush)(s, bt->m);
    bt->m = 0;
    size_t nd = bt->nd;
    bt->nd = 0;
    for (size_t i = 0; i < nd; i++)
        MSM_FN(batch_add)(bt, &s->dpt[i], s->dbucket[i], false);
}

/* bucket b += p through the batch: the first point of a bucket is stored,
 * later ones queued; a point for a bucket already in the batch waits for
 * the next batch (when may_defer and there is room) or goes to the XYZZ
 * bucket, as does one with the bucket's x (doubling or cancellation). */
static void MSM_FN(batch_add)(struct MSM_FN(batch) *bt, const MC_AFFINE_T *p, uint32_t b,
                              bool may_defer)
{
    struct MSM_FN(slot) *s = bt->s;
    unsigned char st = s->state[b];
    if (!(st & MSM_B_VALID)) {
        s->aff[b] = *p;
        s->state[b] = MSM_B_VALID;
        return;
    }
    if (st & MSM_B_PENDING) {
        if (may_defer && bt->nd < bt->cap) {
            s->dpt[bt->nd] = *p;
            s->dbucket[bt->nd] = b;
            bt->nd++;
        } else {
            MC_FN(xyzz_add_mixed)(&s->xyzz[b], &s->xyzz[b], p);
        }
        return;
    }
    if (FE(eq)(&s->aff[b].x, &p->x)) {
        MC_FN(xyzz_add_mixed)(&s->xyzz[b], &s->xyzz[b], p);
        return;
    }
    size_t m = bt->m;
    s->pt[m] = *p;
    s->bucket[m] = b;
    FE(sub)(&s->den[m], &p->x, &s->aff[b].x);
    s->state[b] = MSM_B_VALID | MSM_B_PENDING;
    if (++bt->m == bt->cap)
        MSM_FN(batch_flush)(bt);
}

/* sum_b (b+1) B_b with the additions in batches (IFMA slots): the nb
 * buckets are cut into S = batch segments of L = nb / S; step j adds
 * bucket sL + j to the running sum of every segment s, then each running
 * sum to its segment's sum, S independent additions per batch. Bucket
 * sL + j weighs (j + 1) + sL, so the total is sum_s T_s + L sum_s s R_s
 * (T_s the segment sums, R_s the running sums), the last by running sums
 * over the S segments. Accumulators are affine with XYZZ parts, as
 * buckets are (batch_add). */
static MC_XYZZ_T MSM_FN(reduce_batched)(struct MSM_FN(slot) *s, size_t nb, size_t batch)
{
    static const MC_XYZZ_T zero_xyzz;
    size_t S = batch, L = nb / batch;
    struct MSM_FN(slot) run = *s, seg = *s;
    run.aff = s->seg_aff;
    run.xyzz = s->seg_xyzz;
    run.state = s->seg_state;
    seg.aff = s->seg_aff + S;
    seg.xyzz = s->seg_xyzz + S;
    seg.state = s->seg_state + S;
    memset(s->seg_state, 0, 2 * S);
    for (size_t k = 0; k < 2 * S; k++)
        s->seg_xyzz[k] = zero_xyzz;

    struct MSM_FN(batch) br = {&run, S, 0, 0}, bs = {&seg, S, 0, 0};
    for (size_t j = L; j-- > 0;) {
        for (size_t k = 0; k < S; k++) {
            size_t b = k * L + j;
            if (s->state[b] & MSM_B_VALID)
                MSM_FN(batch_add)(&br, &s->aff[b], (uint32_t)k, false);
            if (!MC_FN(xyzz_is_infinity)(&s->xyzz[b]))
                MC_FN(xyzz_add)(&run.xyzz[k], &run.xyzz[k], &s->xyzz[b]);
        }
        MSM_FN(batch_flush)(&br);
        for (size_t k = 0; k < S; k++) {
            if (run.state[k] & MSM_B_VALID)
                MSM_FN(batch_add)(&bs, &run.aff[k], (uint32_t)k, false);
            if (!MC_FN(xyzz_is_infinity)(&run.xyzz[k]))
                MC_FN(xyzz_add)(&seg.xyzz[k], &seg.xyzz[k], &run.xyzz[k]);
        }
        MSM_FN(batch_flush)(&bs);
    }

    MC_XYZZ_T acc = zero_xyzz, weighted = zero_xyzz, total = zero_xyzz;
    for (size_t k = S; k-- > 1;) {
        if (run.state[k] & MSM_B_VALID)
            MC_FN(xyzz_add_mixed)(&acc, &acc, &run.aff[k]);
        if (!MC_FN(xyzz_is_infinity)(&run.xyzz[k]))
            MC_FN(xyzz_add)(&acc, &acc, &run.xyzz[k]);
        if (!MC_FN(xyzz_is_infinity)(&acc))
            MC_FN(xyzz_add)(&weighted, &weighted, &acc);
    }
    if (!MC_FN(xyzz_is_infinity)(&weighted))
        for (size_t l = L; l > 1; l /= 2) /* L is a power of two */
            MC_FN(xyzz_dbl)(&weighted, &weighted);
    for (size_t k = 0; k < S; k++) {
        if (seg.state[k] & MSM_B_VALID)
            MC_FN(xyzz_add_mixed)(&total, &total, &seg.aff[k]);
        if (!MC_FN(xyzz_is_infinity)(&seg.xyzz[k]))
            MC_FN(xyzz_add)(&total, &total, &seg.xyzz[k]);
    }
    MC_FN(xyzz_add)(&total, &total, &weighted);
    return total;
}

/* Task = (window w, range of virtual points): the range's bases (and
 * images) into the slot's buckets, then the weighted bucket sum into
 * window_sums[task]. */
static void MSM_FN(run_task)(struct MSM_FN(ctx) *ctx, struct MSM_FN(slot) *s, size_t task)
{
    const struct msm_plan *pl = ctx->plan;
    unsigned c = pl->window, words = pl->words;
    size_t w, lo, hi;
    msm_task_range(pl, task, &w, &lo, &hi);
    size_t nb = (size_t)1 << (c - 1);
    bool affine = pl->batch > 0 && hi - lo >= pl->affine_min;
    static const MC_XYZZ_T zero_xyzz;

    for (size_t b = 0; b < nb; b++)
        s->xyzz[b] = zero_xyzz;
    if (affine)
        memset(s->state, 0, nb);

    struct MSM_FN(batch) bt = {s, pl->batch, 0, 0};
    for (size_t k = lo; k < hi; k++) {
        int d = msm_digit(pl->limbs + k * words, words, w, c);
        if (d == 0)
            continue;
        /* not infinity: see prepare */
        const MC_AFFINE_T *base = k < pl->n_points ? &ctx->bases[k]
                                                   : &ctx->images[k - pl->n_points];
        size_t b = (size_t)(d < 0 ? -d : d) - 1;
        MC_AFFINE_T p;
        p.x = base->x;
        if (d < 0)
            FE(neg)(&p.y, &base->y);
        else
            p.y = base->y;
        if (affine)
            MSM_FN(batch_add)(&bt, &p, (uint32_t)b, true);
        else
            MC_FN(xyzz_add_mixed)(&s->xyzz[b], &s->xyzz[b], &p);
    }
    if (affine) {
        MSM_FN(batch_flush)(&bt);
        MSM_FN(flush)(s, bt.m); /* the re-queued deferred points */
        if (s->vec) {
            ctx->window_sums[task] = MSM_FN(reduce_batched)(s, nb, pl->batch);
            return;
        }
    }

    /* sum_b (b+1) B_b = sum over b of the running sum of buckets >= b */
    MC_XYZZ_T run = zero_xyzz, sum = zero_xyzz;
    for (size_t b = nb; b-- > 0;) {
        if (affine && (s->state[b] & MSM_B_VALID))
            MC_FN(xyzz_add_mixed)(&run, &run, &s->aff[b]);
        if (!MC_FN(xyzz_is_infinity)(&s->xyzz[b]))
            MC_FN(xyzz_add)(&run, &run, &s->xyzz[b]);
        if (!MC_FN(xyzz_is_infinity)(&run))
            MC_FN(xyzz_add)(&sum, &sum, &run);
    }
    ctx->window_sums[task] = sum;
}

static void MSM_FN(worker)(void *arg, size_t slot)
{
    struct MSM_FN(ctx) *ctx = arg;
    const struct msm_plan *pl = ctx->plan;
    struct MSM_FN(slot) s;
    MSM_FN(slot_map)(&s, ctx->slots + slot * ctx->slot_bytes,
                     (size_t)1 << (pl->window - 1), pl->batch, pl->ifma);
    for (;;) {
        size_t t = atomic_fetch_add_explicit(&ctx->next_task, 1, memory_order_relaxed);
        if (t >= pl->n_tasks)
            break;
        MSM_FN(run_task)(ctx, &s, t);
    }
}

/* ---- driver ------------------------------------------------------------ */

int MSM_CAT(msm, CURVE)(MC_JAC_T *ret, const MC_AFFINE_T *bases, size_t n_bases,
                        const fr_t *scalars, size_t n_scalars, const uint64_t *density,
                        const struct msm_opts *opts)
{
    struct msm_plan pl;
    int rc = msm_plan_init(&pl, n_bases, scalars, n_scalars, density, MSM_MAX_SPLIT, opts);
    if (rc < 0 || !ret || (!bases && pl.n_points > 0))
        return rc < 0 ? rc : -EINVAL;
    if (pl.n_points == 0) {
        static const MC_XYZZ_T zero_xyzz;
        MC_FN(xyzz_to_jac)(ret, &zero_xyzz);
        return 0;
    }

    struct MSM_FN(ctx) ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.plan = &pl;
    ctx.bases = bases;
    size_t nb = (size_t)1 << (pl.window - 1);
    ctx.slot_bytes = MSM_FN(slot_size)(nb, pl.batch, pl.ifma);
    rc = -ENOMEM;
    if (msm_plan_alloc(&pl) < 0)
        goto out;
    ctx.chunk_ones = mem_alloc(MEM_KIND_MSM, pl.proof, pl.partition,
                               pl.n_chunks * sizeof(MC_XYZZ_T));
    ctx.window_sums = mem_alloc(MEM_KIND_MSM, pl.proof, pl.partition,
                                pl.n_tasks * sizeof(MC_XYZZ_T));
    if (pl.split > 1) {
        size_t n_img = (pl.split - 1) * pl.n_points;
        if (n_img > SIZE_MAX / sizeof(MC_AFFINE_T))
            goto out;
        ctx.images = mem_alloc(MEM_KIND_MSM, pl.proof, pl.partition, n_img * sizeof(MC_AFFINE_T));
        if (!ctx.images)
            goto out;
    }
    ctx.slots = mem_alloc(MEM_KIND_MSM, pl.proof, pl.partition, pl.workers * ctx.slot_bytes);
    if (!ctx.chunk_ones || !ctx.window_sums || !ctx.slots)
        goto out;

    parallel_for(pl.n_chunks, pl.threads, MSM_FN(prepare_chunk), &ctx);
    atomic_init(&ctx.next_task, 0);
    parallel_for(pl.workers, pl.threads, MSM_FN(worker), &ctx);

    /* Horner over the windows, top first: acc = 2^c acc + S_w. */
    MC_XYZZ_T acc;
    static const MC_XYZZ_T zero_xyzz;
    acc = zero_xyzz;
    for (size_t w = pl.n_windows; w-- > 0;) {
        if (!MC_FN(xyzz_is_infinity)(&acc))
            for (unsigned i = 0; i < pl.window; i++)
                MC_FN(xyzz_dbl)(&acc, &acc);
        size_t count, first = msm_window_tasks(&pl, w, &count);
        for (size_t p = 0; p < count; p++)
            MC_FN(xyzz_add)(&acc, &acc, &ctx.window_sums[first + p]);
    }
    for (size_t t = 0; t < pl.n_chunks; t++)
        MC_FN(xyzz_add)(&acc, &acc, &ctx.chunk_ones[t]);
    MC_FN(xyzz_to_jac)(ret, &acc);
    rc = 0;
out:
    mem_free(ctx.images);
    mem_free(ctx.slots);
    mem_free(ctx.window_sums);
    mem_free(ctx.chunk_ones);
    msm_plan_free(&pl);
    return rc;
}

#undef MSM_FN
#undef MC_FN
#undef MC_AFFINE_T
#undef MC_XYZZ_T
#undef MC_JAC_T
