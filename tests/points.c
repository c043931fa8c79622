/* Random curve points (points.h). */
#include "tests/points.h"

#include <stdlib.h>

#include "tests/common.h"

#define RAND_POINTS(CURVE, GEN)                                               \
    CURVE##_affine_t *test_rand_##CURVE##_points(size_t n)                    \
    {                                                                         \
        CURVE##_affine_t *out = malloc((n ? n : 1) * sizeof *out);            \
        CURVE##_jac_t *jac = malloc((n ? n : 1) * sizeof *jac), g, q[4];      \
        if (!out || !jac)                                                     \
            abort();                                                          \
        CURVE##_jac_from_affine(&g, &GEN);                                    \
        for (int i = 0; i < 4; i++) {                                         \
            fr_t k;                                                           \
            test_rand_fr(&k);                                                 \
            CURVE##_jac_mul_fr(&q[i], &g, &k);                                \
        }                                                                     \
        if (n) {                                                              \
            jac[0] = q[0];                                                    \
            for (size_t i = 1; i < n; i++)                                    \
                CURVE##_jac_add(&jac[i], &jac[i - 1], &q[test_rand_below(4)]); \
            CURVE##_batch_to_affine(out, jac, n);                             \
        }                                                                     \
        free(jac);                                                            \
        return out;                                                           \
    }

RAND_POINTS(g1, G1_GENERATOR)
RAND_POINTS(g2, G2_GENERATOR)
