/* The run CSVs (harness/run/run_csv.c): the first byte of an input picks the
 * file ('0' samples.csv, '1' buffers.csv, '2' stages.csv, '3' proofs.csv,
 * by its value mod 4), the rest is its contents. Read raw (any header),
 * then as analyze reads a run (required columns, text and empty fields,
 * time order) and analyzed. */
#include "tests/fuzz/fuzz_run.h"

#include "harness/run/run_csv.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_run_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *name = fuzz_run_files[data[0] % 4];
    fuzz_put(name, data + 1, size - 1);
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    run_csv_t csv;
    if (run_csv_read(&csv, path, NULL, NULL, NULL, err, sizeof err) == 0) {
        for (size_t i = 0; i < csv.nrows && i < 4; i++)
            for (size_t j = 0; j < csv.ncols; j++) {
                (void)run_csv_num(&csv, i, (int)j);
                (void)run_csv_text(&csv, i, (int)j);
            }
        run_csv_free(&csv);
    }
    fuzz_run_analyze();
    fuzz_run_restore(name);
    return 0;
}
