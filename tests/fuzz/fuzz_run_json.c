/* run.json as analyze and check read it (harness/diagnose/analyze.c): loaded with
 * the run's CSVs, then analyzed (config, machine, outcome fields). */
#include "tests/fuzz/fuzz_run.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_run_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_put("run.json", data, size);
    fuzz_run_analyze();
    return 0;
}
