/* The capacity table of zkbench sweep; see sweep_table.h. */
#include "harness/cli/sweep_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/diagnose/analyze.h"
#include "harness/run/units.h"


int sweep_analyze_point(struct sweep_row *row, analyze_result_t *keep, const char *run_dir, uint64_t limit,
                       double margin, const char *limit_from)
{
    char err[768];
    analyze_run_t *run;
    analyze_result_t r;
    analyze_opts_t ao = {.ram_bytes = limit, .margin = margin, .ram_from = limit_from};
    if (analyze_run_open(&run, &r, run_dir, &ao, err, sizeof err) < 0) /* nothing left to free */
        return fprintf(stderr, "zkbench: sweep: %s\n", err), -1;
    analyze_write_verdict(run_dir, &r, err, sizeof err);
    const char *oc = json_string_value(json_object_get(analyze_run_json(run), "outcome"));
    snprintf(row->outcome, sizeof row->outcome, "%s", oc ? oc : "complete");
    analyze_run_free(run);
    /* a run that completed no proof has no time per proof */
    row->s_per_proof = r.proofs_done ? r.s_per_proof : NAN;
    row->peak = r.peak_rss;
    row->peak_anon = r.peak_anon;
    row->footprint = r.footprint_per_partition;
    snprintf(row->verdict, sizeof row->verdict, "%s", analyze_verdict_name(r.verdict));
    snprintf(row->headline, sizeof row->headline, "%s", r.headline);
    if (keep)
        *keep = r;
    else
        analyze_result_clear(&r);
    return 0;
}

/* sweep.csv's columns, in order; the stdout table has the same. */
static const char *const csv_cols[] = {"pw", "concurrency", "s_per_proof", "peak_rss", "predicted_peak_rss",
                                       "footprint_per_partition", "ram_bytes", "predicted_low", "predicted_high",
                                       "mem_limit", "peak_anon", "predicted_peak_anon", "outcome"};
#define NCOLS (sizeof csv_cols / sizeof csv_cols[0])

/* Row r's fields in csv_cols' order: for sweep.csv (human false: bytes as
 * integers, s/proof to 4 places) or for people (sizes in units, s/proof to
 * 3 places). A value that is unknown (not finite, or no --ram) is "" in
 * the file — never "nan", which readers reject — and "-" for people. */
static void row_fields(char out[NCOLS][40], const struct sweep_row *r, uint64_t ram, uint64_t mem_limit, bool human)
{
    const char *none = human ? "-" : "";
    double bytes[] = {r->peak,  r->predicted, r->footprint, ram ? (double)ram : NAN, r->low, r->high,
                      mem_limit ? (double)mem_limit : NAN};
    snprintf(out[0], 40, "%u", r->pw);
    snprintf(out[1], 40, "%u", r->conc);
    if (isfinite(r->s_per_proof))
        snprintf(out[2], 40, human ? "%.3f" : "%.4f", r->s_per_proof);
    else
        snprintf(out[2], 40, "%s", none);
    for (size_t i = 0; i < sizeof bytes / sizeof bytes[0]; i++) {
        char b[32];
        if (!isfinite(bytes[i]) || (i >= 4 && i <= 5 && !isfinite(r->predicted)))
            snprintf(out[3 + i], 40, "%s", none);
        else if (human)
            snprintf(out[3 + i], 40, "%s", fmt_bytes(b, bytes[i]));
        else
            snprintf(out[3 + i], 40, "%.0f", bytes[i]);
    }
    double anon[] = {r->peak_anon, r->predicted_anon};
    for (size_t i = 0; i < 2; i++) {
        char b[32];
        if (!isfinite(anon[i]))
            snprintf(out[10 + i], 40, "%s", none);
        else if (human)
            snprintf(out[10 + i], 40, "%s", fmt_bytes(b, anon[i]));
        else
            snprintf(out[10 + i], 40, "%.0f", anon[i]);
    }
    snprintf(out[12], 40, "%s", r->outcome); /* last: scripts match ",oom-killed$" */
}

void sweep_print_table(FILE *f, const struct sweep_row *row, size_t n, uint64_t ram, uint64_t mem_limit)
{
    int width[NCOLS];
    char fields[NCOLS][40];
    for (size_t c = 0; c < NCOLS; c++)
        width[c] = (int)strlen(csv_cols[c]);
    for (size_t k = 0; k < n; k++) {
        row_fields(fields, &row[k], ram, mem_limit, true);
        for (size_t c = 0; c < NCOLS; c++)
            if ((int)strlen(fields[c]) > width[c])
                width[c] = (int)strlen(fields[c]);
    }
    for (size_t c = 0; c < NCOLS; c++)
        fprintf(f, c + 1 < NCOLS ? "%*s  " : "%.*s\n", width[c], csv_cols[c]);
    for (size_t k = 0; k < n; k++) {
        row_fields(fields, &row[k], ram, mem_limit, true);
        for (size_t c = 0; c < NCOLS; c++)
            fprintf(f, c + 1 < NCOLS ? "%*s  " : "%.*s\n", width[c], fields[c]);
    }
}

bool sweep_write_tables(const char *dir, const struct sweep_row *row, size_t n, sweep_predict_fn predict,
                        const void *model, uint64_t ram, uint64_t mem_limit, unsigned pw_top)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    FILE *f = fopen(path, "w");
    snprintf(path, sizeof path, "%s/sweep.md", dir);
    FILE *md = fopen(path, "w");
    snprintf(path, sizeof path, "%s/sweep-model.csv", dir);
    FILE *mf = fopen(path, "w");
    bool ok = f && md && mf;
    if (ok) {
        for (size_t c = 0; c < NCOLS; c++)
            fprintf(f, "%s%c", csv_cols[c], c + 1 < NCOLS ? ',' : '\n');
        /* under a cap the anonymous peak is what the prediction is held to
         * (the cgroup may reclaim file-backed pages), else RSS */
        fprintf(md, "| pw | concurrency | s/proof | peak RSS (GiB) | predicted peak (GiB) | 95%% interval (GiB) | "
                    "anon peak (GiB) | predicted anon (GiB) | error%s | outcome | verdict |\n"
                    "|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|\n",
                mem_limit ? " (anon)" : "");
        for (size_t k = 0; k < n; k++) {
            const struct sweep_row *r = &row[k];
            char fields[NCOLS][40];
            row_fields(fields, r, ram, mem_limit, false);
            for (size_t c = 0; c < NCOLS; c++)
                fprintf(f, "%s%c", fields[c], c + 1 < NCOLS ? ',' : '\n');
            char sp[32] = "-", peak[32] = "-", pred[32] = "-", band[64] = "-", errs[32] = "-", an[32] = "-",
                 pan[32] = "-";
            if (isfinite(r->peak_anon))
                snprintf(an, sizeof an, "%.3f", r->peak_anon / GIB);
            if (isfinite(r->predicted_anon))
                snprintf(pan, sizeof pan, "%.3f", r->predicted_anon / GIB);
            if (isfinite(r->s_per_proof))
                snprintf(sp, sizeof sp, "%.2f", r->s_per_proof);
            if (isfinite(r->peak))
                snprintf(peak, sizeof peak, "%.3f", r->peak / GIB);
            if (isfinite(r->predicted)) {
                snprintf(pred, sizeof pred, "%.3f", r->predicted / GIB);
                snprintf(band, sizeof band, "%.3f .. %.3f", r->low / GIB, r->high / GIB);
                double meas = mem_limit ? r->peak_anon : r->peak, want = mem_limit ? r->predicted_anon : r->predicted;
                if (strcmp(r->outcome, "complete") == 0 && isfinite(meas) && meas > 0 && isfinite(want))
                    snprintf(errs, sizeof errs, "%+.1f%%", 100 * (want - meas) / meas);
            }
            fprintf(md, "| %u | %u | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->pw, r->conc, sp, peak, pred,
                    band, an, pan, errs, r->outcome, r->verdict);
        }
        fprintf(mf, "pw,predicted_peak_rss,predicted_low,predicted_high\n");
        for (unsigned w = 1; predict && w <= pw_top; w++) {
            double peak, low, high;
            if (!predict(model, w, &peak, &low, &high))
                continue;
            if (isfinite(low) && isfinite(high))
                fprintf(mf, "%u,%.0f,%.0f,%.0f\n", w, peak, low, high);
            else
                fprintf(mf, "%u,%.0f,,\n", w, peak);
        }
    }
    if (f && fclose(f) != 0)
        ok = false;
    if (md && fclose(md) != 0)
        ok = false;
    if (mf && fclose(mf) != 0)
        ok = false;
    return ok;
}


void sweep_plot_and_print(const char *dir, const struct sweep_row *row, size_t n, uint64_t ram, uint64_t mem_limit)
{
    /* the plot, by the plot command in a process of its own (after what
     * this process printed) */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {"zkbench", "plot", (char *)dir, NULL};
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int st = 0;
    if (pid > 0)
        waitpid(pid, &st, 0);
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "zkbench: sweep: the plot failed; the table is in %s/sweep.md\n", dir);
    printf("sweep: capacity table in %s/sweep.md (sweep.csv, sweep-model.csv)\n\n", dir);
    sweep_print_table(stdout, row, n, ram, mem_limit);
}
