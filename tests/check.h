/*
 * Checks for the unit tests that need no GMP (tests/common.h has the
 * arithmetic tests' own): CHECK(cond, fmt, ...) prints where a condition
 * failed, the condition and why, and counts it in fails; a test ends with
 * fails ? 1 : 0. check_seed_init() seeds rand() from ZKB_SEED, or the pid
 * when unset, and returns the seed, which a failing test prints so that
 * ZKB_SEED=... replays it. Header only: every test is one translation unit.
 */
#ifndef ZKB_TESTS_CHECK_H
#define ZKB_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fails;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                            \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            fails++;                                                                                                   \
        }                                                                                                              \
    } while (0)

static inline unsigned long check_seed_init(void)
{
    const char *e = getenv("ZKB_SEED");
    unsigned long seed = e ? strtoul(e, NULL, 10) : (unsigned long)getpid();
    srand((unsigned)seed);
    return seed;
}

#endif
