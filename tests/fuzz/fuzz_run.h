/*
 * The run-folder harnesses (run_csv, run_json, baseline) start from a real
 * small run, tests/fuzz/run/ (zkbench batch --circuit porep:constraints=2^10
 * --partitions 1 --count 2 --sample-ms 25), copied into fuzz_dir(); each
 * input replaces one of its files. FUZZ_RUN_DIR is set by meson.build.
 */
#ifndef ZKB_FUZZ_RUN_H
#define ZKB_FUZZ_RUN_H
#include "tests/fuzz/fuzz_common.h"

#include "harness/diagnose/analyze.h"

static const char *const fuzz_run_files[] = {"samples.csv", "buffers.csv", "stages.csv", "proofs.csv", "run.json"};

/* Copies FUZZ_RUN_DIR/name into fuzz_dir(). */
static inline void fuzz_run_restore(const char *name)
{
    char src[1024];
    snprintf(src, sizeof src, "%s/%s", FUZZ_RUN_DIR, name);
    FILE *f = fopen(src, "rb");
    if (!f)
        fuzz_die(src);
    static uint8_t buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    fuzz_put(name, buf, n);
}

static inline void fuzz_run_init(void)
{
    for (size_t i = 0; i < sizeof fuzz_run_files / sizeof *fuzz_run_files; i++)
        fuzz_run_restore(fuzz_run_files[i]);
}

/* What analyze and check do with a run folder: load (CSV and run.json
 * readers, their consistency checks) and analyze. */
static inline void fuzz_run_analyze(void)
{
    char err[1024];
    analyze_run_t *run = NULL;
    if (analyze_run_load(&run, fuzz_dir(), err, sizeof err) < 0)
        return;
    analyze_result_t r;
    analyze_opts_t o = {.ram_bytes = 0, .margin = 0.10};
    if (analyze_compute(&r, run, &o, err, sizeof err) == 0)
        analyze_result_clear(&r);
    analyze_run_free(run);
}
#endif
