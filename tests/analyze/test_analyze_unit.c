/*
 * Known-answer tests of the analysis building blocks: least squares (exact
 * recovery, dropped constant and collinear columns, standard errors against
 * the textbook formula), the t quantile, size parsing, the trend of a
 * series, and the CSV reader (partial last row tolerated, bad rows refused).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/diagnose/analyze.h"
#include "harness/run/run_csv.h"
#include "tests/check.h"

static unsigned long seed;

static int warnings;
static void count_warning(const char *msg)
{
    (void)msg;
    warnings++;
}

static double uniform(void)
{
    return (double)rand() / RAND_MAX;
}

static void test_ols_exact(void)
{
    enum { N = 200, P = 4 };
    double *x = malloc(N * P * sizeof *x), *y = malloc(N * sizeof *y);
    const double beta[P] = {3e9, 1.5e9, -2e8, 7e7};
    for (int i = 0; i < N; i++) {
        x[i * P] = 1;
        x[i * P + 1] = rand() % 5;
        x[i * P + 2] = rand() % 3;
        x[i * P + 3] = i / 20;
        y[i] = 0;
        for (int j = 0; j < P; j++)
            y[i] += beta[j] * x[i * P + j];
    }
    analyze_ols_t o;
    CHECK(analyze_ols(&o, x, y, N, P) == 0, "ols failed");
    for (int j = 0; j < P; j++)
        CHECK(fabs(o.beta[j] - beta[j]) < 1e-3 * fabs(beta[j]) + 1, "beta[%d] %g, expected %g", j, o.beta[j], beta[j]);
    CHECK(o.rank == P && o.r2 > 0.999999, "rank %zu r2 %g", o.rank, o.r2);
    /* a constant column and a collinear one are dropped */
    double *x2 = malloc(N * 6 * sizeof *x2);
    for (int i = 0; i < N; i++) {
        memcpy(x2 + i * 6, x + i * P, P * sizeof *x);
        x2[i * 6 + 4] = 7;                                  /* constant */
        x2[i * 6 + 5] = 2 * x[i * P + 1] - x[i * P + 2];    /* collinear */
    }
    CHECK(analyze_ols(&o, x2, y, N, 6) == 0, "ols failed");
    CHECK(o.rank == 4 && o.kept[0] && o.kept[3] && !o.kept[4] && !o.kept[5], "rank %zu kept %d%d%d%d%d%d", o.rank,
          o.kept[0], o.kept[1], o.kept[2], o.kept[3], o.kept[4], o.kept[5]);
    CHECK(o.beta[4] == 0 && o.beta[5] == 0, "dropped columns have coefficients");
    free(x);
    free(x2);
    free(y);
}

/* Simple regression y = a + b x + white noise: se(b) = s / sqrt(Sxx). */
static void test_ols_se(void)
{
    enum { N = 400 };
    double x[2 * N], y[N], xm = 0;
    for (int i = 0; i < N; i++) {
        x[2 * i] = 1;
        x[2 * i + 1] = i % 7; /* periodic: residuals stay uncorrelated */
        xm += x[2 * i + 1];
        double g = 0;
        for (int k = 0; k < 12; k++)
            g += uniform();
        y[i] = 5 + 2 * x[2 * i + 1] + (g - 6);
    }
    xm /= N;
    analyze_ols_t o;
    analyze_ols(&o, x, y, N, 2);
    double sxx = 0, ssr = 0;
    for (int i = 0; i < N; i++) {
        sxx += (x[2 * i + 1] - xm) * (x[2 * i + 1] - xm);
        double e = y[i] - o.beta[0] - o.beta[1] * x[2 * i + 1];
        ssr += e * e;
    }
    double se = sqrt(ssr / (N - 2) / sxx) * sqrt((1 + o.rho) / (1 - o.rho));
    CHECK(fabs(o.se[1] - se) < 1e-9 * se, "se %g, expected %g", o.se[1], se);
    CHECK(fabs(o.beta[1] - 2) < 5 * o.se[1], "slope %g +- %g, expected 2", o.beta[1], o.se[1]);
    CHECK(o.rho < 0.2, "white noise: lag-1 autocorrelation %g", o.rho);
}

/* The exact two-sided 95 % quantile of Student's t at any real dof, the
 * reference for analyze_t95: the upper tail integrated (midpoint rule in
 * u = q / t over (0, 1]) and bisected to 0.025. */
static double t_pdf(double t, double v)
{
    return exp(lgamma((v + 1) / 2) - lgamma(v / 2)) / sqrt(v * M_PI) * pow(1 + t * t / v, -(v + 1) / 2);
}

static double t_upper(double q, double v)
{
    const int n = 20000;
    double s = 0;
    for (int i = 0; i < n; i++) {
        double u = (i + 0.5) / n;
        s += t_pdf(q / u, v) * q / (u * u);
    }
    return s / n;
}

static double t95_exact(double v)
{
    double lo = 1, hi = 100;
    for (int i = 0; i < 50; i++) {
        double mid = (lo + hi) / 2;
        *(t_upper(mid, v) > 0.025 ? &lo : &hi) = mid;
    }
    return (lo + hi) / 2;
}

static void test_t95(void)
{
    /* fractional dof (autocorrelated residuals' n_eff): never below the
     * exact quantile, at most 3 % above it, and falling as dof grows */
    static const double fd[] = {1.25, 1.5, 1.81, 2.5, 3.3, 7.5, 12.2, 29.5};
    for (size_t i = 0; i < sizeof fd / sizeof fd[0]; i++) {
        double ex = t95_exact(fd[i]), got = analyze_t95(fd[i]);
        CHECK(got >= ex - 1e-3 && got <= 1.03 * ex, "t95(%g) = %g, exact %g", fd[i], got, ex);
    }
    for (double v = 1; v < 40; v += 0.05)
        CHECK(analyze_t95(v + 0.05) < analyze_t95(v), "t95 rises from %g to %g", v, v + 0.05);
    CHECK(fabs(analyze_t95(1) - 12.706) < 1e-3, "t95(1)");
    CHECK(fabs(analyze_t95(10) - 2.228) < 1e-3, "t95(10)");
    CHECK(fabs(analyze_t95(60) - 2.000) < 5e-3, "t95(60) %g", analyze_t95(60));
    CHECK(fabs(analyze_t95(1e6) - 1.96) < 1e-3, "t95(inf)");
    CHECK(isnan(analyze_t95(0)), "t95(0) is not NaN");
}

static void test_sizes(void)
{
    static const struct {
        const char *text;
        unsigned long long want; /* 0: malformed */
    } c[] = {{"128G", 128ull << 30}, {"755GiB", 755ull << 30}, {"64000000000", 64000000000ull},
             {"512M", 512ull << 20}, {"1.5T", 3ull << 39},     {"100MB", 100ull << 20},
             {"12x", 0},            {"", 0},                 {"-5G", 0},
             {"G", 0},              {"1.5", 0},              {"0", 0}};
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        uint64_t v = 0;
        bool ok = analyze_parse_size(&v, c[i].text);
        CHECK(ok == (c[i].want != 0) && (!ok || v == c[i].want), "size '%s': %d %llu", c[i].text, ok,
              (unsigned long long)v);
    }
}

static void test_trend(void)
{
    enum { N = 300 };
    double t[N], y[N], z[N], w[N];
    for (int i = 0; i < N; i++) {
        w[i] = 1e9 + 4e6 * (uniform() - 0.5) + 2e6 * sin(i * 0.05); /* flat: noise and a slow wave */
        t[i] = i * 100.0;                                    /* 0.1 s ticks */
        y[i] = 1e9 + 1e6 * (i / 10.0) + 5e5 * sin(i * 0.7); /* +1 MB/s, bounded wiggle */
        z[i] = 1e9 + (i < N / 2 ? 2e6 * (i / 10.0) : 2e6 * (N / 20.0)) + 5e5 * sin(i * 0.7); /* grows, then flat */
    }
    analyze_trend_t tr;
    CHECK(analyze_trend(&tr, t, y, N, 10) == 0, "trend failed");
    CHECK(fabs(tr.slope - 1e6) < 2e4 && tr.growing && !tr.plateau, "slope %g growing %d plateau %d", tr.slope,
          tr.growing, tr.plateau);
    CHECK(analyze_trend(&tr, t, z, N, 10) == 0, "trend failed");
    CHECK(tr.growing && tr.plateau, "bounded growth: growing %d plateau %d (slope %g [%g %g], floors %g [%g %g], "
          "last third %g [%g %g])", tr.growing, tr.plateau, tr.slope, tr.slope_lo, tr.slope_hi, tr.floor_slope,
          tr.floor_lo, tr.floor_hi, tr.last_third_slope, tr.last_third_lo, tr.last_third_hi);
    CHECK(analyze_trend(&tr, t, w, N, 10) == 0, "trend failed");
    CHECK(!tr.growing, "flat series: growing (slope %g [%g %g], floor rise %g, noise %g)", tr.slope, tr.slope_lo,
          tr.slope_hi, tr.floor_rise, tr.noise);
    CHECK(analyze_trend(&tr, t, w, 2, 10) < 0, "two points: no trend");
}

static void test_csv(void)
{
    char dir[] = "/tmp/zkb-csv-XXXXXX", path[64], err[256];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp");
        return;
    }
    snprintf(path, sizeof path, "%s/a.csv", dir);
    static const char *const req[] = {"t_ms", "kind", NULL}, *const text[] = {"kind", NULL},
                             *const empty[] = {"t_free_ms", NULL};
    static const struct {
        const char *body;
        int ok;      /* expected success */
        size_t rows; /* rows kept */
        int dropped; /* partial tail dropped */
    } c[] = {
        {"t_ms,kind,t_free_ms\n1.5,aux,2\n2.5,abc,\n", 1, 2, 0},
        {"t_ms,kind,t_free_ms\r\n1.5,aux,2\r\n", 1, 1, 0},
        {"t_ms,kind,t_free_ms\n1.5,aux,2\n2.5,ab", 1, 1, 1},      /* killed mid-row */
        {"t_ms,kind,t_free_ms\n1.5,aux,2\n2.5,abc,3", 1, 1, 1},   /* no final newline: torn even if it parses */
        {"t_ms,kind,t_free_ms\n1.5,\"a,\"\"b\"\"\",2\n", 1, 1, 0},     /* a quoted field with a comma and a quote */
        {"t_ms,kind,t_free_ms\n1.5,\"a,b,2\n", 0, 0, 0},           /* unterminated quote */
        {"t_ms,kind,t_free_ms\n1.5,aux,2\n\n\n", 1, 1, 0},         /* blank lines at the end */
        {"t_ms,kind,t_free_ms\n1.5,aux,2\n2.", 1, 1, 1},
        {"t_ms,kind,t_free_ms\n1.5,aux\n2.5,abc,3\n", 0, 0, 0},   /* short row inside */
        {"t_ms,kind,t_free_ms\nx,aux,2\n", 0, 0, 0},              /* not a number */
        {"t_ms,kind,t_free_ms\n,aux,2\n", 0, 0, 0},               /* empty where not allowed */
        {"t_ms,kind,t_free_ms\n1,aux,inf\n", 0, 0, 0},            /* not finite */
        {"time,kind\n1,aux\n", 0, 0, 0},                          /* wrong header */
        {"t_ms,kind,t_ms\n1,aux,2\n", 0, 0, 0},                   /* duplicate column */
        {"", 0, 0, 0},                                            /* empty file */
        {"t_ms,kind,t_free_ms\n", 1, 0, 0},                       /* header only */
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        FILE *f = fopen(path, "w");
        fputs(c[i].body, f);
        fclose(f);
        run_csv_t csv;
        err[0] = '\0';
        int rc = run_csv_read(&csv, path, req, text, empty, err, sizeof err);
        CHECK((rc == 0) == c[i].ok, "case %zu: rc %d (%s)", i, rc, err);
        CHECK(rc < 0 || err[0] == '\0', "case %zu: message on success", i);
        CHECK(rc == 0 || (strstr(err, path) && !strchr(err, '\n')), "case %zu: message '%s'", i, err);
        if (rc == 0) {
            CHECK(csv.nrows == c[i].rows && csv.dropped_tail == (c[i].dropped != 0), "case %zu: rows %zu dropped %d", i,
                  csv.nrows, csv.dropped_tail);
            if (strstr(c[i].body, "\"a,\"\"b\"\""))
                CHECK(strcmp(run_csv_text(&csv, 0, 1), "a,\"b\"") == 0, "quoted field: '%s'", run_csv_text(&csv, 0, 1));
            if (i == 0) {
                CHECK(run_csv_num(&csv, 0, 0) == 1.5 && strcmp(run_csv_text(&csv, 1, 1), "abc") == 0 &&
                          isnan(run_csv_num(&csv, 1, 2)),
                      "case 0 values");
            }
            run_csv_free(&csv);
        }
    }
    /* empty_cols_absent: a column empty in every row is absent, one empty
     * in some rows is damage, a required one empty everywhere is an error;
     * a torn last row goes to the warning sink once */
    static const struct {
        const char *body;
        int ok;
        int absent_col; /* column index expected absent, -1 none */
        const char *msg; /* part of the error */
    } e[] = {
        {"t_ms,rss,je,x\n1,5,,7\n2,6,,8\n", 1, 2, NULL},
        {"t_ms,rss,je,x\n1,5,,7\n2,6,3,8\n", 0, -1, "a.csv:2: column je is empty"},
        {"t_ms,rss,je,x\n1,5,4,7\n2,6,,8\n", 0, -1, "a.csv:3: column je is empty"},
        {"t_ms,rss,je,x\n1,,4,7\n2,,3,8\n", 0, -1, "a.csv:2: column rss is empty"},
        {"t_ms,rss,je,x\n1,5,,7\n2,6,,8\n3,7,,9", 1, 2, NULL},
        {"t_ms,rss,x\n1,5,7\n", 1, -1, NULL},
    };
    static const char *const ereq[] = {"t_ms", "rss", NULL};
    for (size_t i = 0; i < sizeof e / sizeof *e; i++) {
        FILE *f = fopen(path, "w");
        fputs(e[i].body, f);
        fclose(f);
        run_csv_t csv;
        run_csv_opts_t o = {.required = ereq, .empty_cols_absent = true};
        err[0] = '\0';
        warnings = 0;
        run_csv_set_warn(count_warning);
        int rc = run_csv_read_opts(&csv, path, &o, err, sizeof err);
        run_csv_set_warn(NULL);
        CHECK((rc == 0) == e[i].ok, "absent case %zu: rc %d (%s)", i, rc, err);
        CHECK(rc == 0 || (e[i].msg && strstr(err, e[i].msg)), "absent case %zu: message '%s'", i, err);
        if (rc == 0) {
            CHECK(warnings == (csv.dropped_tail ? 1 : 0), "absent case %zu: %d warnings", i, warnings);
            CHECK(csv.nrows == 2 || csv.nrows == 1, "absent case %zu: %zu rows", i, csv.nrows);
            for (size_t j = 0; j < csv.ncols; j++)
                CHECK(run_csv_absent(&csv, j) == ((int)j == e[i].absent_col), "absent case %zu column %zu", i, j);
            if (e[i].absent_col >= 0)
                CHECK(run_csv_col(&csv, "je") == -1 && run_csv_col(&csv, "x") == e[i].absent_col + 1,
                      "absent case %zu: column lookup", i);
            run_csv_free(&csv);
        }
    }
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    seed = check_seed_init();
    test_ols_exact();
    test_ols_se();
    test_t95();
    test_sizes();
    test_trend();
    test_csv();
    if (fails) {
        fprintf(stderr, "%d failures (ZKB_SEED=%lu reproduces)\n", fails, seed);
        return 1;
    }
    printf("analyze unit tests passed\n");
    return 0;
}
