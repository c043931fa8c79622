/*
 * The capacity table of `zkbench sweep`, for batches and for any command
 * alike: one row per point, sweep.csv (the columns below), sweep.md and
 * sweep-model.csv (the model's curve: pw,predicted_peak_rss,predicted_low,
 * predicted_high) written from the rows and a model given as a function.
 */
#ifndef ZKB_SWEEP_TABLE_H
#define ZKB_SWEEP_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/diagnose/analyze.h"

struct sweep_row {
    unsigned pw, conc;
    double s_per_proof, peak, predicted, low, high, footprint;
    /* the anonymous peak (rss_anon), measured and predicted (the predicted
     * RSS less the model run's file-backed RSS at its peak): what a memory
     * cgroup charges in full, so a --mem-limit sweep is held to these */
    double peak_anon, predicted_anon;
    char verdict[32], outcome[32];
    char headline[320]; /* the engine's verdict line (analyze_verdict_lines) */
};

/* Analyzes one finished (or killed) run of the sweep into row (peak, anon
 * peak, s/proof: NAN when no proof completed, footprint, verdict, outcome) and writes its verdict.json; the
 * result kept in *keep when keep is not NULL (analyze_result_clear).
 * 0, or -1 after one error line. */
int sweep_analyze_point(struct sweep_row *row, analyze_result_t *keep, const char *run_dir, uint64_t limit,
                        double margin, const char *limit_from);

/* The model's peak at pw, with its 95% interval (NAN where it has none);
 * false when it predicts nothing there. */
typedef bool (*sweep_predict_fn)(const void *model, unsigned pw, double *peak, double *low, double *high);

/* sweep.csv, sweep.md and sweep-model.csv (its curve for pw 1..pw_top,
 * none when predict is NULL) in dir; false (errno set) when one cannot be
 * written. */
bool sweep_write_tables(const char *dir, const struct sweep_row *row, size_t n, sweep_predict_fn predict,
                        const void *model, uint64_t ram, uint64_t mem_limit, unsigned pw_top);
/* Plots dir's sweep (zkbench plot, in a process of its own; a failure is
 * one line, the table stays), then prints the table. */
void sweep_plot_and_print(const char *dir, const struct sweep_row *row, size_t n, uint64_t ram, uint64_t mem_limit);
/* The table for people: sweep.csv's columns, aligned. */
void sweep_print_table(FILE *f, const struct sweep_row *row, size_t n, uint64_t ram, uint64_t mem_limit);

#endif
