/*
 * Fp12 = Fp6[w] / (w^2 - v), the target group's field.
 * Element c0 + c1*w.
 */
#ifndef ZKB_FP12_H
#define ZKB_FP12_H

#include "prover/field/fp6.h"

typedef struct {
    fp6_t c0, c1;
} fp12_t;

#endif
