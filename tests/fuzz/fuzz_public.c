/* Public-input files of zkbench prove / verify (harness/formats/proof_files.c). */
#include "tests/fuzz/fuzz_common.h"

#include "harness/formats/proof_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size);
    fr_t *inputs = NULL;
    size_t n = 0, n_inputs = 0;
    char msg[512];
    if (public_file_read(path, &inputs, &n, &n_inputs, msg, sizeof msg) == 0)
        free(inputs);
    return 0;
}
