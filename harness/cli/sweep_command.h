/*
 * `zkbench sweep --pw LIST [--ram SIZE | --mem-limit SIZE [--verify]] -- CMD
 * ARGS...`: the capacity of any prover. Each pw value is a `zkbench watch`
 * of CMD with `{pw}` in its arguments replaced by the value (in a process
 * of its own; capped with --mem-limit); the peaks of the runs that
 * completed are fitted as peak = B + F*pw, with the 95% prediction
 * interval when three or more pw values completed; the largest pw whose
 * predicted peak fits the limit (less the margin) is given; --verify runs
 * it and the next one under the cap. The tables are those of a batch
 * sweep (sweep_table.h).
 */
#ifndef ZKB_SWEEP_COMMAND_H
#define ZKB_SWEEP_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sweep_command_opts {
    const unsigned *pw;
    size_t n_pw;
    uint64_t ram, mem_limit; /* one of them, or neither */
    const char *mem_limit_text;
    double margin;   /* fraction of the limit kept free */
    bool verify, force;
    const char *out; /* --out, or NULL */
    char **cmd;      /* the command, NULL-terminated */
    const char *mark, *sample_ms; /* passed to watch, or NULL */
    bool trace;
};

/* Runs the sweep; its exit status (0, or 1 after one error line; 2 when
 * its folder cannot be made). */
int sweep_command(const struct sweep_command_opts *o);

/* The fit of peak = b + f*pw over n points (pw distinct in at least two). */
typedef struct {
    bool ok;
    size_t n;
    double b, f;       /* bytes, bytes per pw */
    double s;          /* residual standard deviation (n >= 3), else NAN */
    double xbar, sxx;  /* the pw values' mean and sum of squared deviations */
    double f_low, f_high; /* the slope's 95% interval (n >= 3), else NAN */
} sweep_line_t;

/* Least squares over (x[i], y[i]); ok false with fewer than 2 distinct x. */
void sweep_line_fit(sweep_line_t *m, const double *x, const double *y, size_t n);
/* The prediction at pw with its 95% prediction interval (NAN with 2 points). */
bool sweep_line_predict(const void *model, unsigned pw, double *peak, double *low, double *high);

#endif
