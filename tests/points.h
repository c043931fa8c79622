/*
 * Random curve points for tests and benchmarks: n affine points of G1 or G2,
 * running sums of four random multiples of the generator (much cheaper than
 * a scalar multiplication per point), drawn from tests/common.h's seeded
 * generator. The caller frees the array; aborts when out of memory.
 */
#ifndef ZKB_TESTS_POINTS_H
#define ZKB_TESTS_POINTS_H

#include <stddef.h>

#include "arith/curve/g1.h"
#include "arith/curve/g2.h"

g1_affine_t *test_rand_g1_points(size_t n);
g2_affine_t *test_rand_g2_points(size_t n);

#endif
