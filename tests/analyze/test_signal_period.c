/*
 * The period detector (harness/diagnose/signal_period.c) against generated
 * signals whose period is known: a sawtooth (a buffer that grows, then is
 * freed), a square wave (a scratch buffer held 70% of the cycle), a sine,
 * each under noise, with a leak's ramp, a jittered tick and a random
 * phase; an aliased cycle reads as its alias; flat series, white noise and
 * AR(1) noise give no period; bad input is refused.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness/diagnose/signal_period.h"
#include "tests/check.h"

static unsigned long seed;

#define MIB 1048576.0
#define PI 3.14159265358979323846

static double uniform(void)
{
    return (double)rand() / RAND_MAX;
}

static double gauss(void)
{
    double u = (uniform() + 1e-12) / (1 + 2e-12), v = uniform();
    return sqrt(-2 * log(u)) * cos(2 * PI * v);
}

enum shape { SAWTOOTH, SQUARE, SINE };
static const char *const shape_name[] = {"sawtooth", "square", "sine"};

/* One cycle's value at phase ph in [0, 1): amplitude 1. */
static double wave(enum shape s, double ph)
{
    switch (s) {
    case SAWTOOTH: return ph;
    case SQUARE: return ph < 0.7 ? 1 : 0;
    default: return 0.5 + 0.5 * sin(2 * PI * ph);
    }
}

/* n samples every tick ms (jittered by up to jitter of a tick) of shape at
 * period ms, amplitude amp, AR(1) noise of sd noise, plus leak bytes a
 * cycle. */
static void gen(double *t, double *y, size_t n, enum shape s, double period, double tick, double amp, double noise,
                double leak, double jitter)
{
    double phase = uniform() * period, e = 0, base = 300 * MIB;
    for (size_t i = 0; i < n; i++) {
        t[i] = (double)i * tick + jitter * tick * (uniform() - 0.5);
        if (i && t[i] <= t[i - 1])
            t[i] = t[i - 1] + 1e-3;
        double ph = fmod(t[i] + phase, period) / period;
        e = 0.5 * e + noise * gauss();
        y[i] = base + amp * wave(s, ph) + leak * (t[i] / period) + e;
    }
}

static void test_known_periods(void)
{
    enum { N = 600 };
    double t[N], y[N];
    /* (period, tick): from 3 to 40 samples a cycle; a real cycle is no exact
     * multiple of the tick */
    static const double cases[][2] = {{310, 100}, {290, 100}, {520, 100}, {1000, 100}, {137, 20}, {50, 5}, {2000, 50}};
    for (int s = SAWTOOTH; s <= SINE; s++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            for (int rep = 0; rep < 4; rep++) {
                double period = cases[c][0], tick = cases[c][1];
                double amp = (8 + 248 * uniform()) * MIB, noise = (0.02 + 0.08 * uniform()) * amp;
                double leak = rep % 2 ? 2 * MIB : 0;
                /* the sampler's own jitter is a few percent of a tick; a
                 * fifth of one where a cycle has room for it */
                gen(t, y, N, (enum shape)s, period, tick, amp, noise, leak, period / tick < 5 ? 0.03 : 0.2);
                signal_period_t p;
                CHECK(signal_period_find(&p, t, y, N) == 0, "find failed");
                double spc = period / tick, tol = spc < 4 ? 0.06 : 0.03;
                CHECK(isfinite(p.period) && fabs(p.period - period) <= tol * period,
                      "%s period %.0f ms at tick %.0f ms (noise %.1f MiB, leak %.0f MiB): found %.1f ms",
                      shape_name[s], period, tick, noise / MIB, leak / MIB, p.period);
                CHECK(fabs(p.step - tick) < 0.2 * tick, "grid step %.2f for a tick of %.0f", p.step, tick);
                /* the swing of the cycle, within what noise and the wave's shape allow */
                CHECK(p.amplitude > 0.5 * amp && p.amplitude < 1.5 * amp, "%s amplitude %.1f MiB for %.1f MiB",
                      shape_name[s], p.amplitude / MIB, amp / MIB);
                CHECK(p.strength >= SIGNAL_PERIOD_MIN_CORR && p.strength <= 1.0 + 1e-9, "strength %g", p.strength);
            }
}

/* A cycle of 150 ms sampled every 100 ms shows as its alias, 300 ms: what
 * the samples hold. (watch --sample-ms auto lowers the tick, looks again,
 * and sees the true cycle.) */
static void test_alias(void)
{
    enum { N = 400 };
    double t[N], y[N];
    gen(t, y, N, SINE, 150, 100, 64 * MIB, 0.5 * MIB, 0, 0);
    signal_period_t p;
    CHECK(signal_period_find(&p, t, y, N) == 0, "find failed");
    CHECK(isfinite(p.period) && fabs(p.period - 300) < 10, "150 ms at a 100 ms tick: %.1f ms, expected the alias 300",
          p.period);
    gen(t, y, N, SINE, 150, 15, 64 * MIB, 0.5 * MIB, 0, 0);
    CHECK(signal_period_find(&p, t, y, N) == 0, "find failed");
    CHECK(isfinite(p.period) && fabs(p.period - 150) < 4, "150 ms at a 15 ms tick: %.1f ms", p.period);
}

static void test_no_period(void)
{
    enum { N = 2000 };
    static double t[N], y[N];
    signal_period_t p;
    for (size_t i = 0; i < N; i++)
        t[i] = 100.0 * (double)i, y[i] = 512 * MIB;
    CHECK(signal_period_find(&p, t, y, N) == 0 && isnan(p.period) && p.amplitude == 0, "flat: %g", p.period);
    /* a steady leak without a cycle */
    for (size_t i = 0; i < N; i++)
        y[i] = 512 * MIB + 4096.0 * (double)i;
    CHECK(signal_period_find(&p, t, y, N) == 0 && isnan(p.period), "a straight ramp: period %g", p.period);
    for (int rep = 0; rep < 20; rep++) {
        double e = 0, phi = rep % 2 ? 0.5 : 0.0;
        for (size_t i = 0; i < N; i++) {
            e = phi * e + 4 * MIB * gauss();
            y[i] = 512 * MIB + e;
        }
        CHECK(signal_period_find(&p, t, y, N) == 0 && isnan(p.period), "%s noise: period %.1f ms (strength %.2f)",
              phi > 0 ? "AR(1)" : "white", p.period, p.strength);
    }
    /* the same noise, a few samples: too short to say */
    CHECK(signal_period_find(&p, t, y, SIGNAL_PERIOD_MIN_SAMPLES - 1) == 0 && isnan(p.period), "too short: %g",
          p.period);
}

static void test_edges(void)
{
    double t[3] = {0, 1, 2}, y[3] = {1, 2, NAN};
    signal_period_t p;
    CHECK(signal_period_find(&p, t, y, 0) == 0 && isnan(p.period) && isnan(p.step), "empty");
    CHECK(signal_period_find(&p, t, y, 1) == 0 && isnan(p.period), "one sample");
    CHECK(signal_period_find(&p, t, y, 3) == -EINVAL, "NaN accepted");
    CHECK(signal_period_find(NULL, t, y, 2) == -EINVAL, "NULL result accepted");
    CHECK(signal_period_find(&p, NULL, y, 2) == -EINVAL, "NULL times accepted");
    double same[40], v[40];
    for (int i = 0; i < 40; i++)
        same[i] = 5, v[i] = i % 4;
    CHECK(signal_period_find(&p, same, v, 40) == 0 && isnan(p.period) && isnan(p.step), "one time: %g", p.period);
}

int main(void)
{
    seed = check_seed_init();
    test_known_periods();
    test_alias();
    test_no_period();
    test_edges();
    if (fails) {
        fprintf(stderr, "%d failures (ZKB_SEED=%lu reproduces)\n", fails, seed);
        return 1;
    }
    printf("signal_period tests passed (seed %lu)\n", seed);
    return 0;
}
