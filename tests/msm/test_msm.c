/*
 * Pippenger MSM (G1 and G2) against the naive sum of scalar multiples:
 * random and skewed scalars (mostly 0 and 1, some r - 1, some small), with
 * and without density bitmaps, sizes that are not powers of two, forced
 * windows (both the XYZZ and the batch-affine bucket paths), 1, 2 and 7
 * threads (7 splits windows into point ranges), the batch-affine flush in
 * 8 IFMA lanes (where the CPU has it) and scalar, the scalar split into
 * 2 (and for G2 4) parts by the endomorphisms; every bad argument; and
 * tracked memory back to where it started.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"
#include "prover/mem.h"
#include "prover/msm.h"
#include "tests/common.h"

static const char *const g1_name = "g1";
static const char *const g2_name = "g2";

/* Scalars as a witness has them: mostly 0 and 1, some r - 1, some small,
 * a few uniformly random. */
static void rand_skewed(fr_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t kind = test_rand_below(16);
        if (kind < 6)
            s[i] = FR_ZERO;
        else if (kind < 11)
            s[i] = FR_ONE;
        else if (kind < 12)
            fr_neg(&s[i], &FR_ONE);
        else if (kind < 15)
            fr_from_u64(&s[i], 2 + test_rand_below(30));
        else
            test_rand_fr(&s[i]);
    }
}

#define CURVE g1
#define GENERATOR G1_GENERATOR
#define MAX_SPLIT 2u
#include "tests/msm/msm_test_template.h"
#undef CURVE
#undef GENERATOR
#undef MAX_SPLIT

#define CURVE g2
#define GENERATOR G2_GENERATOR
#define MAX_SPLIT 4u
#include "tests/msm/msm_test_template.h"
#undef CURVE
#undef GENERATOR
#undef MAX_SPLIT

int main(void)
{
    test_init("test_msm");
    uint64_t allocs0, frees0;
    mem_counts(&allocs0, &frees0);
    uint64_t live0 = mem_live_bytes(MEM_KIND_MSM);

    test_g1_all();
    test_g2_all();

    uint64_t allocs1, frees1;
    mem_counts(&allocs1, &frees1);
    CHECK(allocs1 > allocs0);
    CHECK(allocs1 - allocs0 == frees1 - frees0);
    CHECK(mem_live_bytes(MEM_KIND_MSM) == live0);
    CHECK(mem_bad_frees() == 0);
    return test_finish();
}
