/* Baseline files of zkbench check (harness/cli/cmd_check.c), through the
 * command itself: the run of tests/fuzz/run/ checked against the input.
 * Its report and error lines go to /dev/null (fuzz_quiet). */
#include "tests/fuzz/fuzz_run.h"

#include "harness/cli/commands.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    fuzz_run_init();
    fuzz_quiet();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_put("baseline.json", data, size);
    char path[512];
    snprintf(path, sizeof path, "%s/baseline.json", fuzz_dir());
    char a0[] = "check", a2[] = "--baseline";
    char *argv[] = {a0, (char *)fuzz_dir(), a2, path, NULL};
    (void)cmd_check(4, argv);
    return 0;
}
