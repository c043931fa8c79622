/*
 * MSM tests shared by G1 and G2, written once like the code they test
 * (prover/msm_template.h). test_msm.c defines
 *   CURVE              g1 or g2
 *   GENERATOR          the group's generator
 * and includes this file once per group.
 *
 * The reference is the naive sum of scalar multiples (jac_mul_fr, which is
 * double-and-add and shares no code with the bucket method) over the
 * variables that have a base.
 */
#define T_CAT_(a, b) a##_##b
#define T_CAT(a, b) T_CAT_(a, b)
#define C(name) T_CAT(CURVE, name)
#define TF(name) T_CAT(T_CAT(test, CURVE), name)
#define T_AFFINE_T T_CAT(CURVE, affine_t)
#define T_JAC_T T_CAT(CURVE, jac_t)

/* n random points of the group: random multiples of the generator, then
 * sums with a few of them (cheap), with planted duplicates, negations and
 * points at infinity so buckets meet doublings and cancellations. */
static T_AFFINE_T *TF(rand_bases)(size_t n)
{
    T_AFFINE_T *out = calloc(n ? n : 1, sizeof *out);
    T_JAC_T *jac = calloc(n ? n : 1, sizeof *jac);
    if (!out || !jac)
        abort();
    T_JAC_T g, q[4];
    C(jac_from_affine)(&g, &GENERATOR);
    for (int i = 0; i < 4; i++) {
        fr_t k;
        test_rand_fr(&k);
        C(jac_mul_fr)(&q[i], &g, &k);
    }
    for (size_t i = 0; i < n; i++) {
        if (i < 4)
            jac[i] = q[i];
        else
            C(jac_add)(&jac[i], &jac[i - 1], &q[test_rand_below(4)]);
    }
    C(batch_to_affine)(out, jac, n);
    for (size_t i = 0; i < n / 16; i++) {
        size_t a = test_rand_below(n), b = test_rand_below(n);
        switch (test_rand_below(3)) {
        case 0: out[a] = out[b]; break;
        case 1: C(affine_neg)(&out[a], &out[b]); break;
        default: memset(&out[a], 0, sizeof out[a]); break;
        }
    }
    free(jac);
    return out;
}

/* The naive MSM over the variables with a base. */
static void TF(naive)(T_JAC_T *ret, const T_AFFINE_T *bases, const fr_t *s, size_t n,
                      const uint64_t *density)
{
    T_JAC_T acc, t;
    memset(&acc, 0, sizeof acc); /* Z = 0: infinity */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (density && !((density[i / 64] >> (i % 64)) & 1))
            continue;
        C(jac_from_affine)(&t, &bases[k++]);
        C(jac_mul_fr)(&t, &t, &s[i]);
        C(jac_add)(&acc, &acc, &t);
    }
    *ret = acc;
}

/* One data set (scalars, optional density, bases) against the reference
 * under several windows and thread counts. */
static void TF(check_set)(size_t n, bool skewed, bool with_density)
{
    fr_t *s = calloc(n ? n : 1, sizeof *s);
    uint64_t *density = NULL;
    if (!s)
        abort();
    if (skewed)
        rand_skewed(s, n);
    else
        for (size_t i = 0; i < n; i++)
            test_rand_fr(&s[i]);
    size_t nb = n;
    if (with_density) {
        density = calloc(n / 64 + 1, sizeof *density);
        if (!density)
            abort();
        nb = 0;
        for (size_t i = 0; i < n; i++)
            if (test_rand_below(4) != 0) {
                density[i / 64] |= 1ull << (i % 64);
                nb++;
            }
        /* bits past n must be ignored */
        density[n / 64] |= ~0ull << (n % 64);
    }
    T_AFFINE_T *bases = TF(rand_bases)(nb);
    T_JAC_T ref, got, got1;
    TF(naive)(&ref, bases, s, n, density);

    static const unsigned windows[] = {0, 1, 3, 8, 12, 16};
    static const unsigned threads[] = {1, 2, 7};
    for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
        /* small windows mean many passes: keep them to small sizes */
        if ((windows[wi] == 1 && n > 100) || (windows[wi] == 3 && n > 1000))
            continue;
        /* 2^15 buckets to reduce per window: once, where the batch-affine
         * path is taken (4096 points per task, 8192 in IFMA lanes) */
        if (windows[wi] == 16 && (n < 4099 || skewed))
            continue;
        /* mode 0: the defaults (the 8-lane flush where the CPU has IFMA);
         * then the scalar path with each split forced (1, 2, and 4 for
         * G2); windows below 12 bits (no batch-affine path) only with the
         * largest split */
        for (unsigned mode = 0; mode < 4; mode++) {
            unsigned split = mode == 0 ? 0 : 1u << (mode - 1);
            if (split > MAX_SPLIT || (windows[wi] < 12 && split != 0 && split != MAX_SPLIT))
                continue;
            for (size_t ti = 0; ti < sizeof threads / sizeof threads[0]; ti++) {
                /* the smaller forced splits: one thread */
                if ((windows[wi] == 16 || (split != 0 && split != MAX_SPLIT)) && ti > 0)
                    break;
                /* 7 threads split windows into point ranges: once per data set */
                if (threads[ti] == 7 && windows[wi] != 12)
                    continue;
                struct msm_opts o;
                msm_opts_default(&o);
                o.window = windows[wi];
                o.threads = threads[ti];
                o.proof = 3;
                o.partition = 4;
                o.scalar_only = split != 0;
                o.split = split;
                int rc = T_CAT(msm, CURVE)(&got, bases, nb, s, n, density, &o);
                if (!CHECK(rc == 0))
                    continue;
                if (!CHECK(C(jac_eq)(&got, &ref)))
                    fprintf(stderr, "  %s n=%zu skewed=%d density=%d window=%u threads=%u split=%u\n",
                            T_CAT(CURVE, name), n, skewed, with_density, o.window, o.threads, split);
                if (ti == 0 && mode == 0)
                    got1 = got;
                else
                    CHECK(C(jac_eq)(&got, &got1));
            }
        }
    }
    /* opts NULL: the defaults */
    CHECK(T_CAT(msm, CURVE)(&got, bases, nb, s, n, density, NULL) == 0);
    CHECK(C(jac_eq)(&got, &ref));
    free(bases);
    free(density);
    free(s);
}

static void TF(sizes)(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 100, 1000, 4099};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        TF(check_set)(sizes[i], false, false);
        TF(check_set)(sizes[i], true, false);
        TF(check_set)(sizes[i], false, true);
        TF(check_set)(sizes[i], true, true);
    }
    /* the IFMA slots' batches at their cap (2048 of 2^15 buckets at
     * window 16: 16 buckets per segment of the reduction) */
    TF(check_set)(8200, false, false);
}

/* A dense query with more bases than scalars uses the first ones. */
static void TF(extra_bases)(void)
{
    size_t n = 50;
    fr_t s[50];
    for (size_t i = 0; i < n; i++)
        test_rand_fr(&s[i]);
    T_AFFINE_T *bases = TF(rand_bases)(n + 7);
    T_JAC_T ref, got;
    TF(naive)(&ref, bases, s, n, NULL);
    CHECK(T_CAT(msm, CURVE)(&got, bases, n + 7, s, n, NULL, NULL) == 0);
    CHECK(C(jac_eq)(&got, &ref));

    /* many threads for few points: 32 windows split into 4 parts of 2
     * points each, the last one empty */
    struct msm_opts o;
    msm_opts_default(&o);
    o.window = 8;
    o.threads = 32;
    TF(naive)(&ref, bases, s, 5, NULL);
    CHECK(T_CAT(msm, CURVE)(&got, bases, 5, s, 5, NULL, &o) == 0);
    CHECK(C(jac_eq)(&got, &ref));
    free(bases);
}

static void TF(bad_input)(void)
{
    size_t n = 70;
    fr_t s[70];
    for (size_t i = 0; i < n; i++)
        test_rand_fr(&s[i]);
    T_AFFINE_T *bases = TF(rand_bases)(n);
    uint64_t density[2] = {0x00ff00ff00ff00ffull, 0x3full}; /* 32 + 6 = 38 set */
    T_JAC_T got, before;
    memset(&got, 0x5a, sizeof got);
    before = got;
    struct msm_opts o;
    msm_opts_default(&o);

    CHECK(T_CAT(msm, CURVE)(NULL, bases, n, s, n, NULL, &o) == -EINVAL);
    CHECK(T_CAT(msm, CURVE)(&got, NULL, n, s, n, NULL, &o) == -EINVAL);
    CHECK(T_CAT(msm, CURVE)(&got, bases, n, NULL, n, NULL, &o) == -EINVAL);
    /* dense: fewer bases than scalars */
    CHECK(T_CAT(msm, CURVE)(&got, bases, n - 1, s, n, NULL, &o) == -EINVAL);
    /* density: the base count must be the popcount exactly */
    CHECK(T_CAT(msm, CURVE)(&got, bases, 37, s, n, density, &o) == -EINVAL);
    CHECK(T_CAT(msm, CURVE)(&got, bases, 39, s, n, density, &o) == -EINVAL);
    /* bits past n_scalars do not count: 16 variables see 8 bases */
    CHECK(T_CAT(msm, CURVE)(&got, bases, 16, s, 16, density, &o) == -EINVAL);
    o.window = MSM_MAX_WINDOW + 1;
    CHECK(T_CAT(msm, CURVE)(&got, bases, n, s, n, NULL, &o) == -EINVAL);
    o.window = 0;
    /* splits the group does not have: 3, 8, twice its largest */
    static const unsigned bad_splits[] = {3, 8, 2 * MAX_SPLIT};
    for (size_t i = 0; i < sizeof bad_splits / sizeof bad_splits[0]; i++) {
        o.split = bad_splits[i];
        CHECK(T_CAT(msm, CURVE)(&got, bases, n, s, n, NULL, &o) == -EINVAL);
    }
    o.split = 0;
    CHECK(memcmp(&got, &before, sizeof got) == 0);

    /* the accepted edges */
    o.window = MSM_MAX_WINDOW;
    T_JAC_T ref;
    TF(naive)(&ref, bases, s, 3, NULL);
    CHECK(T_CAT(msm, CURVE)(&got, bases, 3, s, 3, NULL, &o) == 0);
    CHECK(C(jac_eq)(&got, &ref));
    TF(naive)(&ref, bases, s, 16, density);
    CHECK(T_CAT(msm, CURVE)(&got, bases, 8, s, 16, density, NULL) == 0);
    CHECK(C(jac_eq)(&got, &ref));
    /* n = 0: infinity, with or without pointers */
    CHECK(T_CAT(msm, CURVE)(&got, NULL, 0, NULL, 0, NULL, NULL) == 0);
    CHECK(C(jac_is_infinity)(&got));
    CHECK(T_CAT(msm, CURVE)(&got, NULL, 0, s, 64, density + 1, NULL) == -EINVAL);
    uint64_t none[1] = {0};
    CHECK(T_CAT(msm, CURVE)(&got, NULL, 0, s, 64, none, NULL) == 0);
    CHECK(C(jac_is_infinity)(&got));

    /* scratch that cannot be had: -ENOMEM, nothing left allocated (the
     * scalar copy of 2^58 variables is never read) */
    uint64_t a0, f0, a1, f1;
    mem_counts(&a0, &f0);
    size_t huge = (size_t)1 << 58;
    memset(&got, 0x5a, sizeof got);
    CHECK(T_CAT(msm, CURVE)(&got, bases, huge, s, huge, NULL, NULL) == -ENOMEM);
    CHECK(memcmp(&got, &before, sizeof got) == 0);
    mem_counts(&a1, &f1);
    CHECK(a1 - a0 == f1 - f0);
    free(bases);
}

static void TF(all)(void)
{
    TF(sizes)();
    TF(extra_bases)();
    TF(bad_input)();
}

#undef T_CAT_
#undef T_CAT
#undef C
#undef TF
#undef T_AFFINE_T
#undef T_JAC_T
