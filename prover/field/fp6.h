/*
 * Fp6 = Fp2[v] / (v^3 - (u + 1)). Element c0 + c1*v + c2*v^2.
 */
#ifndef ZKB_FP6_H
#define ZKB_FP6_H

#include "prover/field/fp2.h"

typedef struct {
    fp2_t c0, c1, c2;
} fp6_t;

#endif
