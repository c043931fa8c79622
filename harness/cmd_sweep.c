/*
 * `zkbench sweep --pw 2,4,8 [--concurrency J[,J...]] [--ram SIZE] [--out DIR]
 * [batch options]`: one batch per pw value, each in a process of its own
 * (peak RSS and the allocator's state are per process), each analyzed; then
 * the capacity table — pw, s/proof, measured peak, the peak the first run's
 * model predicts — in sweep.csv and sweep.md, the largest pw that fits the
 * RAM, and the sweep plot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/analyze.h"
#include "harness/cli.h"
#include "harness/commands.h"

#define SWEEP_MAX 32

static bool parse_list(unsigned *out, size_t *n, const char *name, const char *text)
{
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return cli_error(2, "sweep: --%s is too long", name), false;
    strcpy(buf, text);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (*n == SWEEP_MAX)
            return cli_error(2, "sweep: --%s takes at most %d values", name, SWEEP_MAX), false;
        if (!cli_parse_u64(&v, "sweep", name, tok))
            return false;
        if (v == 0 || v > 4096)
            return cli_error(2, "sweep: --%s values must be 1..4096, got %s", name, tok), false;
        out[(*n)++] = (unsigned)v;
    }
    if (*n == 0)
        return cli_error(2, "sweep: --%s needs at least one value", name), false;
    return true;
}

static void usage(FILE *f)
{
    fputs("usage: zkbench sweep --pw LIST [--concurrency J|LIST] [--ram SIZE] [--margin PCT]\n"
          "                     [--out DIR] [batch options...]\n"
          "Runs one batch per pw value (in its own process), analyzes each, and writes\n"
          "the capacity table (pw, s/proof, peak, predicted peak) to DIR/sweep.csv and\n"
          "DIR/sweep.md, with the largest pw that fits --ram, and plots it.\n"
          "Other options go to every batch (zkbench batch --help).\n",
          f);
}

/* Value of --name VALUE or --name=VALUE at argv[*i]; advances *i. */
static const char *take_value(int argc, char **argv, int *i, const char *name, bool *matched)
{
    size_t len = strlen(name);
    *matched = false;
    if (strncmp(argv[*i], name, len) != 0)
        return NULL;
    if (argv[*i][len] == '=') {
        *matched = true;
        return argv[*i] + len + 1;
    }
    if (argv[*i][len] != 0)
        return NULL;
    *matched = true;
    if (*i + 1 >= argc)
        return NULL;
    (*i)++;
    return argv[*i];
}

int cmd_sweep(int argc, char **argv)
{
    unsigned pw[SWEEP_MAX], conc[SWEEP_MAX];
    size_t n_pw = 0, n_conc = 0;
    uint64_t ram = 0;
    double margin = 0.10;
    const char *out = NULL;
    char **fwd = calloc((size_t)argc + 16, sizeof *fwd);
    int n_fwd = 0;
    if (!fwd)
        return cli_error(1, "sweep: out of memory");
    for (int i = 1; i < argc; i++) {
        bool m;
        const char *v;
        if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            free(fwd);
            return 0;
        }
        if ((v = take_value(argc, argv, &i, "--pw", &m)) || m) {
            if (!v || !parse_list(pw, &n_pw, "pw", v))
                return free(fwd), v ? 2 : cli_error(2, "sweep: --pw needs a value");
        } else if ((v = take_value(argc, argv, &i, "--concurrency", &m)) || m) {
            if (!v || !parse_list(conc, &n_conc, "concurrency", v))
                return free(fwd), v ? 2 : cli_error(2, "sweep: --concurrency needs a value");
        } else if ((v = take_value(argc, argv, &i, "--ram", &m)) || m) {
            if (!v || !analyze_parse_size(&ram, v) || ram == 0)
                return free(fwd), cli_error(2, "sweep: --ram must be a size like 128G, got '%s'", v ? v : "");
        } else if ((v = take_value(argc, argv, &i, "--margin", &m)) || m) {
            char *end;
            double pct = v ? strtod(v, &end) : -1;
            if (!v || *end || pct < 0 || pct >= 100)
                return free(fwd), cli_error(2, "sweep: --margin must be a percentage 0..99, got '%s'", v ? v : "");
            margin = pct / 100;
        } else if ((v = take_value(argc, argv, &i, "--out", &m)) || m) {
            if (!v)
                return free(fwd), cli_error(2, "sweep: --out needs a value");
            out = v;
        } else {
            fwd[n_fwd++] = argv[i];
        }
    }
    if (n_pw == 0)
        return free(fwd), cli_error(2, "sweep: --pw LIST is required (e.g. --pw 2,4,8)");
    if (n_conc > 1 && n_conc != n_pw)
        return free(fwd), cli_error(2, "sweep: --concurrency takes one value or one per pw value (%zu)", n_pw);

    char dir[4096];
    if (out) {
        snprintf(dir, sizeof dir, "%s", out);
    } else {
        time_t now = time(NULL);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", gmtime(&now));
        snprintf(dir, sizeof dir, "results/runs/sweep-%s", stamp);
    }
    int mk_rc = cli_mkdir_p(dir);
    if (mk_rc < 0)
        return free(fwd), cli_error(2, "sweep: cannot create output folder %s: %s", dir, strerror(-mk_rc));

    struct {
        unsigned pw, conc;
        double s_per_proof, peak, predicted, footprint;
        char verdict[32];
    } row[SWEEP_MAX];
    analyze_result_t first;
    bool have_first = false;
    int status = 0;
    for (size_t k = 0; k < n_pw; k++) {
        char run_dir[4200], pw_s[16], conc_s[16], log[4300];
        snprintf(run_dir, sizeof run_dir, "%s/pw-%u", dir, pw[k]);
        snprintf(log, sizeof log, "%s/pw-%u.log", dir, pw[k]);
        snprintf(pw_s, sizeof pw_s, "%u", pw[k]);
        snprintf(conc_s, sizeof conc_s, "%u", n_conc ? conc[n_conc > 1 ? k : 0] : 1);
        char *args[64 + 16];
        int a = 0;
        args[a++] = "zkbench";
        args[a++] = "batch";
        for (int i = 0; i < n_fwd && a < 64; i++)
            args[a++] = fwd[i];
        args[a++] = "--pw";
        args[a++] = pw_s;
        args[a++] = "--concurrency";
        args[a++] = conc_s;
        args[a++] = "--out";
        args[a++] = run_dir;
        args[a] = NULL;
        printf("sweep: pw %u, concurrency %s -> %s\n", pw[k], conc_s, run_dir);
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            status = cli_error(1, "sweep: fork: %s", strerror(errno));
            break;
        }
        if (pid == 0) {
            FILE *lf = freopen(log, "w", stdout);
            (void)lf;
            execv("/proc/self/exe", args);
            _exit(127);
        }
        int st;
        waitpid(pid, &st, 0);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (code != 0) {
            status = cli_error(code == 2 ? 2 : 1, "sweep: the batch with pw %u failed (exit %d; see %s)", pw[k], code,
                               log);
            break;
        }
        char err[512];
        analyze_run_t *run;
        analyze_result_t r;
        analyze_opts_t ao = {.ram_bytes = ram, .margin = margin};
        if (analyze_run_load(&run, run_dir, err, sizeof err) < 0 || analyze_compute(&r, run, &ao, err, sizeof err) < 0) {
            status = cli_error(1, "sweep: %s", err);
            break;
        }
        analyze_write_verdict(run_dir, &r, err, sizeof err);
        analyze_run_free(run);
        row[k].pw = pw[k];
        row[k].conc = (unsigned)atoi(conc_s);
        row[k].s_per_proof = r.s_per_proof;
        row[k].peak = r.peak_rss;
        row[k].footprint = r.footprint_per_partition;
        snprintf(row[k].verdict, sizeof row[k].verdict, "%s", analyze_verdict_name(r.verdict));
        if (!have_first) {
            first = r;
            have_first = true;
        } else {
            analyze_result_clear(&r);
        }
        row[k].predicted = analyze_predict_peak(&first, (int)pw[k]);
        printf("sweep: pw %u: %.2f s/proof, peak %.2f GiB (predicted %.2f GiB), %s\n", pw[k], row[k].s_per_proof,
               row[k].peak / 1073741824.0, row[k].predicted / 1073741824.0, row[k].verdict);
    }
    free(fwd);
    if (status) {
        if (have_first)
            analyze_result_clear(&first);
        return status;
    }

    char path[4200];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    FILE *f = fopen(path, "w");
    snprintf(path, sizeof path, "%s/sweep.md", dir);
    FILE *md = fopen(path, "w");
    if (!f || !md) {
        if (f)
            fclose(f);
        if (md)
            fclose(md);
        analyze_result_clear(&first);
        return cli_error(1, "sweep: cannot write the capacity table in %s", dir);
    }
    fprintf(f, "pw,concurrency,s_per_proof,peak_rss,predicted_peak_rss,footprint_per_partition,ram_bytes\n");
    fprintf(md, "| pw | concurrency | s/proof | peak RSS (GiB) | predicted peak (GiB) | verdict |\n"
                "|---:|---:|---:|---:|---:|---|\n");
    for (size_t k = 0; k < n_pw; k++) {
        fprintf(f, "%u,%u,%.4f,%.0f,%.0f,%.0f,%llu\n", row[k].pw, row[k].conc, row[k].s_per_proof, row[k].peak,
                isnan(row[k].predicted) ? 0.0 : row[k].predicted, row[k].footprint, (unsigned long long)ram);
        fprintf(md, "| %u | %u | %.2f | %.3f | %.3f | %s |\n", row[k].pw, row[k].conc, row[k].s_per_proof,
                row[k].peak / 1073741824.0, row[k].predicted / 1073741824.0, row[k].verdict);
    }
    if (ram) {
        fprintf(md, "\nLargest pw that fits %.1f GiB with a %.0f%% margin (model of the pw %u run): %d\n",
                (double)ram / 1073741824.0, margin * 100, row[0].pw, first.largest_pw);
        printf("sweep: largest pw that fits %.1f GiB with a %.0f%% margin: %d\n", (double)ram / 1073741824.0,
               margin * 100, first.largest_pw);
    }
    fclose(f);
    fclose(md);
    analyze_result_clear(&first);

    /* the plot, by the plot command in a process of its own */
    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {"zkbench", "plot", dir, NULL};
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int st = 0;
    if (pid > 0)
        waitpid(pid, &st, 0);
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, "zkbench: sweep: the plot failed; the table is in %s/sweep.md\n", dir);
    printf("sweep: capacity table in %s/sweep.csv and %s/sweep.md\n", dir, dir);
    return 0;
}
